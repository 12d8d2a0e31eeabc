#include "histogramwidget.h"

#include "eventtreemodel.h"

#include <QBarSeries>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QToolTip>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace etscope {

HistogramWidget::HistogramWidget(QWidget *parent)
    : QWidget(parent)
    , m_chart(new QChart)
{
    m_chart->setAnimationOptions(QChart::NoAnimation);
    m_chart->legend()->setAlignment(Qt::AlignTop);
    m_chart->setMargins(QMargins(4, 4, 4, 4));
    m_view = new QChartView(m_chart, this);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_hint = new QLabel(tr("Select an event to see the distribution of its latency over runs."), this);
    m_hint->setAlignment(Qt::AlignCenter);
    m_hint->setWordWrap(true);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_hint);
    layout->addWidget(m_view, 1);
    m_view->hide();
}

QWidget *HistogramWidget::chartView() const
{
    return m_view;
}

int HistogramWidget::totalCount() const
{
    int n = 0;
    for (int c : m_bins.counts)
        n += c;
    return n;
}

void HistogramWidget::clear()
{
    m_chart->removeAllSeries();
    const auto axes = m_chart->axes();
    for (QAbstractAxis *a : axes) {
        m_chart->removeAxis(a);
        delete a;
    }
    m_bins = {};
    m_view->hide();
    m_hint->show();
}

void HistogramWidget::setValues(const QString &eventName, const std::vector<double> &values, double p10, double p50,
                                double p90, const QString &unit)
{
    clear();
    m_unit = unit;
    m_bins = computeHistogram(values);
    if (m_bins.counts.isEmpty()) {
        m_hint->setText(tr("%1 has no timing data.").arg(eventName));
        return;
    }
    m_hint->hide();
    m_view->show();
    const int nBins = int(m_bins.counts.size());
    m_chart->setTitle(tr("%1 — %2 runs").arg(eventName).arg(values.size()));

    auto *set = new QBarSet(tr("runs"));
    set->setColor(QColor(0x3b, 0x82, 0xc4));
    set->setBorderColor(QColor(0x2a, 0x5f, 0x91));
    int maxCount = 0;
    for (int c : m_bins.counts) {
        *set << c;
        maxCount = std::max(maxCount, c);
    }
    auto *bars = new QBarSeries;
    bars->setBarWidth(0.95);
    bars->append(set);
    m_chart->addSeries(bars);
    connect(set, &QBarSet::hovered, this, &HistogramWidget::onHovered);

    // Bars sit at x = 0..n-1; the axis maps bin edges back to durations so that the percentile
    // markers can be drawn at their true value.
    auto *xAxis = new QCategoryAxis;
    xAxis->setRange(-0.5, nBins - 0.5);
    xAxis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    // About five labels, at bin edges, short enough not to be elided.
    const int step = std::max(1, (nBins + 4) / 5);
    for (int b = 0; b <= nBins; b += step) {
        const double edge = m_bins.lower + b * m_bins.binWidth;
        xAxis->append(QString::number(edge, 'g', 4), b - 0.5);
    }
    xAxis->setTitleText(tr("latency (%1)").arg(unit));
    auto *yAxis = new QValueAxis;
    // Integer ticks: counts are whole runs.
    const int yStep = std::max(1, (maxCount + 4) / 5);
    const int yTicks = (maxCount + yStep) / yStep;
    const double yTop = double(yTicks * yStep);
    yAxis->setRange(0, yTop);
    yAxis->setLabelFormat(QStringLiteral("%d"));
    yAxis->setTickCount(yTicks + 1);
    yAxis->setTitleText(tr("runs"));
    m_chart->addAxis(xAxis, Qt::AlignBottom);
    m_chart->addAxis(yAxis, Qt::AlignLeft);
    bars->attachAxis(xAxis);
    bars->attachAxis(yAxis);

    auto toX = [&](double v) {
        if (!(m_bins.binWidth > 0))
            return 0.0;
        return (v - m_bins.lower) / m_bins.binWidth - 0.5;
    };
    const struct {
        const char *label;
        double value;
        QColor color;
    } markers[] = {{"p10", p10, QColor(0x2e, 0x9e, 0x5b)}, {"p50", p50, QColor(0xe0, 0x8a, 0x1e)},
                   {"p90", p90, QColor(0xc8, 0x3a, 0x3a)}};
    for (const auto &m : markers) {
        if (!std::isfinite(m.value))
            continue;
        auto *line = new QLineSeries;
        // Four digits keep the three legend entries on one line; the details panel has all six.
        line->setName(QString::fromLatin1(m.label) + QLatin1Char(' ') + QString::number(m.value, 'g', 4)
                      + QLatin1Char(' ') + unit);
        QPen pen(m.color);
        pen.setWidthF(2);
        pen.setStyle(Qt::DashLine);
        line->setPen(pen);
        const double x = toX(m.value);
        line->append(x, 0);
        line->append(x, yTop);
        m_chart->addSeries(line);
        line->attachAxis(xAxis);
        line->attachAxis(yAxis);
    }
}

void HistogramWidget::onHovered(bool status, int index)
{
    if (!status || index < 0 || index >= m_bins.counts.size()) {
        QToolTip::hideText();
        return;
    }
    const double a = m_bins.lower + index * m_bins.binWidth;
    const double b = a + m_bins.binWidth;
    QToolTip::showText(QCursor::pos(), tr("%1 – %2 %3\n%4 runs")
                                           .arg(EventTreeModel::formatDuration(a), EventTreeModel::formatDuration(b),
                                                m_unit)
                                           .arg(m_bins.counts[index]),
                       this);
}

} // namespace etscope
