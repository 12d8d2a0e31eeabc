#pragma once

#include <QStringList>
#include <QWidget>

#include <optional>
#include <vector>

class QBarSeries;
class QChart;
class QChartView;
class QLabel;

namespace etscope {

// One figure group of N recordings side by side as grouped bars: a group per category (a phase,
// an operator), one bar per recording in a fixed colour per recording, the value above each bar.
// A recording without a value in a category draws no bar there, and the category's label says
// so with a "*" and a line under the chart naming the recordings — never a bar of 0.
class GroupedBarsChart : public QWidget
{
    Q_OBJECT
public:
    explicit GroupedBarsChart(QWidget *parent = nullptr);

    // values[recording][category]
    void setBars(const QString &title, const QString &unit, const QStringList &categories,
        const QStringList &recordings, const std::vector<std::vector<std::optional<double>>> &values);
    void clear();

    QChartView *chartView() const { return m_view; }
    QBarSeries *series() const { return m_series; } // null when empty
    QStringList categories() const { return m_categories; } // as drawn (with their "*")
    QString footnote() const;

    QSize sizeHint() const override { return { 640, 320 }; }
    QSize minimumSizeHint() const override { return { 240, 160 }; }

private:
    QChart *m_chart;
    QChartView *m_view;
    QLabel *m_note;
    QBarSeries *m_series = nullptr;
    QStringList m_categories;
};

} // namespace etscope
