#pragma once

#include "analysis/latencydiff.h"
#include "session/session.h"
#include "timelinelayout.h"

#include <QWidget>

#include <memory>

class QChart;
class QChartView;
class QLabel;

namespace etscope {

// Waterfall of the total Δ: A's total, then the rows with the biggest |Δ| as floating bars
// (red up = slower, green down = faster), "others" folded into one bar, then B's total.
class DiffWaterfallChart : public QWidget
{
    Q_OBJECT
public:
    explicit DiffWaterfallChart(QWidget *parent = nullptr);
    void setDiff(std::shared_ptr<const LatencyDiff> diff, int maxBars = 12);
    QChart *chart() const { return m_chart; }
    // Row index (into LatencyDiff::rows) of each contributor bar, in bar order (for tests).
    const std::vector<int> &barRows() const { return m_barRows; }
    // Running level after each bar: A total, A + Δ1, ..., B total.
    const std::vector<double> &levels() const { return m_levels; }

    // How many of the largest contributors fit the width with readable labels (at most maxBars).
    int barsThatFit() const;

Q_SIGNALS:
    void rowClicked(int diffRow);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void build(int bars);
    static constexpr int kRoomyHeight = 240; // below: no title and legend, room for the labels

    QString m_title;
    QChart *m_chart = nullptr;
    QChartView *m_view = nullptr;
    std::shared_ptr<const LatencyDiff> m_diff;
    std::vector<int> m_contributors; // rows that changed, largest |Δ| first, at most maxBars
    std::vector<int> m_barRows;
    std::vector<double> m_levels;
};

// Overlaid latency histograms of one diff row: A and B on the same bins.
class DiffHistogramWidget : public QWidget
{
    Q_OBJECT
public:
    explicit DiffHistogramWidget(QWidget *parent = nullptr);
    void setRow(const DiffRow *row, const QString &unit);
    QChart *chart() const { return m_chart; }
    int countA() const { return m_countA; }
    int countB() const { return m_countB; }

private:
    QChart *m_chart = nullptr;
    QChartView *m_view = nullptr;
    QLabel *m_hint = nullptr;
    int m_countA = 0, m_countB = 0;
};

// One run of A above one run of B, same time axis (the longer span), events of the selected row
// highlighted in both.
class DualTimelineWidget : public QWidget
{
    Q_OBJECT
public:
    explicit DualTimelineWidget(QWidget *parent = nullptr);
    void setSessions(std::shared_ptr<const Session> a, std::shared_ptr<const Session> b);
    // Shows the blocks of these events (run 0) and highlights them.
    void highlight(const std::vector<EventPos> &a, const std::vector<EventPos> &b);
    double axisSpan() const { return m_span; }
    const TimelineLayout &layoutA() const { return m_layoutA; }
    const TimelineLayout &layoutB() const { return m_layoutB; }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    void relayout();
    std::shared_ptr<const Session> m_a, m_b;
    int m_blockA = -1, m_blockB = -1;
    TimelineLayout m_layoutA, m_layoutB;
    std::vector<int> m_hiA, m_hiB;
    double m_span = 0;
};

} // namespace etscope
