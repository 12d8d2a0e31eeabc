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

inline MainWindow::Options quietWindow()
{
    MainWindow::Options o;
    o.persistSettings = false;
    return o;
}

} // namespace etscope::test
