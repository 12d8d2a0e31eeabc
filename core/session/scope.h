#pragma once

// Scope: which runs of a recording a view, command or report answers for.
//
// API note (for the window, the CLI and Python; keep it stable):
//   * loadSession decides once, per executed run, its method, phase, generation, warm-up and
//     outlier flags and the rule that decided: `session.runTable` (RunTable below). Nothing
//     re-attributes runs: read `session.runTable.runs` (file order, `index` = "run N" everywhere).
//     How phases are decided is an input: `SessionInputs::phases` (PhaseOptions).
//   * A `Scope` (method, phase, optional run range) is the user's choice; it is not part of the
//     session, so changing it never reloads. `scopeBlocks(session, scope)` gives the session's
//     EventBlocks restricted to the runs in scope, every statistic recomputed for those runs as
//     the Inspector computes it (numpy-exact), with the label to show ("decode_forward · decode ·
//     64 runs") and the rule line ("phases by method names"). The whole scope returns the
//     session's blocks unchanged (upstream-equal tables). Every analysis takes the scoped blocks.
//   * `scopeChoices(session)` lists what a scope control offers (methods, phases present).
//   * Backend events on another clock (Vulkan query-pool timestamps): events/backendevents.h
//     `hostClockOffsets(block)` gives, per event, the offset that places it on the host clock
//     (timeline, Perfetto trace); durations are never changed.

#include "common/error.h"
#include "events/event.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace etscope {

class ProgramMethod;
struct Session;

// A run's phase. Warm-up runs keep their phase in SessionRun::phase and are set apart by
// SessionRun::warmup; a scope of Phase::Warmup selects them, a scope of their phase does not.
enum class Phase { Prefill, Decode, Warmup, Other, All };
const char *phaseName(Phase p); // "prefill", "decode", "warmup", "other", "all"
std::optional<Phase> parsePhase(std::string_view text); // the names above; "warm-up" too

// How phases were (or are to be) decided; docs/inspector-semantics.md "Runs over time".
enum class PhaseRule {
    Auto, // Method when some run's method names a phase, else Operators when it finds a prefill, else None
    Method, // prefill / decode by the attributed method's name
    Operators, // one method for both phases: per-operator evidence (phaseOfRunsByOperators)
    Duration, // runs ≥ kPrefillDurationFactor × the recording's median duration are prefill
    PrefillRuns, // the first PhaseOptions::prefillRuns runs are prefill, the rest decode
    None, // one phase, "all"
};
const char *phaseRuleName(PhaseRule r); // "auto", "method", "operators", "duration", "prefill-runs", "none"
std::optional<PhaseRule> parsePhaseRule(std::string_view text);

struct PhaseOptions {
    PhaseRule rule = PhaseRule::Auto;
    std::size_t prefillRuns = 0; // PhaseRule::PrefillRuns
    bool operator==(const PhaseOptions &) const = default;
};

// One executed run (a run of a block holding Method::execute), decided once by loadSession.
struct SessionRun {
    std::size_t index = 0; // among the executed runs, in file order, from 0
    std::size_t runDataIndex = 0; // run_data entry of the file
    std::size_t block = 0, runInBlock = 0; // EventBlock holding it, its place among the block's runs
    const ProgramMethod *method = nullptr; // the attributed method (Matched), else null
    std::string methodNote; // RunAttribution::label(); empty without a program
    Phase phase = Phase::All; // Prefill, Decode, Other or All
    bool warmup = false; // a phase's leading slow run (kWarmupFactor)
    bool outlier = false; // far off the phase's fit (kOutlierZ); never a prefill
    std::size_t generation = 0; // a prompt and its decode steps, from 0
    double duration = 0; // Method::execute, in the blocks' target unit
    std::uint64_t startTick = 0; // Method::execute start, raw ticks

    Phase scopePhase() const { return warmup ? Phase::Warmup : phase; }
    std::string methodName() const; // "" when unknown
};

struct RunTable {
    std::vector<SessionRun> runs; // file order
    PhaseRule rule = PhaseRule::None; // the rule applied (never Auto)
    std::string ruleLine; // one line: which rule decided and why ("phases by method names")
    std::vector<std::string> notes; // how the phases were obtained, one line each
    std::size_t generations = 0;
    // Per session block, per run of the block: the index into `runs`, or -1 (not executed).
    std::vector<std::vector<int>> runOfBlock;

    const SessionRun *run(std::size_t block, std::size_t runInBlock) const;
};

// The runs a view answers for. The default scope is the whole recording.
struct Scope {
    std::string method; // empty: every method
    Phase phase = Phase::All; // All: every run, warm-up included
    std::optional<std::size_t> firstRun, lastRun; // SessionRun::index, inclusive

    bool whole() const { return method.empty() && phase == Phase::All && !firstRun && !lastRun; }
    bool operator==(const Scope &) const = default;
};
// "N-M", "N-", "-M" or "N" (run indices from 0) into the scope's range.
Status parseRunRange(std::string_view text, Scope &scope);
bool runInScope(const SessionRun &run, const Scope &scope);

struct ScopedBlocks {
    // The session's blocks restricted to the runs in scope (blocks without one dropped), each
    // event's samples, ticks and statistics recomputed for those runs (EventStore::setPerf).
    // What the first run alone carries (debug data, run outputs) stays the block's first run's.
    std::vector<EventBlock> blocks;
    std::vector<std::size_t> sourceBlock; // per scoped block: the session block it came from
    std::vector<std::vector<std::size_t>> runs; // per scoped block: SessionRun::index of its runs
    // Per scoped block: the method all its runs executed ("" when unknown or several) and their
    // scope phase ("prefill", "decode", "warmup", …; "all" when they differ or none executed).
    std::vector<std::string> blockMethod, blockPhase;
    std::size_t runCount = 0; // executed runs in scope
    std::string label; // "decode_forward · decode · 64 runs"; "all runs · 65 runs"
    std::string ruleLine; // RunTable::ruleLine
    bool whole = true; // the whole recording: `blocks` are the session's own
};

// The blocks `scope` selects. Errors (one line, the ETDump named): a method the program lacks, a
// method without a program, a range beyond the runs, a scope no run falls in.
Result<ScopedBlocks> scopeBlocks(const Session &session, const Scope &scope);
std::string scopeLabel(const Session &session, const Scope &scope);

// A session whose blocks are `scoped.blocks`, everything else shared with `session`: for the
// analyses that take a whole Session (numeric gap, trace, report). Its run table and run
// attribution are empty (its blocks are not the recording's): read runs from `session`.
std::shared_ptr<const Session> scopedSession(const Session &session, const ScopedBlocks &scoped);

// What a scope control offers: the methods some run executed (program order) and the phases present.
struct ScopeChoices {
    std::vector<std::string> methods;
    std::vector<Phase> phases;
};
ScopeChoices scopeChoices(const Session &session);

} // namespace etscope
