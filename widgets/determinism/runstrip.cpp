#include "runstrip.h"

#include "numberformat.h"
#include "qtstrings.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace etscope {

namespace {
constexpr int kMargin = 6, kAxisH = 30, kRowH = 16;
const QColor kEqual(0xd6, 0xd6, 0xd6);
} // namespace

RunStrip::RunStrip(QWidget *parent)
    : QWidget(parent)
{
    setMouseTracking(true);
}

QString RunStrip::rowLabel(const TensorDeterminism &t) const
{
    return t.programOutput ? tr("#%1 output %2").arg(t.position).arg(t.occurrence)
                           : tr("#%1 %2").arg(t.position).arg(toQString(t.name));
}

void RunStrip::setReport(std::shared_ptr<const DeterminismReport> report)
{
    m_report = std::move(report);
    m_current = -1;
    m_image = {};
    if (m_report && m_report->runs && !m_report->tensors.empty()) {
        // Log scale between the smallest and the largest deviation of any differing run.
        double lo = INFINITY, hi = 0;
        for (const TensorDeterminism &t : m_report->tensors)
            for (std::size_t r : t.runsDiffer)
                if (t.runMaxAbs.size() > r && t.runMaxAbs[r] > 0) {
                    lo = std::min(lo, t.runMaxAbs[r]);
                    hi = std::max(hi, t.runMaxAbs[r]);
                }
        m_image = QImage(int(m_report->runs), int(m_report->tensors.size()), QImage::Format_RGB32);
        m_image.fill(kEqual);
        for (std::size_t y = 0; y < m_report->tensors.size(); ++y) {
            const TensorDeterminism &t = m_report->tensors[y];
            for (std::size_t r : t.runsDiffer) {
                const double d = t.runMaxAbs.size() > r ? t.runMaxAbs[r] : 0;
                const double s = hi > lo && d > 0 ? std::log(d / lo) / std::log(hi / lo) : 1.0;
                m_image.setPixelColor(
                    int(r), int(y), QColor::fromHsvF(float(0.15 * (1 - s)), 0.9f, float(1 - 0.35 * s)));
            }
        }
        const QFontMetrics fm = fontMetrics();
        m_labelWidth = 40;
        for (const TensorDeterminism &t : m_report->tensors)
            m_labelWidth = std::max(m_labelWidth, fm.horizontalAdvance(rowLabel(t)) + 8);
        m_labelWidth = std::min(m_labelWidth, 240);
    }
    updateGeometry();
    update();
}

void RunStrip::setCurrentTensor(int position)
{
    m_current = position;
    update();
}

QSize RunStrip::sizeHint() const
{
    const int rows = m_report ? int(m_report->tensors.size()) : 4;
    return { 520, std::min(2 * kMargin + kAxisH + rows * kRowH, 420) };
}

QRectF RunStrip::plotArea() const
{
    if (!m_report || m_image.isNull())
        return {};
    const double w = width() - 2 * kMargin - m_labelWidth;
    const double h = std::min(double(height() - 2 * kMargin - kAxisH), double(m_report->tensors.size()) * 24.0);
    if (w < 4 || h < 4)
        return {};
    return { double(kMargin + m_labelWidth), double(kMargin), w, h };
}

QRectF RunStrip::cellRect(int run, int tensor) const
{
    const QRectF a = plotArea();
    if (a.isEmpty())
        return {};
    const double cw = a.width() / double(m_report->runs), ch = a.height() / double(m_report->tensors.size());
    return { a.left() + run * cw, a.top() + tensor * ch, cw, ch };
}

QPoint RunStrip::cellAt(QPointF pos) const
{
    const QRectF a = plotArea();
    if (a.isEmpty() || !a.contains(pos))
        return { -1, -1 };
    const int run = std::min(int((pos.x() - a.left()) / a.width() * double(m_report->runs)), int(m_report->runs) - 1);
    const int t = std::min(
        int((pos.y() - a.top()) / a.height() * double(m_report->tensors.size())), int(m_report->tensors.size()) - 1);
    return { run, t };
}

void RunStrip::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    p.setPen(palette().text().color());
    const QRectF a = plotArea();
    if (a.isEmpty()) {
        p.drawText(rect(), Qt::AlignCenter, tr("No runs to show."));
        return;
    }
    p.drawImage(a, m_image);
    const double cw = a.width() / double(m_report->runs), ch = a.height() / double(m_report->tensors.size());
    if (cw >= 5) { // gaps between the runs while there is room
        p.setPen(QPen(palette().base().color(), 1));
        for (std::size_t r = 1; r < m_report->runs; ++r)
            p.drawLine(QPointF(a.left() + double(r) * cw, a.top()), QPointF(a.left() + double(r) * cw, a.bottom()));
    }
    if (ch >= 5) {
        p.setPen(QPen(palette().base().color(), 1));
        for (std::size_t t = 1; t < m_report->tensors.size(); ++t)
            p.drawLine(QPointF(a.left(), a.top() + double(t) * ch), QPointF(a.right(), a.top() + double(t) * ch));
    }
    const QFontMetrics fm = fontMetrics();
    p.setPen(palette().text().color());
    // Every row's label when they fit, else every step-th (the selected one is framed anyway).
    const auto step = std::size_t(std::max(1.0, std::ceil(double(fm.height()) / ch)));
    for (std::size_t t = 0; t < m_report->tensors.size(); t += step) {
        const TensorDeterminism &td = m_report->tensors[t];
        p.setPen(td.varies() ? QColor(0xc6, 0x28, 0x28) : palette().text().color());
        const double y = a.top() + (double(t) + 0.5) * ch - fm.height() / 2.0;
        p.drawText(QRectF(kMargin, y, m_labelWidth - 6, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
            fm.elidedText(rowLabel(td), Qt::ElideMiddle, m_labelWidth - 6));
    }
    // The runs along the bottom, thinned so that none overlaps.
    p.setPen(palette().text().color());
    const int every = std::max(1, int(std::ceil(double(fm.horizontalAdvance(QStringLiteral("0000"))) / cw)));
    for (std::size_t r = 0; r < m_report->runs; r += std::size_t(every))
        p.drawText(QRectF(a.left() + double(r) * cw + cw / 2 - 20, a.bottom() + 1, 40, fm.height()), Qt::AlignHCenter,
            QString::number(r));
    p.drawText(QRectF(a.left(), a.bottom() + fm.height(), a.width(), fm.height()), Qt::AlignHCenter,
        tr("run (0-based; coloured: differs from the majority, by its max |Δ| on a log scale)"));
    if (m_current >= 0 && std::size_t(m_current) < m_report->tensors.size()) {
        p.setPen(QPen(QColor(0x15, 0x65, 0xc0), 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(QRectF(a.left(), a.top() + m_current * ch, a.width(), ch).adjusted(-1, 0, 1, 0));
    }
}

bool RunStrip::event(QEvent *e)
{
    if (e->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(e);
        const QPoint c = cellAt(help->pos());
        if (c.x() < 0) {
            QToolTip::hideText();
            e->ignore();
            return true;
        }
        const TensorDeterminism &t = m_report->tensors[std::size_t(c.y())];
        const bool differs = std::binary_search(t.runsDiffer.begin(), t.runsDiffer.end(), std::size_t(c.x()));
        const QString source = std::size_t(c.x()) < m_report->runSources.size()
            ? toQString(m_report->runSources[std::size_t(c.x())])
            : QString();
        QToolTip::showText(help->globalPos(),
            differs ? tr("run %1 (%2)\n%3: differs, max |Δ| %4")
                          .arg(c.x())
                          .arg(source, rowLabel(t), formatSignificant(t.runMaxAbs[std::size_t(c.x())], 4))
                    : tr("run %1 (%2)\n%3: equal to the majority").arg(c.x()).arg(source, rowLabel(t)),
            this);
        return true;
    }
    return QWidget::event(e);
}

void RunStrip::mousePressEvent(QMouseEvent *e)
{
    const QPoint c = cellAt(e->position());
    if (c.y() >= 0)
        Q_EMIT tensorClicked(c.y());
}

} // namespace etscope
