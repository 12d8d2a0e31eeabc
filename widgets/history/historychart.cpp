#include "historychart.h"
#include "chartutil.h"

#include "numberformat.h"
#include "qtstrings.h"

#include <QAreaSeries>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QLineSeries>
#include <QMouseEvent>
#include <QScatterSeries>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace etscope {

namespace {
const QColor kBand(31, 111, 235, 50);
const QColor kLine(31, 111, 235);
const QColor kMarker(207, 34, 46);
const QColor kMean(219, 109, 40);
} // namespace

HistoryChart::HistoryChart(QWidget *parent)
    : QWidget(parent)
    , m_chart(new QChart)
{
    m_chart->setAnimationOptions(QChart::NoAnimation);
    m_chart->legend()->hide();
    m_chart->setMargins(QMargins(4, 4, 12, 4));
    m_view = new QChartView(m_chart, this);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->viewport()->installEventFilter(this);
    // The labels are thinned to the plot's width, known once the chart has laid itself out.
    connect(m_chart, &QChart::plotAreaChanged, this, &HistoryChart::relabel);
    m_view->viewport()->setMouseTracking(true);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
}

void HistoryChart::setSeries(std::shared_ptr<const History> history, std::size_t series)
{
    m_history = std::move(history);
    m_series = series;
    rebuild();
}

void HistoryChart::rebuild()
{
    clearChart(m_chart);
    m_x = nullptr;
    m_y = nullptr;
    m_changes.clear();
    m_labelStep = 0;
    if (!m_history || m_series >= m_history->series.size()) {
        m_chart->setTitle(QString());
        return;
    }
    const History &h = *m_history;
    const HistorySeries &s = h.series[m_series];
    const QString unit = QString::fromLatin1(timeScaleName(h.unit));
    m_chart->setTitle(QStringLiteral("<b>%1</b> — p50 per recording (%2), band p10–p90")
                          .arg(toQString(s.name).toHtmlEscaped(), unit));

    auto *lower = new QLineSeries, *upper = new QLineSeries, *line = new QLineSeries;
    auto *points = new QScatterSeries;
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (std::size_t i = 0; i < s.p50.size(); ++i) {
        lower->append(double(i), s.p10[i]);
        upper->append(double(i), s.p90[i]);
        line->append(double(i), s.p50[i]);
        points->append(double(i), s.p50[i]);
        lo = std::min({ lo, s.p10[i], s.p50[i] });
        hi = std::max({ hi, s.p90[i], s.p50[i] });
    }
    auto *band = new QAreaSeries(upper, lower);
    band->setColor(kBand);
    band->setBorderColor(Qt::transparent);
    band->setName(tr("p10–p90"));
    line->setPen(QPen(kLine, 1.5));
    points->setColor(kLine);
    points->setBorderColor(Qt::white);
    points->setMarkerSize(8);
    m_chart->addSeries(band);
    m_chart->addSeries(line);

    // Each change: a vertical marker half-way between the recordings on either side, and the
    // mean p50 of the segment before and after it as horizontal steps.
    const std::size_t n = s.p50.size();
    std::vector<QAbstractSeries *> changeSeries;
    for (std::size_t c = 0; c < h.changes.size(); ++c)
        if (h.changes[c].series == m_series)
            m_changes.push_back(c);
    for (std::size_t k = 0; k < m_changes.size(); ++k) {
        const HistoryChange &c = h.changes[m_changes[k]];
        const double x = double(c.index) - 0.5;
        const double from = k ? double(h.changes[m_changes[k - 1]].index) - 0.5 : 0.0;
        const double to = k + 1 < m_changes.size() ? double(h.changes[m_changes[k + 1]].index) - 0.5 : double(n - 1);
        auto *before = new QLineSeries, *after = new QLineSeries, *marker = new QLineSeries;
        before->append(from, c.before);
        before->append(x, c.before);
        after->append(x, c.after);
        after->append(to, c.after);
        lo = std::min({ lo, c.before, c.after });
        hi = std::max({ hi, c.before, c.after });
        for (QLineSeries *mean : { before, after })
            mean->setPen(QPen(kMean, 2, Qt::SolidLine));
        marker->setPen(QPen(kMarker, 2, Qt::DashLine));
        for (QLineSeries *ls : { before, after, marker })
            changeSeries.push_back(ls);
    }
    const double pad = hi > lo ? (hi - lo) * 0.08 : std::max(std::abs(hi) * 0.05, 1e-9);
    lo -= pad;
    hi += pad;
    for (QAbstractSeries *cs : changeSeries)
        m_chart->addSeries(cs);
    m_chart->addSeries(points); // on top: the points take the clicks

    m_x = new QCategoryAxis;
    m_x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    m_x->setRange(-0.5, double(n) - 0.5);
    m_x->setGridLineVisible(false);
    m_y = new QValueAxis;
    m_y->setRange(lo, hi);
    m_y->applyNiceNumbers(); // round ticks; the range only widens
    for (std::size_t k = 0; k < m_changes.size(); ++k) { // the markers span the whole height
        auto *marker = static_cast<QLineSeries *>(changeSeries[3 * k + 2]);
        const double x = double(h.changes[m_changes[k]].index) - 0.5;
        marker->append(x, m_y->min());
        marker->append(x, m_y->max());
    }
    m_y->setTitleText(tr("p50 (%1)").arg(unit));
    m_y->setLabelFormat(QStringLiteral("%.4g"));
    m_chart->addAxis(m_x, Qt::AlignBottom);
    m_chart->addAxis(m_y, Qt::AlignLeft);
    for (QAbstractSeries *as : m_chart->series()) {
        as->attachAxis(m_x);
        as->attachAxis(m_y);
    }
    const std::size_t group = s.group;
    connect(points, &QScatterSeries::clicked, this, [this, group](const QPointF &p) {
        const auto i = std::size_t(std::lround(std::max(0.0, p.x())));
        const auto &recs = m_history->groups[group].recordings;
        if (i < recs.size())
            Q_EMIT recordingClicked(recs[i]);
    });
    connect(points, &QScatterSeries::hovered, this, [this, group](const QPointF &p, bool state) {
        if (!state)
            return;
        const auto i = std::size_t(std::lround(std::max(0.0, p.x())));
        const HistorySeries &hs = m_history->series[m_series];
        if (i >= hs.p50.size())
            return;
        const HistoryRecording &r = m_history->recordings[m_history->groups[group].recordings[i]];
        QToolTip::showText(QCursor::pos(),
            tr("#%1 %2\np50 %3 (p10 %4, p90 %5) %6 over %7 runs\nClick: open %8")
                .arg(i)
                .arg(toQString(r.label), formatSignificant(hs.p50[i], 4), formatSignificant(hs.p10[i], 4),
                    formatSignificant(hs.p90[i], 4), QString::fromLatin1(timeScaleName(m_history->unit)))
                .arg(r.runs)
                .arg(toQString(r.file)));
    });
    relabel();
}

void HistoryChart::relabel()
{
    if (!m_x || !m_history)
        return;
    const History &h = *m_history;
    const HistorySeries &s = h.series[m_series];
    const auto &recs = h.groups[s.group].recordings;
    if (recs.empty())
        return;
    // Every k-th label, k the smallest that leaves each shown label its width and a gap.
    const QFontMetrics fm(m_x->labelsFont());
    int widest = 0;
    for (std::size_t r : recs)
        widest = std::max(widest, fm.horizontalAdvance(toQString(h.recordings[r].label)));
    const double width
        = std::max(80.0, m_chart->plotArea().width() > 0 ? m_chart->plotArea().width() : double(m_view->width() - 80));
    const double perPoint = width / double(recs.size());
    // QtCharts elides a category's label to a little less than its span: leave a quarter more.
    const int step = std::max(1, int(std::ceil((widest * 1.25 + 16) / perPoint)));
    if (step == m_labelStep)
        return;
    m_labelStep = step;
    for (const QString &l : m_x->categoriesLabels())
        m_x->remove(l);
    for (std::size_t i = 0; i < recs.size(); i += std::size_t(step)) {
        QString label = toQString(h.recordings[recs[i]].label);
        while (m_x->categoriesLabels().contains(label)) // the axis keys categories by their text
            label += QChar(0x200B);
        m_x->append(label, double(i));
    }
    m_x->setRange(-0.5, double(recs.size()) - 0.5);
}

QStringList HistoryChart::shownLabels() const
{
    return m_x ? m_x->categoriesLabels() : QStringList();
}

QPoint HistoryChart::pointPosition(std::size_t point) const
{
    if (!m_history || m_series >= m_history->series.size() || point >= m_history->series[m_series].p50.size())
        return {};
    const QPointF scene
        = m_chart->mapToScene(m_chart->mapToPosition(QPointF(double(point), m_history->series[m_series].p50[point])));
    return m_view->mapFromScene(scene);
}

QPoint HistoryChart::changePosition(std::size_t change) const
{
    if (!m_history || change >= m_history->changes.size() || !m_y)
        return {};
    const HistoryChange &c = m_history->changes[change];
    const double y = m_y->min() + (m_y->max() - m_y->min()) * 0.9; // the marker's top part, clear of the points
    const QPointF scene = m_chart->mapToScene(m_chart->mapToPosition(QPointF(double(c.index) - 0.5, y)));
    return m_view->mapFromScene(scene);
}

int HistoryChart::changeAt(QPoint pos) const
{
    // A change is hit within a few pixels of its marker, or of the mean drawn on either side.
    if (!m_history || !m_y || m_changes.empty())
        return -1;
    const auto toView = [this](double x, double y) {
        return m_view->mapFromScene(m_chart->mapToScene(m_chart->mapToPosition(QPointF(x, y))));
    };
    const std::size_t n = m_history->series[m_series].p50.size();
    int best = -1;
    int bestDistance = 7;
    for (std::size_t k = 0; k < m_changes.size(); ++k) {
        const HistoryChange &c = m_history->changes[m_changes[k]];
        const double x = double(c.index) - 0.5;
        const double from = k ? double(m_history->changes[m_changes[k - 1]].index) - 0.5 : 0.0;
        const double to
            = k + 1 < m_changes.size() ? double(m_history->changes[m_changes[k + 1]].index) - 0.5 : double(n - 1);
        const QPoint before = toView(x, c.before), after = toView(x, c.after);
        const int dx = std::abs(pos.x() - before.x());
        if (dx < bestDistance) {
            best = int(k);
            bestDistance = dx;
        }
        const bool onBefore
            = pos.x() >= toView(from, 0).x() && pos.x() <= before.x() && std::abs(pos.y() - before.y()) <= 4;
        const bool onAfter = pos.x() >= after.x() && pos.x() <= toView(to, 0).x() && std::abs(pos.y() - after.y()) <= 4;
        if (best < 0 && (onBefore || onAfter))
            best = int(k);
    }
    return best;
}

bool HistoryChart::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_view->viewport()) {
        if (event->type() == QEvent::MouseButtonRelease) {
            const auto *me = static_cast<QMouseEvent *>(event);
            if (const int k = changeAt(me->position().toPoint()); k >= 0 && me->button() == Qt::LeftButton) {
                Q_EMIT changeClicked(m_changes[std::size_t(k)]);
                return true;
            }
        } else if (event->type() == QEvent::MouseMove) {
            const auto *me = static_cast<QMouseEvent *>(event);
            const int k = changeAt(me->position().toPoint());
            m_view->viewport()->setCursor(k >= 0 ? Qt::PointingHandCursor : Qt::ArrowCursor);
            if (k >= 0)
                QToolTip::showText(me->globalPosition().toPoint(),
                    tr("%1\nClick: compare the recordings on either side")
                        .arg(toQString(describeChange(*m_history, m_history->changes[m_changes[std::size_t(k)]]))));
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace etscope
