// Not a test: the graph view opening the generated ~5,000-node transformer ETRecord
// (tests/tools/gen_bench_graph.py), timed from setGraph() to the drawn picture, collapsed and
// fully expanded; meanwhile a 10 ms timer measures how long the event loop was blocked (the
// layout runs on a worker thread, so this stays small). Protocol: "BENCH <name> <seconds>".
// Usage: bench_graphview ETRECORD
#include "etrecord/etrecord.h"
#include "graph/programgraph.h"
#include "graphview.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QTimer>

#include <cstdio>

using namespace etscope;

int main(int argc, char **argv)
{
    qputenv(
        "QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? QByteArray("offscreen") : qgetenv("QT_QPA_PLATFORM"));
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_graphview ETRECORD\n");
        return 2;
    }
    GraphView view;
    view.resize(1400, 900);
    view.show();
    qint64 worstStall = 0;
    QElapsedTimer tick;
    QTimer probe;
    probe.setInterval(10);
    QObject::connect(&probe, &QTimer::timeout, [&] {
        if (tick.isValid())
            worstStall = std::max(worstStall, tick.elapsed() - 10);
        tick.restart();
    });

    QElapsedTimer t;
    t.start();
    auto rec = readETRecord(argv[1]);
    if (!rec)
        return 1;
    auto g = graph::ProgramGraph::build(*rec);
    if (!g)
        return 1;
    auto shared = std::make_shared<const graph::ProgramGraph>(std::move(g.value()));
    const graph::OverlayData data = graph::overlayFromEvents(*shared, {});
    view.setGraph(shared, data);
    if (!view.waitForLayout(120000))
        return 1;
    QApplication::processEvents();
    std::printf("BENCH graphview_open_collapsed_5k %.6f\n", t.elapsed() / 1000.0);

    probe.start();
    t.restart();
    view.expandAll();
    if (!view.waitForLayout(300000))
        return 1;
    QApplication::processEvents();
    const double expanded = t.elapsed() / 1000.0;
    probe.stop();
    std::printf("BENCH graphview_open_expanded_5k %.6f\n", expanded);
    std::printf("BENCH graphview_ui_worst_stall_during_expanded_layout %.6f\n", worstStall / 1000.0);
    std::fprintf(stderr, "%zu operators; expanded: %zu boxes, %zu edges\n", shared->operatorCount(),
        view.visible().items.size(), view.visible().edges.size());
    return 0;
}
