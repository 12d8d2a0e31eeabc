#pragma once

#include "analysis/numericgap.h"

#include <QWidget>

#include <vector>

namespace etscope::gapui {

// Numeric-gap heatmap: one row per gap-table row (execution order), one column per metric and
// output index. Colour encodes "how bad" on a log scale (error metrics: log10 of the value;
// SNR in dB is already logarithmic; cosine: log10(1 - cos)), legend at the bottom. Delegated
// rows carry an orange marker and their backend name. Hover shows the value, click emits the
// runtime event so the rest of the GUI can select it (tree, details, stack trace).
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
    // Cell value (NaN when absent) and its colour position in [0, 1] (1 = worst), for tests.
    double value(int row, int column) const;
    double severity(int row, int column) const;
    QRect cellRect(int row, int column) const;

    QSize sizeHint() const override;
    // Writes the heatmap at its size hint: SVG when the name ends in .svg, else a raster image
    // in the format the suffix names (PNG, ...). Returns false when the file cannot be written.
    bool saveImage(const QString &path);

signals:
    void eventSelected(int blockIndex, int eventIndex);

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
        double lo = 0, hi = 1; // range of the transformed values
    };
    struct Row {
        QString label;
        int blockIndex, eventIndex;
        bool delegated;
        QString backend;
        std::vector<double> values; // per column
    };
    double transformed(const Column &c, double v) const;
    bool hitTest(const QPoint &p, int &row, int &column) const;

    std::vector<Column> m_columns;
    std::vector<Row> m_rows;
    int m_labelWidth = 260;
    static constexpr int kCellW = 70, kCellH = 18, kHeaderH = 22, kLegendH = 46;
};

} // namespace etscope::gapui
