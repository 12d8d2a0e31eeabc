// Fuzz target: the MIL text reader (core/program/delegates/miltext.cpp), the model.mil of a
// compiled Core ML ML Program, fed raw text; the seed is the model.mil that
// tests/tools/gen_coreml_payloads.py writes into its compiled payload. Every value an operation
// reads or writes must be a name the text holds.
#include "program/delegates/miltext.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    const auto program = etscope::delegates::parseMilText(text);
    std::size_t ops = 0;
    for (const auto &f : program.functions)
        for (const auto &op : f.ops) {
            ++ops;
            for (const auto &v : op.outputs)
                if (v.name.empty() || text.find(v.name) == std::string_view::npos)
                    std::abort();
            for (const auto &[param, names] : op.args)
                for (const auto &n : names)
                    if (n.empty() || text.find(n) == std::string_view::npos)
                        std::abort();
        }
    if (ops > etscope::delegates::kMaxMilTextOps)
        std::abort();
    return 0;
}
