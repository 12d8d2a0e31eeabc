#pragma once

#include "analysis/latencydiff.h"

#include <QAbstractItemModel>
#include <QColor>
#include <QSortFilterProxyModel>

#include <memory>

namespace etscope {

// Latency A/B as a tree: one top-level item per block pair (its per-run total), the diff rows of
// that block under it. Numbers sort as numbers through SortRole; rows are tinted by verdict.
class DiffTreeModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column { Event, Instruction, A, B, Delta, Ratio, PValue, CI, Verdict, Backend, ColumnCount };
    enum Roles {
        DiffRowRole = Qt::UserRole + 40, // index into LatencyDiff::rows, -1 on block items
        VerdictRole, // int(etscope::Verdict)
        FilterTextRole2, // names, labels, op type, backend, module
    };

    explicit DiffTreeModel(QObject *parent = nullptr);

    void setDiff(std::shared_ptr<const LatencyDiff> diff);
    const std::shared_ptr<const LatencyDiff> &diff() const { return m_diff; }
    // The source index of a diff row (for selecting it from outside).
    QModelIndex indexOfRow(int diffRow) const;

    static QColor verdictColor(etscope::Verdict v); // background tint

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Group {
        QString block;
        const DiffRow *total = nullptr; // block total row, null when one side lacks the block
        std::vector<int> rows; // indices into diff->rows
    };
    QVariant rowData(const DiffRow &r, int column, int role, bool isGroup, const Group *g) const;

    std::shared_ptr<const LatencyDiff> m_diff;
    std::vector<Group> m_groups;
    std::vector<std::pair<int, int>> m_where; // diff row -> (group, position)
};

// Filter (substring over names, op type, backend, module) and verdict toggles; parents stay when
// a child matches. Sorting by SortRole.
class DiffFilterProxy : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit DiffFilterProxy(QObject *parent = nullptr);
    void setFilterText(const QString &text);
    void setChangedOnly(bool on); // hide unchanged / no_data rows
    bool changedOnly() const { return m_changedOnly; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    QString m_text;
    bool m_changedOnly = false;
};

} // namespace etscope
