#include "modulerollupmodel.h"

#include "eventtreemodel.h"
#include "modelroles.h"
#include "qtstrings.h"

namespace etscope {

ModuleRollupModel::ModuleRollupModel(QObject *parent)
    : QAbstractItemModel(parent)
{ }

void ModuleRollupModel::setSession(const std::shared_ptr<const Session> &session, const std::vector<EventBlock> *blocks)
{
    beginResetModel();
    m_places.clear();
    m_root = session ? buildModuleRollup(blocks ? *blocks : session->blocks) : ModuleRollupNode {};
    m_unit = session ? toQString(timeScaleName(session->inputs.time.target)) : QStringLiteral("ms");
    indexNodes(m_root);
    endResetModel();
}

void ModuleRollupModel::indexNodes(const ModuleRollupNode &node)
{
    for (int r = 0; r < int(node.children.size()); ++r) {
        m_places[&node.children[r]] = Place { &node, r };
        indexNodes(node.children[r]);
    }
}

const ModuleRollupNode *ModuleRollupModel::nodeAt(const QModelIndex &index) const
{
    return index.isValid() ? static_cast<const ModuleRollupNode *>(index.internalPointer()) : &m_root;
}

QModelIndex ModuleRollupModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= NUM_COLUMNS || (parent.isValid() && parent.column() != 0))
        return {};
    const ModuleRollupNode *p = nodeAt(parent);
    if (row >= int(p->children.size()))
        return {};
    return createIndex(row, column, const_cast<ModuleRollupNode *>(&p->children[row]));
}

QModelIndex ModuleRollupModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    const auto it = m_places.find(nodeAt(child));
    if (it == m_places.end() || it->second.parent == &m_root)
        return {};
    const ModuleRollupNode *p = it->second.parent;
    return createIndex(m_places.at(p).row, 0, const_cast<ModuleRollupNode *>(p));
}

int ModuleRollupModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() && parent.column() != 0)
        return 0;
    return int(nodeAt(parent)->children.size());
}

int ModuleRollupModel::columnCount(const QModelIndex &) const
{
    return NUM_COLUMNS;
}

QVariant ModuleRollupModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case ModuleColumn:
        return tr("Module");
    case TypeColumn:
        return tr("Type");
    case TotalColumn:
        return tr("Total avg (%1)").arg(m_unit);
    case ShareColumn:
        return tr("Share");
    case EventsColumn:
        return tr("Events");
    case AvgColumn:
        return tr("Per event (%1)").arg(m_unit);
    default:
        return {};
    }
}

QVariant ModuleRollupModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    const ModuleRollupNode &n = *nodeAt(index);
    const double share = m_root.total > 0 ? n.total / m_root.total : 0.0;
    const int column = index.column();
    if (role == Qt::DisplayRole) {
        switch (column) {
        case ModuleColumn: {
            // The last path component is enough inside the tree; the tooltip has the full path.
            const QString path = toQString(n.displayPath);
            const auto dot = path.lastIndexOf(QLatin1Char('.'));
            return dot >= 0 ? path.mid(dot + 1) : path;
        }
        case TypeColumn: {
            const QString type = toQString(n.type);
            const auto dot = type.lastIndexOf(QLatin1Char('.'));
            return dot >= 0 ? type.mid(dot + 1) : type;
        }
        case TotalColumn:
            // A module whose ops ran only inside a call spanning modules has no time of its own.
            return n.sharedCount
                ? tr("%1 (+%2 shared)")
                      .arg(EventTreeModel::formatDuration(n.total), EventTreeModel::formatDuration(n.sharedTotal))
                : EventTreeModel::formatDuration(n.total);
        case ShareColumn:
            return QString(QString::number(share * 100, 'f', 1) + QLatin1Char('%'));
        case EventsColumn:
            return QString::number(n.eventCount);
        case AvgColumn:
            return EventTreeModel::formatDuration(n.average());
        default:
            return {};
        }
    }
    if (role == SortRole) {
        switch (column) {
        case ModuleColumn:
            return toQString(n.displayPath);
        case TypeColumn:
            return toQString(n.type);
        case TotalColumn:
        case ShareColumn:
            return n.total;
        case EventsColumn:
            return qulonglong(n.eventCount);
        case AvgColumn:
            return n.average();
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        QString tip
            = toQString(n.displayPath) + QLatin1Char('\n') + toQString(n.type) + QLatin1Char('\n') + toQString(n.key);
        // Issue 23: a call spanning modules is counted once, in their common ancestor (modulerollup.h).
        for (const SpanningCall &c : n.spanning) {
            QStringList mods;
            for (const std::string &m : c.modules)
                mods << toQString(m);
            tip += tr("\nCounted here, spanning %1: %2, %3 %4")
                       .arg(mods.join(QStringLiteral(", ")), toQString(c.label), EventTreeModel::formatDuration(c.time),
                           m_unit);
        }
        if (n.sharedCount)
            tip += tr("\nAlso ran inside %n call(s) spanning other modules too, counted under %1 (%2 %3), "
                      "not in this total",
                nullptr, int(n.sharedCount))
                       .arg(toQString(n.sharedAt), EventTreeModel::formatDuration(n.sharedTotal), m_unit);
        return tip;
    }
    if (role == Qt::TextAlignmentRole && column >= TotalColumn)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == FilterTextRole)
        return QString(toQString(n.displayPath) + QLatin1Char(' ') + toQString(n.type));
    if (role == RelativeCostRole && column == TotalColumn)
        return share;
    return {};
}

} // namespace etscope
