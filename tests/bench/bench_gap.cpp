// Benchmark (not part of ctest): numeric gap over 1,000 intermediate tensors totalling 100M
// float32 elements per side, through the real path (ETDump + mmapped debug buffers → session →
// computeNumericGap). Reports load and gap time and peak RSS relative to the tensor bytes.
//
//   bench_gap [workdir] [metric]     (default /tmp/etscope-bench-gap, MSE)
//
// Generation streams the buffers to disk (one tensor in memory at a time) so the peak RSS
// reflects the measured phase. Target: gap ≤ 1 s, peak RSS ≤ 2× the tensors of both sides.

#include "analysis/numericgap.h"
#include "etdumpwriter.h"
#include "session/session.h"

#include <fmt/format.h>

#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace etscope;

namespace {

constexpr int kTensors = 1000;
constexpr std::int64_t kElems = 100'000; // per tensor: 400,000 bytes, a multiple of 64

double peakRssMiB()
{
    rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    return double(ru.ru_maxrss) / 1024.0; // kilobytes on Linux
}

void writeRun(const std::string &dir, const std::string &name, bool perturb)
{
    test::ETDumpWriter w;
    w.beginRun("Execute");
    std::ofstream buf(dir + "/" + name + ".bin", std::ios::binary | std::ios::trunc);
    std::vector<float> t(kElems);
    for (int i = 0; i < kTensors; ++i) {
        for (std::int64_t k = 0; k < kElems; ++k)
            t[std::size_t(k)] = float(std::sin(0.001 * double(k) + 0.37 * i));
        if (perturb && i % 100 == 7)
            for (std::int64_t k = 0; k < kElems; k += 13)
                t[std::size_t(k)] += 1e-3f;
        const std::int64_t offset = std::int64_t(i) * kElems * 4;
        buf.write(reinterpret_cast<const char *>(t.data()), std::streamsize(t.size() * 4));
        w.addKernel(fmt::format("op{}.out", i), i, std::uint64_t(i) * 100, 50, 10);
        test::DebugSpec d;
        d.instructionId = i;
        d.tensors = { test::TensorSpec { ScalarType::Float, { 1, kElems }, {}, offset } };
        w.addDebug(d);
    }
    test::writeFile(dir + "/" + name + ".etdp", w.finish());
}

} // namespace

int main(int argc, char **argv)
{
    const std::string dir = argc > 1 ? argv[1] : "/tmp/etscope-bench-gap";
    const auto metric = analysis::parseMetric(argc > 2 ? argv[2] : "MSE");
    if (!metric) {
        std::fprintf(stderr, "unknown metric\n");
        return 2;
    }
    std::filesystem::create_directories(dir);
    writeRun(dir, "reference", false);
    writeRun(dir, "runtime", true);
    const double rssAfterGen = peakRssMiB();

    using clock = std::chrono::steady_clock;
    auto t0 = clock::now();
    SessionInputs rin;
    rin.etdump = dir + "/runtime.etdp";
    rin.debugBuffer = dir + "/runtime.bin";
    SessionInputs fin;
    fin.etdump = dir + "/reference.etdp";
    fin.debugBuffer = dir + "/reference.bin";
    auto runtime = loadSession(rin);
    auto refSession = loadSession(fin);
    if (!runtime || !refSession) {
        std::fprintf(stderr, "load failed: %s\n", (!runtime ? runtime.error() : refSession.error()).message().c_str());
        return 1;
    }
    auto ref = analysis::referenceFromSession(**refSession);
    auto t1 = clock::now();
    analysis::GapOptions o;
    o.metric = *metric;
    // Any error at all crosses these: the 10 perturbed tensors must be the flagged ones.
    const bool lowerIsWorse = analysis::makeComparator(*metric)->direction() == analysis::Direction::LowerIsWorse;
    o.threshold = !lowerIsWorse ? 0.0 : (*metric == analysis::Metric::Cosine ? 1.0 - 1e-12 : 1000.0);
    auto table = analysis::computeNumericGap(**runtime, *ref, o);
    auto t2 = clock::now();
    if (!table) {
        std::fprintf(stderr, "gap failed: %s\n", table.error().message().c_str());
        return 1;
    }
    int flagged = 0;
    for (const auto &r : table->rows)
        flagged += r.flagged;
    const double tensorMiB = 2.0 * kTensors * kElems * 4 / (1024.0 * 1024.0);
    const double peak = peakRssMiB();
    std::printf("rows %zu, flagged %d (expected 10)\n", table->rows.size(), flagged);
    std::printf("load+match %.3f s, gap (%s) %.3f s over %d x 2 tensors, %lld float32 elements per side\n",
        std::chrono::duration<double>(t1 - t0).count(), analysis::metricName(*metric),
        std::chrono::duration<double>(t2 - t1).count(), kTensors, (long long)(kTensors * kElems));
    std::printf("peak RSS %.0f MiB (after generation %.0f MiB); tensors %.0f MiB; ratio %.2f\n", peak, rssAfterGen,
        tensorMiB, peak / tensorMiB);
    return flagged == 10 ? 0 : 1;
}
