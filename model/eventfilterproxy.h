#pragma once

#include <QRegularExpression>
#include <QSortFilterProxyModel>

#include <cstdint>
#include <vector>

namespace etscope {

// The one filter setup of the app: recursive (a DELEGATE_CALL stays visible when one of its
// delegated events matches), case-insensitive, substring or regex over name, op types and
// module, plus the event-kind toggles. Sorting uses SortRole so numbers sort as numbers.
class EventFilterProxy : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit EventFilterProxy(QObject *parent = nullptr);

    void setFilterText(const QString &text, bool isRegex);
    QString filterText() const { return m_text; }
    bool isRegex() const { return m_isRegex; }
    // False when the regex does not compile; the filter then matches nothing.
    bool isFilterValid() const { return m_valid; }

    void setDelegatedOnly(bool on);
    void setHideFramework(bool on);
    void setHideOperatorCalls(bool on);
    bool delegatedOnly() const { return m_delegatedOnly; }
    bool hideFramework() const { return m_hideFramework; }
    bool hideOperatorCalls() const { return m_hideOperatorCalls; }

    // Over an EventTreeModel the source orders its rows itself (a key array, not n·log n calls
    // of lessThan) and this proxy only filters; other sources are sorted here as usual.
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
    int sortColumn() const;
    Qt::SortOrder sortOrder() const;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    bool anyFilterActive() const;
    void invalidateFilterFast();

    QString m_text;
    bool m_isRegex = false;
    bool m_valid = true;
    QRegularExpression m_regex;
    bool m_delegatedOnly = false;
    bool m_hideFramework = false;
    bool m_hideOperatorCalls = false;
    // Whether each distinct filter text (EventTreeModel::filterKey) matches the current filter.
    enum Match : std::uint8_t { Unknown, Yes, No };
    mutable std::vector<Match> m_matches;
    mutable quint64 m_matchesGeneration = 0;
    bool m_sourceSorts = false;
    int m_sortColumn = -1;
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
};

} // namespace etscope
