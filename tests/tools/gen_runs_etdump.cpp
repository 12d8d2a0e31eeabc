// Writes the synthetic LLM-shaped ETDump of the runs tests (tests/data/analysis/runs_llm.etdp)
// with the test ETDump writer, and the truth of each run (runs_llm.truth.json): what method the
// "runner" called and why. The program it follows is tests/data/analysis/runs_llm.program.json
// (tests/tools/gen_runs_expected.py writes it): prefill_forward (9 instructions, 8-token prompt)
// and kv_forward (8 instructions, one token), instruction 2 an XNNPACK DelegateCall.
//
// Runs, in order (times in ns on a monotonic clock, each kernel jittered by ±2 %):
//   0      kv_forward, cold: every kernel 3× (the warm-up)
//   1      prefill_forward over the 8-token prompt
//   2..49  kv_forward at positions 0..47: both attention bmm grow 1,000 ns and softmax 200 ns
//          per position (the KV cache); at position 30 the lm-head mm stalls 4× (the outlier)
//   50     a kernel no method has at instruction 0 (convolution.out): no method matches
//   51     only instruction 0 (embedding.out, the same in both methods): ambiguous
//
//   gen_runs_etdump OUT.etdp OUT.truth.json
#include "etdumpwriter.h"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

using etscope::test::ETDumpWriter;
using etscope::test::ProfileSpec;

std::uint64_t g_state = 0x243F6A8885A308D3ull;
double jitter() // deterministic, in [0.98, 1.02]
{
    g_state ^= g_state >> 12;
    g_state ^= g_state << 25;
    g_state ^= g_state >> 27;
    const std::uint64_t r = (g_state * 0x2545F4914F6CDD1Dull) >> 11;
    return 0.98 + 0.04 * (double(r) / double(1ull << 53));
}

struct Op {
    const char *kernel; // native_call_<kernel>, or nullptr for the delegate call
    double ns;
};

struct Writer {
    ETDumpWriter w;
    std::uint64_t t = 5'000'000'000ull;

    std::uint64_t scaled(double ns, double factor) { return std::uint64_t(ns * factor * jitter()); }

    // One Execute run: the ops in instruction order, then Method::execute around them.
    void run(const std::vector<Op> &ops, double factor)
    {
        w.beginRun("Execute");
        const std::uint64_t start = t;
        t += 3'000;
        for (std::size_t i = 0; i < ops.size(); ++i) {
            const auto id = std::int32_t(i);
            if (ops[i].kernel) {
                const std::uint64_t k = scaled(ops[i].ns, factor), overhead = 600;
                w.addKernel(ops[i].kernel, id, t, k, overhead);
                t += k + overhead + 100;
                continue;
            }
            // XNNPACK: two GEMMs logged back to back, then the DELEGATE_CALL around them.
            const std::uint64_t callStart = t;
            t += 2'000;
            const std::uint64_t g1 = scaled(ops[i].ns * 2 / 3, factor), g2 = scaled(ops[i].ns / 3, factor);
            w.addProfile(ProfileSpec {
                std::nullopt, 0, id, -1, std::string("Fully Connected (NC, F32) GEMM #1"), std::string(), t, t + g1 });
            t += g1;
            w.addProfile(ProfileSpec {
                std::nullopt, 0, id, -1, std::string("Fully Connected (NC, F32) GEMM #2"), std::string(), t, t + g2 });
            t += g2 + 2'000;
            w.addProfile(ProfileSpec { "DELEGATE_CALL", 0, id, -1, std::nullopt, std::nullopt, callStart, t });
            t += 100;
        }
        t += 20'000;
        w.addProfile(ProfileSpec { "Method::execute", -1, 0, -1, std::nullopt, std::nullopt, start, t });
        t += 300'000; // the runner samples the next token
    }
};

std::vector<Op> decodeOps(int position)
{
    const double k = position;
    return { { "embedding.out", 5'000 }, { "mul.out", 8'000 }, { nullptr, 90'000 }, { "bmm.out", 20'000 + 1'000 * k },
        { "_softmax.out", 6'000 + 200 * k }, { "bmm.out", 20'000 + 1'000 * k }, { "index_put.out", 3'000 },
        { "mm.out", 150'000 } };
}

std::vector<Op> prefillOps()
{
    return { { "embedding.out", 20'000 }, { "mul.out", 40'000 }, { nullptr, 1'200'000 }, { "bmm.out", 150'000 },
        { "_softmax.out", 30'000 }, { "bmm.out", 150'000 }, { "slice_scatter.out", 12'000 },
        { "slice_copy.out", 2'000 }, { "mm.out", 300'000 } };
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s OUT.etdp OUT.truth.json\n", argv[0]);
        return 2;
    }
    Writer g;
    std::vector<std::string> truth;
    g.w.beginRun("Default");
    g.w.addProfile(ProfileSpec { "Method::init", -1, 0, -1, std::nullopt, std::nullopt, g.t, g.t + 900'000 });
    g.w.addProfile(
        ProfileSpec { "Program::load_method", -1, 0, -1, std::nullopt, std::nullopt, g.t - 50'000, g.t + 950'000 });
    g.t += 2'000'000;

    g.run(decodeOps(0), 3.0);
    truth.push_back(R"({"method": "kv_forward", "why": "warm-up call of the decode method"})");
    g.run(prefillOps(), 1.0);
    truth.push_back(R"({"method": "prefill_forward", "why": "prompt of 8 tokens"})");
    for (int p = 0; p < 48; ++p) {
        std::vector<Op> ops = decodeOps(p);
        if (p == 30)
            ops.back().ns *= 4;
        g.run(ops, 1.0);
        truth.push_back(std::string(R"({"method": "kv_forward", "why": "decode position )") + std::to_string(p)
            + (p == 30 ? ", lm-head stall" : "") + "\"}");
    }
    g.run({ { "convolution.out", 50'000 } }, 1.0);
    truth.push_back(R"({"method": null, "why": "no method matches: convolution.out at instruction 0"})");
    g.run({ { "embedding.out", 5'000 } }, 1.0);
    truth.push_back(R"({"method": null, "why": "ambiguous: only instruction 0, embedding.out in both methods"})");

    const std::string bytes = g.w.finish();
    std::ofstream f(argv[1], std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), std::streamsize(bytes.size()));
    std::ofstream tj(argv[2], std::ios::trunc);
    tj << "[\n";
    for (std::size_t i = 0; i < truth.size(); ++i)
        tj << "  " << truth[i] << (i + 1 < truth.size() ? ",\n" : "\n");
    tj << "]\n";
    if (!f || !tj) {
        std::fprintf(stderr, "%s: cannot write\n", argv[0]);
        return 1;
    }
    std::printf("%s: %zu runs, %zu bytes\n", argv[1], truth.size(), bytes.size());
    return 0;
}
