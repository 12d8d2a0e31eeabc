// `report`: one self-contained HTML file (core/export/htmlreport.h) with the summary, the
// Inspector table, SVG charts, the numeric-gap heatmap (--reference) and the diff waterfall
// (--compare). Several ETDumps (files, directories, globs) make one report over all of them.
#include "command.h"
#include "many.h"

#include "analysis/numericgap.h"
#include "etdump/etdumpfile.h"
#include "export/htmlreport.h"
#include "export/recordings.h"
#include "export/reportdiff.h"
#include "export/reportgap.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

namespace etscope::cli {
namespace {

struct ReportArgs {
    InputOptions in;
    std::vector<std::string> recordings;
    analysis::ReferenceInputs ref;
    std::string reference; // shorthand: an ETDump (debug buffer beside) or an AOT outputs file
    std::string metric = "MSE";
    double threshold = 0;
    std::string compare;
    std::string output;
};

bool fileLooksLikeETDump(const std::string &path)
{
    std::ifstream f(path, std::ios::binary);
    char head[8] = {};
    f.read(head, sizeof head);
    return f.gcount() == sizeof head && looksLikeETDump(reinterpret_cast<const std::uint8_t *>(head), sizeof head);
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
        addInputOptions(sub, a->in, false);
        sub.add_option("recordings", a->recordings, "More ETDumps, directories or globs (one report over all of them)");
        sub.add_option("--reference", a->reference,
            "Reference for the numeric-gap heatmap: an ETDump (its debug buffer found beside it) or an AOT "
            "outputs file");
        sub.add_option("--reference-etdump", a->ref.etdump, "Reference ETDump (same program)");
        sub.add_option("--reference-debug-buffer", a->ref.debugBuffer, "Debug buffer of the reference ETDump");
        sub.add_option("--aot-outputs", a->ref.aotOutputs, "torch.save'd AOT intermediate outputs");
        sub.add_option("--metric", a->metric, "Gap metric: MSE, L1, SNR, COSINE, MAXABS or MAXREL")
            ->capture_default_str();
        auto *th = sub.add_option("--threshold", a->threshold, "Outline gaps worse than this");
        sub.add_option("--compare", a->compare,
            "Baseline ETDump to compare latencies against (debug buffer found beside it): diff waterfall");
        sub.add_option("-o,--output", a->output, "Output HTML file (default: stdout)");
        return std::function<int()>([a, th] {
            const auto recs = recordingArgs(a->in.etdump, a->recordings);
            if (recs.empty())
                return reportError(makeError(ErrorCode::InvalidArgument, "", "give --etdump or ETDump files"));
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
                    a->ref.etdump = a->reference;
                    if (a->ref.debugBuffer.empty())
                        a->ref.debugBuffer = findDebugBufferBeside(a->reference);
                } else {
                    a->ref.aotOutputs = a->reference;
                }
            }
            if (!a->ref.etdump.empty() || !a->ref.aotOutputs.empty()) {
                if (!session.debugBuffer)
                    return reportError(makeError(ErrorCode::InvalidArgument, session.inputs.etdump,
                        "the numeric gap needs the debug buffer (--debug-buffer)"));
                if (!a->ref.etdump.empty() && a->ref.etrecord.empty())
                    a->ref.etrecord = a->in.etrecord;
                auto metric = analysis::parseMetric(a->metric);
                if (!metric)
                    return reportError(
                        makeError(ErrorCode::InvalidArgument, "", fmt::format("unknown metric '{}'", a->metric)));
                auto ref = analysis::loadReference(a->ref);
                if (!ref)
                    return reportError(ref.error());
                analysis::GapOptions go;
                go.metric = *metric;
                if (th->count() > 0)
                    go.threshold = a->threshold;
                auto table = analysis::computeNumericGap(session, *ref, go);
                if (!table)
                    return reportError(table.error());
                in.gap = reportGapFromTable(*table, session);
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
            if (auto st = writeOutput(a->output, renderHtmlReport(in)); !st)
                return reportError(st.error());
            return 0;
        });
    });

} // namespace
} // namespace etscope::cli
