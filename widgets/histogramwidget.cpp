#include "histogramwidget.h"
#include "chartutil.h"

#include "eventtreemodel.h"
#include "numberformat.h"

#include <QBarSeries>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QCursor>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QTextDocumentFragment>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

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
    // Small enough that a short dock (1280×720 with a tall bottom area) never squeezes the chart
    // under its own minimum, which drew the marker legend over the tick labels.
    m_view->setMinimumSize(240, kMinimumChartHeight);
    m_hint = new QLabel(tr("Select an event to see the distribution of its latency over runs."), this);
    m_hint->setAlignment(Qt::AlignCenter);
    m_hint->setWordWrap(true);
    m_clipBox = new QCheckBox(tr("Clip at p99"), this);
    m_clipBox->setToolTip(tr("Put the runs above the 99th percentile into one red bar at the right, so the bulk of the "
                             "distribution keeps its resolution. Click a bar to show its runs in the timeline."));
    m_clipBox->hide();
    connect(m_clipBox, &QCheckBox::toggled, this, [this] { rebuild(); });
    m_markerLegend = new QLabel(this);
    m_markerLegend->setObjectName(QStringLiteral("HistogramMarkerLegend"));
    m_markerLegend->setTextFormat(Qt::RichText);
    m_markerLegend->hide();
    auto *below = new QHBoxLayout;
    below->setContentsMargins(4, 0, 4, 0);
    below->addWidget(m_markerLegend, 1);
    below->addWidget(m_clipBox);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_hint);
    layout->addWidget(m_view, 1);
    layout->addLayout(below);
    m_view->hide();
}

void HistogramWidget::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    fitToHeight();
}

void HistogramWidget::fitToHeight()
{
    // In a short dock (a gap or compare view below takes the height) the title and the legend
    // leave the axes no room: the plot keeps it, and the tooltip keeps the title.
    const bool compact = height() < kCompactBelow;
    m_chart->setTitle(compact ? QString() : m_title);
    m_chart->legend()->setVisible(!compact);
    // The axis titles' lines go to the plot and the tick labels; the units stay in the legend.
    for (QAbstractAxis *a : m_chart->axes())
        a->setTitleVisible(!compact);
    // Below the chart's minimum and the legend's line together, the legend would be drawn over
    // the tick labels: it goes to the tooltip (Details has the same figures).
    const bool legendFits = height() >= kMinimumChartHeight + m_markerLegend->sizeHint().height() + 4;
    m_markerLegend->setVisible(compact && legendFits && m_view->isVisibleTo(this) && !m_markerLegend->text().isEmpty());
    m_view->setToolTip(compact ? (legendFits ? m_title : m_title + QStringLiteral("\n") + m_legendText) : QString());
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
    return n + m_outliers;
}

void HistogramWidget::clear()
{
    clearChart(m_chart);
    m_set = nullptr;
    m_bins = {};
    m_outliers = 0;
    m_clipAt = 0;
    m_view->hide();
    m_hint->show();
    m_markerLegend->clear();
    m_legendText.clear();
    m_markerLegend->hide();
}

bool HistogramWidget::clipToP99() const
{
    return m_clipBox->isChecked();
}

void HistogramWidget::setClipToP99(bool on)
{
    m_clipBox->setChecked(on); // rebuilds when it changes
}

void HistogramWidget::setValues(
    const QString &eventName, std::span<const double> values, double p10, double p50, double p90, const QString &unit)
{
    m_name = eventName;
    m_values.assign(values.begin(), values.end());
    m_p10 = p10;
    m_p50 = p50;
    m_p90 = p90;
    m_unit = unit;
    const P99Clip clip = p99Clip(values); // the rule: histogrambins.h
    const bool offer = clip.offer, suggest = clip.suggest;
    {
        const QSignalBlocker block(m_clipBox);
        m_clipBox->setVisible(offer);
        m_clipBox->setChecked(suggest);
    }
    rebuild();
}

QList<int> HistogramWidget::runsInBar(int index) const
{
    QList<int> runs;
    const int nBins = int(m_bins.counts.size());
    if (index < 0 || index > nBins || (index == nBins && m_outliers == 0))
        return runs;
    for (int i = 0; i < int(m_values.size()); ++i) {
        const double v = m_values[std::size_t(i)];
        if (!std::isfinite(v))
            continue;
        const bool outlier = m_outliers > 0 && v > m_clipAt;
        if (index == nBins) {
            if (outlier)
                runs << i;
            continue;
        }
        if (outlier)
            continue;
        int b = m_bins.binWidth > 0 ? int(std::floor((v - m_bins.lower) / m_bins.binWidth)) : 0;
        b = std::clamp(b, 0, nBins - 1);
        if (b == index)
            runs << i;
    }
    return runs;
}

QStringList HistogramWidget::tickLabels() const
{
    QStringList out;
    for (QAbstractAxis *a : m_chart->axes(Qt::Horizontal))
        if (auto *c = qobject_cast<QCategoryAxis *>(a))
            out = c->categoriesLabels();
    return out;
}

void HistogramWidget::rebuild()
{
    clearChart(m_chart);
    m_set = nullptr;
    m_outliers = 0;
    m_clipAt = 0;
    const QString &eventName = m_name;
    const QString &unit = m_unit;
    std::vector<double> body = m_values;
    {
        if (m_clipBox->isChecked()) {
            m_clipAt = p99Clip(m_values).p99;
            if (std::isfinite(m_clipAt)) {
                body.clear();
                for (double v : m_values)
                    if (std::isfinite(v) && v <= m_clipAt)
                        body.push_back(v);
                    else if (std::isfinite(v))
                        ++m_outliers;
            }
        }
    }
    m_bins = computeHistogram(body);
    if (m_bins.counts.isEmpty()) {
        m_view->hide();
        m_hint->show();
        m_hint->setText(tr("%1 has no timing data.").arg(eventName));
        m_markerLegend->clear();
        m_legendText.clear();
        m_markerLegend->hide();
        return;
    }
    m_hint->hide();
    m_view->show();
    const int nBins = int(m_bins.counts.size());
    const std::size_t runs = m_values.size();
    m_title = runs == 1 ? tr("%1 — 1 run").arg(eventName) : tr("%1 — %2 runs").arg(eventName).arg(runs);
    fitToHeight();

    auto *set = new QBarSet(tr("runs"));
    m_set = set;
    set->setColor(QColor(0x3b, 0x82, 0xc4));
    set->setBorderColor(QColor(0x2a, 0x5f, 0x91));
    int maxCount = 0;
    for (int c : m_bins.counts) {
        *set << c;
        maxCount = std::max(maxCount, c);
    }
    if (m_outliers > 0) {
        // The "> p99" bar, one slot right of the body, in red.
        *set << m_outliers;
        maxCount = std::max(maxCount, m_outliers);
        set->setSelectedColor(QColor(0xc8, 0x3a, 0x3a));
        set->selectBar(nBins);
    }
    auto *bars = new QBarSeries;
    bars->setBarWidth(0.95);
    bars->append(set);
    m_chart->addSeries(bars);
    connect(set, &QBarSet::hovered, this, &HistogramWidget::onHovered);
    connect(set, &QBarSet::clicked, this, [this](int index) {
        const QList<int> runs = runsInBar(index);
        if (runs.isEmpty())
            return;
        const int nb = int(m_bins.counts.size());
        QString what;
        if (index == nb) {
            what = tr("histogram bar > p99 (%1 %2)").arg(formatSignificant(m_clipAt, 4), m_unit);
        } else {
            const double a = m_bins.lower + index * m_bins.binWidth;
            what = tr("histogram bar %1 – %2 %3")
                       .arg(formatSignificant(a, 6), formatSignificant(a + m_bins.binWidth, 6), m_unit);
        }
        Q_EMIT runsSelected(runs, what);
    });

    // Bars sit at x = 0..n-1 (bin b spans b-0.5 .. b+0.5); labels go at "nice" durations
    // (1, 2, 5 × 10^k) placed where they fall, all with the decimals of the step.
    auto toX = [&](double v) {
        if (!(m_bins.binWidth > 0))
            return 0.0;
        return (v - m_bins.lower) / m_bins.binWidth - 0.5;
    };
    auto *xAxis = new QCategoryAxis;
    const double xMax = (m_outliers > 0 ? nBins + 1 : nBins) - 0.5;
    xAxis->setRange(-0.5, xMax);
    xAxis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    const double hi = m_bins.lower + nBins * m_bins.binWidth;
    const NiceTicks ticks = niceTicks(m_bins.lower, hi, 5);
    for (double t : ticks.values) {
        const double x = m_bins.binWidth > 0 ? toX(t) : 0.0;
        if (m_outliers > 0 && x > nBins - 1.5)
            continue; // would run into the "> p99" label
        xAxis->append(formatTick(t, ticks.decimals), x);
    }
    if (m_outliers > 0)
        xAxis->append(tr("> p99"), double(nBins));
    xAxis->setTitleText(tr("latency (%1)").arg(unit));
    auto *yAxis = new QValueAxis;
    // Integer ticks: counts are whole runs.
    const int yStep = std::max(1, int(niceStep(double(maxCount), 5)));
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

    const struct {
        const char *label;
        double value;
        QColor color;
    } markers[] = { { "p10", m_p10, QColor(0x2e, 0x9e, 0x5b) }, { "p50", m_p50, QColor(0xe0, 0x8a, 0x1e) },
        { "p90", m_p90, QColor(0xc8, 0x3a, 0x3a) } };
    QStringList legend;
    for (const auto &m : markers) {
        if (!std::isfinite(m.value))
            continue;
        legend << QStringLiteral("<span style=\"color:%1\"><b>┅</b> %2</span> %3 %4")
                      .arg(m.color.name(), QString::fromLatin1(m.label), formatSignificant(m.value, 4),
                          unit.toHtmlEscaped());
        auto *line = new QLineSeries;
        // Four digits keep the three legend entries on one line; the details panel has all six.
        line->setName(
            QString::fromLatin1(m.label) + QLatin1Char(' ') + formatSignificant(m.value, 4) + QLatin1Char(' ') + unit);
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
    m_markerLegend->setText(legend.join(QStringLiteral(" &nbsp; ")));
    m_legendText = QTextDocumentFragment::fromHtml(m_markerLegend->text()).toPlainText();
    fitToHeight();
}

void HistogramWidget::onHovered(bool status, int index)
{
    if (!status || index < 0 || index > m_bins.counts.size()) {
        QToolTip::hideText();
        return;
    }
    if (index == m_bins.counts.size()) {
        QToolTip::showText(QCursor::pos(),
            tr("above p99 = %1 %2\n%3 runs (click: show in timeline)")
                .arg(formatFull(m_clipAt), m_unit)
                .arg(m_outliers),
            this);
        return;
    }
    const double a = m_bins.lower + index * m_bins.binWidth;
    const double b = a + m_bins.binWidth;
    const int n = m_bins.counts[index];
    QToolTip::showText(QCursor::pos(),
        tr("%1 – %2 %3\n%4 (click: show in timeline)")
            .arg(EventTreeModel::formatDuration(a), EventTreeModel::formatDuration(b), m_unit,
                n == 1 ? tr("1 run") : tr("%1 runs").arg(n)),
        this);
}

} // namespace etscope
