#pragma once

#include "analysis/compareresults.h"

#include <QWidget>

#include <vector>

namespace etscope::gapui {

// compare_results as a chart: one panel per metric (snr, mse, cosine_similarity, the
// Inspector's order), one bar per output. Infinite SNR (identical output) is drawn as a full
// hatched bar labelled "inf"; outputs that are not tensors are labelled "none".
class CompareResultsChart : public QWidget
{
    Q_OBJECT
public:
    explicit CompareResultsChart(QWidget *parent = nullptr);
    void setResults(std::vector<analysis::OutputComparison> rows);
    const std::vector<analysis::OutputComparison> &results() const { return m_rows; }
    QSize sizeHint() const override { return QSize(720, 260); }
    // Under each panel's bars: their output indices and this title.
    static QString xAxisTitle();

protected:
    void paintEvent(QPaintEvent *) override;

private:
    std::vector<analysis::OutputComparison> m_rows;
};

} // namespace etscope::gapui
