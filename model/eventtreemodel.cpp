#include "eventtreemodel.h"
#include "runnames.h"

#include <QHash>

#include <numeric>

#include "etrecord/linker.h"
#include "etrecord/modulestack.h"
#include "events/inspectortable.h"

#include "modelroles.h"
#include "numberformat.h"
#include "qtstrings.h"
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <map>

namespace etscope {

namespace {
bool isDelegateCall(const Event &e)
{
    return !e.isDelegatedOp && e.name == kDelegateCall;
}

double statValue(const PerfStats &p, int column)
{
    switch (column) {
    case EventTreeModel::P10Column:
        return p.p10;
    case EventTreeModel::P50Column:
        return p.p50;
    case EventTreeModel::P90Column:
        return p.p90;
    case EventTreeModel::AvgColumn:
        return p.avg;
    case EventTreeModel::MinColumn:
        return p.min;
    case EventTreeModel::MaxColumn:
        return p.max;
    default:
        return 0;
    }
}

bool isStatColumn(int column)
{
    return column >= EventTreeModel::P10Column && column <= EventTreeModel::MaxColumn;
}
} // namespace

EventTreeModel::EventTreeModel(QObject *parent)
    : QAbstractItemModel(parent)
{ }

EventTreeModel::~EventTreeModel() = default;

void EventTreeModel::setSession(std::shared_ptr<const Session> session)
{
    beginResetModel();
    m_session = std::move(session);
    m_backendEvents = m_session ? decodeBackendEvents(m_session->blocks) : BackendEventTable {};
    m_payloadNodes = m_session ? payloadEventLinks(*m_session, m_backendEvents) : PayloadEventLinks {};
    buildNodes();
    orderChildren();
    endResetModel();
}

void EventTreeModel::sort(int column, Qt::SortOrder order)
{
    if (column >= NUM_COLUMNS)
        column = -1;
    m_sortColumn = column;
    m_sortOrder = order;
    Q_EMIT layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList before = persistentIndexList();
    orderChildren();
    QModelIndexList after;
    after.reserve(before.size());
    for (const QModelIndex &i : before) {
        const auto n = std::size_t(i.internalId());
        after.push_back(n < m_nodes.size() ? createIndex(m_nodes[n].row, i.column(), quintptr(n)) : QModelIndex());
    }
    changePersistentIndexList(before, after);
    Q_EMIT layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

void EventTreeModel::orderChildren()
{
    std::vector<double> *keys = nullptr;
    if (m_sortColumn >= 0 && m_session) {
        keys = &m_sortKeys[m_sortColumn];
        if (keys->size() != m_nodes.size())
            fillSortKeys(m_sortColumn, *keys);
    }
    const bool descending = m_sortOrder == Qt::DescendingOrder;
    // Blocks stay in file order at the top; events are ordered under their block or DELEGATE_CALL.
    // (key, node) pairs sort without chasing the key array; the node number breaks ties, which
    // keeps equal keys in file order (children were numbered as they were read).
    std::vector<std::pair<double, int>> byKey;
    for (Node &parent : m_nodes) {
        const std::span<int> c = childrenOf(parent);
        if (c.empty())
            continue;
        if (!keys) {
            std::sort(c.begin(), c.end());
        } else {
            byKey.clear();
            for (const int n : c)
                byKey.emplace_back((*keys)[std::size_t(n)], n);
            if (descending)
                std::sort(byKey.begin(), byKey.end(), [](const auto &a, const auto &b) {
                    return a.first > b.first || (a.first == b.first && a.second < b.second);
                });
            else
                std::sort(byKey.begin(), byKey.end());
            for (std::size_t r = 0; r < c.size(); ++r)
                c[r] = byKey[r].second;
        }
        for (std::size_t r = 0; r < c.size(); ++r)
            m_nodes[std::size_t(c[r])].row = int(r);
    }
}

void EventTreeModel::buildNodes()
{
    m_nodes.clear();
    m_children.clear();
    m_blockNodes.clear();
    m_eventNodes.clear();
    m_blockMaxAvg.clear();
    for (auto &keys : m_sortKeys)
        keys.clear();
    m_filterTexts.clear();
    m_nameKeys.clear();
    m_nameTexts.clear();
    ++m_generation;
    if (!m_session)
        return;
    const auto &blocks = m_session->blocks;
    std::size_t total = blocks.size();
    for (const auto &b : blocks)
        total += b.events.size();
    m_nodes.reserve(total);
    m_eventNodes.resize(blocks.size());
    m_blockMaxAvg.resize(blocks.size(), 0.0);

    for (int bi = 0; bi < int(blocks.size()); ++bi) {
        const EventBlock &block = blocks[bi];
        const int blockNode = int(m_nodes.size());
        m_nodes.push_back(Node { -1, bi, bi, -1 });
        m_blockNodes.push_back(blockNode);

        // Delegated events carry their DELEGATE_CALL's instruction id. Attach each to the
        // DELEGATE_CALL of that instruction that follows it (the backend logs its per-op events
        // while the call is open, so they come first); fall back to the preceding one.
        std::map<std::pair<std::int32_t, std::int64_t>, std::vector<int>> calls;
        for (int ei = 0; ei < int(block.events.size()); ++ei) {
            const Event &e = block.events[ei];
            if (isDelegateCall(e))
                calls[{ e.instructionId, e.chainIndex }].push_back(ei);
        }
        std::vector<int> parentEvent(block.events.size(), -1);
        for (int ei = 0; ei < int(block.events.size()); ++ei) {
            const Event &e = block.events[ei];
            if (!e.isDelegatedOp)
                continue;
            auto it = calls.find({ e.instructionId, e.chainIndex });
            if (it == calls.end())
                continue;
            const auto &candidates = it->second;
            auto next = std::upper_bound(candidates.begin(), candidates.end(), ei);
            parentEvent[ei] = next != candidates.end() ? *next : candidates.back();
        }

        m_eventNodes[bi].assign(block.events.size(), -1);
        // Parents first so that children can find their node; order of rows stays file order.
        for (int ei = 0; ei < int(block.events.size()); ++ei) {
            if (parentEvent[ei] != -1)
                continue;
            const int n = int(m_nodes.size());
            m_nodes.push_back(Node { blockNode, m_nodes[blockNode].childCount++, bi, ei });
            m_eventNodes[bi][ei] = n;
        }
        for (int ei = 0; ei < int(block.events.size()); ++ei) {
            if (parentEvent[ei] == -1)
                continue;
            const int parentNode = m_eventNodes[bi][parentEvent[ei]];
            const int n = int(m_nodes.size());
            m_nodes.push_back(Node { parentNode, m_nodes[parentNode].childCount++, bi, ei });
            m_eventNodes[bi][ei] = n;
        }
        for (const Event &e : block.events)
            if (e.perfData && !e.isFramework())
                m_blockMaxAvg[bi] = std::max(m_blockMaxAvg[bi], e.perfData->avg);
    }
    // Lay the children out parent by parent; a child's row is its place among its siblings
    // in the order they were created, which is file order.
    int next = 0;
    for (Node &n : m_nodes) {
        n.firstChild = next;
        next += n.childCount;
    }
    m_children.assign(std::size_t(next), -1);
    for (std::size_t n = 0; n < m_nodes.size(); ++n)
        if (const int p = m_nodes[n].parent; p >= 0)
            m_children[std::size_t(m_nodes[std::size_t(p)].firstChild + m_nodes[n].row)] = int(n);
}

const EventTreeModel::Node *EventTreeModel::nodeAt(const QModelIndex &index) const
{
    if (!index.isValid())
        return nullptr;
    const auto id = index.internalId();
    return id < m_nodes.size() ? &m_nodes[id] : nullptr;
}

QModelIndex EventTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= NUM_COLUMNS)
        return {};
    if (!parent.isValid()) {
        if (row >= int(m_blockNodes.size()))
            return {};
        return createIndex(row, column, quintptr(m_blockNodes[row]));
    }
    if (parent.column() != 0)
        return {};
    const Node *p = nodeAt(parent);
    if (!p || row >= p->childCount)
        return {};
    return createIndex(row, column, quintptr(m_children[std::size_t(p->firstChild + row)]));
}

QModelIndex EventTreeModel::parent(const QModelIndex &child) const
{
    const Node *n = nodeAt(child);
    if (!n || n->parent < 0)
        return {};
    const Node &p = m_nodes[n->parent];
    return createIndex(p.row, 0, quintptr(n->parent));
}

int EventTreeModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return int(m_blockNodes.size());
    if (parent.column() != 0)
        return 0;
    const Node *p = nodeAt(parent);
    return p ? p->childCount : 0;
}

int EventTreeModel::columnCount(const QModelIndex &) const
{
    return NUM_COLUMNS;
}

QString EventTreeModel::unitName() const
{
    if (!m_session)
        return QStringLiteral("ms");
    return toQString(timeScaleName(m_session->inputs.time.target));
}

QVariant EventTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= NUM_COLUMNS)
        return {};
    if (role == Qt::TextAlignmentRole)
        return isStatColumn(section) || section == InstructionColumn || section == RunsColumn
            ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
            : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case NameColumn:
            return tr("Event name; delegated events are nested under their DELEGATE_CALL");
        case OpTypesColumn:
            return tr("Operators linked through the ETRecord's debug handles");
        case RunsColumn:
            return tr("Number of runs merged into this row");
        case InstructionColumn:
            return tr("Instruction id in the execution plan");
        case BackendOpColumn:
            return tr("etscope: the operator read from the backend's own event name (Vulkan dispatch, "
                      "XNNPACK operator, Neutron kernel) or the host phase of the delegate call");
        case DelegateNodeColumn:
            return tr("etscope: the node of the delegate's payload (in the program) that the event ran, with "
                      "its input and output tensors; \"by order\" where the backend logs no node id and "
                      "the runtime's operator order and kind place it (XNNPACK)");
        default:
            break;
        }
        if (isStatColumn(section))
            return tr("Over all runs of the block, in %1").arg(unitName());
        return {};
    }
    if (role != Qt::DisplayRole)
        return {};
    const QString unit = QStringLiteral(" (") + unitName() + QLatin1Char(')');
    switch (section) {
    case NameColumn:
        return tr("Event");
    case P10Column:
        return QString(QStringLiteral("p10") + unit);
    case P50Column:
        return QString(QStringLiteral("p50") + unit);
    case P90Column:
        return QString(QStringLiteral("p90") + unit);
    case AvgColumn:
        return QString(QStringLiteral("avg") + unit);
    case MinColumn:
        return QString(QStringLiteral("min") + unit);
    case MaxColumn:
        return QString(QStringLiteral("max") + unit);
    case OpTypesColumn:
        return tr("Op types");
    case DelegatedColumn:
        return tr("Delegated");
    case BackendColumn:
        return tr("Backend");
    case DebugHandlesColumn:
        return tr("Debug handles");
    case ModuleColumn:
        return tr("Module");
    case InstructionColumn:
        return tr("Instr.");
    case RunsColumn:
        return tr("Runs");
    case BackendOpColumn:
        return tr("Backend op (etscope)");
    case DelegateNodeColumn:
        return tr("Delegate node (etscope)");
    case NUM_COLUMNS:
        break;
    }
    return {};
}

QString EventTreeModel::formatDuration(double value)
{
    // 6 significant digits like the Inspector prints, always positional (one format per column:
    // never "9.7e-05" under "0.000412"); large tick/ns counts whole rather than 1.89882e+06.
    return formatSignificant(value, 6);
}

QString EventTreeModel::moduleText(const Event &event)
{
    // The innermost module of the first linked node is what a user recognises from the model code.
    for (const LinkedNode &node : event.linkedNodes()) {
        if (node.moduleStack && !node.moduleStack->empty()) {
            const ModuleFrame &f = node.moduleStack->back();
            QString type = toQString(f.type);
            const auto dot = type.lastIndexOf(QLatin1Char('.'));
            if (dot >= 0)
                type = type.mid(dot + 1);
            return toQString(moduleDisplayName(f.path)) + QStringLiteral(" (") + type + QLatin1Char(')');
        }
    }
    return {};
}

QString EventTreeModel::debugHandlesText(const Event &event)
{
    if (!event.debugHandles())
        return {};
    QStringList parts;
    for (auto h : *event.debugHandles())
        parts << QString::number(h);
    if (event.debugHandlesIsScalar() && parts.size() == 1)
        return parts.front();
    return QString(QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']'));
}

QString EventTreeModel::allocationText(const EventBlock &block)
{
    QStringList parts;
    for (const AllocatorSummary &a : block.allocators)
        parts << tr("%1: %2 × %3 B").arg(toQString(a.name)).arg(a.allocationCount).arg(a.totalBytes);
    return tr("%1 allocation events (%2)").arg(block.allocationEventCount).arg(parts.join(QStringLiteral(", ")));
}

QVariant EventTreeModel::blockData(const Node &node, int column, int role) const
{
    const EventBlock &block = m_session->blocks[node.block];
    switch (role) {
    case Qt::DisplayRole:
        if (column == NameColumn)
            return toQString(block.name);
        if (column == RunsColumn)
            return QString::number(block.runIndices.size());
        if (column == OpTypesColumn && block.allocationEventCount > 0)
            // A block of allocation events has no profiling rows; say what it holds.
            return allocationText(block);
        return {};
    case SortRole:
        if (column == NameColumn)
            return toQString(block.name);
        if (column == RunsColumn)
            return qulonglong(block.runIndices.size());
        // Blocks keep file order whatever column sorts the events.
        return node.block;
    case Qt::ToolTipRole: {
        const auto events = qulonglong(block.events.size()), runs = qulonglong(block.runIndices.size());
        QString tip = tr("Block %1: %2, %3")
                          .arg(toQString(block.name), events == 1 ? tr("1 event") : tr("%1 events").arg(events),
                              runs == 1 ? tr("1 run") : tr("%1 runs").arg(runs));
        if (block.allocationEventCount > 0)
            tip += QLatin1Char('\n') + allocationText(block);
        if (const QString runs = blockRunsLabel(*m_session, std::size_t(node.block)); !runs.isEmpty())
            tip += QLatin1Char('\n') + runs + QStringLiteral(" (") + toQString(m_session->runTable.ruleLine)
                + QLatin1Char(')');
        return tip;
    }
    case Qt::FontRole: {
        QFont f;
        f.setBold(true);
        return f;
    }
    case NameDetailRole:
        // The block's runs by method and phase, painted after the name (names stay upstream's).
        return column == NameColumn ? blockRunsLabel(*m_session, std::size_t(node.block)) : QVariant();
    case BlockIndexRole:
        return node.block;
    case EventIndexRole:
        return -1;
    case FilterTextRole:
        return toQString(block.name);
    case IsDelegatedRole:
    case IsFrameworkRole:
    case IsOperatorCallRole:
        return false;
    case Qt::TextAlignmentRole:
        if (column == RunsColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    default:
        return {};
    }
}

const Event *EventTreeModel::wrappedKernel(int block, int event) const
{
    // The runtime logs a kernel and the OPERATOR_CALL around it next to each other, with the
    // same chain and instruction.
    const auto &events = m_session->blocks[std::size_t(block)].events;
    const Event &call = events[std::size_t(event)];
    for (int n : { event - 1, event + 1 })
        if (n >= 0 && n < int(events.size())) {
            const Event &k = events[std::size_t(n)];
            if (!k.isOperatorCall() && !k.isFramework() && k.instructionId == call.instructionId
                && k.chainIndex == call.chainIndex)
                return &k;
        }
    return nullptr;
}

QString EventTreeModel::nameDetail(int block, int event) const
{
    const Event &e = m_session->blocks[std::size_t(block)].events[std::size_t(event)];
    if (e.isFramework() || e.instructionId < 0)
        return {};
    QString detail = QStringLiteral("#%1").arg(e.instructionId);
    if (e.isOperatorCall())
        if (const Event *k = wrappedKernel(block, event)) {
            const std::string op = kernelOperatorName(k->name);
            detail += QLatin1Char(' ') + toQString(op.empty() ? k->name : op);
        }
    return detail;
}

QVariant EventTreeModel::eventData(const Node &node, int column, int role) const
{
    const Event &e = m_session->blocks[node.block].events[node.event];
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn:
            return e.name.empty() ? tr("(unnamed)") : toQString(e.name);
        case OpTypesColumn:
            return e.opTypes().empty() ? QString() : toQString(opTypesText(e.opTypes()));
        case DelegatedColumn:
            return e.isDelegatedOp ? tr("yes") : QString();
        case BackendColumn:
            return e.delegateBackendName() ? toQString(*e.delegateBackendName()) : QString();
        case DebugHandlesColumn:
            return debugHandlesText(e);
        case ModuleColumn:
            return moduleText(e);
        case InstructionColumn:
            return QString::number(e.instructionId);
        case RunsColumn:
            return e.perfData ? QString::number(e.perfData->raw.size()) : QString();
        case BackendOpColumn: {
            const BackendEvent *b = backendEventOf(node);
            return b ? toQString(backendOpLabel(*b)) : QString();
        }
        case DelegateNodeColumn:
            return payloadNodeText(node);
        default:
            if (isStatColumn(column) && e.perfData)
                return formatDuration(statValue(*e.perfData, column));
            return {};
        }
    case SortRole:
        switch (column) {
        case NameColumn:
            return toQString(e.name);
        case OpTypesColumn:
            return toQString(opTypesText(e.opTypes()));
        case DelegatedColumn:
            return e.isDelegatedOp;
        case BackendColumn:
            return e.delegateBackendName() ? toQString(*e.delegateBackendName()) : QString();
        case DebugHandlesColumn:
            return e.debugHandles() && !e.debugHandles()->empty() ? qlonglong(e.debugHandles()->front())
                                                                  : qlonglong(-1);
        case ModuleColumn:
            return moduleText(e);
        case InstructionColumn:
            return e.instructionId;
        case RunsColumn:
            return e.perfData ? qulonglong(e.perfData->raw.size()) : qulonglong(0);
        case BackendOpColumn: {
            const BackendEvent *b = backendEventOf(node);
            return b ? toQString(backendOpLabel(*b)) : QString();
        }
        case DelegateNodeColumn:
            return payloadNodeText(node);
        default:
            if (isStatColumn(column))
                // Rows without timing sort below every measured row.
                return e.perfData ? statValue(*e.perfData, column) : -1.0;
            return {};
        }
    case NameDetailRole:
        return column == NameColumn ? nameDetail(node.block, node.event) : QVariant();
    case Qt::ToolTipRole:
        if (column == NameColumn) {
            QString tip = toQString(e.name);
            if (const QString detail = nameDetail(node.block, node.event); !detail.isEmpty())
                tip += e.isOperatorCall() ? tr("\ninstruction %1: the call around %2")
                                                .arg(e.instructionId)
                                                .arg(toQString(wrappedKernel(node.block, node.event)->name))
                                          : tr("\ninstruction %1").arg(e.instructionId);
            if (e.isDelegatedOp)
                tip += tr("\ndelegate identifier: %1").arg(toQString(delegateDebugIdText(e.delegateDebugIdentifier())));
            return tip;
        }
        if (isStatColumn(column) && e.perfData)
            // The cell is rounded to 6 digits; the tooltip has every digit.
            return QString(formatFull(statValue(*e.perfData, column)) + QLatin1Char(' ') + unitName());
        if (column == BackendOpColumn) {
            const BackendEvent *b = backendEventOf(node);
            return b ? toQString(describeBackendEvent(*b)) : QVariant();
        }
        if (column == DelegateNodeColumn) {
            const PayloadEventLink *l = payloadNodeOf(node);
            return l ? toQString(fmt::format("{}", fmt::join(m_payloadNodes.describe(*l), "\n"))) : QVariant();
        }
        if (column == OpTypesColumn && !e.opTypes().empty()) {
            QStringList ops;
            for (const auto &op : e.opTypes())
                ops << toQString(op);
            return ops.join(QLatin1Char('\n'));
        }
        return {};
    case Qt::TextAlignmentRole:
        if (isStatColumn(column) || column == InstructionColumn || column == RunsColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ForegroundRole:
        // Framework and dispatch-overhead rows are context, not kernels: dim them.
        if (e.isFramework() || e.isOperatorCall())
            return QBrush(QColor(0x80, 0x80, 0x80));
        return {};
    case BlockIndexRole:
        return node.block;
    case EventIndexRole:
        return node.event;
    case FilterTextRole:
        return filterText(node, e);
    case IsDelegatedRole:
        return e.isDelegatedOp;
    case IsFrameworkRole:
        return e.isFramework();
    case IsOperatorCallRole:
        return e.isOperatorCall();
    case RelativeCostRole: {
        const double maxAvg = m_blockMaxAvg[node.block];
        if (!e.perfData || maxAvg <= 0 || e.isFramework())
            return 0.0;
        return std::clamp(e.perfData->avg / maxAvg, 0.0, 1.0);
    }
    default:
        return {};
    }
}

const PayloadEventLink *EventTreeModel::payloadNodeOf(const Node &node) const
{
    return node.event < 0 ? nullptr : m_payloadNodes.find(std::size_t(node.block), std::size_t(node.event));
}

QString EventTreeModel::payloadNodeText(const Node &node) const
{
    const PayloadEventLink *l = payloadNodeOf(node);
    if (!l)
        return {};
    const QString label = toQString(m_payloadNodes.nodeLabel(*l));
    return l->basis == PayloadLinkBasis::OrderAndKind ? tr("%1 (by order)").arg(label) : label;
}

const BackendEvent *EventTreeModel::backendEventOf(const Node &node) const
{
    if (node.event < 0 || m_backendEvents.empty())
        return nullptr;
    return m_backendEvents.find(std::size_t(node.block), std::size_t(node.event));
}

bool EventTreeModel::isPlain(const Node &node, const Event &e) const
{
    return e.opTypes().empty() && e.linkedNodes().empty() && !e.delegateBackendName() && !backendEventOf(node);
}

int EventTreeModel::nameKey(const Event &e) const
{
    // Names are interned in the session's store: one key per distinct name.
    auto [it, fresh] = m_nameKeys.try_emplace(e.name.data(), int(m_nameTexts.size()));
    if (fresh)
        m_nameTexts.push_back(toQString(e.name));
    return it->second;
}

QString EventTreeModel::filterText(const Node &node, const Event &e) const
{
    if (isPlain(node, e))
        return m_nameTexts[std::size_t(nameKey(e))];
    // Rows with ETRecord fields have text of their own, built once and kept.
    const std::size_t id = std::size_t(&node - m_nodes.data());
    if (m_filterTexts.size() != m_nodes.size())
        m_filterTexts.assign(m_nodes.size(), QString());
    QString &cached = m_filterTexts[id];
    if (!cached.isNull())
        return cached;
    QString text = toQString(e.name);
    for (const auto &op : e.opTypes())
        text += QLatin1Char('\n') + toQString(op);
    for (const LinkedNode &ln : e.linkedNodes())
        if (ln.moduleStack)
            for (const ModuleFrame &f : *ln.moduleStack)
                text += QLatin1Char('\n') + toQString(normalizeModulePath(f.path)) + QLatin1Char(' ')
                    + toQString(f.type);
    if (e.delegateBackendName())
        text += QLatin1Char('\n') + toQString(*e.delegateBackendName());
    if (const BackendEvent *b = backendEventOf(node))
        text += QLatin1Char('\n') + toQString(backendOpLabel(*b));
    if (const QString n = payloadNodeText(node); !n.isEmpty())
        text += QLatin1Char('\n') + n;
    cached = text;
    return cached;
}

int EventTreeModel::filterKey(const QModelIndex &index) const
{
    const Node *node = nodeAt(index);
    if (!node || node->event < 0 || !m_session)
        return -1;
    const Event &e = m_session->blocks[std::size_t(node->block)].events[std::size_t(node->event)];
    return isPlain(*node, e) ? nameKey(e) : -1;
}

QString EventTreeModel::filterTextAt(const QModelIndex &index) const
{
    const Node *node = nodeAt(index);
    if (!node || node->event < 0 || !m_session)
        return {};
    return filterText(*node, m_session->blocks[std::size_t(node->block)].events[std::size_t(node->event)]);
}

QVariant EventTreeModel::data(const QModelIndex &index, int role) const
{
    const Node *node = nodeAt(index);
    if (!node || !m_session)
        return {};
    return node->event < 0 ? blockData(*node, index.column(), role) : eventData(*node, index.column(), role);
}

bool EventTreeModel::isNumericColumn(int column)
{
    return isStatColumn(column) || column == InstructionColumn || column == RunsColumn;
}

// Per column, one key per node, so that sorting half a million rows compares doubles instead
// of reading scattered Events and building QVariants in the comparator. Text columns rank the
// distinct texts (case-insensitively, as SortRole compares them); equal texts share a rank.
void EventTreeModel::fillSortKeys(int column, std::vector<double> &keys) const
{
    keys.assign(m_nodes.size(), -1.0); // block rows are never ranked: blocks keep file order
    if (isNumericColumn(column) || column == DelegatedColumn || column == DebugHandlesColumn) {
        for (std::size_t n = 0; n < m_nodes.size(); ++n) {
            const Node &node = m_nodes[n];
            if (node.event < 0)
                continue;
            const Event &e = m_session->blocks[std::size_t(node.block)].events[std::size_t(node.event)];
            if (column == InstructionColumn)
                keys[n] = e.instructionId;
            else if (column == RunsColumn)
                keys[n] = e.perfData ? double(e.perfData->raw.size()) : 0.0;
            else if (column == DelegatedColumn)
                keys[n] = e.isDelegatedOp ? 1.0 : 0.0;
            else if (column == DebugHandlesColumn)
                keys[n] = e.debugHandles() && !e.debugHandles()->empty() ? double(e.debugHandles()->front()) : -1.0;
            else // same convention as SortRole: rows without timing sort below every measured row
                keys[n] = e.perfData ? statValue(*e.perfData, column) : -1.0;
            if (std::isnan(keys[n]))
                keys[n] = -1.0; // a NaN duration (unreadable wrap-around) is no timing either; keeps the order total
        }
        return;
    }
    QHash<QString, int> textIds;
    std::vector<QString> texts;
    std::vector<int> nodeText(m_nodes.size(), -1);
    for (std::size_t n = 0; n < m_nodes.size(); ++n) {
        const Node &node = m_nodes[n];
        if (node.event < 0)
            continue;
        const Event &e = m_session->blocks[std::size_t(node.block)].events[std::size_t(node.event)];
        if (column == NameColumn) {
            const int k = nameKey(e);
            if (std::size_t(k) >= texts.size())
                texts.resize(std::size_t(k) + 1);
            texts[std::size_t(k)] = m_nameTexts[std::size_t(k)];
            nodeText[n] = k;
            continue;
        }
        const QString t = data(createIndex(int(node.row), column, quintptr(n)), SortRole).toString();
        auto it = textIds.find(t);
        if (it == textIds.end()) {
            it = textIds.insert(t, int(texts.size()));
            texts.push_back(t);
        }
        nodeText[n] = it.value();
    }
    std::vector<int> order(texts.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&texts](int a, int b) {
        return QString::compare(texts[std::size_t(a)], texts[std::size_t(b)], Qt::CaseInsensitive) < 0;
    });
    std::vector<double> rank(texts.size(), 0.0);
    for (std::size_t i = 0; i < order.size(); ++i) {
        // Texts equal but for case compare equal: same rank.
        const bool tie = i > 0
            && QString::compare(texts[std::size_t(order[i])], texts[std::size_t(order[i - 1])], Qt::CaseInsensitive)
                == 0;
        rank[std::size_t(order[i])] = tie ? rank[std::size_t(order[i - 1])] : double(i);
    }
    for (std::size_t n = 0; n < m_nodes.size(); ++n)
        if (nodeText[n] >= 0)
            keys[n] = rank[std::size_t(nodeText[n])];
}

QModelIndex EventTreeModel::indexForEvent(int blockIndex, int eventIndex) const
{
    if (blockIndex < 0 || blockIndex >= int(m_eventNodes.size()))
        return {};
    const auto &nodes = m_eventNodes[blockIndex];
    if (eventIndex < 0 || eventIndex >= int(nodes.size()))
        return {};
    const int n = nodes[eventIndex];
    return createIndex(m_nodes[n].row, 0, quintptr(n));
}

QModelIndex EventTreeModel::indexForBlock(int blockIndex) const
{
    return index(blockIndex, 0);
}

const Event *EventTreeModel::eventAt(const QModelIndex &index) const
{
    const Node *node = nodeAt(index);
    if (!node || node->event < 0 || !m_session)
        return nullptr;
    return &m_session->blocks[node->block].events[node->event];
}

} // namespace etscope
