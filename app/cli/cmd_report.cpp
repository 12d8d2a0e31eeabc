// `report`: one self-contained HTML file (core/export/htmlreport.h) with the summary, the
// Inspector table, SVG charts, the numeric-gap heatmap and the diff waterfall (--compare).
// Several ETDumps (files, directories, globs) make one report over all of them. The heatmap is
// the gap `gap` computes from the same arguments (gapoptions.h): against --reference-etdump,
// --aot-outputs or --reference, else, with --debug-buffer and --etrecord, against the ETRecord's
// graph run by the built-in evaluator (the window's Ctrl+G). --decompose adds the error
// decomposition `gap --decompose` computes, --graph-diff A B the layer-by-layer comparison
// `graph-diff` computes (issue 30), each from the same core function and the same options.
// --history adds the recordings over time with their change points, as `history` computes them
// (issue 38); without --etdump the report's recording is the history's newest. --program-diff A B
// adds two builds of one model compared, as `program-diff A B` computes them (issue 37).
#include "command.h"
#include "gapoptions.h"
#include "historyload.h"
#include "many.h"

#include "analysis/numericgap.h"
#include "etdump/etdumpfile.h"
#include "export/htmlreport.h"
#include "export/recordings.h"
#include "export/reportdecompose.h"
#include "export/reportdiff.h"
#include "export/reportgap.h"
#include "export/reportgraphdiff.h"
#include "export/reporthistory.h"
#include "program/programdiff.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>

namespace etscope::cli {
namespace {

struct ReportArgs {
    InputOptions in;
    std::vector<std::string> recordings;
    GapArgs gap;
    std::string reference; // shorthand: an ETDump (debug buffer beside) or an AOT outputs file
    std::string compare;
    std::string output;
    bool decompose = false;
    std::vector<std::string> graphDiff; // A B
    std::vector<std::string> history; // recordings over time (files, directories, globs)
    std::string historyLabels, historyBy = "operator";
    std::optional<double> wallMs; // the runs' wall time, for the coverage section
    std::vector<std::string> programDiff; // A B (.pte or .bpte)
};

bool fileLooksLikeETDump(const std::string &path)
{
    // 12 bytes: a size-prefixed ETDump has its identifier at bytes 8–11 (looksLikeETDump).
    std::ifstream f(path, std::ios::binary);
    char head[12] = {};
    f.read(head, sizeof head);
    return looksLikeETDump(reinterpret_cast<const std::uint8_t *>(head), static_cast<std::size_t>(f.gcount()));
}

// "device7/etdump.etdp": recordings are often all named etdump.etdp.
std::string baseName(const std::string &p)
{
    const std::filesystem::path path(p);
    const std::string dir = path.parent_path().filename().string();
    return dir.empty() ? path.filename().string() : dir + "/" + path.filename().string();
}

const Registration report(
    "report", "Write a self-contained HTML report (tables, charts, gap heatmap, diff)", [](CLI::App &sub) {
        auto a = std::make_shared<ReportArgs>();
        addInputOptions(sub, a->in, false, false);
        sub.add_option("recordings", a->recordings, "More ETDumps, directories or globs (one report over all of them)");
        sub.add_option("--reference", a->reference,
            "Reference for the numeric-gap heatmap: an ETDump (its debug buffer found beside it) or an AOT "
            "outputs file");
        addGapOptions(sub, a->gap); // as `gap`; without a reference, the evaluator on --etrecord
        sub.add_option("--compare", a->compare,
            "Baseline ETDump to compare latencies against (debug buffer found beside it): diff waterfall");
        sub.add_option("-o,--output", a->output, "Output HTML file (default: stdout)");
        sub.add_flag("--decompose", a->decompose,
            "Quantized models: add the error decomposition per op (quantization / kernel / total), as `gap "
            "--decompose` computes it");
        sub.add_option("--graph-diff", a->graphDiff,
               "Add two graphs of --etrecord compared layer by layer, as `graph-diff --a A --b B` computes it "
               "(--inputs, --metric, --threshold apply)")
            ->expected(2)
            ->type_name("A B");
        sub.add_option("--history", a->history,
            "Add the History section: these recordings (files, directories, globs) over time with their change "
            "points, as `history` computes them");
        sub.add_option("--labels", a->historyLabels, "With --history: CSV with columns file,label[,order]");
        sub.add_option("--history-by", a->historyBy, "With --history: series per operator (default), method or total")
            ->check(CLI::IsMember({ "operator", "method", "total" }));
        sub.add_option("--wall-ms", a->wallMs,
            "The runs' wall time in ms (e.g. from the runner's log): the coverage section compares against it");
        sub.add_option("--program-diff", a->programDiff,
               "Add two builds of one model (.pte) compared: sizes, delegation, constants, memory, as `program-diff "
               "A B` computes them (two different models: the refusal is shown)")
            ->expected(2)
            ->type_name("A B");
        return std::function<int()>([a] {
            std::shared_ptr<const History> history;
            if (!a->history.empty()) {
                HistoryInputs hi;
                hi.recordings = a->history;
                hi.labelsCsv = a->historyLabels;
                hi.by = a->historyBy == "method" ? HistoryBy::Method
                    : a->historyBy == "total"    ? HistoryBy::Total
                                                 : HistoryBy::Operator;
                history = loadHistoryOrReport(hi, a->in.sourceTimeScale, a->in.targetTimeScale, a->in.cyclesPerSecond);
                if (!history)
                    return kExitBadInput;
            } else if (!a->historyLabels.empty()) {
                return reportError(makeError(ErrorCode::InvalidArgument, a->historyLabels, "--labels needs --history"));
            }
            auto recs = recordingArgs(a->in.etdump, a->recordings);
            if (recs.empty() && history && !history->recordings.empty())
                recs.push_back(history->recordings.back().file); // the newest recording
            if (recs.empty())
                return reportError(
                    makeError(ErrorCode::InvalidArgument, "", "give --etdump, ETDump files or --history"));
            ReportInputs in;
            in.generator = fmt::format("etscope-cli {} (git {})", ETSCOPE_VERSION, ETSCOPE_GIT_REVISION);
            if (isMany(recs)) {
                auto inputs = expandRecordings(recs);
                if (!inputs)
                    return reportError(inputs.error());
                for (const auto &r : *inputs) {
                    InputOptions o = a->in;
                    o.etdump = r.etdump;
                    o.debugBuffer = r.debugBuffer;
                    auto s = loadOrReport(o);
                    if (!s)
                        return 1;
                    in.sessions.push_back(s);
                }
            } else {
                InputOptions o = a->in;
                o.etdump = recs.front();
                auto s = loadOrReport(o);
                if (!s)
                    return 1;
                in.sessions.push_back(s);
            }
            const Session &session = *in.sessions.front();

            if (!a->reference.empty()) {
                if (fileLooksLikeETDump(a->reference)) {
                    a->gap.ref.etdump = a->reference;
                    if (a->gap.ref.debugBuffer.empty())
                        a->gap.ref.debugBuffer = findDebugBufferBeside(a->reference);
                } else {
                    a->gap.ref.aotOutputs = a->reference;
                }
            }
            // A reference named: the gap is asked for, and its failure is the command's. None: the
            // run's own ETRecord is the reference when it can be (debug buffer and ETRecord given),
            // and a failure there leaves the rest of the report standing, with a warning.
            const bool asked = !a->gap.builtIn();
            if (asked && !session.debugBuffer)
                return reportError(makeError(ErrorCode::InvalidArgument, session.inputs.etdump,
                    "the numeric gap needs the debug buffer (--debug-buffer)"));
            if (asked || (session.debugBuffer && session.etrecord)) {
                if (auto st = checkGapArgs(a->gap, a->in.etrecord); !st)
                    return reportError(st.error());
                auto table = computeGap(session, a->gap);
                if (table)
                    in.gap = reportGapFromTable(*table, session);
                else if (asked)
                    return reportError(table.error());
                else
                    std::fprintf(stderr, "etscope-cli: warning: no numeric gap in the report: %s\n",
                        table.error().message().c_str());
            }
            if (a->decompose) {
                if (!a->gap.builtIn() || a->gap.isolate || a->gap.floatTwin)
                    return reportError(makeError(ErrorCode::InvalidArgument, "",
                        "--decompose uses the built-in evaluator on --etrecord (no --reference, --reference-etdump, "
                        "--aot-outputs, --isolate or --float-twin: it runs both graphs)"));
                if (!session.etrecord)
                    return reportError(
                        makeError(ErrorCode::InvalidArgument, session.inputs.etdump, "--decompose needs --etrecord"));
                if (!session.debugBuffer)
                    return reportError(makeError(ErrorCode::InvalidArgument, session.inputs.etdump,
                        "--debug-buffer is required to read intermediate outputs"));
                auto d = evalgap::decomposeGap(*session.etrecord, session, decomposeOptions(a->gap));
                if (!d)
                    return reportError(d.error());
                for (const auto &w : d->warnings)
                    std::fprintf(stderr, "etscope-cli: warning: %s\n", w.c_str());
                in.decomposition = reportDecomposition(*d);
            }
            if (!a->graphDiff.empty()) {
                if (!session.etrecord)
                    return reportError(
                        makeError(ErrorCode::InvalidArgument, session.inputs.etdump, "--graph-diff needs --etrecord"));
                if (!analysis::parseMetric(a->gap.metric))
                    return reportError(
                        makeError(ErrorCode::InvalidArgument, "", fmt::format("unknown metric '{}'", a->gap.metric)));
                auto d = evalgap::diffGraphs(
                    *session.etrecord, graphDiffOptions(a->gap, a->graphDiff.at(0), a->graphDiff.at(1)));
                if (!d)
                    return reportError(d.error());
                for (const auto &w : d->warnings)
                    std::fprintf(stderr, "etscope-cli: warning: %s\n", w.c_str());
                in.graphDiff = reportGraphDiff(*d);
            }
            if (!a->compare.empty()) {
                InputOptions o = a->in;
                o.etdump = a->compare;
                o.debugBuffer = findDebugBufferBeside(a->compare);
                auto base = loadOrReport(o);
                if (!base)
                    return 1;
                in.diff = reportDiff(base->blocks, session.blocks, baseName(a->compare),
                    baseName(session.inputs.etdump), a->in.targetTimeScale);
            }
            auto scope = scopeOf(a->in);
            if (!scope)
                return reportError(scope.error());
            in.scope = *scope;
            in.wallMs = a->wallMs;
            in.history = std::move(history);
            if (!a->programDiff.empty()) {
                auto pa = Program::openAny(a->programDiff.at(0));
                if (!pa)
                    return reportError(pa.error());
                auto pb = Program::openAny(a->programDiff.at(1));
                if (!pb)
                    return reportError(pb.error());
                in.programDiff = std::make_shared<const ProgramDiff>(diffPrograms(**pa, **pb));
                if (!in.programDiff->comparable)
                    std::fprintf(stderr, "etscope-cli: warning: program diff: %s\n", in.programDiff->refusal.c_str());
            }
            if (auto st = writeOutput(a->output, renderHtmlReport(in)); !st)
                return reportError(st.error());
            return 0;
        });
    });

} // namespace
} // namespace etscope::cli
