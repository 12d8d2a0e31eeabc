#include "docklayout.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>

namespace etscope {

DockLayout::DockLayout(QMainWindow *window, QMenu *panelsMenu)
    : m_window(window)
    , m_panelsMenu(panelsMenu)
{ }

void DockLayout::place(const Panel::Dock &d)
{
    QDockWidget *dock = d.dock;
    QMainWindow *w = m_window;
    m_panelsMenu->addAction(dock->toggleViewAction());
    const QString anchorName
        = d.area == Qt::RightDockWidgetArea ? QStringLiteral("DetailsDock") : QStringLiteral("TimelineDock");
    w->addDockWidget(d.area, dock);
    auto *anchor = w->findChild<QDockWidget *>(anchorName);
    const bool besideAnchor = anchor && anchor != dock;
    switch (d.placement) {
    case Panel::Placement::Anchor:
    case Panel::Placement::OwnArea:
        break;
    case Panel::Placement::BelowAnchor:
        if (besideAnchor)
            w->splitDockWidget(anchor, dock, Qt::Vertical);
        break;
    case Panel::Placement::Tab:
    case Panel::Placement::TabBehindAnchor:
        if (besideAnchor)
            w->tabifyDockWidget(anchor, dock);
        if (d.placement == Panel::Placement::TabBehindAnchor && besideAnchor)
            anchor->raise();
        break;
    }
    if (d.startHidden) {
        dock->hide();
        m_startHidden << dock;
    }
    if (d.followsScope)
        m_scoped.append({ dock, dock->windowTitle() });
}

void DockLayout::showScope(const QString &label)
{
    for (const auto &[dock, title] : std::as_const(m_scoped)) {
        dock->setWindowTitle(label.isEmpty() ? title : QStringLiteral("%1 — %2").arg(title, label));
        dock->setToolTip(label.isEmpty() ? QString() : QObject::tr("%1 answers for %2").arg(title, label));
    }
}

void DockLayout::keepAsDefault()
{
    m_default = m_window->saveState();
}

void DockLayout::restore(const QByteArray &geometry, const QByteArray &state)
{
    m_window->restoreGeometry(geometry);
    m_window->restoreState(state);
    for (QDockWidget *d : std::as_const(m_startHidden))
        d->hide();
}

void DockLayout::reset()
{
    const auto docks = m_window->findChildren<QDockWidget *>();
    // Docks showing a result stay open, and of each tab group the tab the user had in front
    // stays in front (a tab behind another is not visible).
    QList<QDockWidget *> open, front;
    for (QDockWidget *d : std::as_const(m_startHidden))
        if (d->toggleViewAction()->isChecked())
            open << d;
    for (QDockWidget *d : docks)
        if (d->isVisible() && !d->isFloating() && !m_window->tabifiedDockWidgets(d).isEmpty())
            front << d;
    for (QDockWidget *d : docks)
        d->setFloating(false);
    m_window->restoreState(m_default);
    for (QDockWidget *d : std::as_const(open))
        d->show();
    for (QDockWidget *d : std::as_const(front))
        if (!m_window->tabifiedDockWidgets(d).isEmpty())
            d->raise();
}

} // namespace etscope
