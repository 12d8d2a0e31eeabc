#include "treemapwidget.h"

#include <QAbstractItemModel>
#include <QHelpEvent>
#include <QItemSelectionModel>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace etscope {
namespace {

constexpr double kPad = 2.0; // between a titled part's frame and its children
constexpr double kMinSide = 4.0; // smaller parts are not drawn

// The worst aspect ratio of a row of areas laid along a side of length `side` (Bruls et al.).
double worst(const std::vector<double> &row, double sum, double side)
{
    if (row.empty() || sum <= 0 || side <= 0)
        return HUGE_VAL;
    const auto [mn, mx] = std::minmax_element(row.begin(), row.end());
    const double s2 = sum * sum, w2 = side * side;
    return std::max(w2 * *mx / s2, s2 / (w2 * *mn));
}

} // namespace

TreemapWidget::TreemapWidget(QWidget *parent)
    : QWidget(parent)
{
    setMouseTracking(false);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(200, 150);
}

void TreemapWidget::setModel(QAbstractItemModel *model, int valueColumn, int valueRole)
{
    if (m_model)
        disconnect(m_model, nullptr, this, nullptr);
    m_model = model;
    m_valueColumn = valueColumn;
    m_valueRole = valueRole;
    auto reset = [this] { setRootIndex(topRoot()); };
    if (model) {
        connect(model, &QAbstractItemModel::modelReset, this, reset);
        connect(model, &QAbstractItemModel::layoutChanged, this, [this] { relayout(); });
        connect(model, &QAbstractItemModel::dataChanged, this, [this] { relayout(); });
    }
    reset();
}

void TreemapWidget::setSelectionModel(QItemSelectionModel *selection)
{
    if (m_selection)
        disconnect(m_selection, nullptr, this, nullptr);
    m_selection = selection;
    if (!selection)
        return;
    connect(selection, &QItemSelectionModel::currentChanged, this, [this](const QModelIndex &current) {
        const QModelIndex c = nameIndex(current);
        // A part out of view: show it among its siblings.
        bool inView = false;
        for (QModelIndex p = c; p.isValid(); p = p.parent())
            if (p == m_root)
                inView = true;
        if (c.isValid() && !inView && c.parent().isValid())
            setRootIndex(c.parent());
        else if (c.isValid() && !inView)
            setRootIndex(topRoot());
        update();
    });
}

void TreemapWidget::setValueUnit(const QString &unit)
{
    m_unit = unit;
    update();
}

void TreemapWidget::setEmptyText(const QString &text)
{
    m_emptyText = text;
    update();
}

QModelIndex TreemapWidget::topRoot() const
{
    // One top-level row (a program alone): start inside it.
    if (m_model && m_model->rowCount() == 1)
        return m_model->index(0, 0);
    return {};
}

QModelIndex TreemapWidget::nameIndex(const QModelIndex &index) const
{
    return index.isValid() ? index.sibling(index.row(), 0) : index;
}

void TreemapWidget::setRootIndex(const QModelIndex &root)
{
    m_root = nameIndex(root);
    m_crumbs.clear();
    const QModelIndex top = topRoot();
    for (QModelIndex p = m_root;; p = p.parent()) {
        m_crumbs.insert(m_crumbs.begin(), QPersistentModelIndex(p));
        if (p == top || !p.isValid())
            break;
    }
    relayout();
    Q_EMIT rootChanged(m_root);
}

bool TreemapWidget::back()
{
    if (m_crumbs.size() < 2)
        return false;
    setRootIndex(m_crumbs[m_crumbs.size() - 2]);
    return true;
}

QString TreemapWidget::crumbText(std::size_t i) const
{
    // The first crumb goes back to the top: "◀ file.pte".
    const QString name = breadcrumb().at(int(i));
    return i == 0 && m_crumbs.size() > 1 ? QString(QStringLiteral("◀ ") + name) : name;
}

QStringList TreemapWidget::breadcrumb() const
{
    QStringList out;
    for (const auto &c : m_crumbs)
        out << (c.isValid() ? c.data().toString() : tr("All files"));
    return out;
}

QString TreemapWidget::valueText(const QModelIndex &index) const
{
    return index.sibling(index.row(), m_valueColumn).data().toString(); // as the model shows it
}

double TreemapWidget::value(const QModelIndex &index) const
{
    if (!m_model || !index.isValid())
        return 0;
    return std::max(0.0, index.sibling(index.row(), m_valueColumn).data(m_valueRole).toDouble());
}

void TreemapWidget::relayout()
{
    m_cells.clear();
    m_crumbRects.clear();
    if (!m_model || m_model->rowCount() == 0) {
        update();
        return;
    }
    // The breadcrumb: "◀  file.pte › delegate 0 … › graph" along the top.
    const QFontMetricsF fm(font());
    QFont boldFont = font();
    boldFont.setBold(true);
    const QFontMetricsF bold(boldFont); // the last crumb is bold: measure every one so
    const double barH = fm.height() + 8;
    double x = 4;
    for (std::size_t i = 0; i < m_crumbs.size(); ++i) {
        const QString text
            = i == 0 && m_crumbs.size() > 1 ? QStringLiteral("◀ ") + breadcrumb()[0] : breadcrumb()[int(i)];
        const double w = std::min(bold.horizontalAdvance(text) + 16, std::max(60.0, width() / 3.0));
        m_crumbRects.push_back(QRectF(x, 2, w, barH - 4));
        x += w + fm.horizontalAdvance(QStringLiteral(" › "));
    }
    const QRectF area = QRectF(rect()).adjusted(1, barH, -1, -1);
    if (area.width() > kMinSide && area.height() > kMinSide)
        layoutChildren(m_root, area, 0, -1);
    update();
}

void TreemapWidget::layoutChildren(const QModelIndex &parent, const QRectF &area, int depth, int colour)
{
    struct Item {
        QModelIndex index;
        double value;
    };
    std::vector<Item> items;
    for (int r = 0; r < m_model->rowCount(parent); ++r) {
        const QModelIndex i = m_model->index(r, 0, parent);
        if (const double v = value(i); v > 0)
            items.push_back({ i, v });
    }
    const double total
        = std::accumulate(items.begin(), items.end(), 0.0, [](double s, const Item &i) { return s + i.value; });
    if (items.empty() || total <= 0)
        return;
    std::stable_sort(items.begin(), items.end(), [](const Item &a, const Item &b) { return a.value > b.value; });
    const double scale = area.width() * area.height() / total;
    const QFontMetricsF fm(font());
    const double titleH = fm.height() + 2;

    auto place = [&](const Item &it, const QRectF &r) {
        const int branch = depth == 0 ? int(&it - items.data()) : colour;
        if (r.width() < kMinSide || r.height() < kMinSide)
            return;
        Cell c { r, QPersistentModelIndex(it.index), depth, branch, false };
        const bool roomForChildren = r.width() > 3 * titleH && r.height() > 2.5 * titleH;
        c.titled = m_model->rowCount(it.index) > 0 && roomForChildren;
        m_cells.push_back(c);
        if (c.titled)
            layoutChildren(it.index, r.adjusted(kPad, titleH, -kPad, -kPad), depth + 1, branch);
    };

    // Squarify: rows along the shorter side while the worst aspect ratio improves.
    QRectF free = area;
    std::size_t next = 0;
    while (next < items.size()) {
        const bool vertical = free.width() >= free.height(); // the row is a column at the left
        const double side = vertical ? free.height() : free.width();
        std::vector<double> row;
        double sum = 0;
        std::size_t end = next;
        while (end < items.size()) {
            const double a = items[end].value * scale;
            std::vector<double> grown = row;
            grown.push_back(a);
            if (!row.empty() && worst(grown, sum + a, side) > worst(row, sum, side))
                break;
            row = std::move(grown);
            sum += a;
            ++end;
        }
        double rowSum = 0;
        for (std::size_t k = next; k < end; ++k)
            rowSum += items[k].value;
        // The last row takes what is left (no rounding gap at the edge).
        const double thick
            = end == items.size() ? (vertical ? free.width() : free.height()) : (side > 0 ? rowSum * scale / side : 0);
        double along = 0;
        for (std::size_t k = next; k < end; ++k) {
            const double len = rowSum > 0 ? side * items[k].value / rowSum : 0;
            const QRectF r = vertical ? QRectF(free.left(), free.top() + along, thick, len)
                                      : QRectF(free.left() + along, free.top(), len, thick);
            place(items[k], r);
            along += len;
        }
        free = vertical ? free.adjusted(thick, 0, 0, 0) : free.adjusted(0, thick, 0, 0);
        next = end;
    }
}

QColor TreemapWidget::fill(const Cell &c) const
{
    // One hue per branch under the root (golden angle apart), lighter with depth.
    const int hue = int(std::lround(c.colour * 137.508)) % 360;
    return QColor::fromHsl(hue, 110, std::min(235, 150 + 22 * c.depth));
}

void TreemapWidget::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (!m_model || m_model->rowCount() == 0) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap, m_emptyText);
        return;
    }
    const QFontMetricsF fm(font());
    // Breadcrumb.
    for (std::size_t i = 0; i < m_crumbRects.size(); ++i) {
        const QRectF r = m_crumbRects[i];
        const bool last = i + 1 == m_crumbRects.size();
        const QString text = crumbText(i);
        p.setPen(last ? palette().color(QPalette::Text) : palette().color(QPalette::Link));
        QFont f = font();
        f.setBold(last);
        p.setFont(f);
        p.drawText(r.adjusted(6, 0, -6, 0), Qt::AlignVCenter | Qt::AlignLeft,
            QFontMetricsF(f).elidedText(text, Qt::ElideMiddle, r.width() - 12));
        if (!last) {
            p.setPen(palette().color(QPalette::PlaceholderText));
            p.drawText(QPointF(r.right() + 2, r.center().y() + fm.ascent() / 2 - 1), QStringLiteral("›"));
        }
    }
    p.setFont(font());
    const QModelIndex current = m_selection ? nameIndex(m_selection->currentIndex()) : QModelIndex();
    const QRectF *currentRect = nullptr;
    for (const Cell &c : m_cells) {
        const QColor bg = fill(c);
        p.setPen(QPen(bg.darker(160), 1));
        p.setBrush(bg);
        p.drawRect(c.rect.adjusted(0.5, 0.5, -0.5, -0.5));
        if (c.index == current)
            currentRect = &c.rect;
        p.setPen(bg.lightness() > 140 ? Qt::black : Qt::white);
        const QString name = c.index.data().toString();
        const QRectF text = c.rect.adjusted(4, 1, -4, -1);
        if (text.width() < 24 || text.height() < fm.height())
            continue;
        if (c.titled) {
            const QString bytes = valueText(c.index);
            p.drawText(QRectF(text.left(), text.top(), text.width(), fm.height()), Qt::AlignLeft | Qt::AlignTop,
                fm.elidedText(name + QStringLiteral("  ") + bytes, Qt::ElideRight, text.width()));
            continue;
        }
        QString label = fm.elidedText(name, Qt::ElideRight, text.width());
        if (text.height() >= 2 * fm.height())
            label += QStringLiteral("\n") + fm.elidedText(valueText(c.index) + m_unit, Qt::ElideRight, text.width());
        p.drawText(text, Qt::AlignLeft | Qt::AlignTop, label);
    }
    if (currentRect) {
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(palette().color(QPalette::Highlight), 3));
        p.drawRect(currentRect->adjusted(1.5, 1.5, -1.5, -1.5));
    }
}

void TreemapWidget::resizeEvent(QResizeEvent *)
{
    relayout();
}

int TreemapWidget::crumbAt(const QPointF &pos) const
{
    for (std::size_t i = 0; i < m_crumbRects.size(); ++i)
        if (m_crumbRects[i].contains(pos))
            return int(i);
    return -1;
}

QModelIndex TreemapWidget::indexAt(const QPointF &pos) const
{
    for (auto it = m_cells.rbegin(); it != m_cells.rend(); ++it) // children after parents
        if (it->rect.contains(pos))
            return it->index;
    return {};
}

QRectF TreemapWidget::rectOf(const QModelIndex &index) const
{
    const QModelIndex i = nameIndex(index);
    for (const Cell &c : m_cells)
        if (c.index == i)
            return c.rect;
    return {};
}

void TreemapWidget::mousePressEvent(QMouseEvent *e)
{
    if (e->button() == Qt::BackButton) {
        back();
        return;
    }
    if (e->button() != Qt::LeftButton)
        return;
    if (const int crumb = crumbAt(e->position()); crumb >= 0) {
        if (std::size_t(crumb) + 1 < m_crumbs.size())
            setRootIndex(m_crumbs[std::size_t(crumb)]);
        return;
    }
    const QModelIndex i = indexAt(e->position());
    if (i.isValid() && m_selection)
        m_selection->setCurrentIndex(i, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void TreemapWidget::mouseDoubleClickEvent(QMouseEvent *e)
{
    QModelIndex i = indexAt(e->position());
    if (!i.isValid() || !m_model)
        return;
    // One level down: into the part of the shown whole under the pointer, when it has parts.
    while (i.parent().isValid() && i.parent() != QModelIndex(m_root))
        i = i.parent();
    if (i.isValid() && m_model->rowCount(i) > 0)
        setRootIndex(i);
}

void TreemapWidget::keyPressEvent(QKeyEvent *e)
{
    if (e->key() == Qt::Key_Backspace || (e->key() == Qt::Key_Left && e->modifiers().testFlag(Qt::AltModifier))) {
        back();
        return;
    }
    QWidget::keyPressEvent(e);
}

QString TreemapWidget::tooltip(const QModelIndex &index) const
{
    QModelIndex top = index;
    while (top.parent().isValid())
        top = top.parent();
    const double v = value(index), ofTop = value(top), ofParent = index.parent().isValid() ? value(index.parent()) : 0;
    QString t = index.data().toString() + QStringLiteral("\n") + valueText(index) + m_unit;
    if (top != index && ofTop > 0)
        t += tr(", %1 % of %2").arg(QString::number(100.0 * v / ofTop, 'f', 2), top.data().toString());
    if (index.parent().isValid() && index.parent() != top && ofParent > 0)
        t += tr(", %1 % of its parent").arg(QString::number(100.0 * v / ofParent, 'f', 2));
    if (m_model->rowCount(index) > 0)
        t += tr("\nDouble-click to zoom in");
    return t;
}

bool TreemapWidget::event(QEvent *e)
{
    if (e->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(e);
        const QModelIndex i = indexAt(help->pos());
        if (i.isValid())
            QToolTip::showText(help->globalPos(), tooltip(i), this);
        else if (const int crumb = crumbAt(help->pos()); crumb >= 0 && std::size_t(crumb) + 1 < m_crumbs.size())
            QToolTip::showText(help->globalPos(), tr("Back to %1").arg(breadcrumb()[crumb]), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(e);
}

} // namespace etscope
