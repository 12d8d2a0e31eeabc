// `outputs`: each block's run outputs and intermediate outputs, summarised.
#include "command.h"

#include "etdump/debugbuffer.h"

#include <fmt/format.h>

#include <cstdio>

namespace etscope::cli {
namespace {

std::string firstValues(const TensorData &t, std::size_t n)
{
    std::string out;
    for (std::size_t i = 0; i < t.values.size() && i < n; ++i)
        out += fmt::format("{}{:.6g}", i ? ", " : "", t.values[i]);
    if (t.values.size() > n)
        out += ", ...";
    return out;
}

void describeValue(std::string &out, const RuntimeValue &v, const DebugBuffer *buffer, const std::string &indent)
{
    switch (v.kind) {
    case RuntimeValue::Kind::None:
        out += indent + "None\n";
        return;
    case RuntimeValue::Kind::String:
        out += indent + "str (text not stored)\n";
        return;
    case RuntimeValue::Kind::Int:
        out += fmt::format("{}int {}\n", indent, v.intValue);
        return;
    case RuntimeValue::Kind::Bool:
        out += fmt::format("{}bool {}\n", indent, v.boolValue ? "True" : "False");
        return;
    case RuntimeValue::Kind::Float:
    case RuntimeValue::Kind::Double:
        out += fmt::format("{}float {}\n", indent, v.doubleValue);
        return;
    case RuntimeValue::Kind::Tensor:
    case RuntimeValue::Kind::TensorList:
        break;
    }
    if (v.kind == RuntimeValue::Kind::TensorList)
        out += fmt::format("{}list of {} tensors\n", indent, v.tensors.size());
    const std::string inner = v.kind == RuntimeValue::Kind::TensorList ? indent + "  " : indent;
    for (const TensorRef &ref : v.tensors) {
        auto data = inflate(ref, buffer);
        if (!data) {
            out += fmt::format("{}{}: error: {}\n", inner, describeShape(ref.dtype, ref.sizes), data.error().message());
            continue;
        }
        const TensorSummary s = summarize(*data);
        out += fmt::format("{}{} @{}{}  min {:.6g}  max {:.6g}  mean {:.6g}  [{}]\n", inner,
            describeShape(ref.dtype, ref.sizes), ref.offset, data->fromBuffer ? "" : " (zeros: no debug buffer)", s.min,
            s.max, s.mean, firstValues(*data, 6));
    }
}

const Registration outputs(
    "outputs", "Summarise run outputs and intermediate outputs of each block", [](CLI::App &sub) {
        auto in = std::make_shared<InputOptions>();
        addInputOptions(sub, *in);
        return std::function<int()>([in] {
            auto session = loadScopedOrReport(*in);
            if (!session)
                return 1;
            const DebugBuffer *buffer = session->debugBuffer.get();
            std::string out;
            for (std::size_t b = 0; b < session->blocks.size(); ++b) {
                const EventBlock &block = session->blocks[b];
                out += fmt::format("block {} '{}' ({} runs)\n", b, block.name, block.runIndices.size());
                out += fmt::format("  run outputs: {}\n", block.runOutput.size());
                for (const auto &v : block.runOutput)
                    describeValue(out, v, buffer, "    ");
                for (const Event &e : block.events) {
                    if (e.debugData().empty())
                        continue;
                    out += fmt::format("  {} (instruction {}): {} values\n", e.name.empty() ? "<unnamed>" : e.name,
                        e.instructionId, e.debugData().size());
                    for (const auto &v : e.debugData())
                        describeValue(out, v, buffer, "    ");
                }
            }
            std::fwrite(out.data(), 1, out.size(), stdout);
            return 0;
        });
    });

} // namespace
} // namespace etscope::cli
