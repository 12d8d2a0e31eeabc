// `aot-ops`: the operators of an ETRecord graph and whether the built-in evaluator has a kernel
// for each. `aot-intermediates`: evaluates the graph on the chosen inputs and writes every
// debug handle's AOT output as JSON (capture rules of inspector-semantics.md §8 step 2).
#include "command.h"

#include "common/jsontext.h"
#include "etrecord/etrecord.h"
#include "eval/evaluator.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

namespace etscope::cli {
#include <unistd.h>

namespace {

struct AotArgs {
    std::string etrecord, graph, inputs, bundled, output;
    int testCase = 0;
    int threads = 0;
    std::string keep = "handles";
    double maxMemoryMb = 0;
    bool floatTwin = false;
};

// A tensor's values can be large and are written as Python's json writes non-finite values, so
// the document is built as text (names through jsonString, which replaces invalid UTF-8).
// Shortest text that reads back to the same value of the tensor's dtype; non-finite values
// as Python's json writes them (NaN, Infinity, -Infinity).
void appendValues(std::string &out, const eval::Tensor &t)
{
    const std::int64_t n = t.numel();
    const bool isFloat = isFloatingPoint(t.dtype);
    out += '[';
    for (std::int64_t i = 0; i < n; ++i) {
        if (i)
            out += ',';
        if (!isFloat) {
            out += std::to_string(t.getInt(i));
            continue;
        }
        const double v = t.getDouble(i);
        if (std::isnan(v))
            out += "NaN";
        else if (std::isinf(v))
            out += v > 0 ? "Infinity" : "-Infinity";
        else if (t.dtype == ScalarType::Double)
            out += fmt::format("{}", v);
        else
            out += fmt::format("{}", float(v)); // float32, half and bfloat16 are exact in float
    }
    out += ']';
}

eval::EvalOptions options(int threads)
{
    eval::EvalOptions o;
    o.threads = threads;
    return o;
}

// --keep / --max-memory and, on a terminal, the evaluator's progress on stderr.
eval::EvalOptions evalOptions(const AotArgs &a)
{
    eval::EvalOptions o = options(a.threads);
    o.keep = a.keep == "all" ? eval::EvalOptions::Keep::All : eval::EvalOptions::Keep::DebugHandles;
    o.maxMemory = a.maxMemoryMb < 0 ? -1 : std::int64_t(a.maxMemoryMb * 1048576.0);
    o.floatTwin = a.floatTwin;
    if (isatty(2))
        o.progress = [](int permille) {
            std::fprintf(stderr, "\revaluating %3d%%%s", permille / 10, permille >= 1000 ? "\n" : "");
            return true;
        };
    return o;
}

const Registration aotOps("aot-ops",
    "List the operators of an ETRecord graph and whether the built-in evaluator has a kernel for each",
    [](CLI::App &sub) {
        auto a = std::make_shared<AotArgs>();
        sub.add_option("--etrecord", a->etrecord, "ETRecord file")->required();
        sub.add_option("--reference-graph", a->graph,
            "Graph to list: edge_dialect_exported_program (default), exported_program or a graph_map entry");
        sub.add_option("--output,-o", a->output, "Write to this file instead of stdout");
        return std::function<int()>([a] {
            auto rec = readETRecord(a->etrecord);
            if (!rec)
                return reportError(rec.error());
            const ETRecordProgram *p = eval::findProgram(**rec, a->graph);
            if (!p || !p->program)
                return reportError(
                    makeError(ErrorCode::InvalidArgument, a->etrecord, fmt::format("no graph named '{}'", a->graph)));
            std::vector<std::string> order;
            std::map<std::string, int> counts;
            for (const GraphNode &n : p->program->nodes) {
                const std::string key = eval::operatorKey(n.target);
                if (!counts.count(key))
                    order.push_back(key);
                ++counts[key];
            }
            std::size_t width = 2;
            for (const auto &k : order)
                width = std::max(width, k.size());
            std::string out = fmt::format("{:<{}}  {:>5}  kernel\n", "op", width, "count");
            int covered = 0;
            for (const auto &k : order) {
                const bool has = k == "getitem" || eval::hasKernel(k);
                covered += has;
                out += fmt::format("{:<{}}  {:>5}  {}\n", k, width, counts[k], has ? "yes" : "no");
            }
            out += fmt::format("{} of {} operators have a kernel ({})\n", covered, order.size(), p->entryName);
            if (auto s = writeOutput(a->output, out); !s)
                return reportError(s.error());
            return covered == int(order.size()) ? 0 : 2;
        });
    });

const Registration aotIntermediates("aot-intermediates",
    "Evaluate an ETRecord graph with the built-in evaluator and write each debug handle's AOT output as JSON",
    [](CLI::App &sub) {
        auto a = std::make_shared<AotArgs>();
        sub.add_option("--etrecord", a->etrecord, "ETRecord file")->required();
        sub.add_option("--inputs", a->inputs, "torch.save file with a tuple/list of input tensors/scalars");
        sub.add_option("--bundled-program", a->bundled, "BundledProgram whose test case supplies the inputs");
        sub.add_option("--test-case", a->testCase, "Bundled test case index (default 0; negative counts from the end)");
        sub.add_option("--reference-graph", a->graph,
            "Graph to run: edge_dialect_exported_program (default), exported_program or a graph_map entry");
        sub.add_option("--threads", a->threads, "Threads (default: all cores)");
        sub.add_option("--json", a->output, "Output JSON file ('-' for stdout)")->required();
        sub.add_option("--keep", a->keep, "Node outputs to keep: handles (nodes with a debug handle) or all")
            ->check(CLI::IsMember({ "handles", "all" }))
            ->capture_default_str();
        sub.add_option("--max-memory", a->maxMemoryMb,
            "Refuse graphs needing more than this many MB (default 0: half the physical memory; -1: no limit)");
        sub.add_flag("--float-twin", a->floatTwin,
            "Quantized graphs: run the float model they fake-quantize (every quantize -> dequantize pair "
            "passes its input through; stored quantized weights are dequantized)");
        return std::function<int()>([a] {
            auto rec = readETRecord(a->etrecord);
            if (!rec)
                return reportError(rec.error());
            eval::InputChoice choice;
            choice.inputsFile = a->inputs;
            choice.bundledProgram = a->bundled;
            choice.testCase = a->testCase;
            auto inputs = eval::chooseInputs(**rec, choice);
            if (!inputs)
                return reportError(inputs.error());
            auto result = eval::evaluate(**rec, a->graph, *inputs, evalOptions(*a));
            if (!result)
                return reportError(result.error());
            // §8 step 2: by (handle,), getitem skipped, later nodes with the same handle overwrite.
            struct Entry {
                std::vector<std::string> nodes, ops;
                const eval::NodeOutput *last = nullptr;
            };
            std::map<std::int64_t, Entry> byHandle;
            for (const eval::NodeOutput &n : result->nodes) {
                if (!n.debugHandle || n.node.find("getitem") != std::string::npos)
                    continue;
                Entry &e = byHandle[*n.debugHandle];
                e.nodes.push_back(n.node);
                e.ops.push_back(n.target);
                e.last = &n;
            }
            std::string out = "{";
            bool first = true;
            for (const auto &[h, e] : byHandle) {
                out += first ? "\n" : ",\n";
                first = false;
                out += fmt::format("{}: {{\"nodes\": [", jsonString(std::to_string(h)));
                for (std::size_t i = 0; i < e.nodes.size(); ++i)
                    out += (i ? ", " : "") + jsonString(e.nodes[i]);
                out += "], \"ops\": [";
                for (std::size_t i = 0; i < e.ops.size(); ++i)
                    out += (i ? ", " : "") + jsonString(e.ops[i]);
                out += "], \"outputs\": [";
                for (std::size_t k = 0; k < e.last->outputs.size(); ++k) {
                    const eval::Tensor &t = e.last->outputs[k];
                    out += fmt::format("{}{{\"dtype\": {}, \"shape\": [{}], \"values\": ", k ? ", " : "",
                        jsonString(std::string(scalarTypeName(t.dtype))), fmt::join(t.sizes, ", "));
                    appendValues(out, t);
                    out += "}";
                }
                out += "]";
                if (!e.last->error.empty())
                    out += ", \"error\": " + jsonString(e.last->error);
                out += "}";
            }
            out += "\n}\n";
            int failed = 0;
            for (const eval::NodeOutput &n : result->nodes)
                if (!n.error.empty()) {
                    ++failed;
                    fmt::print(stderr, "etscope-cli: {}\n", n.error);
                }
            for (const std::string &w : result->warnings)
                fmt::print(stderr, "etscope-cli: warning: {}\n", w);
            if (auto s = writeOutput(a->output, out); !s)
                return reportError(s.error());
            return failed ? 2 : 0;
        });
    });

} // namespace
} // namespace etscope::cli
