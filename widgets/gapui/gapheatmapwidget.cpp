#include "gapheatmapwidget.h"

#include <QFileInfo>
#include <QFontMetrics>
#include <QHelpEvent>
#include <QLinearGradient>
#include <QMouseEvent>
#include <QPainter>
#include <QSvgGenerator>
#include <QToolTip>

#include <cmath>
#include <limits>
#include <map>

namespace etscope::gapui {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Green (good) → yellow → red (bad): readable for the common red-green deficiency because
// lightness also changes.
QColor ramp(double t)
{
    t = std::clamp(t, 0.0, 1.0);
    const QColor good(26, 150, 65), mid(253, 231, 37), bad(215, 25, 28);
    auto mix = [](const QColor &a, const QColor &b, double u) {
        return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * u),
            float(a.greenF() + (b.greenF() - a.greenF()) * u), float(a.blueF() + (b.blueF() - a.blueF()) * u));
    };
    return t < 0.5 ? mix(good, mid, t * 2) : mix(mid, bad, (t - 0.5) * 2);
}

QString formatValue(double v)
{
    if (std::isnan(v))
        return QStringLiteral("–");
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return QString::number(v, 'g', 4);
}

} // namespace

GapHeatmapWidget::GapHeatmapWidget(QWidget *parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

double GapHeatmapWidget::transformed(const Column &c, double v) const
{
    // Larger = worse, on a log scale. Exact matches map to -inf (drawn as the best colour).
    switch (c.metric) {
    case analysis::Metric::SNR:
        return std::isinf(v) && v > 0 ? -std::numeric_limits<double>::infinity() : -v;
    case analysis::Metric::Cosine:
        return std::log10(std::max(0.0, 1.0 - v));
    default:
        return std::log10(std::abs(v));
    }
}

void GapHeatmapWidget::setTables(std::vector<analysis::GapTable> tables)
{
    m_columns.clear();
    m_rows.clear();
    if (tables.empty()) {
        update();
        return;
    }
    for (int ti = 0; ti < int(tables.size()); ++ti) {
        std::size_t outputs = 1;
        for (const auto &r : tables[std::size_t(ti)].rows)
            outputs = std::max(outputs, r.gap.size());
        for (int k = 0; k < int(outputs); ++k) {
            QString title = QString::fromLatin1(analysis::metricName(tables[std::size_t(ti)].metric));
            if (outputs > 1)
                title += QStringLiteral("[%1]").arg(k);
            m_columns.push_back(Column { title, tables[std::size_t(ti)].metric, ti, k });
        }
    }
    std::vector<std::map<std::pair<int, int>, const analysis::GapRow *>> index(tables.size());
    for (std::size_t ti = 0; ti < tables.size(); ++ti)
        for (const auto &r : tables[ti].rows)
            index[ti].emplace(std::make_pair(r.blockIndex, r.eventIndex), &r);
    QFontMetrics fm(font());
    m_labelWidth = 120;
    for (const auto &r : tables.front().rows) {
        Row row;
        QString ops = QString::fromStdString(r.runtimeOps.empty() ? std::string("?") : r.runtimeOps.back());
        if (r.runtimeOps.size() > 1)
            ops += QStringLiteral(" (+%1)").arg(r.runtimeOps.size() - 1);
        row.label = QStringLiteral("%1  %2").arg(r.instructionId, 3).arg(ops);
        row.blockIndex = r.blockIndex;
        row.eventIndex = r.eventIndex;
        row.delegated = r.delegated;
        row.backend = QString::fromStdString(r.backend);
        if (row.delegated)
            row.label += QStringLiteral("  [%1]").arg(row.backend.isEmpty() ? QStringLiteral("delegate") : row.backend);
        for (const auto &c : m_columns) {
            auto it = index[std::size_t(c.table)].find({ r.blockIndex, r.eventIndex });
            const analysis::GapRow *g = it == index[std::size_t(c.table)].end() ? nullptr : it->second;
            row.values.push_back(g && std::size_t(c.output) < g->gap.size() ? g->gap[std::size_t(c.output)] : kNaN);
        }
        m_labelWidth = std::max(m_labelWidth, fm.horizontalAdvance(row.label) + 24);
        m_rows.push_back(std::move(row));
    }
    // Per-column range over finite transformed values.
    for (std::size_t ci = 0; ci < m_columns.size(); ++ci) {
        double lo = std::numeric_limits<double>::infinity(), hi = -lo;
        for (const auto &r : m_rows) {
            const double t = transformed(m_columns[ci], r.values[ci]);
            if (std::isfinite(t)) {
                lo = std::min(lo, t);
                hi = std::max(hi, t);
            }
        }
        if (!std::isfinite(lo)) {
            lo = 0;
            hi = 1;
        }
        if (hi - lo < 1e-9)
            lo = hi - 1; // a single value (or all equal) shows as "worst seen"
        m_columns[ci].lo = lo;
        m_columns[ci].hi = hi;
    }
    updateGeometry();
    update();
}

double GapHeatmapWidget::value(int row, int column) const
{
    if (row < 0 || row >= rowCount() || column < 0 || column >= columnCount())
        return kNaN;
    return m_rows[std::size_t(row)].values[std::size_t(column)];
}

double GapHeatmapWidget::severity(int row, int column) const
{
    const double v = value(row, column);
    if (std::isnan(v))
        return kNaN;
    const Column &c = m_columns[std::size_t(column)];
    const double t = transformed(c, v);
    if (std::isinf(t))
        return t > 0 ? 1.0 : 0.0;
    // Exact matches alone get the "good" end; any real error starts at kFloor so that the
    // smallest non-zero gap never looks like an exact match.
    constexpr double kFloor = 0.35;
    return kFloor + (1.0 - kFloor) * std::clamp((t - c.lo) / (c.hi - c.lo), 0.0, 1.0);
}

QRect GapHeatmapWidget::cellRect(int row, int column) const
{
    return QRect(m_labelWidth + column * kCellW, kHeaderH + row * kCellH, kCellW - 1, kCellH - 1);
}

QSize GapHeatmapWidget::sizeHint() const
{
    return QSize(
        m_labelWidth + std::max(1, columnCount()) * kCellW + 8, kHeaderH + std::max(1, rowCount()) * kCellH + kLegendH);
}

void GapHeatmapWidget::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    p.setPen(palette().text().color());
    if (m_rows.empty()) {
        p.drawText(rect(), Qt::AlignCenter, tr("No numeric gap computed"));
        return;
    }
    for (int c = 0; c < columnCount(); ++c)
        p.drawText(
            QRect(m_labelWidth + c * kCellW, 0, kCellW, kHeaderH), Qt::AlignCenter, m_columns[std::size_t(c)].title);
    for (int r = 0; r < rowCount(); ++r) {
        const Row &row = m_rows[std::size_t(r)];
        const QRect labelRect(8, kHeaderH + r * kCellH, m_labelWidth - 12, kCellH);
        if (row.delegated)
            p.fillRect(QRect(0, labelRect.top() + 2, 4, kCellH - 4), QColor(255, 140, 0));
        p.setPen(palette().text().color());
        p.drawText(labelRect, Qt::AlignVCenter | Qt::AlignLeft, row.label);
        for (int c = 0; c < columnCount(); ++c) {
            const double s = severity(r, c);
            const QRect cell = cellRect(r, c);
            if (std::isnan(s)) {
                p.fillRect(cell, palette().alternateBase());
                continue;
            }
            const QColor col = ramp(s);
            p.fillRect(cell, col);
            p.setPen(col.lightnessF() > 0.55 ? Qt::black : Qt::white);
            p.drawText(cell, Qt::AlignCenter, formatValue(value(r, c)));
        }
    }
    // Legend: the colour ramp from best to worst seen.
    const int y = kHeaderH + rowCount() * kCellH + 10;
    const QRect bar(m_labelWidth, y, std::max(140, columnCount() * kCellW), 12);
    QLinearGradient g(bar.topLeft(), bar.topRight());
    for (int i = 0; i <= 10; ++i)
        g.setColorAt(i / 10.0, ramp(i / 10.0));
    p.fillRect(bar, g);
    p.setPen(palette().text().color());
    p.drawText(QRect(8, y - 2, m_labelWidth - 12, 16), Qt::AlignLeft | Qt::AlignVCenter, tr("log scale, per column"));
    p.drawText(QRect(bar.left(), bar.bottom() + 2, bar.width(), 16), Qt::AlignLeft, tr("best / exact"));
    p.drawText(QRect(bar.left(), bar.bottom() + 2, bar.width(), 16), Qt::AlignRight, tr("worst"));
}

bool GapHeatmapWidget::saveImage(const QString &path)
{
    const QSize size = sizeHint();
    if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
        QSvgGenerator gen;
        gen.setFileName(path);
        gen.setSize(size);
        gen.setViewBox(QRect(QPoint(0, 0), size));
        gen.setTitle(tr("etscope numeric gap"));
        const QSize old = this->size();
        resize(size);
        QPainter p;
        if (!p.begin(&gen))
            return false;
        render(&p);
        p.end();
        resize(old);
        return QFileInfo(path).size() > 0;
    }
    const QSize old = this->size();
    resize(size);
    const bool ok = grab().save(path);
    resize(old);
    return ok;
}

bool GapHeatmapWidget::hitTest(const QPoint &pos, int &row, int &column) const
{
    if (pos.x() < m_labelWidth || pos.y() < kHeaderH)
        return false;
    row = (pos.y() - kHeaderH) / kCellH;
    column = (pos.x() - m_labelWidth) / kCellW;
    return row < rowCount() && column < columnCount();
}

bool GapHeatmapWidget::event(QEvent *e)
{
    if (e->type() == QEvent::ToolTip) {
        auto *he = static_cast<QHelpEvent *>(e);
        int r = 0, c = 0;
        if (hitTest(he->pos(), r, c)) {
            const Row &row = m_rows[std::size_t(r)];
            QToolTip::showText(he->globalPos(),
                QStringLiteral("%1\n%2 = %3")
                    .arg(row.label, m_columns[std::size_t(c)].title, QString::number(value(r, c), 'g', 17)),
                this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(e);
}

void GapHeatmapWidget::mousePressEvent(QMouseEvent *e)
{
    int r = 0, c = 0;
    const QPoint pos = e->position().toPoint();
    // The label area selects the row too.
    if (pos.y() >= kHeaderH && pos.x() < m_labelWidth) {
        r = (pos.y() - kHeaderH) / kCellH;
        if (r < rowCount())
            emit eventSelected(m_rows[std::size_t(r)].blockIndex, m_rows[std::size_t(r)].eventIndex);
        return;
    }
    if (hitTest(pos, r, c))
        emit eventSelected(m_rows[std::size_t(r)].blockIndex, m_rows[std::size_t(r)].eventIndex);
}

} // namespace etscope::gapui
