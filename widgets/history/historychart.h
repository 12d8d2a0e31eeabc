#pragma once

#include "analysis/history.h"

#include <QStringList>
#include <QWidget>

#include <memory>

class QCategoryAxis;
class QChart;
class QChartView;
class QValueAxis;

namespace etscope {

// One series of a history over its recordings (analysis/history.h): the p50 of each recording as
// a point on a line, its p10–p90 spread as a band, every change point as a red vertical marker
// between the recordings on either side with the mean p50 before and after it as orange steps.
// The x axis names the recordings by label, thinned so that the labels shown never overlap.
// Clicking a point asks to open that recording; clicking a marker or a mean asks for the
// comparison of the recordings on either side of that change.
class HistoryChart : public QWidget
{
    Q_OBJECT
public:
    explicit HistoryChart(QWidget *parent = nullptr);

    // `series` into history->series; null: nothing to show.
    void setSeries(std::shared_ptr<const History> history, std::size_t series);
    QSize sizeHint() const override { return { 640, 300 }; }
    QSize minimumSizeHint() const override { return { 240, 160 }; }

    QChartView *chartView() const { return m_view; }
    // The labels the x axis shows now (thinned to fit), in order.
    QStringList shownLabels() const;
    // Where a recording's point (index in the series) and a change's marker are drawn, in
    // chartView()'s viewport coordinates (what a click there selects).
    QPoint pointPosition(std::size_t point) const;
    QPoint changePosition(std::size_t change) const; // change: into History::changes
    std::size_t changeMarkerCount() const { return m_changes.size(); }

Q_SIGNALS:
    // The recording at `point` (index in the series' program) was clicked: History::recordings[recording].
    void recordingClicked(std::size_t recording);
    void changeClicked(std::size_t change); // into History::changes

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    int changeAt(QPoint pos) const; // into m_changes, -1 when no change is near
    void rebuild();
    void relabel(); // thins the x labels to the plot's width

    std::shared_ptr<const History> m_history;
    std::size_t m_series = 0;
    std::vector<std::size_t> m_changes; // the series' changes, into History::changes
    QChart *m_chart;
    QChartView *m_view;
    QCategoryAxis *m_x = nullptr;
    QValueAxis *m_y = nullptr;
    int m_labelStep = 0;
};

} // namespace etscope
