#include "decompositionchart.h"

#include "analysis/comparator.h"
#include "analysis/noise.h"
#include "common/numberformat.h"
#include "numberformat.h"
#include "qtstrings.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>

namespace etscope::gapui {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const QColor kQuantColor(49, 130, 189); // blue, as the accumulated curve of the gap chart
const QColor kKernelColor(230, 85, 13); // orange
constexpr double kDominantWidth = 92; // room for "quantization" after the bars

QString valueText(double v)
{
    return formatGap(v, 4, QStringLiteral("–"));
}

QString partText(const char *what, const evalgap::ErrorPart &p, analysis::Metric m)
{
    if (!p.valid)
        return QStringLiteral("%1: no value").arg(QString::fromLatin1(what));
    return QStringLiteral("%1: %2 %3, SNR %4 dB (noise level %5)%6")
        .arg(QString::fromLatin1(what), QString::fromLatin1(analysis::metricName(m)), valueText(p.gap),
            valueText(p.snrDb), valueText(p.noise), p.flagged ? QStringLiteral(", above it") : QString());
}
} // namespace

DecompositionChart::DecompositionChart(QWidget *parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void DecompositionChart::setDecomposition(const evalgap::Decomposition *d)
{
    m_rows.clear();
    m_labelWidth = 80;
    if (d) {
        const QFontMetrics fm(font());
        for (const evalgap::OpDecomposition &op : d->ops) {
            Row r;
            r.label = toQString(op.label());
            r.blockIndex = op.blockIndex;
            r.eventIndex = op.eventIndex;
            r.length = op.total.valid ? analysis::gapSeverity(op.total.excess, op.total.flagged) : kNaN;
            r.aboveNoise = op.total.valid && op.total.flagged;
            const evalgap::ErrorSplit s = evalgap::errorSplit(op, d->metric);
            r.quantShare = s.quant;
            r.kernelShare = s.kernel;
            r.dominant = op.dominant;
            QStringList tip { r.label, partText("quantization", op.quant, d->metric),
                partText("kernel", op.kernel, d->metric), partText("total", op.total, d->metric) };
            if (!std::isnan(s.quant))
                tip << tr("error share: %1 % quantization, %2 % kernel")
                           .arg(s.quant * 100, 0, 'f', 0)
                           .arg(s.kernel * 100, 0, 'f', 0);
            tip << tr("dominant: %1").arg(QString::fromLatin1(evalgap::dominantName(op.dominant)));
            if (!op.note.empty())
                tip << toQString(op.note);
            r.tip = tip.join(QLatin1Char('\n'));
            m_labelWidth = std::max(m_labelWidth, fm.horizontalAdvance(r.label) + 12);
            m_rows.push_back(std::move(r));
        }
        m_labelWidth = std::min(m_labelWidth, 220);
    }
    updateGeometry();
    update();
}

QSize DecompositionChart::sizeHint() const
{
    return QSize(720, kHeaderHeight + std::max<int>(int(m_rows.size()), 2) * kRowHeight + 8);
}

double DecompositionChart::barLeft() const
{
    return m_labelWidth + 8.0;
}

double DecompositionChart::barWidth() const
{
    return std::max(40.0, width() - barLeft() - kDominantWidth - 8);
}

double DecompositionChart::noiseX() const
{
    return barLeft() + 0.5 * barWidth();
}

QRectF DecompositionChart::barRect(int row) const
{
    if (row < 0 || row >= int(m_rows.size()) || std::isnan(m_rows[std::size_t(row)].length))
        return {};
    const double y = kHeaderHeight + row * kRowHeight + 3;
    return QRectF(barLeft(), y, std::max(1.0, m_rows[std::size_t(row)].length * barWidth()), kRowHeight - 6);
}

QRectF DecompositionChart::quantRect(int row) const
{
    const QRectF b = barRect(row);
    if (b.isNull() || std::isnan(m_rows[std::size_t(row)].quantShare))
        return {};
    return QRectF(b.left(), b.top(), b.width() * m_rows[std::size_t(row)].quantShare, b.height());
}

QRectF DecompositionChart::kernelRect(int row) const
{
    const QRectF b = barRect(row);
    if (b.isNull() || std::isnan(m_rows[std::size_t(row)].kernelShare))
        return {};
    const double w = b.width() * m_rows[std::size_t(row)].kernelShare;
    return QRectF(b.right() - w, b.top(), w, b.height());
}

int DecompositionChart::rowAt(const QPoint &p) const
{
    if (p.y() < kHeaderHeight)
        return -1;
    const int row = (p.y() - kHeaderHeight) / kRowHeight;
    return row < int(m_rows.size()) ? row : -1;
}

QString DecompositionChart::toolTipText(int row) const
{
    return row >= 0 && row < int(m_rows.size()) ? m_rows[std::size_t(row)].tip : QString();
}

void DecompositionChart::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QColor text = palette().text().color();
    p.setPen(text);
    if (m_rows.empty()) {
        p.drawText(rect(), Qt::AlignCenter, tr("No decomposition computed"));
        return;
    }
    // Legend: the two parts, and what the length means.
    const QFontMetrics fm(font());
    double x = 8;
    for (int k = 0; k < 2; ++k) {
        p.fillRect(QRectF(x, 8, 12, 12), k ? kKernelColor : kQuantColor);
        const QString name = k ? tr("kernel") : tr("quantization");
        p.drawText(QPointF(x + 16, 18), name);
        x += 16 + fm.horizontalAdvance(name) + 14;
    }
    const QString scale = tr("length: total error on the noise scale (dashed: the noise level)");
    p.setPen(palette().placeholderText().color());
    p.drawText(QRectF(x, 4, width() - x - 8, 20), Qt::AlignLeft | Qt::AlignVCenter,
        fm.elidedText(scale, Qt::ElideRight, int(width() - x - 8)));

    const QColor pale = palette().mid().color();
    for (int i = 0; i < int(m_rows.size()); ++i) {
        const Row &r = m_rows[std::size_t(i)];
        const double y = kHeaderHeight + i * kRowHeight;
        QFont f = font();
        f.setBold(r.dominant != evalgap::Dominant::Noise);
        p.setFont(f);
        p.setPen(text);
        p.drawText(QRectF(4, y, m_labelWidth - 8, kRowHeight), Qt::AlignRight | Qt::AlignVCenter,
            QFontMetrics(f).elidedText(r.label, Qt::ElideMiddle, m_labelWidth - 8));
        const QRectF bar = barRect(i);
        if (bar.isNull()) {
            p.setPen(palette().placeholderText().color());
            p.drawText(QRectF(barLeft(), y, barWidth(), kRowHeight), Qt::AlignLeft | Qt::AlignVCenter, tr("no value"));
            continue;
        }
        if (std::isnan(r.quantShare)) {
            p.fillRect(bar, pale); // exact on both sides: nothing to split
        } else {
            const QRectF q = quantRect(i), k = kernelRect(i);
            QColor qc = kQuantColor, kc = kKernelColor;
            if (!r.aboveNoise) {
                qc.setAlpha(90);
                kc.setAlpha(90);
            }
            p.fillRect(q, qc);
            p.fillRect(k, kc);
        }
        if (r.dominant != evalgap::Dominant::Noise) {
            p.setPen(r.dominant == evalgap::Dominant::Kernel ? kKernelColor : kQuantColor);
            p.drawText(QRectF(barLeft() + barWidth() + 8, y, kDominantWidth, kRowHeight),
                Qt::AlignLeft | Qt::AlignVCenter, QString::fromLatin1(evalgap::dominantName(r.dominant)));
        }
    }
    p.setFont(font());
    p.setPen(QPen(text, 1, Qt::DashLine));
    const double nx = noiseX();
    p.drawLine(QPointF(nx, kHeaderHeight - 2), QPointF(nx, kHeaderHeight + m_rows.size() * kRowHeight));
}

bool DecompositionChart::event(QEvent *e)
{
    if (e->type() == QEvent::ToolTip) {
        auto *he = static_cast<QHelpEvent *>(e);
        const int row = rowAt(he->pos());
        if (row >= 0)
            QToolTip::showText(he->globalPos(), toolTipText(row), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(e);
}

void DecompositionChart::mousePressEvent(QMouseEvent *e)
{
    const int row = rowAt(e->position().toPoint());
    if (row < 0)
        return;
    Q_EMIT opClicked(row);
    const Row &r = m_rows[std::size_t(row)];
    if (r.blockIndex >= 0 && r.eventIndex >= 0)
        Q_EMIT eventSelected(r.blockIndex, r.eventIndex);
}

} // namespace etscope::gapui
