// In-process ETDump benchmark: readETDump (map + verify + decode) then buildEventBlocks (the
// Inspector's grouping and per-event statistics), repeated; prints one BENCH line per
// iteration for tools/run-benchmarks.sh and a summary with the cost per event (µs) and the
// core model's bytes per event (Event handles + the EventStore behind them), so that growth
// across a sweep of file sizes is visible at a glance.
//
//   bench_etdump FILE.etdp [ITERATIONS=5]
#include "common/memory.h"
#include "etdump/etdumpfile.h"
#include "events/eventblockbuilder.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

namespace {
// CPU time of this process: on a shared machine it is steadier than wall time.
double cpuSeconds()
{
    timespec ts {};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}
} // namespace

int main(int argc, char **argv)
{
    etscope::reexecWithHeapTunables(argv); // measure with the heap settings the programs use
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s FILE.etdp [ITERATIONS]\n", argv[0]);
        return 2;
    }
    const int iterations = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
    std::vector<double> load, group;
    std::size_t events = 0, blocks = 0, modelBytes = 0;
    for (int i = 0; i < iterations; ++i) {
        const double c0 = cpuSeconds();
        const auto t0 = std::chrono::steady_clock::now();
        auto etdump = etscope::readETDump(argv[1]);
        if (!etdump) {
            std::fprintf(stderr, "%s\n", etdump.error().message().c_str());
            return 1;
        }
        const auto t1 = std::chrono::steady_clock::now();
        auto result = etscope::buildEventBlocks(**etdump);
        if (!result) {
            std::fprintf(stderr, "%s\n", result.error().message().c_str());
            return 1;
        }
        const auto t2 = std::chrono::steady_clock::now();
        events = (*etdump)->eventCount();
        blocks = result->size();
        // Stores are shared by the blocks of one build: count each once.
        std::vector<const etscope::EventStore *> stores;
        modelBytes = 0;
        for (const auto &b : *result) {
            modelBytes += b.events.capacity() * sizeof(etscope::Event);
            if (b.store && std::find(stores.begin(), stores.end(), b.store.get()) == stores.end()) {
                stores.push_back(b.store.get());
                modelBytes += b.store->bytes();
            }
        }
        load.push_back(std::chrono::duration<double>(t1 - t0).count());
        group.push_back(std::chrono::duration<double>(t2 - t1).count());
        const double cpu = cpuSeconds() - c0;
        std::printf("BENCH etdump_load_aggregate %.6f\n", load.back() + group.back());
        std::printf("BENCH etdump_load_aggregate_cpu %.6f\n", cpu);
    }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    std::printf("%zu events, %zu event blocks; median readETDump %.3f s, buildEventBlocks %.3f s\n", events, blocks,
        median(load), median(group));
    const double n = double(std::max<std::size_t>(events, 1));
    std::printf("per event: %.3f us (read + build), core model %.1f bytes (%zu bytes in all)\n",
        (median(load) + median(group)) * 1e6 / n, double(modelBytes) / n, modelBytes);
    return 0;
}
