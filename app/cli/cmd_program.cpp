// `program`: what a .pte (or the program inside a .bpte) holds — methods, inputs/outputs,
// every instruction with its operator and arguments, operators, delegates, constants, arenas.
#include "command.h"

#include "program/programexport.h"

namespace etscope::cli {
namespace {

struct ProgramArgs {
    std::string file, json;
};

Registration reg("program", "List a .pte program's methods, instructions, operators, delegates and arenas",
    [](CLI::App &sub) -> std::function<int()> {
        auto a = std::make_shared<ProgramArgs>();
        sub.add_option("file", a->file, "Program (.pte) or BundledProgram (.bpte)")->required();
        sub.add_option("--json", a->json, "Write JSON to this file ('-' for stdout) instead of the listing");
        return [a] {
            auto program = Program::openAny(a->file);
            if (!program)
                return reportError(program.error());
            if (!a->json.empty()) {
                const Status st = writeOutput(a->json, programJson(**program));
                return st ? 0 : reportError(st.error());
            }
            const Status st = writeOutput("-", programText(**program));
            return st ? 0 : reportError(st.error());
        };
    });

} // namespace
} // namespace etscope::cli
