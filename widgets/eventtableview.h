#pragma once

#include "events/blockstats.h"
#include "session/session.h"

#include <QWidget>

#include <memory>
#include <vector>

class QAction;
class QLineEdit;
class QTimer;
class QToolButton;
class QTreeView;

namespace etscope {

class EventFilterProxy;
class EventTreeModel;

// The profile table: filter row (text or regular expression), the block/event tree with its
// filter proxy, the quick filters (delegated only, hide framework, hide OPERATOR_CALL),
// selection, column widths and the export of the rows it shows.
class EventTableView : public QWidget
{
    Q_OBJECT
public:
    explicit EventTableView(QWidget *parent = nullptr);

    // Shows the session. A reload of the same ETDump keeps the selected event for
    // selectStartEvent(), which the owner calls once everyone else has seen the session.
    void setSession(std::shared_ptr<const Session> session);
    // The kept event, else the slowest kernel.
    void selectStartEvent();

    // Selects (and scrolls to) the event, clearing the filters when they hide it.
    void selectEvent(int blockIndex, int eventIndex);
    // The first event becomes current; the others join the selection.
    void selectEvents(const std::vector<EventPosition> &events);
    // Selects the first event (in file order) with this name; false if none.
    bool selectEventByName(const QString &name);

    void focusFilter();
    // A plain-text filter, applied at once (a module path from the roll-up).
    void setFilter(const QString &text);
    void applyFilter();
    // Restores a saved header state; a column newer than the state (appended last by Qt) is put
    // where a fresh layout has it.
    void restoreHeader(const QByteArray &state);
    void setDefaultColumnWidths();

    // Writes the rows the table shows as TSV (.tsv) or CSV (.csv), exactly as `etscope-cli
    // tsv`/`csv` (all rows when no filter is on).
    bool exportVisibleRows(const QString &path, QString *error = nullptr) const;
    QString selectedRowsAsTsv() const;

    // Quick filters, for the window's View menu and toolbar.
    QAction *delegatedOnlyAction() const { return m_delegatedOnly; }
    QAction *hideFrameworkAction() const { return m_hideFramework; }
    QAction *hideOperatorCallsAction() const { return m_hideOperatorCalls; }

    EventTreeModel *model() const { return m_model; }
    EventFilterProxy *proxy() const { return m_proxy; }
    QTreeView *tree() const { return m_tree; }
    QLineEdit *filterEdit() const { return m_filter; }

Q_SIGNALS:
    // The current row: an event (block, event), a block row (block, -1) or none (-1, -1).
    void currentEventChanged(int blockIndex, int eventIndex);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void emitCurrent(const QModelIndex &proxyIndex);

    std::shared_ptr<const Session> m_session;
    EventPosition m_keep; // selection kept across a reload of the same ETDump
    EventTreeModel *m_model = nullptr;
    EventFilterProxy *m_proxy = nullptr;
    QTreeView *m_tree = nullptr;
    QLineEdit *m_filter = nullptr;
    QToolButton *m_regexButton = nullptr;
    QTimer *m_filterTimer = nullptr;
    QAction *m_delegatedOnly = nullptr;
    QAction *m_hideFramework = nullptr;
    QAction *m_hideOperatorCalls = nullptr;
};

} // namespace etscope
