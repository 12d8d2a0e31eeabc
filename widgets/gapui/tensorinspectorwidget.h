#pragma once

#include "analysis/numericgap.h"

#include <QWidget>

#include <vector>

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

private:
    class Histogram;
    QLabel *m_header;
    QTableWidget *m_statsTable;
    Histogram *m_hist;
    QTableWidget *m_worstTable;
    TensorPairStats m_stats;
};

} // namespace etscope::gapui
