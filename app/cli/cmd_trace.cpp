// `trace`: Chrome Trace Event Format JSON for ui.perfetto.dev / chrome://tracing
// (core/export/chrometrace.h), streamed to the output file.
#include "command.h"

#include "export/chrometrace.h"

#include <cstdio>

namespace etscope::cli {
namespace {

struct TraceArgs {
    InputOptions in;
    int block = -1;
    std::string runs = "all";
    std::string output;
};

const Registration trace("trace", "Write a Chrome/Perfetto trace (JSON) of the profile events", [](CLI::App &sub) {
    auto a = std::make_shared<TraceArgs>();
    sub.add_option("--runs", a->runs, "Runs of each block: all, N or N-M (counted from 0)")->capture_default_str();
    addInputOptions(sub, a->in);
    sub.add_option("--block", a->block, "Only this EventBlock (counted from 0; default: all)");
    sub.add_option("-o,--output", a->output, "Output file (default: stdout)");
    return std::function<int()>([a] {
        auto range = parseRunRange(a->runs);
        if (!range)
            return reportError(range.error());
        if (a->in.sourceTimeScale == "cycles" && !(a->in.cyclesPerSecond > 0))
            return reportError(makeError(ErrorCode::InvalidArgument, a->in.etdump,
                "timestamps are in cycles; give the clock rate (--cycles-per-second) to "
                "place them on a time axis"));
        auto session = loadScopedOrReport(a->in);
        if (!session)
            return 1;
        TraceOptions opt;
        if (a->block >= 0)
            opt.block = static_cast<std::size_t>(a->block);
        opt.firstRun = range->first;
        opt.lastRun = range->second;
        return writeStreamed(a->output, [&](const std::function<bool(std::string_view)> &sink) -> Status {
            auto r = writeChromeTrace(*session, opt, sink);
            if (!r)
                return r.error();
            return Ok {};
        });
    });
});

} // namespace
} // namespace etscope::cli
