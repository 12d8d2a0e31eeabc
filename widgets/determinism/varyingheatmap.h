#pragma once

#include "analysis/determinism.h"

#include <QImage>
#include <QWidget>

#include <optional>

namespace etscope {

// Where one logged tensor varies over the runs (analysis/determinism.h: VaryingMap): its last two
// dimensions as a grid, rows down and columns across, each cell coloured by the number of runs in
// which it differs from the majority (grey: never; yellow to red: 1 to the most). The varying
// tile (the bounding box of the differing elements) is outlined, the axes name rows and columns
// with their element indices, the legend gives the colour scale and what one cell stands for
// (pooled cells of a large tensor are said so). Hover names the cell's elements and its count.
class VaryingHeatmap : public QWidget
{
    Q_OBJECT
public:
    explicit VaryingHeatmap(QWidget *parent = nullptr);

    // `title`: which tensor ("#2 native_call_mm.out float32[64, 64]"); `region` the report's tile.
    void setMap(const VaryingMap &map, const std::optional<VaryingRegion> &region, const QString &title);
    // Nothing to show, and why (one line).
    void clear(const QString &why);

    const std::optional<VaryingMap> &map() const { return m_map; }
    QString caption() const; // what the legend says under the title
    // Where the grid and the outlined tile are drawn (widget coordinates; empty when none).
    QRectF gridRect() const;
    QRectF tileRect() const;
    // The grid cell under a point, or (-1, -1).
    QPoint cellAt(QPointF pos) const;

    QSize sizeHint() const override { return { 420, 360 }; }
    QSize minimumSizeHint() const override { return { 220, 180 }; }

protected:
    void paintEvent(QPaintEvent *) override;
    bool event(QEvent *e) override;

private:
    QColor colorOf(std::uint32_t count) const;

    std::optional<VaryingMap> m_map;
    std::optional<VaryingRegion> m_region;
    QString m_title, m_empty;
    QImage m_image; // one pixel per cell
};

} // namespace etscope
