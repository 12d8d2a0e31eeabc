// Benchmark (not part of ctest): the error decomposition of a quantized model (two graph runs —
// fake-quantized and float twin — and three comparisons) against one plain numeric gap run (one
// graph run and one comparison), on the authored runtime runs of the quantized fixtures
// (tests/tools/gen_quant_fixtures.py, gen_quant_runs.py). Target: decomposition <= 2.2x the gap.
//
//   bench_decompose [data dir] [iterations]   (default: the source tree's tests/data/eval, 50)
//
// Prints "BENCH gap:<stem> s" and "BENCH decompose:<stem> s" per iteration, then the median ratio.

#include "analysis/numericgap.h"
#include "evalgap/decompose.h"
#include "evalgap/evalgap.h"
#include "session/session.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace etscope;

namespace {

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

double seconds(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

int main(int argc, char **argv)
{
    const std::string dir = argc > 1 ? argv[1] : std::string(ETSCOPE_SOURCE_DIR) + "/tests/data/eval";
    const int iterations = argc > 2 ? std::max(1, std::atoi(argv[2])) : 50;
    for (const char *stem : { "qcnn", "qlinear", "qdecoder" }) {
        SessionInputs in;
        in.etdump = fmt::format("{}/{}_kernel.etdp", dir, stem);
        in.debugBuffer = fmt::format("{}/{}_kernel.bin", dir, stem);
        in.etrecord = fmt::format("{}/{}_etrecord.bin", dir, stem);
        auto s = loadSession(in);
        if (!s) {
            std::fprintf(stderr, "%s\n", s.error().message().c_str());
            return 1;
        }
        const Session &session = **s;
        std::vector<double> gap, dec;
        for (int i = 0; i < iterations; ++i) {
            auto t0 = std::chrono::steady_clock::now();
            evalgap::EvalGapOptions eo;
            eo.threads = 1;
            auto ref = evalgap::referenceFromEvaluator(*session.etrecord, &session, eo);
            if (!ref)
                return 1;
            analysis::GapOptions go;
            auto table = analysis::computeNumericGap(session, ref->accumulated, go);
            if (!table)
                return 1;
            gap.push_back(seconds(t0));
            std::printf("BENCH gap:%s %.6f\n", stem, gap.back());

            t0 = std::chrono::steady_clock::now();
            evalgap::DecomposeOptions o;
            o.threads = 1;
            auto d = evalgap::decomposeGap(*session.etrecord, session, o);
            if (!d)
                return 1;
            dec.push_back(seconds(t0));
            std::printf("BENCH decompose:%s %.6f\n", stem, dec.back());
        }
        std::printf("%s: gap %.4f s, decompose %.4f s, ratio %.2f (median of %d)\n", stem, median(gap), median(dec),
            median(dec) / median(gap), iterations);
    }
    return 0;
}
