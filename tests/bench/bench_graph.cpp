// Graph view timings on a generated ~5,000-node transformer ETRecord
// (tests/tools/gen_bench_graph.py; tools/run-benchmarks.sh writes it into the bench data folder):
//   open collapsed  = read the ETRecord + build the graph + Graphviz layout of the module boxes
//   open expanded   = layout of every operator node (modules all expanded)
//   svg             = etscope-cli graph --svg equivalent, collapsed
// Usage: bench_graph ETRECORD [ITERATIONS=3]
#include "etrecord/etrecord.h"
#include "graph/graphlayout.h"
#include "graph/programgraph.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

using namespace etscope;

namespace {
double seconds(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// CPU seconds of this thread: on a shared, overloaded machine the wall clock says more about
// the neighbours than about us, so both are reported.
double cpuNow()
{
    timespec ts {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}
} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_graph ETRECORD [ITERATIONS]\n");
        return 2;
    }
    const int iterations = argc > 2 ? std::atoi(argv[2]) : 3;
    for (int i = 0; i < iterations; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        double c0 = cpuNow();
        auto rec = readETRecord(argv[1]);
        if (!rec) {
            std::fprintf(stderr, "bench_graph: %s\n", rec.error().message().c_str());
            return 1;
        }
        const double readCpu = cpuNow() - c0;
        auto g = graph::ProgramGraph::build(*rec);
        if (!g) {
            std::fprintf(stderr, "bench_graph: %s\n", g.error().message().c_str());
            return 1;
        }
        graph::ExpansionState st(*g);
        auto collapsed = graph::visibleGraph(*g, st);
        auto l1 = graph::layoutGraph(*g, collapsed);
        if (!l1)
            return 1;
        const double open = seconds(t0);
        const double openCpu = cpuNow() - c0;

        t0 = std::chrono::steady_clock::now();
        c0 = cpuNow();
        st.expandAll();
        auto all = graph::visibleGraph(*g, st);
        auto l2 = graph::layoutGraph(*g, all);
        if (!l2)
            return 1;
        const double expanded = seconds(t0);
        const double expandedCpu = cpuNow() - c0;

        t0 = std::chrono::steady_clock::now();
        const graph::OverlayData d = graph::overlayFromEvents(*g, {});
        auto svg = graph::renderSvg(*g, collapsed, graph::colorItems(*g, collapsed, d, graph::Overlay::OpType));
        if (!svg)
            return 1;
        const double svgTime = seconds(t0);
        if (i == 0)
            std::fprintf(stderr, "%zu operators, %zu edges; collapsed %zu boxes, expanded %zu boxes / %zu clusters\n",
                g->operatorCount(), g->edges().size(), collapsed.items.size(), all.items.size(), all.clusters.size());
        std::printf("BENCH graph_open_collapsed_5k %.6f\n", open);
        std::printf("BENCH graph_layout_expanded_5k %.6f\n", expanded);
        std::printf("BENCH graph_svg_collapsed_5k %.6f\n", svgTime);
        std::printf("BENCH graph_open_collapsed_5k_cpu %.6f\n", openCpu);
        std::printf("BENCH graph_read_etrecord_5k_cpu %.6f\n", readCpu);
        std::printf("BENCH graph_layout_expanded_5k_cpu %.6f\n", expandedCpu);
        std::fflush(stdout);
    }
    return 0;
}
