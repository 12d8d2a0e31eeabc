#include "runschart.h"

#include "numberformat.h"
#include "qtstrings.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace etscope {

namespace {
constexpr double kLeft = 64, kRight = 12, kTop = 24, kBottom = 34;

QColor phaseColor(const std::string &phase)
{
    if (phase == "prefill")
        return QColor(230, 126, 34); // orange
    if (phase == "decode")
        return QColor(41, 128, 185); // blue
    return QColor(110, 110, 110);
}
} // namespace

RunsChart::RunsChart(QWidget *parent)
    : QWidget(parent)
{
    setMouseTracking(true);
}

void RunsChart::setReport(std::shared_ptr<const RunsReport> report)
{
    m_report = std::move(report);
    // Computed once: every point's position needs it, and a hover over 100k runs asks for many.
    double m = 0;
    if (m_report)
        for (const RunRow &r : m_report->runs)
            m = std::max(m, r.durationMs);
    m_yMax = m > 0 ? m * 1.08 : 1; // headroom: the longest run's mark stays inside the frame
    update();
}

QRectF RunsChart::plotArea() const
{
    return { kLeft, kTop, std::max(1.0, width() - kLeft - kRight), std::max(1.0, height() - kTop - kBottom) };
}

double RunsChart::yMax() const
{
    return m_yMax;
}

QPointF RunsChart::pointOf(std::size_t run) const
{
    const QRectF a = plotArea();
    const double n = m_report ? double(std::max<std::size_t>(m_report->runs.size(), 1)) : 1;
    const double x = a.left() + a.width() * (double(run) + 0.5) / n;
    const double d = m_report && run < m_report->runs.size() ? m_report->runs[run].durationMs : 0;
    return { x, a.bottom() - a.height() * d / yMax() };
}

int RunsChart::runAt(QPointF pos) const
{
    if (!m_report || m_report->runs.empty() || !plotArea().adjusted(-4, -4, 4, 4).contains(pos))
        return -1;
    const QRectF a = plotArea();
    const double n = double(m_report->runs.size());
    const double perPixel = n / a.width();
    // The runs under this pixel column (and its neighbours): the nearest in y.
    const long first = std::max(0L, long(std::floor((pos.x() - 3 - a.left()) * perPixel)));
    const long last = std::min(long(n) - 1, long(std::ceil((pos.x() + 3 - a.left()) * perPixel)));
    int best = -1;
    double bestD = 1e300;
    for (long i = first; i <= last; ++i) {
        const QPointF p = pointOf(std::size_t(i));
        const double d = std::abs(p.y() - pos.y()) + std::abs(p.x() - pos.x());
        if (d < bestD) {
            bestD = d;
            best = int(i);
        }
    }
    return bestD <= 12 ? best : -1;
}

void RunsChart::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QRectF a = plotArea();
    p.setPen(palette().text().color());
    if (!m_report || m_report->runs.empty()) {
        p.drawText(rect(), Qt::AlignCenter, tr("A recording with several runs shows them here"));
        return;
    }
    const auto &runs = m_report->runs;
    const QFontMetricsF fm(font());
    // Axes with nice ticks: duration (ms) up, run index along.
    const NiceTicks yt = niceTicks(0, yMax(), std::max(2, int(a.height() / (fm.height() * 2.5))));
    for (double v : yt.values) {
        const double y = a.bottom() - a.height() * v / yMax();
        p.setPen(palette().mid().color());
        p.drawLine(QPointF(a.left(), y), QPointF(a.right(), y));
        p.setPen(palette().text().color());
        p.drawText(QRectF(0, y - 8, kLeft - 6, 16), Qt::AlignRight | Qt::AlignVCenter, formatTick(v, yt.decimals));
    }
    const double n = double(runs.size());
    const NiceTicks xt
        = niceTicks(1, n, std::max(2, int(a.width() / (fm.horizontalAdvance(QStringLiteral("000000")) * 1.5))));
    for (double v : xt.values) {
        const double x = a.left() + a.width() * (v - 0.5) / n;
        p.drawLine(QPointF(x, a.bottom()), QPointF(x, a.bottom() + 4));
        p.drawText(QRectF(x - 40, a.bottom() + 4, 80, 14), Qt::AlignHCenter | Qt::AlignTop, formatTick(v, 0));
    }
    p.drawText(QRectF(a.left(), height() - 15, a.width(), 14), Qt::AlignCenter, tr("run (1 … %1)").arg(runs.size()));
    p.save();
    p.translate(12, a.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-a.height() / 2, -10, a.height(), 14), Qt::AlignCenter, tr("Method::execute (ms)"));
    p.restore();
    p.drawRect(a);

    p.setRenderHint(QPainter::Antialiasing);
    if (n <= a.width() / 2) {
        // Few runs: a mark each.
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const RunRow &r = runs[i];
            const QPointF c = pointOf(i);
            const QColor col = phaseColor(r.phase);
            p.setPen(QPen(col, 1.5));
            p.setBrush(r.warmup ? Qt::NoBrush : QBrush(col));
            p.drawEllipse(c, 3.0, 3.0);
            if (r.outlier) {
                p.setPen(QPen(QColor(192, 57, 43), 1.5));
                p.setBrush(Qt::NoBrush);
                p.drawEllipse(c, 6.0, 6.0);
            }
        }
    } else {
        // Many runs: per pixel column, a bar from the shortest to the longest run drawn there.
        const int columns = int(a.width());
        std::vector<double> lo(std::size_t(columns), 1e300), hi(std::size_t(columns), -1);
        std::vector<std::string> phase(static_cast<std::size_t>(columns));
        std::vector<bool> outlier(std::size_t(columns), false);
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const auto c = std::size_t(std::min<double>(columns - 1, double(i) / n * columns));
            lo[c] = std::min(lo[c], runs[i].durationMs);
            hi[c] = std::max(hi[c], runs[i].durationMs);
            if (phase[c].empty() || runs[i].phase == "prefill")
                phase[c] = runs[i].phase;
            outlier[c] = outlier[c] || runs[i].outlier;
        }
        for (int c = 0; c < columns; ++c) {
            if (hi[std::size_t(c)] < 0)
                continue;
            const double x = a.left() + c + 0.5;
            const double y0 = a.bottom() - a.height() * lo[std::size_t(c)] / yMax();
            const double y1 = a.bottom() - a.height() * hi[std::size_t(c)] / yMax();
            p.setPen(QPen(outlier[std::size_t(c)] ? QColor(192, 57, 43) : phaseColor(phase[std::size_t(c)]), 1));
            p.drawLine(QPointF(x, y0), QPointF(x, std::min(y1, y0 - 1)));
        }
    }
    // The decode phase's robust fit: duration against position, over the steady decode runs.
    if (const PhaseFigures *decode = m_report->phase("decode"); decode && decode->slopeMsPerPosition) {
        const RunRow *first = nullptr, *last = nullptr;
        std::size_t firstIndex = 0, lastIndex = 0;
        for (std::size_t i = 0; i < runs.size(); ++i)
            if (runs[i].phase == "decode" && runs[i].position) {
                if (!first) {
                    first = &runs[i];
                    firstIndex = i;
                }
                last = &runs[i];
                lastIndex = i;
            }
        if (first && last) {
            auto yOf = [&](const RunRow &r) {
                const double ms = decode->interceptMs.value_or(0) + *decode->slopeMsPerPosition * double(*r.position);
                return a.bottom() - a.height() * ms / yMax();
            };
            p.setPen(QPen(QColor(39, 174, 96), 2, Qt::DashLine));
            p.drawLine(QPointF(pointOf(firstIndex).x(), yOf(*first)), QPointF(pointOf(lastIndex).x(), yOf(*last)));
        }
    }
    // Legend.
    double x = a.left();
    for (const auto &[label, col] : { std::pair { tr("prefill"), phaseColor("prefill") },
             std::pair { tr("decode"), phaseColor("decode") }, std::pair { tr("other / all"), phaseColor("all") },
             std::pair { tr("outlier"), QColor(192, 57, 43) }, std::pair { tr("decode fit"), QColor(39, 174, 96) } }) {
        p.setPen(QPen(col, 2));
        p.setBrush(col);
        p.drawEllipse(QPointF(x + 5, kTop / 2), 3.5, 3.5);
        p.setPen(palette().text().color());
        p.drawText(QRectF(x + 12, 2, 120, kTop - 4), Qt::AlignLeft | Qt::AlignVCenter, label);
        x += 12 + fm.horizontalAdvance(label) + 14;
    }
}

void RunsChart::mouseMoveEvent(QMouseEvent *event)
{
    const int run = runAt(event->position());
    if (run < 0) {
        QToolTip::hideText();
        return;
    }
    const RunRow &r = m_report->runs[std::size_t(run)];
    QString text
        = tr("run %1 of %2: %3 ms").arg(run + 1).arg(m_report->runs.size()).arg(formatSignificant(r.durationMs));
    text += QStringLiteral("\n") + tr("phase %1").arg(toQString(r.phase));
    if (!r.method.empty())
        text += QStringLiteral(", ") + tr("method %1").arg(toQString(r.method));
    if (r.warmup)
        text += QStringLiteral("\n") + tr("warm-up (left out of the steady figures)");
    if (r.outlier)
        text += QStringLiteral("\n") + tr("outlier");
    QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

void RunsChart::mousePressEvent(QMouseEvent *event)
{
    if (const int run = runAt(event->position()); run >= 0)
        Q_EMIT runClicked(run);
}

} // namespace etscope
