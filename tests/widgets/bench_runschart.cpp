// Not a test: how interactive the Runs chart is on a long generation (tests/bench protocol: one
// "BENCH <name> <seconds>" line per measurement). Usage: bench_runschart [RUNS=100000]
// A synthetic report: one prefill run, then decode runs whose duration grows with position
// (a KV cache) plus deterministic jitter and an outlier every 997 runs.
#include "runschart.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QMouseEvent>
#include <QPixmap>

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace etscope;

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    const std::size_t n = argc > 1 ? std::size_t(std::atol(argv[1])) : 100000;
    auto report = std::make_shared<RunsReport>();
    report->runs.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        RunRow &r = report->runs[i];
        r.index = i;
        r.phase = i == 0 ? "prefill" : "decode";
        r.durationMs = i == 0 ? 40.0 : 2.0 + 1e-5 * double(i) + 0.2 * std::sin(double(i) * 0.37);
        r.outlier = i % 997 == 0 && i > 0;
        if (r.outlier)
            r.durationMs *= 3;
        r.position = i;
    }
    RunsChart chart;
    chart.resize(1200, 320);
    QElapsedTimer t;
    t.start();
    chart.setReport(report);
    std::printf("BENCH runschart_set_report %.6f\n", t.nsecsElapsed() / 1e9);
    QPixmap pm(chart.size());
    t.restart();
    const int paints = 20;
    for (int k = 0; k < paints; ++k)
        chart.render(&pm);
    std::printf("BENCH runschart_paint %.6f\n", t.nsecsElapsed() / 1e9 / paints);
    // Hover: a sweep of mouse positions across the plot, each resolved to the nearest run.
    t.restart();
    const int moves = 2000;
    int found = 0;
    for (int k = 0; k < moves; ++k) {
        const QPointF pos(64 + (k % 1124), 40 + (k * 7) % 240);
        found += chart.runAt(pos) >= 0;
    }
    std::printf("BENCH runschart_hover %.6f\n", t.nsecsElapsed() / 1e9 / moves);
    std::printf("runs %zu, hovers that hit a run %d of %d\n", n, found, moves);
    return 0;
}
