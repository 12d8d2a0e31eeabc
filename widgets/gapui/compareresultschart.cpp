#include "compareresultschart.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace etscope::gapui {

CompareResultsChart::CompareResultsChart(QWidget *parent)
    : QWidget(parent)
{ }

void CompareResultsChart::setResults(std::vector<analysis::OutputComparison> rows)
{
    m_rows = std::move(rows);
    update();
}

QString CompareResultsChart::xAxisTitle()
{
    return tr("output index");
}

void CompareResultsChart::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    p.setPen(palette().text().color());
    if (m_rows.empty()) {
        p.drawText(rect(), Qt::AlignCenter, tr("No outputs compared"));
        return;
    }
    // compare_results' metric names; the x axis is the output index under each bar.
    const char *names[] = { "snr (dB) per output", "mse per output", "cosine_similarity per output" };
    const QColor colors[] = { QColor(49, 130, 189), QColor(230, 85, 13), QColor(49, 163, 84) };
    // Under each panel: the output indices, then the axis title naming them.
    const int panelW = width() / 3, top = 22, bottom = height() - 40;
    for (int m = 0; m < 3; ++m) {
        auto valueOf = [m](const analysis::OutputComparison &c) { return m == 0 ? c.snr : m == 1 ? c.mse : c.cosine; };
        // Scale each panel to its largest finite magnitude (0 when all are 0 or infinite).
        double maxAbs = 0;
        for (const auto &r : m_rows)
            if (r.comparable && std::isfinite(valueOf(r)))
                maxAbs = std::max(maxAbs, std::abs(valueOf(r)));
        if (maxAbs == 0)
            maxAbs = 1;
        const QRect panel(m * panelW + 8, top, panelW - 16, bottom - top);
        p.setPen(palette().text().color());
        p.drawText(QRect(panel.left(), 0, panel.width(), top), Qt::AlignCenter, QString::fromLatin1(names[m]));
        p.drawLine(panel.bottomLeft(), panel.bottomRight());
        p.drawText(QRect(panel.left(), panel.bottom() + 20, panel.width(), 18), Qt::AlignCenter, xAxisTitle());
        const double bw = double(panel.width()) / double(m_rows.size());
        for (std::size_t i = 0; i < m_rows.size(); ++i) {
            const auto &r = m_rows[i];
            const QRectF slot(panel.left() + bw * double(i) + 3, panel.top() + 14, bw - 6, panel.height() - 14);
            p.setPen(palette().text().color());
            p.drawText(
                QRectF(slot.left(), panel.bottom() + 2, slot.width(), 18), Qt::AlignCenter, QString::number(r.index));
            if (!r.comparable) {
                p.drawText(slot, Qt::AlignCenter, QStringLiteral("none"));
                continue;
            }
            const double v = valueOf(r);
            QString label = std::isnan(v) ? QStringLiteral("nan")
                : std::isinf(v)           ? (v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf"))
                : m == 1                  ? QString::number(v, 'g', 3) // an MSE of 1e-9 is not "0.00"
                                          : QString::number(analysis::roundTo2(v), 'f', 2);
            const double frac = std::isfinite(v) ? std::abs(v) / maxAbs : (std::isinf(v) ? 1.0 : 0.0);
            const double h = slot.height() * frac;
            const QRectF bar(slot.left(), slot.bottom() - h, slot.width(), h);
            p.fillRect(bar, std::isinf(v) ? QBrush(colors[m], Qt::BDiagPattern) : QBrush(colors[m]));
            p.drawText(QRectF(slot.left(), bar.top() - 14, slot.width(), 14), Qt::AlignCenter, label);
        }
    }
}

} // namespace etscope::gapui
