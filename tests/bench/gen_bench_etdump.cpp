// Writes the ETDump used by the load benchmarks: RUNS Execute blocks of INSTRUCTIONS kernel
// calls each (native_call_<op> then OPERATOR_CALL, as the portable kernels log them) plus
// Method::execute per run, after a Default block with Method::init and Program::load_method.
// Timestamps are nanoseconds of a monotonic clock with deterministic jitter.
//
// With DISTINCT (any fourth argument), instruction 0 of every run is a delegated call whose
// backend names its event after the sequence position, as GPU backends name dispatches after
// their argument sizes: no two runs share a signature, so no runs merge (an LLM decode
// recording: 17,600 runs x 28 instructions = 1,003,202 events, one EventBlock per run).
//
//   gen_bench_etdump OUTPUT.etdp [RUNS=1000] [INSTRUCTIONS=440] [DISTINCT]
#include "etdumpwriter.h"

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {

// A CNN+transformer-ish mix of portable kernel names.
constexpr std::array<const char *, 20> kOps
    = { "convolution.out", "relu.out", "max_pool2d_with_indices.out", "add.out", "mul.out", "native_layer_norm.out",
          "addmm.out", "gelu.out", "view_copy.out", "permute_copy.out", "mm.out", "_softmax.out", "bmm.out",
          "clone.out", "tanh.out", "mean.out", "cat.out", "clamp.out", "avg_pool2d.out", "expand_copy.out" };

// Per-op base latency in ns (convolutions and matmuls dominate, as in real profiles).
constexpr std::array<std::uint64_t, 20> kBaseNs = { 180'000, 9'000, 30'000, 12'000, 11'000, 25'000, 90'000, 20'000,
    1'500, 6'000, 80'000, 15'000, 70'000, 4'000, 10'000, 8'000, 5'000, 7'000, 22'000, 3'000 };

std::uint64_t g_state = 0x9E3779B97F4A7C15ull;
std::uint64_t nextRandom()
{
    // xorshift64*: deterministic so every machine benchmarks the same file.
    g_state ^= g_state >> 12;
    g_state ^= g_state << 25;
    g_state ^= g_state >> 27;
    return g_state * 0x2545F4914F6CDD1Dull;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s OUTPUT.etdp [RUNS] [INSTRUCTIONS]\n", argv[0]);
        return 2;
    }
    const std::string out = argv[1];
    const long runs = argc > 2 ? std::atol(argv[2]) : 1000;
    const long instructions = argc > 3 ? std::atol(argv[3]) : 440;
    const bool distinct = argc > 4;
    if (runs <= 0 || instructions <= 0) {
        std::fprintf(stderr, "%s: RUNS and INSTRUCTIONS must be positive\n", argv[0]);
        return 2;
    }

    using etscope::test::ProfileSpec;
    etscope::test::ETDumpWriter w;
    std::uint64_t t = 1'731'000'000'000'000ull; // ns since boot, like CLOCK_MONOTONIC on a device

    w.beginRun("Default");
    w.addProfile(ProfileSpec { "Method::init", -1, 0, -1, std::nullopt, std::nullopt, t, t + 2'500'000 });
    w.addProfile(
        ProfileSpec { "Program::load_method", -1, 0, -1, std::nullopt, std::nullopt, t - 100'000, t + 2'700'000 });
    t += 3'000'000;

    std::uint64_t events = 2;
    for (long r = 0; r < runs; ++r) {
        w.beginRun("Execute");
        const std::uint64_t runStart = t;
        t += 2'000;
        for (long i = 0; i < instructions; ++i) {
            const std::size_t op = static_cast<std::size_t>(i * 7 + i / 20) % kOps.size();
            const std::uint64_t kernel = kBaseNs[op] + nextRandom() % (kBaseNs[op] / 10 + 1);
            const std::uint64_t overhead = 300 + nextRandom() % 200;
            if (distinct && i == 0) {
                // The delegate's event, then the DELEGATE_CALL around it (as the runtime logs them).
                const std::string id = "sdpa_with_kv_cache (1, " + std::to_string(r + 1) + ", 64) #1";
                w.addProfile(ProfileSpec {
                    std::nullopt, 0, 0, -1, id, std::string(), t + overhead / 2, t + overhead / 2 + kernel });
                w.addProfile(
                    ProfileSpec { "DELEGATE_CALL", 0, 0, -1, std::nullopt, std::nullopt, t, t + kernel + overhead });
            } else {
                w.addKernel(kOps[op], static_cast<std::int32_t>(i), t, kernel, overhead);
            }
            t += kernel + overhead + 50;
        }
        w.addProfile(ProfileSpec { "Method::execute", -1, 0, -1, std::nullopt, std::nullopt, runStart, t + 1'000 });
        t += 50'000; // the runner's own work between iterations
        events += static_cast<std::uint64_t>(instructions) * 2 + 1;
    }

    const std::string bytes = w.finish();
    std::ofstream f(out, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.close();
    if (!f) {
        std::fprintf(stderr, "%s: cannot write\n", out.c_str());
        return 1;
    }
    std::printf("%s: %ld runs x %ld instructions, %llu events, %zu bytes\n", out.c_str(), runs, instructions,
        static_cast<unsigned long long>(events), bytes.size());
    return 0;
}
