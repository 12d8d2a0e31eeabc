#include "varyingheatmap.h"

#include "qtstrings.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace etscope {

namespace {
constexpr int kMargin = 8;
} // namespace

VaryingHeatmap::VaryingHeatmap(QWidget *parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    clear(tr("Select a tensor to see where it varies."));
}

void VaryingHeatmap::setMap(const VaryingMap &map, const std::optional<VaryingRegion> &region, const QString &title)
{
    m_map = map;
    m_region = region;
    m_title = title;
    m_empty.clear();
    m_image = QImage(int(map.gridCols), int(map.gridRows), QImage::Format_RGB32);
    for (std::int64_t r = 0; r < map.gridRows; ++r)
        for (std::int64_t c = 0; c < map.gridCols; ++c)
            m_image.setPixelColor(int(c), int(r), colorOf(map.at(r, c)));
    update();
}

void VaryingHeatmap::clear(const QString &why)
{
    m_map.reset();
    m_region.reset();
    m_image = {};
    m_title.clear();
    m_empty = why;
    update();
}

QString VaryingHeatmap::caption() const
{
    if (!m_map)
        return m_empty;
    QString s = toQString(varyingMapCaption(*m_map));
    if (m_map->maxCount == 0)
        s += tr(" — no element varies");
    return s;
}

QColor VaryingHeatmap::colorOf(std::uint32_t count) const
{
    if (count == 0)
        return QColor(0xd6, 0xd6, 0xd6);
    // Yellow (one run) to dark red (every differing run): the hue turns with the share.
    const double t = m_map && m_map->maxCount > 1 ? double(count - 1) / double(m_map->maxCount - 1) : 1.0;
    return QColor::fromHsvF(float(0.15 * (1 - t)), 0.85f, float(1.0 - 0.35 * t));
}

QRectF VaryingHeatmap::gridRect() const
{
    if (!m_map || m_map->gridRows == 0 || m_map->gridCols == 0)
        return {};
    // Above the grid: the title, the columns' label and their ticks; left: the rows' label and
    // ticks; below: the colour scale with its numbers and a caption of up to two lines.
    const QFontMetrics fm = fontMetrics();
    const int axis = fm.height() + fm.horizontalAdvance(QStringLiteral("00000")) + 6;
    const int top = kMargin + 3 * fm.height() + 8, bottom = 12 + 4 + 3 * fm.height() + kMargin;
    const QRectF area(kMargin + axis, top, width() - 2 * kMargin - axis - 8, height() - top - bottom);
    if (area.width() < 4 || area.height() < 4)
        return {};
    // Square cells when they fit; a very flat or tall tensor keeps at least a readable band.
    const double cell = std::min(area.width() / double(m_map->gridCols), area.height() / double(m_map->gridRows));
    const double w = std::max(cell * double(m_map->gridCols), std::min(area.width(), 24.0));
    const double h = std::max(cell * double(m_map->gridRows), std::min(area.height(), 24.0));
    return { area.left(), area.top(), w, h };
}

QRectF VaryingHeatmap::tileRect() const
{
    const QRectF g = gridRect();
    if (!m_region || g.isEmpty() || m_region->rows == 0 || m_region->cols == 0)
        return {};
    const VaryingRegion &r = *m_region;
    // In element coordinates, so that a pooled grid outlines the tile where its elements are.
    const double sx = g.width() / double(r.cols), sy = g.height() / double(r.rows);
    return { g.left() + double(r.colBegin) * sx, g.top() + double(r.rowBegin) * sy, double(r.colEnd - r.colBegin) * sx,
        double(r.rowEnd - r.rowBegin) * sy };
}

QPoint VaryingHeatmap::cellAt(QPointF pos) const
{
    const QRectF g = gridRect();
    if (g.isEmpty() || !g.contains(pos))
        return { -1, -1 };
    const int c = std::min(int((pos.x() - g.left()) / g.width() * double(m_map->gridCols)), int(m_map->gridCols) - 1);
    const int r = std::min(int((pos.y() - g.top()) / g.height() * double(m_map->gridRows)), int(m_map->gridRows) - 1);
    return { c, r };
}

void VaryingHeatmap::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    p.setPen(palette().text().color());
    if (!m_map) {
        p.drawText(rect().adjusted(kMargin, kMargin, -kMargin, -kMargin), Qt::AlignCenter | Qt::TextWordWrap, m_empty);
        return;
    }
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.drawText(QRect(kMargin, kMargin, width() - 2 * kMargin, fontMetrics().height() + 4),
        Qt::AlignLeft | Qt::AlignVCenter, fontMetrics().elidedText(m_title, Qt::ElideRight, width() - 2 * kMargin));
    p.setFont(font());
    const QRectF g = gridRect();
    if (g.isEmpty()) {
        p.drawText(rect(), Qt::AlignCenter, m_map->gridRows == 0 ? tr("empty tensor") : tr("too small to draw"));
        return;
    }
    p.drawImage(g, m_image);
    // Cell lines while the cells are large enough to tell apart.
    const double cw = g.width() / double(m_map->gridCols), ch = g.height() / double(m_map->gridRows);
    if (cw >= 6 && ch >= 6) {
        p.setPen(QPen(palette().base().color(), 1));
        for (std::int64_t c = 1; c < m_map->gridCols; ++c)
            p.drawLine(QPointF(g.left() + double(c) * cw, g.top()), QPointF(g.left() + double(c) * cw, g.bottom()));
        for (std::int64_t r = 1; r < m_map->gridRows; ++r)
            p.drawLine(QPointF(g.left(), g.top() + double(r) * ch), QPointF(g.right(), g.top() + double(r) * ch));
    }
    p.setPen(palette().text().color());
    p.setBrush(Qt::NoBrush);
    p.drawRect(g);
    // Axes: element indices at both ends and at the tile's edges.
    const QFontMetrics fm = fontMetrics();
    p.drawText(QRectF(g.left() - 40, g.top() - 2 * fm.height() - 2, g.width() + 80, fm.height()), Qt::AlignHCenter,
        tr("cols (last dimension)"));
    p.save();
    p.translate(kMargin + fm.height() / 2.0, g.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-g.height() / 2, -fm.height() / 2.0, g.height(), fm.height()), Qt::AlignCenter, tr("rows"));
    p.restore();
    auto colTick = [&](std::int64_t col) {
        const double x = g.left() + g.width() * double(col) / double(m_map->cols);
        p.drawText(QRectF(x - 30, g.top() - fm.height() - 1, 60, fm.height()), Qt::AlignHCenter | Qt::AlignBottom,
            QString::number(col));
    };
    auto rowTick = [&](std::int64_t row) {
        const double y = g.top() + g.height() * double(row) / double(m_map->rows);
        p.drawText(
            QRectF(kMargin + fm.height(), y - fm.height() / 2.0, g.left() - kMargin - fm.height() - 3, fm.height()),
            Qt::AlignRight | Qt::AlignVCenter, QString::number(row));
    };
    colTick(0);
    colTick(m_map->cols);
    rowTick(0);
    rowTick(m_map->rows);
    const QRectF tile = tileRect();
    if (!tile.isEmpty()) {
        // The tile's edges as ticks (when they do not sit on the ends), then its outline.
        if (m_region->colBegin > 0 && m_region->colBegin < m_map->cols)
            colTick(m_region->colBegin);
        if (m_region->colEnd < m_map->cols)
            colTick(m_region->colEnd);
        if (m_region->rowBegin > 0)
            rowTick(m_region->rowBegin);
        if (m_region->rowEnd < m_map->rows)
            rowTick(m_region->rowEnd);
        p.setPen(QPen(QColor(0x15, 0x65, 0xc0), 2, Qt::DashLine));
        p.drawRect(tile.adjusted(-1, -1, 1, 1));
    }
    // Legend: the colour scale from 1 run to the most, then what a cell is.
    p.setPen(palette().text().color());
    const double ly = g.bottom() + 10;
    const int steps = int(std::max<std::uint32_t>(m_map->maxCount, 1));
    const double sw = std::min(28.0, 200.0 / steps);
    double x = g.left();
    p.fillRect(QRectF(x, ly, sw, 12), colorOf(0));
    p.drawText(QRectF(x, ly + 12, 60, fm.height()), Qt::AlignLeft, QStringLiteral("0"));
    x += sw + 6;
    for (int s = 1; s <= int(m_map->maxCount); ++s) {
        p.fillRect(QRectF(x, ly, sw, 12), colorOf(std::uint32_t(s)));
        if (s == 1 || s == int(m_map->maxCount))
            p.drawText(QRectF(x, ly + 12, 60, fm.height()), Qt::AlignLeft, QString::number(s));
        x += sw;
    }
    p.drawText(QRectF(x + 8, ly - 2, width() - x - 8 - kMargin, 16), Qt::AlignLeft | Qt::AlignVCenter,
        tr("runs that differ from the majority"));
    p.drawText(QRectF(kMargin, ly + 14 + fm.height(), width() - 2 * kMargin, 2 * fm.height() + 2),
        Qt::AlignLeft | Qt::TextWordWrap, caption());
}

bool VaryingHeatmap::event(QEvent *e)
{
    if (e->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(e);
        const QPoint cell = cellAt(help->pos());
        if (cell.x() < 0) {
            QToolTip::hideText();
            e->ignore();
            return true;
        }
        const std::int64_t r0 = cell.y() * m_map->cellRows, c0 = cell.x() * m_map->cellCols;
        const std::int64_t r1 = std::min(r0 + m_map->cellRows, m_map->rows) - 1,
                           c1 = std::min(c0 + m_map->cellCols, m_map->cols) - 1;
        const QString where = r0 == r1 && c0 == c1 ? tr("row %1, col %2").arg(r0).arg(c0)
                                                   : tr("rows %1–%2, cols %3–%4").arg(r0).arg(r1).arg(c0).arg(c1);
        QToolTip::showText(help->globalPos(),
            tr("%1: differs on %2 of %3 runs").arg(where).arg(m_map->at(cell.y(), cell.x())).arg(m_map->runs), this);
        return true;
    }
    return QWidget::event(e);
}

} // namespace etscope
