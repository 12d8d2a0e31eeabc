#pragma once

#include "mainwindow.h"
#include "testpaths.h"

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

inline MainWindow::Options quietWindow()
{
    MainWindow::Options o;
    o.persistSettings = false;
    return o;
}

} // namespace etscope::test
