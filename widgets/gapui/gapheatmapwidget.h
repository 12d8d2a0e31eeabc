#pragma once

#include "analysis/numericgap.h"

#include <QWidget>

#include <vector>

namespace etscope::gapui {

// Numeric-gap heatmap: one row per gap-table row (execution order), one column per metric and
// output index. Colour is the one scale of every gap view (analysis::gapSeverity): cool while a
// gap is within the noise level its dtype explains, warm above it, the same for every column;
// flagged cells are outlined. The legend names metric, mode and threshold. Delegated rows carry
// an orange marker and their backend name. Hover shows the value and its noise level, click
// emits the runtime event so the rest of the GUI can select it (tree, details, stack trace).
class GapHeatmapWidget : public QWidget
{
    Q_OBJECT
public:
    explicit GapHeatmapWidget(QWidget *parent = nullptr);

    // Tables computed for the same runtime/reference pair with different metrics; rows are
    // taken from the first table and matched by (block, event) in the others.
    void setTables(std::vector<analysis::GapTable> tables);
    int rowCount() const { return int(m_rows.size()); }
    int columnCount() const { return int(m_columns.size()); }
    // Cell value (NaN when absent), its colour position in [0, 1] (analysis::gapSeverity:
    // below 0.5 noise, 0.5 and above flagged) and whether it is flagged, for tests.
    double value(int row, int column) const;
    double severity(int row, int column) const;
    bool flagged(int row, int column) const;
    QString legend() const { return m_legend; }
    QRect cellRect(int row, int column) const;

    QSize sizeHint() const override;
    // Writes the heatmap at its size hint: SVG when the name ends in .svg, else a raster image
    // in the format the suffix names (PNG, ...). Returns false when the file cannot be written.
    bool saveImage(const QString &path);

Q_SIGNALS:
    void eventSelected(int blockIndex, int eventIndex);
    void legendChanged();

protected:
    void paintEvent(QPaintEvent *) override;
    bool event(QEvent *e) override;
    void mousePressEvent(QMouseEvent *e) override;

private:
    struct Column {
        QString title;
        analysis::Metric metric;
        int table;
        int output;
    };
    struct Row {
        QString label;
        int blockIndex, eventIndex;
        bool delegated;
        QString backend;
        std::vector<double> values; // per column
        std::vector<double> noise; // per column: the threshold the value is judged by
        std::vector<double> excess; // per column: analysis::excessOverNoise
        std::vector<char> flagged; // per column
    };
    bool hitTest(const QPoint &p, int &row, int &column) const;

    std::vector<Column> m_columns;
    std::vector<Row> m_rows;
    QString m_legend;
    bool m_exporting = false; // the legend is painted under the rows only into an export
    int m_labelWidth = 260;
    static constexpr int kCellW = 70, kCellH = 18, kHeaderH = 22, kLegendH = 52;
};

// The heatmap's legend, kept in view above its scroll area: metric, mode and threshold, and the
// colour scale from exact to far above noise.
class GapHeatmapLegend : public QWidget
{
    Q_OBJECT
public:
    explicit GapHeatmapLegend(GapHeatmapWidget *heatmap, QWidget *parent = nullptr);
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool hasHeightForWidth() const override;
    int heightForWidth(int width) const override;

protected:
    void paintEvent(QPaintEvent *) override;

private:
    GapHeatmapWidget *m_heatmap;
};

} // namespace etscope::gapui
