#pragma once

// Runs over time: one row per executed run (an ETDump's `Execute` run_data entry), its method
// (with a program), its phase (prefill / decode for a language model's generation), and the
// figures people compute by hand from an LLM recording — time to first token, tokens/s, latency
// against position, drift, outlier runs — with per-phase operator shares. The rules are in
// docs/inspector-semantics.md ("Runs over time"); the constants below are theirs.

#include "common/error.h"
#include "events/event.h"
#include "events/timescale.h"
#include "program/runattribution.h"
#include "session/runtable.h"
#include "session/scope.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace etscope {

class Program;

// What a share row is: an operator (a kernel, a delegate event by its name) or, for events a
// backend names by a known convention, the operator etscope decodes from them
// (backendShareName in events/backendevents.h: every instance and dispatch of one operator in one
// row, host phases that wrap counted events left out).
enum class ShareRowsBy { Operator, BackendOperator };
const char *shareRowsByName(ShareRowsBy by); // "operator", "backend-operator"

struct RunsOptions {
    TimeConversion time; // how the blocks' ticks and durations were scaled (session.inputs.time)
    std::string method; // only the runs this method fits (needs a program); empty: all
    // Only the runs in this scope's phase and run range (its method is `method` above): the rows,
    // the phase figures and the shares are those runs' (a decode scope has no time to first
    // token). Runs keep their recording-wide index ("run N" is the same run in every view).
    Scope scope;
    // Bare blocks only (the session-based analyzeRuns reads Session::inputs.phases):
    PhaseRule phaseBy = PhaseRule::Auto;
    std::size_t prefillRuns = 0; // PhaseRule::PrefillRuns
    std::optional<std::int64_t> promptTokens; // else from the prefill method's input shape
    // The share row of a delegate event: a backend's decoded operator (e.g. an XNNPACK or Vulkan
    // event name without its instance number or argument sizes); empty or unset: the event's name.
    std::function<std::string(const Event &)> backendOperator;
    // BackendOperator: decoded delegate events are named (or left out) by backendShareName
    // first; those no convention decodes fall back to backendOperator, then their name.
    ShareRowsBy sharesBy = ShareRowsBy::Operator;
    // BackendOperator as etscope's default (not asked for): no note when no event decodes.
    bool sharesByDefault = false;
};

struct RunRow {
    std::size_t index = 0; // among the executed runs, in file order, from 0
    std::size_t runDataIndex = 0; // run_data entry of the file
    std::size_t block = 0; // EventBlock holding the run, and its place among the block's runs
    std::size_t runInBlock = 0;
    std::string method; // attributed method; empty when unknown
    std::string methodNote; // RunAttribution::label() ("ambiguous: …", "no method matches"); empty without program
    std::string phase; // "prefill", "decode", "other", "all"
    std::size_t generation = 0; // a prompt and its decode steps, from 0 (RunTable)
    std::int64_t startNs = 0; // Method::execute start on the recording's clock
    double durationMs = 0; // Method::execute duration
    std::optional<std::int64_t> tokens; // tokens the run processed, when known
    std::optional<std::size_t> position; // place among the phase's steady runs (x of the fit)
    bool warmup = false;
    bool outlier = false;
};

// One operator's (or backend operator's) own time in a phase: kernels and delegate events,
// never the OPERATOR_CALL / DELEGATE_CALL wrapped around them.
struct ShareRow {
    std::string name;
    double totalMs = 0;
    double share = 0; // of the phase's counted time, 0–1
    std::uint64_t calls = 0;
    double delegatedShare = 0; // of this row's time, spent in delegated events, 0–1
};

struct PhaseFigures {
    std::string name;
    std::size_t runs = 0, warmupRuns = 0, outlierRuns = 0;
    // Over the steady (non-warm-up) runs:
    double totalMs = 0, meanMs = 0, medianMs = 0, p90Ms = 0;
    std::optional<std::int64_t> tokens; // prefill: prompt tokens; decode: one per run
    std::optional<double> tokensPerS; // prefill: tokens / total time; decode: steady runs / total time
    std::optional<double> tokensPerSP50, tokensPerSP90; // decode: 1000 / median (p90) duration in ms
    std::optional<double> slopeMsPerPosition, interceptMs; // Theil's fit of duration against position
    std::optional<double> driftPct; // median of the last third against the first third, in %
    double countedMs = 0; // time the share table divides (kernels + delegate events)
    double delegatedShare = 0; // of countedMs
    std::vector<ShareRow> shares; // by total time, largest first
};

struct RunsReport {
    std::string file; // the ETDump
    std::string program; // the program's path, empty without one
    PhaseRule rule = PhaseRule::None; // the rule applied (never Auto)
    std::string ruleLine; // which rule decided, one line (RunTable::ruleLine)
    std::size_t generations = 0;
    ShareRowsBy sharesBy = ShareRowsBy::Operator; // as asked
    std::vector<RunRow> runs;
    std::vector<PhaseFigures> phases; // prefill, decode, other, all: those present
    std::optional<double> timeToFirstTokenMs;
    std::vector<std::string> notes; // how the figures were obtained, one line each

    const PhaseFigures *phase(std::string_view name) const;
};

// The runs of `blocks` (an ETDump's EventBlocks) and their figures; `program` may be null.
// Errors (one line, naming `file`): a --method or --phase-by method without a program, a method
// the program lacks, cycles without a clock rate.
Result<RunsReport> analyzeRuns(
    const std::vector<EventBlock> &blocks, const Program *program, const RunsOptions &options, const std::string &file);

// The runs of a session as it decided them (Session::runTable, its phase options): what every
// front end calls. `options.phaseBy` and `prefillRuns` are not used (the session's inputs are).
struct Session;
Result<RunsReport> analyzeRuns(const Session &session, const RunsOptions &options);

// The JSON `etscope-cli runs --json` writes (docs/formats.md) and its text form (top `topN`
// share rows per phase; 0 = all).
std::string runsJson(const RunsReport &report);
std::string runsText(const RunsReport &report, std::size_t topN);

} // namespace etscope
