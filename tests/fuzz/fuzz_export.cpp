// Fuzz target: what leaves etscope from an arbitrary ETDump — the Chrome trace (must always be
// valid JSON, whatever bytes the names hold), the HTML report (escaping of file text) and the
// runs analysis (`etscope-cli runs --json`: always valid JSON, NaN durations included).
#include "fuzzinput.h"

#include "analysis/runs.h"
#include "events/eventblockbuilder.h"
#include "export/chrometrace.h"
#include "export/htmlreport.h"

#include <nlohmann/json.hpp>

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace etscope;
    auto file = fuzz::asFile(data, size, "fuzz.etdp");
    ETDumpReadOptions options;
    options.maxEvents = 100'000;
    auto etdump = readETDump(*file, options);
    if (!etdump)
        return 0;
    auto blocks = buildEventBlocks(**etdump);
    if (!blocks)
        return 0;
    auto session = std::make_shared<Session>();
    session->inputs.etdump = "fuzz.etdp";
    session->etdump = *etdump;
    session->blocks = std::move(*blocks);
    std::string trace;
    auto r = writeChromeTrace(*session, {}, [&](std::string_view c) {
        trace.append(c);
        return true;
    });
    if (!r)
        std::abort(); // nothing in a readable ETDump may stop the export
    if (!nlohmann::json::accept(trace))
        std::abort(); // invalid JSON (escaping or UTF-8)
    for (const PhaseRule rule : { PhaseRule::Auto, PhaseRule::Duration, PhaseRule::PrefillRuns }) {
        RunsOptions ro;
        ro.phaseBy = rule;
        ro.prefillRuns = 2;
        auto runs = analyzeRuns(session->blocks, nullptr, ro, "fuzz.etdp");
        if (!runs)
            std::abort(); // a readable ETDump always has runs (perhaps none) and figures
        if (!nlohmann::json::accept(runsJson(*runs)))
            std::abort();
        (void)runsText(*runs, 5);
    }
    if ((*etdump)->eventCount() < 300) {
        ReportInputs in;
        in.sessions.push_back(session);
        const std::string html = renderHtmlReport(in);
        // File text never opens a tag: the only "<script" is ours.
        if (html.find("<script") != html.rfind("<script"))
            std::abort();
    }
    return 0;
}
