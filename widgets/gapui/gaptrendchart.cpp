#include "gaptrendchart.h"
#include "qtstrings.h"

#include "graph/programgraph.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace etscope::gapui {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const QColor kAccColor(49, 130, 189); // blue
const QColor kIsoColor(230, 85, 13); // orange
const QColor kThresholdColor(200, 40, 40); // dashed red
constexpr double kPointRadius = 4.5;

QString formatValue(double v)
{
    if (std::isnan(v))
        return QStringLiteral("–");
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return QString::number(v, 'g', 4);
}

QString rowLabel(const analysis::GapRow &r)
{
    QString op = r.runtimeOps.empty() ? QStringLiteral("?") : toQString(r.runtimeOps.back());
    op.remove(QStringLiteral("native_call_"));
    return QStringLiteral("#%1 %2").arg(r.instructionId).arg(op);
}

} // namespace

GapTrendChart::GapTrendChart(QWidget *parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

double GapTrendChart::transform(double v) const
{
    // Larger = worse on the y axis. Error metrics on a log scale; zero (exact) sits at the floor.
    if (std::isnan(v))
        return kNaN;
    switch (m_metric) {
    case analysis::Metric::SNR:
        return std::isinf(v) ? (v > 0 ? -400.0 : 400.0) : -v;
    case analysis::Metric::Cosine:
        return std::log10(std::max(1e-30, 1.0 - v));
    default:
        return std::log10(std::max(1e-30, std::abs(v)));
    }
}

void GapTrendChart::setTables(const analysis::GapTable &accumulated, const analysis::GapTable &isolated)
{
    m_points.clear();
    m_entry = -1;
    m_metric = accumulated.metric;
    m_direction = accumulated.direction;
    m_hasIsolated = !isolated.rows.empty();
    m_legend = toQString(m_hasIsolated
            ? analysis::gapLegend(accumulated.metric, "accumulated and isolated", accumulated.threshold)
            : analysis::gapLegend(accumulated));
    std::map<std::pair<int, int>, const analysis::GapRow *> iso;
    for (const auto &r : isolated.rows)
        iso.emplace(std::make_pair(r.blockIndex, r.eventIndex), &r);
    for (const auto &r : accumulated.rows) {
        Point p;
        p.label = rowLabel(r);
        p.blockIndex = r.blockIndex;
        p.eventIndex = r.eventIndex;
        p.acc = r.worst(m_direction);
        p.accFlagged = r.flagged;
        p.threshold = kNaN;
        for (std::size_t k = 0; k < r.gap.size() && k < r.noise.size(); ++k)
            if (r.gap[k] == p.acc || (std::isnan(r.gap[k]) && std::isnan(p.acc))) {
                p.threshold = r.noise[k];
                break;
            }
        auto it = iso.find({ r.blockIndex, r.eventIndex });
        p.iso = it == iso.end() ? kNaN : it->second->worst(m_direction);
        p.isoFlagged = it != iso.end() && it->second->flagged;
        m_points.push_back(p);
    }
    // Axis range over the finite transformed values; exact matches sit at the floor.
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    double worstIso = kNaN;
    for (int i = 0; i < int(m_points.size()); ++i) {
        for (double v :
            { m_points[std::size_t(i)].acc, m_points[std::size_t(i)].iso, m_points[std::size_t(i)].threshold }) {
            const double t = transform(v);
            if (!std::isfinite(t) || t <= -29 || std::abs(t) >= 400)
                continue;
            lo = std::min(lo, t);
            hi = std::max(hi, t);
        }
        const double iv = m_points[std::size_t(i)].iso;
        if (!std::isnan(iv) && m_points[std::size_t(i)].isoFlagged
            && (std::isnan(worstIso)
                || analysis::badness(m_direction, iv) > analysis::badness(m_direction, worstIso))) {
            worstIso = iv;
            m_entry = i;
        }
    }
    if (!std::isfinite(lo)) {
        lo = -1;
        hi = 1;
    }
    if (hi - lo < 1) {
        lo -= 0.5;
        hi += 0.5;
    }
    m_lo = std::floor(lo) - 1; // one decade of room below for the "exact" floor
    m_hi = std::ceil(hi);
    // A worst isolated gap that is an exact match is no entry point.
    if (m_entry >= 0 && transform(m_points[std::size_t(m_entry)].iso) <= m_lo)
        m_entry = -1;
    // Long kernel names are cut at 140 px under the axis (a point's tooltip has the whole name).
    // Under the axis: the labels slanted at 30° and the legend line; on the right: the last
    // label's run.
    const QFontMetrics fm(font());
    m_labelWidth = 0;
    for (const Point &pt : m_points)
        m_labelWidth = std::max(m_labelWidth, std::min(fm.horizontalAdvance(pt.label), 140));
    m_marginBelow = m_labelWidth * 0.5 + fm.height() * 0.87 + 8 + 22;
    m_marginRight = std::max(16.0, m_labelWidth * 0.87 - 8);
    update();
}

bool GapTrendChart::isFlagged(int index, bool isolated) const
{
    if (index < 0 || index >= int(m_points.size()))
        return false;
    return isolated ? m_points[std::size_t(index)].isoFlagged : m_points[std::size_t(index)].accFlagged;
}

double GapTrendChart::value(int index, bool isolated) const
{
    if (index < 0 || index >= int(m_points.size()))
        return kNaN;
    return isolated ? m_points[std::size_t(index)].iso : m_points[std::size_t(index)].acc;
}

QString GapTrendChart::label(int index) const
{
    return index >= 0 && index < int(m_points.size()) ? m_points[std::size_t(index)].label : QString();
}

double GapTrendChart::threshold(int index) const
{
    return index >= 0 && index < int(m_points.size()) ? m_points[std::size_t(index)].threshold : kNaN;
}

QPointF GapTrendChart::thresholdPosition(int index) const
{
    const QPointF p = pointPosition(index, false);
    const double t = transform(threshold(index));
    return QPointF(p.x(), std::isnan(t) ? kNaN : toY(t));
}

std::vector<std::pair<double, QString>> GapTrendChart::yTicks() const
{
    // Decades (log metrics) or 10 dB steps (SNR, worse = up), at most ~8 labelled lines. The
    // bottom of the axis is the floor exact matches are drawn on.
    std::vector<std::pair<double, QString>> out;
    const bool snr = m_metric == analysis::Metric::SNR;
    out.emplace_back(m_lo, snr ? QStringLiteral("∞ dB") : QStringLiteral("0"));
    const double base = snr ? 10 : 1;
    const double step = base * std::max(1.0, std::ceil((m_hi - m_lo) / base / 8));
    for (double t = std::ceil(m_lo / step) * step; t <= m_hi + 1e-9; t += step) {
        if (t <= m_lo + 1e-9)
            continue; // the floor has its label
        out.emplace_back(t, snr ? QStringLiteral("%1 dB").arg(-t) : QStringLiteral("1e%1").arg(int(t)));
    }
    return out;
}

QStringList GapTrendChart::yTickLabels() const
{
    QStringList out;
    if (m_points.empty())
        return out;
    for (const auto &[t, label] : yTicks())
        out << label;
    return out;
}

QRectF GapTrendChart::plotRect() const
{
    return QRectF(64, 30, std::max(40.0, width() - 64 - m_marginRight), std::max(40.0, height() - 30 - m_marginBelow));
}

double GapTrendChart::toY(double t) const
{
    const QRectF r = plotRect();
    t = std::clamp(t, m_lo, m_hi);
    return r.bottom() - (t - m_lo) / (m_hi - m_lo) * r.height();
}

QPointF GapTrendChart::pointPosition(int index, bool isolated) const
{
    const QRectF r = plotRect();
    const double n = std::max<double>(1, double(m_points.size()) - 1);
    const double x = m_points.size() <= 1 ? r.center().x() : r.left() + r.width() * double(index) / n;
    const double t = transform(value(index, isolated));
    return QPointF(x, std::isnan(t) ? r.bottom() : toY(t));
}

void GapTrendChart::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().base());
    const QColor text = palette().text().color();
    p.setPen(text);
    if (m_points.empty()) {
        p.drawText(rect(), Qt::AlignCenter, tr("No numeric gap computed"));
        return;
    }
    const QRectF r = plotRect();

    // Title and legend.
    p.drawText(QRectF(8, 4, width() - 400, 20), Qt::AlignLeft | Qt::AlignVCenter,
        tr("%1 along execution order").arg(QString::fromLatin1(analysis::metricName(m_metric))));
    // What is flagged, and the verdict when nothing is.
    bool anyFlagged = false;
    for (const Point &pt : m_points)
        anyFlagged = anyFlagged || pt.accFlagged || pt.isoFlagged;
    p.drawText(QRectF(8, height() - 18, width() - 16, 16), Qt::AlignLeft | Qt::AlignVCenter,
        anyFlagged ? m_legend : tr("No op exceeds the noise level — %1").arg(m_legend));
    const double lx = width() - 390;
    for (int k = 0; k < 3; ++k) {
        const QColor c = k == 2 ? kThresholdColor : k ? kIsoColor : kAccColor;
        const double x = lx + k * 130;
        p.setPen(QPen(c, 2, k == 2 ? Qt::DashLine : Qt::SolidLine));
        p.drawLine(QPointF(x, 14), QPointF(x + 22, 14));
        p.setPen(text);
        p.drawText(QRectF(x + 26, 4, 104, 20), Qt::AlignLeft | Qt::AlignVCenter,
            k == 2  ? tr("threshold")
                : k ? tr("isolated")
                    : tr("accumulated"));
    }

    // Y grid: decades (log metrics) or 10 dB steps (SNR, worse = up); the floor reads 0.
    for (const auto &[t, lab] : yTicks()) {
        const double y = toY(t);
        p.setPen(QPen(palette().mid().color(), 1, Qt::DotLine));
        p.drawLine(QPointF(r.left(), y), QPointF(r.right(), y));
        p.setPen(text);
        p.drawText(QRectF(0, y - 8, r.left() - 6, 16), Qt::AlignRight | Qt::AlignVCenter, lab);
    }
    p.setPen(text);
    p.drawLine(r.bottomLeft(), r.bottomRight());
    p.drawLine(r.bottomLeft(), r.topLeft());

    // X labels, slanted at 30°: parallel lines whose anchors are d apart lie d·sin 30° apart, so
    // a label every 2.2 line heights keeps them from touching; thinned to that.
    const QFontMetrics fm(font());
    const double minGap = fm.height() * 2.2;
    const int every = std::max(1, int(std::ceil(double(m_points.size()) * minGap / std::max(1.0, r.width()))));
    for (int i = 0; i < int(m_points.size()); i += every) {
        const QPointF pt = pointPosition(i, false);
        p.save();
        p.translate(pt.x(), r.bottom() + 4);
        p.rotate(30);
        p.drawText(
            QRectF(0, 0, m_labelWidth, fm.height()), Qt::AlignLeft | Qt::AlignVCenter, m_points[std::size_t(i)].label);
        p.restore();
    }

    // The threshold each row is judged by, as a step line: a point above it is flagged.
    {
        QPainterPath steps;
        bool open = false;
        const double half = m_points.size() > 1 ? (pointPosition(1, false).x() - pointPosition(0, false).x()) / 2 : 12;
        for (int i = 0; i < int(m_points.size()); ++i) {
            const QPointF t = thresholdPosition(i);
            if (std::isnan(t.y())) {
                open = false;
                continue;
            }
            const QPointF a(std::max(r.left(), t.x() - half), t.y()), b(std::min(r.right(), t.x() + half), t.y());
            if (open)
                steps.lineTo(a);
            else
                steps.moveTo(a);
            steps.lineTo(b);
            open = true;
        }
        p.setPen(QPen(kThresholdColor, 1.4, Qt::DashLine));
        p.setBrush(Qt::NoBrush);
        p.drawPath(steps);
    }

    // The entry point: where the isolated gap is worst, the error enters.
    if (m_entry >= 0) {
        const QPointF e = pointPosition(m_entry, true);
        p.setPen(QPen(QColor(215, 25, 28), 2));
        p.setBrush(Qt::NoBrush);
        p.drawEllipse(e, 9, 9);
        const QString t = tr("error enters: %1").arg(m_points[std::size_t(m_entry)].label);
        // Right of the point, or left of it when it would leave the widget.
        const double tw = p.fontMetrics().horizontalAdvance(t) + 4;
        const bool left = e.x() + 12 + tw > double(width()) - 4;
        const double tx = left ? std::max(0.0, e.x() - 12 - tw) : e.x() + 12;
        p.drawText(QRectF(tx, std::max(r.top() - 2, e.y() - 24), tw, 16),
            (left ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter, t);
    }

    for (int k = 0; k < 2; ++k) {
        const bool iso = k == 1;
        const QColor c = iso ? kIsoColor : kAccColor;
        QPainterPath path;
        bool open = false;
        for (int i = 0; i < int(m_points.size()); ++i) {
            if (std::isnan(value(i, iso))) {
                open = false;
                continue;
            }
            const QPointF pt = pointPosition(i, iso);
            if (open)
                path.lineTo(pt);
            else
                path.moveTo(pt);
            open = true;
        }
        p.setPen(QPen(c, iso ? 1.6 : 2.0, iso ? Qt::DashLine : Qt::SolidLine));
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        p.setPen(QPen(c, 1));
        p.setBrush(iso ? QBrush(palette().base()) : QBrush(c));
        for (int i = 0; i < int(m_points.size()); ++i)
            if (!std::isnan(value(i, iso)))
                p.drawEllipse(pointPosition(i, iso), kPointRadius, kPointRadius);
        // Above the noise level: the warm colour of every gap view, as a ring.
        const graph::Rgb warm = graph::gapSeverityColor(0.85);
        p.setPen(QPen(QColor(warm.r, warm.g, warm.b), 2));
        p.setBrush(Qt::NoBrush);
        for (int i = 0; i < int(m_points.size()); ++i)
            if (!std::isnan(value(i, iso)) && isFlagged(i, iso))
                p.drawEllipse(pointPosition(i, iso), kPointRadius + 2, kPointRadius + 2);
    }
}

int GapTrendChart::hit(const QPoint &pos) const
{
    int best = -1;
    double bestD = 12 * 12;
    for (int i = 0; i < int(m_points.size()); ++i)
        for (bool iso : { false, true }) {
            if (std::isnan(value(i, iso)))
                continue;
            const QPointF d = pointPosition(i, iso) - QPointF(pos);
            const double dd = d.x() * d.x() + d.y() * d.y();
            if (dd < bestD) {
                bestD = dd;
                best = i;
            }
        }
    return best;
}

bool GapTrendChart::event(QEvent *e)
{
    if (e->type() == QEvent::ToolTip) {
        auto *he = static_cast<QHelpEvent *>(e);
        const int i = hit(he->pos());
        if (i >= 0) {
            QToolTip::showText(he->globalPos(),
                tr("%1\naccumulated: %2%4\nisolated: %3%5\nthreshold: %6")
                    .arg(m_points[std::size_t(i)].label, formatValue(value(i, false)), formatValue(value(i, true)),
                        isFlagged(i, false) ? tr(" (above the threshold)") : QString(),
                        isFlagged(i, true) ? tr(" (above the threshold)") : QString(), formatValue(threshold(i))),
                this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(e);
}

void GapTrendChart::mousePressEvent(QMouseEvent *e)
{
    const int i = hit(e->position().toPoint());
    if (i >= 0)
        Q_EMIT eventSelected(m_points[std::size_t(i)].blockIndex, m_points[std::size_t(i)].eventIndex);
}

} // namespace etscope::gapui
