#pragma once

#include "panel.h"

#include <QByteArray>
#include <QList>

class QDockWidget;
class QMainWindow;
class QMenu;

namespace etscope {

// Where the panels' docks go in the window and back: the fresh-start layout (anchors first —
// Details on the right, the timeline at the bottom — the other docks as tabs beside them, so
// every panel keeps a usable size at 1280×720), the user's saved layout, and View ▸ Reset Layout.
class DockLayout
{
public:
    DockLayout(QMainWindow *window, QMenu *panelsMenu);

    // Adds a panel's dock in its fresh-start place (and to View ▸ Panels).
    void place(const Panel::Dock &dock);
    // The layout a reset goes back to: call once every dock is placed.
    void keepAsDefault();
    // The user's layout (saveGeometry / saveState of an earlier run); docks that show themselves
    // when they have something to show start hidden whatever it says, as they would be empty.
    void restore(const QByteArray &geometry, const QByteArray &state);
    // Every dock back in its fresh-start place; the window keeps its size, docks showing a result
    // (a comparison, a numeric gap) stay shown, and the tab the user had in front stays there.
    void reset();
    // Names the scope in the title of every dock that follows it; "" gives the plain titles.
    void showScope(const QString &label);

private:
    QMainWindow *m_window;
    QMenu *m_panelsMenu;
    QByteArray m_default;
    QList<QDockWidget *> m_startHidden;
    QList<QPair<QDockWidget *, QString>> m_scoped; // docks that follow the scope, their plain titles
};

} // namespace etscope
