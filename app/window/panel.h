#pragma once

#include "events/blockstats.h"

#include <QList>
#include <QObject>
#include <QString>

#include <functional>
#include <vector>

class QAction;
class QDockWidget;
class QWidget;

namespace etscope {

class SessionController;

// The selection shared by the table and every panel: panels ask for events to be selected and
// follow the current one; the window connects both ends to its table.
class EventSelection : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;
    void selectEvent(int blockIndex, int eventIndex) { selectEvents({ EventPosition { blockIndex, eventIndex } }); }
    // The first becomes current, the others join the selection.
    void selectEvents(const std::vector<etscope::EventPosition> &events) { Q_EMIT selectionRequested(events); }
    void setCurrentEvent(int blockIndex, int eventIndex) { Q_EMIT currentEventChanged(blockIndex, eventIndex); }

Q_SIGNALS:
    void selectionRequested(const std::vector<etscope::EventPosition> &events);
    // An event (block, event), a block row (block, -1) or nothing (-1, -1) became current.
    void currentEventChanged(int blockIndex, int eventIndex);
};

// The dock contract: a group of analysis docks built from the session controller and the event
// selection (never from the window). The window places the docks it hands back and puts its
// actions into the menus they name.
class Panel : public QObject
{
    Q_OBJECT
public:
    enum class Placement {
        Anchor, // the first dock of its area (Details on the right, the Timeline at the bottom)
        BelowAnchor, // under the area's anchor, splitting the area
        Tab, // a tab next to Details (right area) or the Timeline (bottom area)
        TabBehindAnchor, // the same, the anchor staying on top
        OwnArea, // a dock of its own in the area, beside the others (across the bottom area)
    };
    struct Dock {
        QDockWidget *dock = nullptr; // parentless; the window adopts it
        Qt::DockWidgetArea area = Qt::BottomDockWidgetArea;
        Placement placement = Placement::Tab;
        bool startHidden = false; // shown by the panel once it has something to show
        // Answers for the scope's runs (SessionController::scoped): its title names them
        // ("Top events — decode_forward · decode · 64 runs").
        bool followsScope = false;
    };
    enum class Menu { File, Analysis }; // File: after Open Recent; Analysis: before Help

    Panel(SessionController *controller, EventSelection *selection, QObject *parent = nullptr)
        : QObject(parent)
        , m_controller(controller)
        , m_selection(selection)
    { }

    // A chart the window offers in File ▸ Export Chart and on a right-click: drawn again at the
    // size asked, to PNG or SVG.
    struct Chart {
        QString name; // "histogram", "top-events", "timeline" (what --screenshot and tests ask for)
        QString title; // "Latency histogram…"
        QWidget *widget = nullptr;
        // Why the chart has nothing to export now ("select an event first"); "" when it has. The
        // File ▸ Export Chart entry says so instead of writing an empty image.
        std::function<QString()> unavailable = [] { return QString(); };
    };

    virtual QList<Dock> docks() const = 0;
    virtual QList<QAction *> menuActions(Menu) const { return {}; }
    virtual QList<Chart> charts() const { return {}; }

Q_SIGNALS:
    // A dock has just received something to be read (a comparison, a numeric gap): the window
    // raises it and gives its area the room it needs.
    void needsRoom(QDockWidget *dock);

protected:
    // Reports a failed action of one of the panel's views (CompareView::actionFailed,
    // GraphView::actionFailed: "<Action>: <reason>") where every GUI action's error goes.
    void reportActionFailed(const QString &message);

    SessionController *m_controller;
    EventSelection *m_selection;
};

} // namespace etscope

namespace etscope {
// A closable, movable, floatable dock keyed by `objectName` in saveState(), large enough to stay
// readable and small enough for 1500×920 with every panel open.
QDockWidget *makeDock(QWidget *widget, const QString &title, const QString &objectName);
} // namespace etscope
