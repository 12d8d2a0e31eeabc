#pragma once

#include "evalgap/decompose.h"

#include <QWidget>

#include <vector>

namespace etscope::gapui {

// Where a quantized model's error comes from, one stacked bar per op in execution order. A bar's
// length is the total error (float twin against the runtime) on the gap views' severity scale
// (analysis::gapSeverity: the dashed line is the noise level, the right edge four decades above
// it); the bar is split into the share of the error that quantization introduces (blue) and the
// share the kernels add (orange), evalgap::errorSplit (the report's rule too). Bars within the noise level are
// drawn pale. The dominant part is written after the bar; hover shows the three errors, a click
// selects the op's runtime event.
class DecompositionChart : public QWidget
{
    Q_OBJECT
public:
    explicit DecompositionChart(QWidget *parent = nullptr);

    void setDecomposition(const evalgap::Decomposition *d); // null clears

    int rowCount() const { return int(m_rows.size()); }
    // Geometry, for tests: the whole bar, its quantization and kernel parts, the noise line.
    QRectF barRect(int row) const;
    QRectF quantRect(int row) const;
    QRectF kernelRect(int row) const;
    double noiseX() const;
    int rowAt(const QPoint &p) const; // -1 outside the rows
    QString toolTipText(int row) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return QSize(360, 80); }

    static constexpr int kRowHeight = 18;
    static constexpr int kHeaderHeight = 26;

Q_SIGNALS:
    void opClicked(int row);
    void eventSelected(int blockIndex, int eventIndex);

protected:
    void paintEvent(QPaintEvent *) override;
    bool event(QEvent *e) override;
    void mousePressEvent(QMouseEvent *e) override;

private:
    struct Row {
        QString label;
        int blockIndex = -1, eventIndex = -1;
        double length = 0; // severity of the total error in [0, 1]; NaN: no total
        double quantShare = 0, kernelShare = 0; // NaN: no split
        bool aboveNoise = false;
        evalgap::Dominant dominant = evalgap::Dominant::Noise;
        QString tip;
    };
    double barLeft() const;
    double barWidth() const;

    std::vector<Row> m_rows;
    int m_labelWidth = 80;
};

} // namespace etscope::gapui
