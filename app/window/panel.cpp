#include "panel.h"
#include "sessioncontroller.h"

#include <QDockWidget>

namespace etscope {

QDockWidget *makeDock(QWidget *widget, const QString &title, const QString &objectName)
{
    auto *dock = new QDockWidget(title);
    dock->setObjectName(objectName); // saveState() keys docks by object name
    dock->setWidget(widget);
    dock->setFeatures(
        QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable | QDockWidget::DockWidgetClosable);
    // Small enough that at 1280×720 the right column (Details over the histogram) leaves a bottom
    // panel more than half of the height when it needs it.
    widget->setMinimumSize(widget->minimumSize().expandedTo(QSize(240, 100)));
    return dock;
}

void Panel::reportActionFailed(const QString &message)
{
    m_controller->notify(MessageKind::Error, message);
}

} // namespace etscope
