// Benchmark: the built-in evaluator on a model's ETRecord (tests/bench/gen_bench_models.py),
// every intermediate kept. Per run it prints the two parts tools/bench-eval-vs-torch.sh compares:
//   BENCH eval_graph_<model> <wall s> <cpu s>   the graph run alone (weights already in memory)
//   BENCH eval_job_<model> <wall s> <cpu s>     the whole job: read the ETRecord, unpickle the weights, run
// then the bytes of weights and kept activations, the process CPU time and peak RSS, and the
// largest difference of the first graph output from PyTorch's.
//
//   bench_eval ETRECORD THREADS RUNS [OUTPUT.pt] [MODEL]

#include "etrecord/torchsave.h"
#include "eval/evaluator.h"

#include <fmt/format.h>

#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cmath>
#include <cstdlib>

using namespace etscope;

namespace {

double seconds(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// CPU seconds of the whole process (all threads): on a shared machine a fairer figure than wall.
double cpuSeconds()
{
    timespec ts {};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 4) {
        fmt::print(stderr, "usage: bench_eval ETRECORD THREADS RUNS [OUTPUT.pt] [MODEL]\n");
        return 2;
    }
    const int threads = std::atoi(argv[2]), runs = std::atoi(argv[3]);
    const std::string model = argc > 5 ? argv[5] : "resnet18";
    eval::EvalOptions opts;
    opts.threads = threads;
    std::size_t keptBytes = 0, weightBytes = 0;
    double maxDiff = -1, maxRel = -1;
    for (int r = 0; r < runs; ++r) {
        // (b) the whole job from the file.
        auto t0 = std::chrono::steady_clock::now();
        double c0 = cpuSeconds();
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
        double sJob = 0, cJob = 0;
        {
            auto job = eval::evaluate(**record, "", *inputs, opts);
            sJob = seconds(t0);
            cJob = cpuSeconds() - c0;
            if (!job) {
                fmt::print(stderr, "{}\n", job.error().message());
                return 1;
            }
        }
        // (a) the graph run alone, weights loaded beforehand.
        const ETRecordProgram *program = eval::findProgram(**record, "");
        auto weights = eval::loadWeights(**record, *program);
        if (!weights) {
            fmt::print(stderr, "{}\n", weights.error().message());
            return 1;
        }
        weightBytes = 0;
        for (const auto &[k, t] : *weights)
            weightBytes += std::size_t(t.numel()) * t.itemSize();
        t0 = std::chrono::steady_clock::now();
        c0 = cpuSeconds();
        auto result = eval::evaluateProgram(*program->program, std::move(*weights), *inputs, opts);
        const double sGraph = seconds(t0), cGraph = cpuSeconds() - c0;
        if (!result) {
            fmt::print(stderr, "{}\n", result.error().message());
            return 1;
        }
        fmt::print("BENCH eval_graph_{} {:.6f} {:.6f}\nBENCH eval_job_{} {:.6f} {:.6f}\n", model, sGraph, cGraph, model,
            sJob, cJob);
        keptBytes = 0;
        for (const auto &n : result->nodes) {
            if (!n.error.empty()) {
                fmt::print(stderr, "{}\n", n.error);
                return 1;
            }
            for (const auto &t : n.outputs)
                keptBytes += std::size_t(t.numel()) * t.itemSize();
        }
        if (r == 0 && argc > 4 && !result->programOutputs.empty()) {
            auto want = loadTorchSave(argv[4]);
            if (want && want->tensor()) {
                auto values = tensorValues(*want->tensor());
                const auto &got = result->programOutputs[0];
                if (values && std::int64_t(values->size()) == got.numel()) {
                    maxDiff = 0;
                    double scale = 0;
                    for (std::int64_t i = 0; i < got.numel(); ++i) {
                        maxDiff = std::max(maxDiff, std::abs(got.getDouble(i) - (*values)[std::size_t(i)]));
                        scale = std::max(scale, std::abs((*values)[std::size_t(i)]));
                    }
                    maxRel = scale > 0 ? maxDiff / scale : maxDiff;
                }
            }
        }
    }
    rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    const double cpu
        = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + 1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    fmt::print("WEIGHTS_MB {:.1f}\nKEPT_ACTIVATIONS_MB {:.1f}\nPEAK_RSS_MB eval {:.1f}\nCPU_S eval {:.3f}\n"
               "MAX_ABS_DIFF_VS_TORCH {:g}\nMAX_REL_DIFF_VS_TORCH {:g}\n",
        double(weightBytes) / 1048576.0, double(keptBytes) / 1048576.0, double(ru.ru_maxrss) / 1024.0, cpu, maxDiff,
        maxRel);
    return 0;
}
