#include "diffcharts.h"
#include "chartutil.h"
#include "numberformat.h"

#include "histogrambins.h"
#include "qtstrings.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QPainter>
#include <QStackedBarSeries>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace etscope {

namespace {

QChartView *makeView(QChart *chart, QWidget *parent)
{
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setMargins(QMargins(4, 4, 4, 4));
    auto *view = new QChartView(chart, parent);
    view->setRenderHint(QPainter::Antialiasing);
    return view;
}

QString shortName(const DiffRow &r)
{
    std::string n = r.eventName;
    if (n.rfind("native_call_", 0) == 0)
        n = n.substr(12);
    if (n.size() > 4 && n.compare(n.size() - 4, 4, ".out") == 0)
        n.resize(n.size() - 4);
    // Short enough that the slanted label fits under a short chart (a 1280×720 dock), not cut at
    // its start: "max_pool2d_wit… #2".
    QString s = toQString(n);
    if (s.size() > 15)
        s = s.left(14) + QChar(0x2026);
    return s + QStringLiteral(" #%1").arg(r.instructionId);
}

double sideP50(const DiffSide &s)
{
    return s.perf ? s.perf->p50 : 0.0;
}

QString runsText(int n)
{
    return n == 1 ? QObject::tr("1 run") : QObject::tr("%1 runs").arg(n);
}

bool counted(const DiffRow &r)
{
    return !r.framework && !r.nested && (r.a.perf || r.b.perf);
}

} // namespace

DiffWaterfallChart::DiffWaterfallChart(QWidget *parent)
    : QWidget(parent)
    , m_chart(new QChart)
{
    m_view = makeView(m_chart, this);
    m_chart->legend()->setAlignment(Qt::AlignTop);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
}

void DiffWaterfallChart::setDiff(std::shared_ptr<const LatencyDiff> diff, int maxBars)
{
    m_diff = std::move(diff);
    m_contributors.clear();
    if (m_diff) {
        // Rows that changed, largest |Δ| first.
        const LatencyDiff &d = *m_diff;
        for (int i = 0; i < int(d.rows.size()); ++i)
            if (const DiffRow &r = d.rows[size_t(i)]; counted(r) && sideP50(r.b) != sideP50(r.a))
                m_contributors.push_back(i);
        std::stable_sort(m_contributors.begin(), m_contributors.end(), [&](int x, int y) {
            const auto &a = d.rows[size_t(x)], &b = d.rows[size_t(y)];
            return std::abs(sideP50(a.b) - sideP50(a.a)) > std::abs(sideP50(b.b) - sideP50(b.a));
        });
        if (int(m_contributors.size()) > maxBars)
            m_contributors.resize(size_t(maxBars));
    }
    build(barsThatFit());
}

int DiffWaterfallChart::barsThatFit() const
{
    // Qt Charts drops a slanted label whose box leaves the axis (the totals went first), and
    // neighbours closer than about half a label's slanted width (w·cos 35° + h·sin 35°) run
    // into each other: show as many of the largest contributors as keep that room, at least 3.
    if (!m_diff)
        return 0;
    const QFontMetrics fm(font());
    int longest = fm.horizontalAdvance(tr("others"));
    for (int i : m_contributors)
        longest = std::max(longest, fm.horizontalAdvance(shortName(m_diff->rows[size_t(i)])));
    const double slanted = longest * std::cos(35 * M_PI / 180) + fm.height() * std::sin(35 * M_PI / 180);
    const double slot = 0.55 * slanted + 6;
    const double plotWidth = std::max(1.0, width() - 90.0); // the value axis and margins take ~90 px
    const int labelsThatFit = int(plotWidth / slot);
    return std::clamp(
        labelsThatFit - 3, std::min(3, int(m_contributors.size())), int(m_contributors.size())); // − A, B, others
}

void DiffWaterfallChart::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    // Short (a 1280×720 window's dock): the slanted labels need the height more than the title
    // and the legend do (the bars' colours say slower / faster / total).
    const bool roomy = height() >= kRoomyHeight;
    m_chart->legend()->setVisible(roomy);
    m_chart->setTitle(roomy ? m_title : QString());
    if (const int n = barsThatFit(); n != int(m_barRows.size()))
        build(n);
}

void DiffWaterfallChart::build(int bars)
{
    clearChart(m_chart);
    m_barRows.clear();
    m_levels.clear();
    if (!m_diff)
        return;
    const LatencyDiff *diff = m_diff.get();
    const QString unit = toQString(timeScaleName(diff->unit));
    // Rows of several methods and phases: a sum of prefill and decode medians is no figure to
    // show, so the bars start at 0 and end at the summed change (each part's totals are in the
    // view's summary).
    const bool parts = diff->byMethodPhase.size() > 1;
    const double start = parts ? 0 : diff->total.a, end = parts ? diff->total.delta() : diff->total.b;
    m_title = parts
        ? tr("Where the Δ comes from (Δ p50 over the operator rows of every method and phase, %1)").arg(unit)
        : tr("Where the total Δ comes from (sum of p50 over operator rows, %1)").arg(unit);
    m_chart->setTitle(height() >= kRoomyHeight ? m_title : QString());
    setToolTip(m_title);
    const std::vector<int> rows(m_contributors.begin(), m_contributors.begin() + bars);

    auto *base = new QBarSet(QString());
    base->setColor(Qt::transparent);
    base->setBorderColor(Qt::transparent);
    auto *up = new QBarSet(tr("slower (B − A > 0)"));
    up->setColor(QColor(0xd9, 0x53, 0x4f));
    auto *down = new QBarSet(tr("faster"));
    down->setColor(QColor(0x3c, 0xa5, 0x5c));
    auto *total = new QBarSet(tr("total"));
    total->setColor(QColor(0x3b, 0x82, 0xc4));
    QStringList categories;

    auto addBar = [&](const QString &label, double b, double u, double d, double t) {
        categories << label;
        *base << b;
        *up << u;
        *down << d;
        *total << t;
    };
    double level = start;
    addBar(parts ? tr("A") : tr("A total"), 0, 0, 0, level);
    m_levels.push_back(level);
    double shown = 0;
    for (int i : rows) {
        const DiffRow &r = diff->rows[size_t(i)];
        const double d = sideP50(r.b) - sideP50(r.a);
        shown += d;
        addBar(shortName(r), d >= 0 ? level : level + d, d > 0 ? d : 0, d < 0 ? -d : 0, 0);
        level += d;
        m_levels.push_back(level);
        m_barRows.push_back(i);
    }
    const double rest = diff->total.delta() - shown;
    if (std::abs(rest) > 1e-9 * std::max(std::abs(diff->total.a), std::abs(diff->total.b))) { // not just rounding
        addBar(tr("others"), rest >= 0 ? level : level + rest, rest > 0 ? rest : 0, rest < 0 ? -rest : 0, 0);
        level += rest;
        m_levels.push_back(level);
    }
    addBar(parts ? tr("total Δ") : tr("B total"), 0, 0, 0, end);
    m_levels.push_back(end);

    auto *series = new QStackedBarSeries;
    series->setBarWidth(0.7);
    for (QBarSet *s : { base, up, down, total })
        series->append(s);
    m_chart->addSeries(series);
    m_chart->legend()->markers(series).first()->setVisible(false);
    auto *x = new QBarCategoryAxis;
    x->append(categories);
    x->setLabelsAngle(-35);
    x->setTruncateLabels(false); // "permute_copy", never "pe…"
    auto *y = new QValueAxis;
    // Zoom on the range the levels move in (a waterfall of small deltas on a big total would
    // otherwise be flat); the total bars are cut at the bottom of the axis. Nice ticks.
    const double top = *std::max_element(m_levels.begin(), m_levels.end());
    const double bottom = *std::min_element(m_levels.begin(), m_levels.end());
    const double pad = std::max((top - bottom) * 0.25, top * 0.02);
    const double lo = std::max(0.0, bottom - pad), hi = top > 0 ? top + pad : 1;
    const double step = niceStep(hi - lo, 5);
    const double niceLo = std::floor(lo / step) * step, niceHi = std::ceil(hi / step) * step;
    y->setRange(niceLo, niceHi);
    y->setTickType(QValueAxis::TicksDynamic);
    y->setTickAnchor(niceLo);
    y->setTickInterval(step);
    y->setTitleText(unit);
    y->setLabelFormat(QStringLiteral("%.%1f").arg(std::max(0, int(std::ceil(-std::log10(step) - 1e-9)))));
    m_chart->addAxis(x, Qt::AlignBottom);
    m_chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
    connect(series, &QStackedBarSeries::clicked, this, [this](int index, QBarSet *) {
        if (index >= 1 && index <= int(m_barRows.size()))
            Q_EMIT rowClicked(m_barRows[size_t(index - 1)]);
    });
}

DiffHistogramWidget::DiffHistogramWidget(QWidget *parent)
    : QWidget(parent)
    , m_chart(new QChart)
{
    m_view = makeView(m_chart, this);
    m_chart->legend()->setAlignment(Qt::AlignTop);
    m_hint = new QLabel(tr("Select a row to compare the latency distributions of A and B."), this);
    m_hint->setAlignment(Qt::AlignCenter);
    m_hint->setWordWrap(true);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_hint);
    layout->addWidget(m_view, 1);
    m_view->hide();
}

void DiffHistogramWidget::setRow(const DiffRow *row, const QString &unit)
{
    clearChart(m_chart);
    m_countA = m_countB = 0;
    if (!row || (!row->a.perf && !row->b.perf)) {
        m_view->hide();
        m_hint->show();
        return;
    }
    const std::vector<double> empty;
    const std::vector<double> &va = row->a.perf ? row->a.perf->raw : empty;
    const std::vector<double> &vb = row->b.perf ? row->b.perf->raw : empty;
    std::vector<double> all = va;
    all.insert(all.end(), vb.begin(), vb.end());
    const HistogramBins bins = computeHistogram(all, 30);
    if (bins.counts.isEmpty()) {
        m_view->hide();
        m_hint->show();
        return;
    }
    m_hint->hide();
    m_view->show();
    const int n = int(bins.counts.size());
    auto binOf = [&](double v) {
        if (!(bins.binWidth > 0))
            return 0;
        return std::clamp(int((v - bins.lower) / bins.binWidth), 0, n - 1);
    };
    QList<qreal> ca(n, 0), cb(n, 0);
    for (double v : va)
        if (std::isfinite(v)) {
            ca[binOf(v)] += 1;
            ++m_countA;
        }
    for (double v : vb)
        if (std::isfinite(v)) {
            cb[binOf(v)] += 1;
            ++m_countB;
        }
    auto *sa = new QBarSet(tr("A (%1, p50 %2)")
                               .arg(runsText(m_countA))
                               .arg(row->a.perf ? QString::number(row->a.perf->p50, 'g', 4) : QStringLiteral("-")));
    sa->setColor(QColor(0x3b, 0x82, 0xc4, 170));
    sa->append(ca);
    auto *sb = new QBarSet(tr("B (%1, p50 %2)")
                               .arg(runsText(m_countB))
                               .arg(row->b.perf ? QString::number(row->b.perf->p50, 'g', 4) : QStringLiteral("-")));
    sb->setColor(QColor(0xe0, 0x8a, 0x1e, 170));
    sb->append(cb);
    auto *series = new QBarSeries;
    series->setBarWidth(0.95);
    series->append(sa);
    series->append(sb);
    m_chart->addSeries(series);
    const QString title
        = toQString(row->eventName) + QStringLiteral(" — ") + QString::fromLatin1(verdictName(row->verdict));
    m_chart->setTitle(height() >= 240 ? title : QString()); // short: the selected row says which it is
    setToolTip(title);
    // Bars sit at bin indices 0..n−1; the axis labels nice latencies (about 5, level) at their
    // place on that scale, never one slanted label per bin cut to "…" in a short chart.
    auto *x = new QCategoryAxis;
    x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    x->setRange(-0.5, n - 0.5);
    x->setStartValue(-0.5);
    if (bins.binWidth > 0) {
        const double lo = bins.lower, hi = bins.lower + n * bins.binWidth;
        const NiceTicks ticks = niceTicks(lo, hi, std::clamp(width() / 90, 2, 6));
        for (double t : ticks.values)
            x->append(formatTick(t, ticks.decimals), (t - lo) / bins.binWidth - 0.5);
    } else {
        x->append(formatSignificant(bins.lower, 4), 0);
    }
    x->setTitleText(tr("latency (%1)").arg(unit));
    auto *y = new QValueAxis;
    int maxCount = 1;
    for (int i = 0; i < n; ++i)
        maxCount = std::max({ maxCount, int(ca[i]), int(cb[i]) });
    // Whole, evenly spaced run counts (0, 5, 10, …), never 0, 4, 9, 13.
    const double step = std::max(1.0, std::ceil(niceStep(maxCount, 5)));
    y->setRange(0, std::ceil(maxCount / step) * step);
    y->setTickType(QValueAxis::TicksDynamic);
    y->setTickAnchor(0);
    y->setTickInterval(step);
    y->setLabelFormat(QStringLiteral("%.0f"));
    y->setTitleText(tr("runs"));
    m_chart->addAxis(x, Qt::AlignBottom);
    m_chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
}

DualTimelineWidget::DualTimelineWidget(QWidget *parent)
    : QWidget(parent)
{
    setMinimumHeight(140);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void DualTimelineWidget::setSessions(std::shared_ptr<const Session> a, std::shared_ptr<const Session> b)
{
    m_a = std::move(a);
    m_b = std::move(b);
    auto firstExecute = [](const std::shared_ptr<const Session> &s) {
        if (!s)
            return -1;
        for (int i = 0; i < int(s->blocks.size()); ++i)
            if (s->blocks[size_t(i)].name == "Execute")
                return i;
        return s->blocks.empty() ? -1 : 0;
    };
    m_blockA = firstExecute(m_a);
    m_blockB = firstExecute(m_b);
    m_hiA.clear();
    m_hiB.clear();
    relayout();
}

void DualTimelineWidget::highlight(const std::vector<EventPos> &a, const std::vector<EventPos> &b)
{
    m_hiA.clear();
    m_hiB.clear();
    if (!a.empty())
        m_blockA = int(a.front().block);
    if (!b.empty())
        m_blockB = int(b.front().block);
    for (const EventPos &p : a)
        m_hiA.push_back(int(p.event));
    for (const EventPos &p : b)
        m_hiB.push_back(int(p.event));
    relayout();
}

void DualTimelineWidget::relayout()
{
    auto lay = [](const std::shared_ptr<const Session> &s, int block) {
        if (!s || block < 0 || size_t(block) >= s->blocks.size())
            return TimelineLayout {};
        const auto scale = s->inputs.time.scaleFactor();
        return layoutTimeline(s->blocks[size_t(block)], 0, scale ? scale.value() : 1.0);
    };
    m_layoutA = lay(m_a, m_blockA);
    m_layoutB = lay(m_b, m_blockB);
    m_span = std::max(m_layoutA.span, m_layoutB.span);
    update();
}

void DualTimelineWidget::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const int left = 28, right = 8, axisH = 22;
    const int w = width() - left - right;
    const int bandH = (height() - axisH) / 2;
    if (w <= 0 || bandH <= 0 || !(m_span > 0)) {
        p.drawText(rect(), Qt::AlignCenter, tr("No timeline"));
        return;
    }
    auto xOf = [&](double t) { return left + t / m_span * w; };
    const QString unit = m_a ? toQString(timeScaleName(m_a->inputs.time.target)) : QString();
    auto drawBand
        = [&](const TimelineLayout &l, const std::vector<int> &hi, int top, const QString &label, const QColor &base) {
              p.setPen(palette().text().color());
              p.drawText(QRect(0, top, left, bandH), Qt::AlignCenter, label);
              const int lanes = std::max(1, l.laneCount);
              const double laneH = std::min(18.0, double(bandH - 4) / lanes);
              for (const TimelineBar &bar : l.bars) {
                  const bool isHi = std::find(hi.begin(), hi.end(), bar.event) != hi.end();
                  QRectF r(xOf(bar.start), top + 2 + bar.lane * laneH, std::max(1.0, xOf(bar.end) - xOf(bar.start)),
                      laneH - 2);
                  p.fillRect(r, isHi ? QColor(0xe0, 0x8a, 0x1e) : base.lighter(100 + 12 * bar.lane));
                  if (isHi) {
                      p.setPen(QPen(Qt::black, 1));
                      p.drawRect(r);
                  }
              }
              p.setPen(palette().mid().color());
              p.drawLine(left, top + bandH - 1, left + w, top + bandH - 1);
          };
    drawBand(m_layoutA, m_hiA, 0, QStringLiteral("A"), QColor(0x3b, 0x82, 0xc4));
    drawBand(m_layoutB, m_hiB, bandH, QStringLiteral("B"), QColor(0x8a, 0x6d, 0xc4));
    // Shared axis.
    const int axisY = 2 * bandH;
    p.setPen(palette().text().color());
    p.drawLine(left, axisY, left + w, axisY);
    // Nice ticks (1, 2, 5 × 10^k) with the same decimals on every label, the unit on the last
    // one; labels are kept inside the widget, never cut off at its edge.
    const NiceTicks ticks = niceTicks(0, m_span, 5);
    for (std::size_t i = 0; i < ticks.values.size(); ++i) {
        const double t = ticks.values[i];
        const double x = xOf(t);
        p.drawLine(QPointF(x, axisY), QPointF(x, axisY + 4));
        const QString text
            = formatTick(t, ticks.decimals) + (i + 1 == ticks.values.size() ? QStringLiteral(" ") + unit : QString());
        const double tw = p.fontMetrics().horizontalAdvance(text) + 4;
        const double tx = std::clamp(x - tw / 2, 0.0, std::max(0.0, double(width()) - tw));
        p.drawText(QRectF(tx, axisY + 4, tw, axisH - 4), Qt::AlignHCenter | Qt::AlignTop, text);
    }
}

} // namespace etscope
