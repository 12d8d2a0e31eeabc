#pragma once

#include "histogrambins.h"

#include <QWidget>

#include <span>
#include <vector>

class QLabel;
class QChart;
class QChartView;
class QBarSet;
class QCheckBox;

namespace etscope {

// Distribution of one event's durations over runs (perf_data.raw) with p10/p50/p90 markers.
class HistogramWidget : public QWidget
{
    Q_OBJECT
public:
    explicit HistogramWidget(QWidget *parent = nullptr);

    void setValues(const QString &eventName, std::span<const double> values, double p10, double p50, double p90,
        const QString &unit);
    void clear();

    // For tests and exports.
    const HistogramBins &bins() const { return m_bins; }
    int totalCount() const;
    QChart *chart() const { return m_chart; }
    QWidget *chartView() const;
    QBarSet *barSet() const { return m_set; }

    // Long tails (one 2 ms run among 17,600 at 0.33 ms) squash the distribution into one bar:
    // values above the 99th percentile then go into one red "> p99" bar at the right.
    void setClipToP99(bool on);
    bool clipToP99() const;
    int outlierCount() const { return m_outliers; } // runs in the "> p99" bar (0 when not clipped)
    double clipValue() const { return m_clipAt; }
    // Indices into the values (= runs of the block) that fall into bar `index`.
    QList<int> runsInBar(int index) const;
    // Tick labels of the x axis, left to right (for tests).
    QStringList tickLabels() const;
    // In a short dock the chart's legend gives its room to the plot; this one line under it
    // names the p10/p50/p90 lines instead ("p10 0.2824 ms", in each line's colour).
    QLabel *markerLegend() const { return m_markerLegend; }
    static constexpr int kCompactBelow = 280; // px of height: title, legend and axis titles hidden below it
    static constexpr int kMinimumChartHeight = 90; // the bars, the count ticks and the latency ticks

Q_SIGNALS:
    // A bar was clicked: these runs (indices into the values given to setValues).
    void runsSelected(const QList<int> &runs, const QString &description);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void fitToHeight();
    void onHovered(bool status, int index);
    void rebuild();

    QChart *m_chart = nullptr;
    QChartView *m_view = nullptr;
    QString m_title;
    QString m_legendText; // the marker legend as plain text (tooltip when it has no room)
    QLabel *m_hint = nullptr;
    QCheckBox *m_clipBox = nullptr;
    QLabel *m_markerLegend = nullptr;
    QBarSet *m_set = nullptr;
    HistogramBins m_bins;
    QString m_unit;
    QString m_name;
    std::vector<double> m_values;
    double m_p10 = 0, m_p50 = 0, m_p90 = 0;
    double m_clipAt = 0; // p99 when clipping
    int m_outliers = 0;
};

} // namespace etscope
