#include "panel.h"

#include <QDockWidget>

namespace etscope {

QDockWidget *makeDock(QWidget *widget, const QString &title, const QString &objectName)
{
    auto *dock = new QDockWidget(title);
    dock->setObjectName(objectName); // saveState() keys docks by object name
    dock->setWidget(widget);
    dock->setFeatures(
        QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable | QDockWidget::DockWidgetClosable);
    widget->setMinimumSize(widget->minimumSize().expandedTo(QSize(240, 140)));
    return dock;
}

} // namespace etscope
