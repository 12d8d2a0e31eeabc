#pragma once

#include "exportactions.h"
#include "mainwindow.h"
#include "messagebar.h"
#include "panel.h"
#include "testpaths.h"

#include <QAction>
#include <QLabel>
#include <QStatusBar>
#include <QString>

// What every window test starts from: real fixtures by path, and a window that keeps no settings
// and asks no questions (tests answer the controller's questions themselves).
namespace etscope::test {

inline QString fixturePath(const char *relative)
{
    return QString::fromStdString(sharedFixture(relative));
}

inline QString testDataPath(const char *relative)
{
    return QString::fromStdString(testData(relative));
}

// A part of the window, found as a user's click would reach it: the window keeps no accessor for
// tests. `T` is a panel (a QObject child of the window) or a widget that occurs once in it.
template <class T> T *part(const QObject &window)
{
    T *found = window.findChild<T *>();
    Q_ASSERT_X(found, "test::part", "no such part in the window");
    return found;
}

// What a user reads in the window, read where the user reads it.
inline QString messageText(const MainWindow &w) // the message bar above the table, "" while hidden
{
    return part<MessageBar>(w)->text();
}
inline QString lastError(const MainWindow &w) // the error the message bar shows, "" when none
{
    return part<MessageBar>(w)->error();
}
inline QString statusText(const MainWindow &w) // the message bar, else the status bar's message
{
    const QString bar = messageText(w);
    return bar.isEmpty() ? w.statusBar()->currentMessage() : bar;
}
inline QString summaryText(const MainWindow &w) // "etdump.etdp · 2 blocks · 1 run …"
{
    return w.findChild<QLabel *>(QStringLiteral("SummaryLabel"))->text();
}
inline EventSelection *selection(const MainWindow &w)
{
    return part<EventSelection>(w);
}
inline ChartExports *charts(const MainWindow &w) // File ▸ Export Chart's one export path
{
    return part<ChartExports>(w);
}
inline void resetLayout(const MainWindow &w) // View ▸ Reset Layout
{
    w.findChild<QAction *>(QStringLiteral("ResetLayoutAction"))->trigger();
}

inline MainWindow::Options quietWindow()
{
    MainWindow::Options o;
    o.persistSettings = false;
    return o;
}

} // namespace etscope::test
