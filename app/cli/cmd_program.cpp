// `program`: what a .pte (or the program inside a .bpte) holds — methods, inputs/outputs,
// every instruction with its operator and arguments, operators, delegates, constants, arenas,
// external tensors (paired with their .ptd files by --data) and devices. Given a .ptd (sniffed
// by content), lists its names and segments.
#include "command.h"

#include "program/flattensor.h"
#include "program/programexport.h"

namespace etscope::cli {
namespace {

struct ProgramArgs {
    std::string file, json;
    std::vector<std::string> data;
};

Registration reg("program", "List a .pte program's methods, instructions, operators, delegates and arenas",
    [](CLI::App &sub) -> std::function<int()> {
        auto a = std::make_shared<ProgramArgs>();
        sub.add_option("file", a->file, "Program (.pte), BundledProgram (.bpte) or FlatTensor data (.ptd)")->required();
        sub.add_option("--data", a->data, "FlatTensor file (.ptd) holding the program's external tensors (repeatable)");
        sub.add_option("--json", a->json, "Write JSON to this file ('-' for stdout) instead of the listing");
        return [a] {
            auto file = MappedFile::open(a->file);
            if (!file)
                return reportError(file.error());
            if (looksLikeFlatTensor((*file)->data(), (*file)->size())) {
                if (!a->data.empty())
                    return reportError(
                        makeError(ErrorCode::InvalidArgument, a->file, "--data needs a program, not a .ptd"));
                auto ptd = FlatTensorFile::fromFile(*file);
                if (!ptd)
                    return reportError(ptd.error());
                const Status st = a->json.empty() ? writeOutput("-", flatTensorText(**ptd))
                                                  : writeOutput(a->json, flatTensorJson(**ptd));
                return st ? 0 : reportError(st.error());
            }
            // The program through the session, as every command reads it (a .ptd that does not
            // belong is left out with a warning).
            InputOptions in;
            in.program = a->file;
            in.data = a->data;
            in.etdumpRequired = false;
            auto session = loadOrReport(in);
            if (!session)
                return kExitBadInput;
            const Program &program = *session->program;
            if (!a->json.empty()) {
                const Status st = writeOutput(a->json, programJson(program));
                return st ? 0 : reportError(st.error());
            }
            const Status st = writeOutput("-", programText(program));
            return st ? 0 : reportError(st.error());
        };
    });

} // namespace
} // namespace etscope::cli
