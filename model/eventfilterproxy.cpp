#include "eventfilterproxy.h"

#include "eventtreemodel.h"
#include "modelroles.h"

namespace etscope {

EventFilterProxy::EventFilterProxy(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setRecursiveFilteringEnabled(true);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    setSortCaseSensitivity(Qt::CaseInsensitive);
    setSortRole(SortRole);
}

void EventFilterProxy::setFilterText(const QString &text, bool isRegex)
{
    if (text == m_text && isRegex == m_isRegex)
        return;
    m_text = text;
    m_isRegex = isRegex;
    m_regex = QRegularExpression(
        isRegex ? text : QRegularExpression::escape(text), QRegularExpression::CaseInsensitiveOption);
    m_valid = m_regex.isValid();
    m_matches.clear();
    invalidateFilterFast();
}

void EventFilterProxy::setDelegatedOnly(bool on)
{
    if (on == m_delegatedOnly)
        return;
    m_delegatedOnly = on;
    invalidateFilterFast();
}

void EventFilterProxy::setHideFramework(bool on)
{
    if (on == m_hideFramework)
        return;
    m_hideFramework = on;
    invalidateFilterFast();
}

void EventFilterProxy::setHideOperatorCalls(bool on)
{
    if (on == m_hideOperatorCalls)
        return;
    m_hideOperatorCalls = on;
    invalidateFilterFast();
}

void EventFilterProxy::invalidateFilterFast()
{
    // invalidateRowsFilter() removes the rows that no longer match range by range, which is
    // quadratic when a filter hides most of a million interleaved rows; dropping the mapping
    // (a layout change) and rebuilding it lazily is linear.
    invalidate();
}

bool EventFilterProxy::anyFilterActive() const
{
    return !m_text.isEmpty() || m_delegatedOnly || m_hideFramework || m_hideOperatorCalls;
}

bool EventFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (!anyFilterActive())
        return true; // every row, without reading it: after a sort the rows come in key order
    const QModelIndex idx = sourceModel()->index(sourceRow, 0, sourceParent);
    if (const auto *tree = qobject_cast<const EventTreeModel *>(sourceModel())) {
        // Straight from the Event, and the text matched once per distinct name: a keystroke
        // re-filters every row.
        const Event *e = tree->eventAt(idx);
        if (!e)
            return false; // blocks show up through their matching events
        if (m_delegatedOnly && !e->isDelegatedOp)
            return false;
        if (m_hideFramework && e->isFramework())
            return false;
        if (m_hideOperatorCalls && e->isOperatorCall())
            return false;
        if (m_text.isEmpty())
            return true;
        if (!m_valid)
            return false;
        const int key = tree->filterKey(idx);
        if (key < 0)
            return m_regex.match(tree->filterTextAt(idx)).hasMatch();
        if (m_matchesGeneration != tree->generation()) {
            m_matches.clear();
            m_matchesGeneration = tree->generation();
        }
        if (std::size_t(key) >= m_matches.size())
            m_matches.resize(std::size_t(key) + 1, Unknown);
        auto &m = m_matches[std::size_t(key)];
        if (m == Unknown)
            m = m_regex.match(tree->filterTextAt(idx)).hasMatch() ? Yes : No;
        return m == Yes;
    }
    if (idx.data(EventIndexRole).toInt() < 0)
        return false; // a block shows up through its matching events
    if (m_delegatedOnly && !idx.data(IsDelegatedRole).toBool())
        return false;
    if (m_hideFramework && idx.data(IsFrameworkRole).toBool())
        return false;
    if (m_hideOperatorCalls && idx.data(IsOperatorCallRole).toBool())
        return false;
    if (m_text.isEmpty())
        return true;
    if (!m_valid)
        return false;
    return m_regex.match(idx.data(FilterTextRole).toString()).hasMatch();
}

void EventFilterProxy::sort(int column, Qt::SortOrder order)
{
    auto *tree = qobject_cast<EventTreeModel *>(sourceModel());
    if (!tree) {
        m_sourceSorts = false;
        QSortFilterProxyModel::sort(column, order);
        return;
    }
    if (QSortFilterProxyModel::sortColumn() != -1)
        QSortFilterProxyModel::sort(-1, order); // follow the source's order from now on
    m_sourceSorts = true;
    m_sortColumn = column;
    m_sortOrder = order;
    tree->sort(column, order);
}

int EventFilterProxy::sortColumn() const
{
    return m_sourceSorts ? m_sortColumn : QSortFilterProxyModel::sortColumn();
}

Qt::SortOrder EventFilterProxy::sortOrder() const
{
    return m_sourceSorts ? m_sortOrder : QSortFilterProxyModel::sortOrder();
}

bool EventFilterProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    // Only for sources other than EventTreeModel, which sorts itself (sort() above).
    if (left.data(EventIndexRole).toInt() < 0 && right.data(EventIndexRole).toInt() < 0) {
        // Blocks keep file order in both directions; only events inside them are ranked.
        const bool less = left.data(BlockIndexRole).toInt() < right.data(BlockIndexRole).toInt();
        return sortOrder() == Qt::DescendingOrder ? !less : less;
    }
    const QVariant l = left.data(SortRole);
    const QVariant r = right.data(SortRole);
    if (l.typeId() == QMetaType::QString && r.typeId() == QMetaType::QString)
        return QString::compare(l.toString(), r.toString(), Qt::CaseInsensitive) < 0;
    return QVariant::compare(l, r) == QPartialOrdering::Less;
}

} // namespace etscope
