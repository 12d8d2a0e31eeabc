// `table`, `tsv` and `csv`: the Inspector's print_data_tabular / save_data_to_tsv.
#include "command.h"
#include "many.h"

#include "analysis/coverage.h"
#include "events/inspectortable.h"
#include "session/inputfiles.h"

#include <cstdio>
#include <optional>

namespace etscope::cli {
namespace {

struct TableArgs {
    InputOptions in;
    bool all = false; // keep OPERATOR_CALL rows
    bool json = false;
    bool modules = false;
    std::string output;
    // Many recordings (tsv/csv): positional ETDumps, directories or globs.
    std::vector<std::string> recordings;
    std::string format;
    unsigned jobs = 0;
    bool noAggregate = false;
    bool coverage = false; // `table`: how much of Method::execute the events explain, on stderr
    std::optional<double> wallMs;
};

// Files of one recording (an ETDump with its program, .ptd, debug buffer…) rather than many
// recordings: regular files, at most one ETDump, some other kind (sniffed by content).
bool isInputSet(const std::vector<std::string> &paths)
{
    std::size_t etdumps = 0, others = 0;
    for (const std::string &p : paths) {
        const FileSniff s = sniffInputFile(p);
        if (s.kind == FileKind::Unreadable)
            return false;
        (s.kind == FileKind::ETDump ? etdumps : others)++;
    }
    return etdumps <= 1 && others > 0;
}

Setup tableSetup(char sep, bool isTable)
{
    return [sep, isTable](CLI::App &sub) {
        auto args = std::make_shared<TableArgs>();
        addInputOptions(sub, args->in, isTable, isTable);
        if (!isTable) {
            sub.add_option("recordings", args->recordings,
                "More ETDumps, directories (searched for *.etdp) or globs; each with the debug buffer "
                "beside it (<stem>.bin, or debug_output.bin next to etdump.etdp)");
            sub.add_option("--format", args->format, "tsv, csv or jsonl (one JSON object per event per file)")
                ->check(CLI::IsMember({ "tsv", "csv", "jsonl" }));
            sub.add_option("--jobs,-j", args->jobs, "Worker threads for many recordings (default: all cores)");
            sub.add_flag("--no-aggregate", args->noAggregate, "Many recordings: per-file rows only");
        }
        if (isTable) {
            sub.add_flag("--coverage", args->coverage,
                "After the table, on stderr: how much of Method::execute the events explain (the table stays "
                "upstream's)");
            sub.add_option("--wall-ms", args->wallMs, "With --coverage: the runs' wall time in ms, to compare against")
                ->check(CLI::PositiveNumber);
        }
        sub.add_flag("--all", args->all, "Keep OPERATOR_CALL rows (the Inspector hides them)");
        sub.add_flag("--json", args->json, "Print the same rows as JSON");
        sub.add_flag("--modules", args->modules, "Add a last column with each event's module path (needs --etrecord)");
        sub.add_option("-o,--output", args->output,
            isTable ? "Write to this file instead of stdout" : "Output file (default: stdout)");
        return std::function<int()>([args, sep, isTable] {
            if (!isTable && isInputSet(args->recordings)) {
                args->in.files = args->recordings; // one recording's files: sorted by content
                args->recordings.clear();
            }
            if (!isTable && args->in.files.empty()) {
                const auto recs = recordingArgs(args->in.etdump, args->recordings);
                if (recs.empty())
                    return reportError(makeError(ErrorCode::InvalidArgument, "", "give --etdump or ETDump files"));
                if (isMany(recs) || args->format == "jsonl") {
                    ManyTableArgs m;
                    m.recordings = recs;
                    m.in = args->in;
                    m.format = args->format.empty() ? (sep == ',' ? "csv" : "tsv") : args->format;
                    m.all = args->all;
                    m.modules = args->modules;
                    m.aggregate = !args->noAggregate;
                    m.jobs = args->jobs;
                    m.output = args->output;
                    return runManyTable(m);
                }
            }
            auto session = loadOrReport(args->in);
            if (!session)
                return 1;
            TableOptions opt;
            opt.includeOperatorCalls = args->all;
            opt.includeModuleColumn = args->modules;
            // Without a scope: the session's own blocks (upstream's table, byte for byte); with
            // one, the blocks restricted to its runs, statistics recomputed (session/scope.h).
            const auto scope = scopeOf(args->in);
            std::optional<ScopedBlocks> scoped;
            if (!scope || !scope->whole() || args->json) {
                scoped = scopedOrReport(*session, args->in);
                if (!scoped)
                    return kExitBadInput;
            }
            const std::vector<EventBlock> &blocks = scoped ? scoped->blocks : session->blocks;
            if (args->json) {
                opt.blockMethod = &scoped->blockMethod;
                opt.blockPhase = &scoped->blockPhase;
                if (auto st = writeOutput(args->output, formatJson(blocks, opt)); !st)
                    return reportError(st.error());
                return 0;
            }
            // Streamed: a table of 500k events is hundreds of MB of text.
            const int rc = writeStreamed(args->output, [&](const TextSink &sink) -> Status {
                const bool ok = isTable ? writeFancyGrid(blocks, opt, sink) : writeDelimited(blocks, sep, opt, sink);
                if (!ok)
                    return makeError(ErrorCode::Io, args->output.empty() ? "stdout" : args->output, "write failed");
                return Ok {};
            });
            if (args->coverage) {
                std::fflush(stdout);
                const auto coverage = analyzeCoverage(blocks, session->inputs.time, args->wallMs);
                for (const std::string &line : coverageSentences(coverage))
                    std::fprintf(stderr, "coverage: %s\n", line.c_str());
            }
            return rc;
        });
    };
}

const Registration table("table", "Print the Inspector's table (print_data_tabular)", tableSetup('\t', true));
const Registration tsv("tsv", "Write the Inspector's TSV (save_data_to_tsv)", tableSetup('\t', false));
const Registration csv("csv", "Write the Inspector's table as CSV", tableSetup(',', false));

} // namespace
} // namespace etscope::cli
