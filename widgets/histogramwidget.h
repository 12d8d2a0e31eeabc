#pragma once

#include "histogrambins.h"

#include <QWidget>

#include <vector>

class QLabel;
class QChart;
class QChartView;
class QBarSet;

namespace etscope {

// Distribution of one event's durations over runs (perf_data.raw) with p10/p50/p90 markers.
class HistogramWidget : public QWidget
{
    Q_OBJECT
public:
    explicit HistogramWidget(QWidget *parent = nullptr);

    void setValues(const QString &eventName, const std::vector<double> &values, double p10, double p50, double p90,
                   const QString &unit);
    void clear();

    // For tests and exports.
    const HistogramBins &bins() const { return m_bins; }
    int totalCount() const;
    QChart *chart() const { return m_chart; }
    QWidget *chartView() const;

private:
    void onHovered(bool status, int index);

    QChart *m_chart = nullptr;
    QChartView *m_view = nullptr;
    QLabel *m_hint = nullptr;
    HistogramBins m_bins;
    QString m_unit;
};

} // namespace etscope
