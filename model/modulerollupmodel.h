#pragma once

#include "etrecord/modulerollup.h"
#include "session/session.h"

#include <QAbstractItemModel>

#include <memory>
#include <unordered_map>

namespace etscope {

// Latency per nn.Module (from ETRecord module stacks) as a tree: the modules of the model with
// the summed average latency of the events linked to them, like find_total_for_module.
class ModuleRollupModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Columns { ModuleColumn, TypeColumn, TotalColumn, ShareColumn, EventsColumn, AvgColumn, NUM_COLUMNS };
    Q_ENUM(Columns)

    explicit ModuleRollupModel(QObject *parent = nullptr);

    // The roll-up of `blocks` (the runs in scope; the session's own blocks when null).
    void setSession(const std::shared_ptr<const Session> &session, const std::vector<EventBlock> *blocks = nullptr);
    bool isEmpty() const { return m_root.children.empty(); }

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Place {
        const ModuleRollupNode *parent;
        int row;
    };
    const ModuleRollupNode *nodeAt(const QModelIndex &index) const;
    void indexNodes(const ModuleRollupNode &node);

    ModuleRollupNode m_root;
    std::unordered_map<const ModuleRollupNode *, Place> m_places;
    QString m_unit = QStringLiteral("ms");
};

} // namespace etscope
