#pragma once

#include "events/backendevents.h"
#include "session/session.h"

#include <QAbstractItemModel>

#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace etscope {

// EventBlocks of one Session as a tree: blocks, then their events. Delegated events are
// nested under the DELEGATE_CALL of their instruction, so a delegated subgraph reads as one
// row that unfolds into its per-operator events. The session is an immutable snapshot; the
// model only swaps it between beginResetModel/endResetModel.
class EventTreeModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Columns {
        NameColumn,
        P10Column,
        P50Column,
        P90Column,
        AvgColumn,
        MinColumn,
        MaxColumn,
        OpTypesColumn,
        DelegatedColumn,
        BackendColumn,
        DebugHandlesColumn,
        ModuleColumn,
        InstructionColumn,
        RunsColumn,
        BackendOpColumn, // etscope's own: the operator decoded from a backend's event name
        // etscope's own: the node of the delegate's decoded payload the event ran (with a program)
        DelegateNodeColumn,
        NUM_COLUMNS
    };
    Q_ENUM(Columns)

    explicit EventTreeModel(QObject *parent = nullptr);
    ~EventTreeModel() override;

    void setSession(std::shared_ptr<const Session> session);
    const std::shared_ptr<const Session> &session() const { return m_session; }

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    // Orders the events under each parent by the column's sort key (ties and block rows in
    // file order; -1: file order), in place: one pass over a key array instead of the proxy's
    // n·log n comparisons through QModelIndex. Kept across setSession.
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    // Index of an event (column 0), or invalid when out of range.
    QModelIndex indexForEvent(int blockIndex, int eventIndex) const;
    QModelIndex indexForBlock(int blockIndex) const;
    // The event behind an index, nullptr for block rows.
    const Event *eventAt(const QModelIndex &index) const;

    static bool isNumericColumn(int column);
    // Rows with the same key >= 0 have the same filter text (plain events: their interned
    // name), so a filter is matched once per distinct text; -1: the row's text is its own.
    int filterKey(const QModelIndex &index) const;
    QString filterTextAt(const QModelIndex &index) const;
    // Changes whenever the rows are rebuilt (keys from an older generation are void).
    quint64 generation() const { return m_generation; }

    // Formatting shared with the details panel: 6 significant digits like the Inspector prints.
    static QString formatDuration(double value);
    static QString moduleText(const Event &event);
    static QString debugHandlesText(const Event &event);
    // "301 allocation events (method_allocator: 300 × 11898 B, planned_memory: 1 × 133840 B)"
    static QString allocationText(const EventBlock &block);
    QString unitName() const;

private:
    struct Node {
        int parent = -1; // node index, -1 for blocks
        int row = 0; // row under the parent
        int block = 0;
        int event = -1; // -1: block row
        int firstChild = 0; // children: m_children[firstChild, firstChild + childCount)
        int childCount = 0;
    };
    std::span<int> childrenOf(Node &node)
    {
        return { m_children.data() + node.firstChild, std::size_t(node.childCount) };
    }
    const Node *nodeAt(const QModelIndex &index) const;
    QVariant eventData(const Node &node, int column, int role) const;
    QVariant blockData(const Node &node, int column, int role) const;
    void buildNodes();
    QString filterText(const Node &node, const Event &e) const;
    bool isPlain(const Node &node, const Event &e) const;
    const BackendEvent *backendEventOf(const Node &node) const;
    const PayloadEventLink *payloadNodeOf(const Node &node) const;
    QString payloadNodeText(const Node &node) const; // "1 FullyConnected fp32[8, 64] -> … (by order)"
    const Event *wrappedKernel(int block, int event) const; // of an OPERATOR_CALL, or null
    QString nameDetail(int block, int event) const; // NameDetailRole
    int nameKey(const Event &e) const;
    void fillSortKeys(int column, std::vector<double> &keys) const;
    void orderChildren();

    std::shared_ptr<const Session> m_session;
    BackendEventTable m_backendEvents; // decoded delegate events of the session
    PayloadEventLinks m_payloadNodes; // those events on their delegates' payload nodes
    std::vector<Node> m_nodes; // 24 bytes per row
    std::vector<int> m_children; // every parent's children, in its row order
    std::vector<int> m_blockNodes;
    std::vector<std::vector<int>> m_eventNodes; // [block][event] -> node
    std::vector<double> m_blockMaxAvg;
    // Per numeric column, the sort key of every node, filled on first sort: Events are large
    // and scattered, so reading them inside the comparator is dominated by cache misses.
    mutable std::vector<double> m_sortKeys[NUM_COLUMNS];
    mutable std::vector<QString> m_filterTexts;
    mutable std::unordered_map<const char *, int> m_nameKeys; // interned name -> key
    mutable std::vector<QString> m_nameTexts; // key -> name
    quint64 m_generation = 0;
    int m_sortColumn = -1;
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
};

} // namespace etscope
