// `size`: every byte of a .pte accounted for — the flatbuffer (per method: instructions,
// values, stack traces; inline constants and payloads), the constant segment per tensor, each
// delegate payload split by its decoder, named data and padding; with --data, each .ptd too.
// The parts add up to the file size exactly (core/program/programsize.h).
#include "command.h"

#include "program/flattensor.h"
#include "program/programsize.h"

namespace etscope::cli {
namespace {

struct SizeArgs {
    std::string file, json;
    std::vector<std::string> data;
    int depth = 0;
};

Registration reg("size", "Account for every byte of a .pte: flatbuffer, constants, delegate payloads, padding",
    [](CLI::App &sub) -> std::function<int()> {
        auto a = std::make_shared<SizeArgs>();
        sub.add_option("file", a->file, "Program (.pte) or BundledProgram (.bpte)")->required();
        sub.add_option("--data", a->data, "FlatTensor file (.ptd) holding the program's external tensors (repeatable)");
        sub.add_option("--json", a->json, "Write JSON to this file ('-' for stdout) instead of the listing");
        sub.add_option("--depth", a->depth, "Levels of parts to list (0: all)")->check(CLI::NonNegativeNumber);
        return [a] {
            auto program = openProgramWithData(a->file, a->data);
            if (!program)
                return reportError(program.error());
            const SizeReport report = programSize(**program);
            const Status st = a->json.empty() ? writeOutput("-", sizeText(report, a->depth))
                                              : writeOutput(a->json, sizeJson(report));
            return st ? 0 : reportError(st.error());
        };
    });

} // namespace
} // namespace etscope::cli
