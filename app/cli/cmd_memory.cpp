// `memory`: the memory plan of a .pte — tensor lifetimes, peak live bytes and where, waste,
// tensors that could share memory — with an ETDump's allocation events beside it.
#include "command.h"

#include "etdump/etdumpfile.h"
#include "program/flattensor.h"
#include "program/programexport.h"
#include "program/runattribution.h"
#include "session/session.h"

namespace etscope::cli {
namespace {

struct MemoryArgs {
    std::string file, method, etdump, json, tsv, svg;
    std::vector<std::string> data;
};

Registration reg("memory", "Memory plan of a .pte: lifetimes, peak live bytes, waste, allocation events",
    [](CLI::App &sub) -> std::function<int()> {
        auto a = std::make_shared<MemoryArgs>();
        sub.add_option("file", a->file, "Program (.pte) or BundledProgram (.bpte)")->required();
        sub.add_option("--method", a->method, "Only this method (default: all)");
        sub.add_option("--data", a->data, "FlatTensor file (.ptd) holding the program's external tensors (repeatable)");
        sub.add_option("--etdump,-e", a->etdump, "ETDump of a run of this program: its allocation events");
        sub.add_option("--json", a->json, "Write the plan as JSON to this file ('-' for stdout)");
        sub.add_option("--tsv", a->tsv, "Write one row per planned tensor (of the first method chosen) as TSV");
        sub.add_option("--svg", a->svg, "Draw the plan (of the first method chosen) as SVG");
        return [a] {
            // The program (and the recording) through the session, as every command reads them: a
            // program that does not match the ETDump is refused here, since it is what is shown.
            SessionInputs in;
            in.program = a->file;
            in.programData = a->data;
            in.etdump = a->etdump;
            auto session = loadSession(in);
            if (!session)
                return reportError(session.error());
            for (const auto &w : (*session)->warnings)
                std::fprintf(stderr, "etscope-cli: warning: %s\n", w.c_str());
            const std::shared_ptr<const Program> program = (*session)->program;
            MemoryReport report;
            report.program = program.get();
            for (const ProgramMethod &m : program->methods())
                if (a->method.empty() || m.name() == a->method)
                    report.methods.push_back(&m);
            if (report.methods.empty())
                return reportError(makeError(ErrorCode::InvalidArgument, a->file,
                    a->method.empty() ? "the program has no methods" : "no method named '" + a->method + "'"));
            if (!a->etdump.empty()) {
                report.etdumpPath = a->etdump;
                report.allocations = allocatorUsage(*(*session)->etdump);
            }
            for (const ProgramMethod *m : report.methods)
                report.plans.push_back(analyzeMemoryPlan(*m));
            if (!a->tsv.empty())
                if (Status st = writeOutput(a->tsv, memoryTsv(*report.methods[0], report.plans[0])); !st)
                    return reportError(st.error());
            if (!a->svg.empty())
                if (Status st = writeOutput(a->svg, memorySvg(*report.methods[0], report.plans[0])); !st)
                    return reportError(st.error());
            if (!a->json.empty()) {
                const Status st = writeOutput(a->json, memoryJson(report));
                return st ? 0 : reportError(st.error());
            }
            if (a->tsv == "-" || a->svg == "-")
                return 0;
            const Status st = writeOutput("-", memoryText(report));
            return st ? 0 : reportError(st.error());
        };
    });

} // namespace
} // namespace etscope::cli
