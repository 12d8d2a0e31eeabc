#include "gapheatmapwidget.h"
#include "qtstrings.h"

#include "analysis/noise.h"
#include "graph/programgraph.h"

#include <QFileInfo>
#include <QFontMetrics>
#include <QHelpEvent>
#include <QLinearGradient>
#include <QMouseEvent>
#include <QPainter>
#include <QScopeGuard>
#include <QSvgGenerator>
#include <QToolTip>

#include <cmath>
#include <limits>
#include <map>

namespace etscope::gapui {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

QColor severityColor(double severity)
{
    const graph::Rgb c = graph::gapSeverityColor(severity);
    return QColor(c.r, c.g, c.b);
}

QString formatValue(double v)
{
    if (std::isnan(v))
        return QStringLiteral("–");
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return QString::number(v, 'g', 4);
}

constexpr int kLegendBarW = 300, kLegendGap = 24;

// The legend's text and its colour scale share one row when `width` holds both.
bool legendOnOneRow(const QFontMetrics &fm, const QString &legend, int width)
{
    return width >= fm.horizontalAdvance(legend) + kLegendGap + kLegendBarW;
}

// What is compared and judged how, then the scale from exact to far above noise: on one row when
// `area` is wide enough, else the scale under the text.
void paintLegend(QPainter &p, const QRect &area, const QString &legend, const QColor &text)
{
    const QFontMetrics fm = p.fontMetrics();
    const int textW = fm.horizontalAdvance(legend);
    const bool oneRow = legendOnOneRow(fm, legend, area.width());
    p.setPen(text);
    p.drawText(QRect(area.left(), area.top(), oneRow ? textW + 8 : area.width(), 16), Qt::AlignLeft | Qt::AlignVCenter,
        legend);
    const QRect bar = oneRow ? QRect(area.left() + textW + kLegendGap, area.top() + 3, kLegendBarW, 10)
                             : QRect(area.left(), area.top() + 20, std::min(area.width(), kLegendBarW + 120), 10);
    QLinearGradient g(bar.topLeft(), bar.topRight());
    for (int i = 0; i <= 20; ++i)
        g.setColorAt(i / 20.0, severityColor(i / 20.0));
    p.fillRect(bar, g);
    p.drawLine(bar.center().x(), bar.top() - 2, bar.center().x(), bar.bottom() + 2);
    const QRect under(bar.left(), bar.bottom() + 2, bar.width(), 14);
    p.drawText(under, Qt::AlignLeft, QObject::tr("exact"));
    p.drawText(under, Qt::AlignHCenter, QObject::tr("noise level"));
    p.drawText(under, Qt::AlignRight, QObject::tr("10⁴× noise"));
}

} // namespace

GapHeatmapLegend::GapHeatmapLegend(GapHeatmapWidget *heatmap, QWidget *parent)
    : QWidget(parent)
    , m_heatmap(heatmap)
{
    connect(heatmap, &GapHeatmapWidget::legendChanged, this, [this] {
        updateGeometry();
        update();
    });
    QSizePolicy policy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
}

QSize GapHeatmapLegend::sizeHint() const
{
    return QSize(600, heightForWidth(600));
}

QSize GapHeatmapLegend::minimumSizeHint() const
{
    return QSize(200, 34);
}

bool GapHeatmapLegend::hasHeightForWidth() const
{
    return true;
}

int GapHeatmapLegend::heightForWidth(int width) const
{
    // paintEvent() gives paintLegend() the width less 4 px margins on each side.
    return legendOnOneRow(QFontMetrics(font()), m_heatmap->legend(), width - 8) ? 34 : 52;
}

void GapHeatmapLegend::paintEvent(QPaintEvent *)
{
    if (m_heatmap->legend().isEmpty())
        return;
    QPainter p(this);
    paintLegend(p, rect().adjusted(4, 2, -4, 0), m_heatmap->legend(), palette().text().color());
}

GapHeatmapWidget::GapHeatmapWidget(QWidget *parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void GapHeatmapWidget::setTables(std::vector<analysis::GapTable> tables)
{
    m_columns.clear();
    m_rows.clear();
    m_legend.clear();
    if (tables.empty()) {
        Q_EMIT legendChanged();
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
        QString ops = toQString(r.runtimeOps.empty() ? std::string("?") : r.runtimeOps.back());
        if (r.runtimeOps.size() > 1)
            ops += QStringLiteral(" (+%1)").arg(r.runtimeOps.size() - 1);
        row.label = QStringLiteral("%1  %2").arg(r.instructionId, 3).arg(ops);
        row.blockIndex = r.blockIndex;
        row.eventIndex = r.eventIndex;
        row.delegated = r.delegated;
        row.backend = toQString(r.backend);
        if (row.delegated)
            row.label += QStringLiteral("  [%1]").arg(row.backend.isEmpty() ? QStringLiteral("delegate") : row.backend);
        for (const auto &c : m_columns) {
            auto it = index[std::size_t(c.table)].find({ r.blockIndex, r.eventIndex });
            const analysis::GapRow *g = it == index[std::size_t(c.table)].end() ? nullptr : it->second;
            const std::size_t k = std::size_t(c.output);
            const bool has = g && k < g->gap.size();
            const analysis::GapTable &table = tables[std::size_t(c.table)];
            row.values.push_back(has ? g->gap[k] : kNaN);
            row.noise.push_back(has && k < g->noise.size() ? g->noise[k] : kNaN);
            row.excess.push_back(has && k < g->noise.size()
                    ? analysis::excessOverNoise(table.direction, table.metric, g->gap[k], g->noise[k])
                    : kNaN);
            row.flagged.push_back(
                has && k < g->noise.size() && analysis::exceedsThreshold(table.direction, g->gap[k], g->noise[k]));
        }
        m_labelWidth = std::max(m_labelWidth, fm.horizontalAdvance(row.label) + 24);
        m_rows.push_back(std::move(row));
    }
    m_legend = toQString(analysis::gapLegend(tables));
    Q_EMIT legendChanged();
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
    if (std::isnan(value(row, column)))
        return kNaN;
    const Row &r = m_rows[std::size_t(row)];
    return analysis::gapSeverity(r.excess[std::size_t(column)], r.flagged[std::size_t(column)]);
}

bool GapHeatmapWidget::flagged(int row, int column) const
{
    if (row < 0 || row >= rowCount() || column < 0 || column >= columnCount())
        return false;
    return m_rows[std::size_t(row)].flagged[std::size_t(column)];
}

QRect GapHeatmapWidget::cellRect(int row, int column) const
{
    return QRect(m_labelWidth + column * kCellW, kHeaderH + row * kCellH, kCellW - 1, kCellH - 1);
}

QSize GapHeatmapWidget::sizeHint() const
{
    const int legendW = QFontMetrics(font()).horizontalAdvance(m_legend) + 16;
    // On screen the legend stays in view above the scroll area (GapHeatmapLegend); an exported
    // image carries it under the rows.
    return QSize(std::max(m_labelWidth + std::max(1, columnCount()) * kCellW + 8, m_exporting ? legendW : 0),
        kHeaderH + std::max(1, rowCount()) * kCellH + (m_exporting ? kLegendH : 4));
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
            const QColor col = severityColor(s);
            p.fillRect(cell, col);
            if (flagged(r, c)) {
                p.setPen(QPen(Qt::black, 2));
                p.drawRect(cell.adjusted(1, 1, -1, -1));
            }
            p.setPen(col.lightnessF() > 0.55 ? Qt::black : Qt::white);
            p.drawText(cell, Qt::AlignCenter, formatValue(value(r, c)));
        }
    }
    if (m_exporting)
        paintLegend(p, QRect(8, kHeaderH + rowCount() * kCellH + 6, width() - 16, kLegendH - 6), m_legend,
            palette().text().color());
}

bool GapHeatmapWidget::saveImage(const QString &path)
{
    m_exporting = true;
    const QSize size = sizeHint();
    const auto done = qScopeGuard([this] {
        m_exporting = false;
        updateGeometry();
    });
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
            const double noise = row.noise[std::size_t(c)];
            QToolTip::showText(he->globalPos(),
                tr("%1\n%2 = %3\n%4 (threshold %5)")
                    .arg(row.label, m_columns[std::size_t(c)].title, QString::number(value(r, c), 'g', 17),
                        flagged(r, c) ? tr("above the threshold") : tr("within the noise level"),
                        QString::number(noise, 'g', 4)),
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
            Q_EMIT eventSelected(m_rows[std::size_t(r)].blockIndex, m_rows[std::size_t(r)].eventIndex);
        return;
    }
    if (hitTest(pos, r, c))
        Q_EMIT eventSelected(m_rows[std::size_t(r)].blockIndex, m_rows[std::size_t(r)].eventIndex);
}

} // namespace etscope::gapui
