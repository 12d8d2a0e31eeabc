// Benchmark: the built-in evaluator on a ResNet-18 ETRecord (tests/bench/gen_bench_resnet.py),
// every intermediate kept. Prints "BENCH eval_resnet18 <s>" per run, the bytes of weights plus
// kept activations, the peak RSS, and the largest difference of the logits from PyTorch eager.
//
//   bench_eval ETRECORD THREADS RUNS [LOGITS.pt]

#include "etrecord/torchsave.h"
#include "eval/evaluator.h"

#include <fmt/format.h>

#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdlib>

using namespace etscope;

int main(int argc, char **argv)
{
    if (argc < 4) {
        fmt::print(stderr, "usage: bench_eval ETRECORD THREADS RUNS [LOGITS.pt]\n");
        return 2;
    }
    const int threads = std::atoi(argv[2]), runs = std::atoi(argv[3]);
    auto record = readETRecord(argv[1]);
    if (!record) {
        fmt::print(stderr, "{}\n", record.error().message());
        return 1;
    }
    auto inputs = eval::chooseInputs(**record, {});
    if (!inputs) {
        fmt::print(stderr, "{}\n", inputs.error().message());
        return 1;
    }
    eval::EvalOptions opts;
    opts.threads = threads;
    std::size_t keptBytes = 0, weightBytes = 0;
    double maxDiff = -1;
    for (int r = 0; r < runs; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        // Timed end to end: weights loaded from the ETRecord, graph run, all outputs kept.
        auto result = eval::evaluate(**record, "", *inputs, opts);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!result) {
            fmt::print(stderr, "{}\n", result.error().message());
            return 1;
        }
        fmt::print("BENCH eval_resnet18 {:.6f}\n", s);
        keptBytes = 0;
        for (const auto &n : result->nodes) {
            if (!n.error.empty()) {
                fmt::print(stderr, "{}\n", n.error);
                return 1;
            }
            for (const auto &t : n.outputs)
                keptBytes += t.storage ? t.storage->size() : 0;
        }
        if (r == 0 && argc > 4 && !result->programOutputs.empty()) {
            auto logits = loadTorchSave(argv[4]);
            if (logits && logits->tensor()) {
                auto want = tensorValues(*logits->tensor());
                const auto &got = result->programOutputs[0];
                if (want && std::int64_t(want->size()) == got.numel()) {
                    maxDiff = 0;
                    for (std::int64_t i = 0; i < got.numel(); ++i)
                        maxDiff = std::max(maxDiff, std::abs(got.getDouble(i) - (*want)[std::size_t(i)]));
                }
            }
        }
    }
    auto sd = (*record)->loadStateDict(*eval::findProgram(**record, ""));
    if (sd && sd->dict())
        for (const auto &[k, v] : sd->dict()->items)
            if (const PyTensor *t = v.tensor())
                weightBytes += std::size_t(t->numel()) * elementSize(t->dtype).value_or(4);
    rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    fmt::print("WEIGHTS_MB {:.1f}\nKEPT_ACTIVATIONS_MB {:.1f}\nPEAK_RSS_MB eval {:.1f}\nMAX_ABS_DIFF_VS_TORCH {:g}\n",
        double(weightBytes) / 1048576.0, double(keptBytes) / 1048576.0, double(ru.ru_maxrss) / 1024.0, maxDiff);
    return 0;
}
