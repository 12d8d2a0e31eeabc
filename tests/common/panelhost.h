#pragma once

#include "panel.h"
#include "sessioncontroller.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QStringList>

#include <memory>

// A panel alone, as every panel is built: from a SessionController and an EventSelection, its
// docks placed in a plain host window. No MainWindow and no other panel take part, so a test of
// the panel sees only what the panel itself does.
namespace etscope::test {

template <class P> class PanelHost
{
public:
    PanelHost()
        : controller(false)
        , panel(new P(&controller, &selection, &host))
    {
        for (const Panel::Dock &d : panel->docks()) {
            host.addDockWidget(d.area, d.dock);
            d.dock->setVisible(!d.startHidden);
        }
        // What the window does with a panel's request for room: show and raise the dock.
        QObject::connect(panel, &Panel::needsRoom, &host, [](QDockWidget *dock) {
            dock->show();
            dock->raise();
        });
        controller.setConfirmer([](const QString &, const QString &, SessionController::DefaultAnswer a) {
            return a == SessionController::DefaultAnswer::Yes;
        });
    }
    bool open(const QStringList &files, QString *error = nullptr) { return controller.openFilesSync(files, error); }

    SessionController controller;
    EventSelection selection;
    QMainWindow host;
    P *panel;
};

} // namespace etscope::test
