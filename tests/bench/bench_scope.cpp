// Times a scope change in the window (issue 35: "a scope change on the 17,600-run profile
// re-derives every open view in <= 0.3 s"): the window opens FILE (with its companions), every
// dock shown, an event selected; then the scope goes to a run range of half the runs and back to
// the whole recording, each change timed from the control to the last view repainted (the event
// loop drained). Prints one "BENCH <name> <seconds>" line per change (tests/bench protocol).
//
//   QT_QPA_PLATFORM=offscreen bench_scope FILE.etdp [COMPANIONS…] [REPEATS=5]
#include "common/memory.h"
#include "eventtableview.h"
#include "mainwindow.h"
#include "sessioncontroller.h"

#include <QApplication>
#include <QDockWidget>
#include <QElapsedTimer>

#include <cstdio>

using namespace etscope;

int main(int argc, char **argv)
{
    etscope::reexecWithHeapTunables(argv);
    QApplication app(argc, argv);
    QStringList files;
    int repeats = 5;
    for (int i = 1; i < argc; ++i) {
        bool number = false;
        const int n = QString::fromLocal8Bit(argv[i]).toInt(&number);
        if (number)
            repeats = n;
        else
            files << QString::fromLocal8Bit(argv[i]);
    }
    if (files.isEmpty()) {
        std::fprintf(stderr, "usage: bench_scope FILE.etdp [COMPANIONS...] [REPEATS]\n");
        return 2;
    }
    MainWindow::Options o;
    o.persistSettings = false;
    MainWindow w(o);
    w.resize(1920, 1080);
    w.show();
    QString error;
    if (!w.controller()->openFilesSync(files, &error)) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 1;
    }
    const auto docks = w.findChildren<QDockWidget *>();
    for (QDockWidget *d : docks)
        d->show();
    w.table()->selectStartEvent();
    QApplication::processEvents();
    const std::size_t runs = w.controller()->session()->runTable.runs.size();
    std::printf("# %zu runs, %zu blocks\n", runs, w.controller()->session()->blocks.size());
    QElapsedTimer t;
    for (int i = 0; i < repeats; ++i) {
        Scope half;
        half.firstRun = 0;
        half.lastRun = runs / 2 - 1;
        t.start();
        if (!w.controller()->setScope(half, &error)) {
            std::fprintf(stderr, "%s\n", qPrintable(error));
            return 1;
        }
        for (QDockWidget *d : docks)
            d->repaint();
        QApplication::processEvents();
        std::printf("BENCH scope_half_runs %.6f\n", t.nsecsElapsed() / 1e9);
        t.restart();
        w.controller()->setScope({});
        for (QDockWidget *d : docks)
            d->repaint();
        QApplication::processEvents();
        std::printf("BENCH scope_whole %.6f\n", t.nsecsElapsed() / 1e9);
    }
    return 0;
}
