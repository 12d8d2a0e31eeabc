#pragma once

#include "analysis/numericgap.h"

#include <QWidget>

#include <vector>

class QBoxLayout;
class QLabel;
class QTableWidget;

namespace etscope::gapui {

// Statistics of one compared tensor pair, computed without Qt so tests can check them.
struct TensorPairStats {
    struct Stats {
        double min = 0, max = 0, mean = 0, stddev = 0;
    };
    Stats reference, runtime, difference; // difference = runtime - reference
    std::vector<int> histogram; // counts of log10|diff| per bin (exact zeros excluded)
    double histLo = 0, histHi = 0; // log10 range of the bins
    std::int64_t exactZeros = 0;
    struct Worst {
        std::vector<std::int64_t> index; // multi-index into the shape
        double reference, runtime, absDiff;
    };
    std::vector<Worst> worst; // largest |diff| first
    bool comparable = false;
    QString message; // why not comparable
};
TensorPairStats computePairStats(
    const analysis::NumTensor &ref, const analysis::NumTensor &run, int bins = 24, int worstCount = 10);

// Tensor inspector for one gap row: shape/dtype, min/max/mean/std of reference, runtime and
// their difference, a histogram of the element-wise error (log10 |diff|), the worst elements.
class TensorInspectorWidget : public QWidget
{
    Q_OBJECT
public:
    explicit TensorInspectorWidget(QWidget *parent = nullptr);
    void setRow(const analysis::GapRow &row, int output = 0);
    const TensorPairStats &stats() const { return m_stats; }
    // Statistics, histogram and worst elements in one row (a wide dock under this height) or
    // stacked.
    static constexpr int kStackedHeight = 360;
    bool sideBySide() const;
    QTableWidget *statsTable() const { return m_statsTable; }
    QWidget *histogram() const;
    QTableWidget *worstTable() const { return m_worstTable; }

    // Its minimum size, not the tables' preferred heights, is what a scroll area must give it
    // (QScrollArea asks the layout's height-for-width of the word-wrapped header).
    bool hasHeightForWidth() const override { return false; }
    int heightForWidth(int) const override { return -1; }

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void fitStatsTable();
    class Histogram;
    QLabel *m_header;
    QTableWidget *m_statsTable;
    Histogram *m_hist;
    QTableWidget *m_worstTable;
    QBoxLayout *m_body = nullptr;
    TensorPairStats m_stats;
};

} // namespace etscope::gapui
