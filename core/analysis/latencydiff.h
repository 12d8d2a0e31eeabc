#pragma once

// Latency A/B: pairs the Events of two recordings and compares their run durations with
// statistics (Mann–Whitney U, bootstrap CI of the median difference) to give each row a verdict.
//
// Pairing follows whether A and B ran the same program (judgeProgramIdentity):
//  - instruction (MatchMode::Exact): the same program, every (chain, instruction id) runs the same
//    kernel in both; rows pair by block, event name, instruction id and occurrence (loops repeat
//    an instruction id within a block).
//  - graph (MatchMode::Graph): different programs of the same model (e.g. delegated vs portable),
//    both linked to ETRecords whose graphs agree on the operators behind every shared debug
//    handle; events connected through shared handles form one row (a DELEGATE_CALL covering
//    handles {1..5} in A against B's events carrying those handles, summed per run).
//    Delegate-internal events and events without handles pair by name.
//  - operator_name (MatchMode::Heuristic): different programs; operators pair by event name and
//    order of occurrence within the block (the n-th native_call_convolution.out of A with the
//    n-th of B). Flagged in the result because it can be wrong.
//  - totals_only (MatchMode::Heuristic): different programs that share no operator name; only the
//    framework rows and block totals (Method::execute) compare.
// Debug-handle numbers are never used to pair the events of two different programs unless their
// graphs agree. Events present on one side only are kept as only_a / only_b rows.

#include "analysis/diffstats.h"
#include "events/event.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace etscope {

enum class MatchMode { Exact, Graph, Heuristic };
const char *matchModeName(MatchMode m); // "exact", "graph", "heuristic"

// How the rows were paired (the `pairing` field of `etscope-cli diff --json/--tsv`).
enum class Pairing { Instruction, Graph, OperatorName, TotalsOnly };
const char *pairingName(Pairing p); // "instruction", "graph", "operator_name", "totals_only"

// Whether two recordings ran the same program, judged from their events alone.
struct ProgramIdentity {
    // Every (chain, instruction id) runs the same kernel in both: the same top-level event names
    // (native_call_<op>.<overload>, DELEGATE_CALL), OPERATOR_CALL standing for an unknown kernel.
    bool sameInstructions = false;
    // Both linked to ETRecords whose graphs agree: every group of events that shares a debug
    // handle across A and B covers the same operator types on both sides (the same model exported
    // two ways, e.g. delegated vs portable).
    bool sameGraph = false;
    std::string reason; // one line: why the instructions differ (empty when they do not)
    bool sameProgram() const { return sameInstructions; }
    bool comparable() const { return sameInstructions || sameGraph; }
};
ProgramIdentity judgeProgramIdentity(const std::vector<EventBlock> &a, const std::vector<EventBlock> &b);

enum class Verdict { Slower, Faster, Unchanged, OnlyA, OnlyB, NoData };
const char *verdictName(Verdict v); // "slower", "faster", "unchanged", "only_a", "only_b", "no_data"

struct DiffOptions {
    double alpha = 0.01; // significance level of the Mann–Whitney test
    double minChange = 0.02; // noise floor: |ratio − 1| must exceed this (0.02 = 2%)
    std::size_t minRunsForTest = 5; // below this on either side: verdict from the ratio alone
    BootstrapOptions bootstrap;
    bool includeOperatorCalls = false; // OPERATOR_CALL rows (hidden by the Inspector's table)
    std::optional<MatchMode> forceMode; // default: Exact if signatures agree, else Graph if both linked
};

// Position of an Event: blocks[block].events[event] of one side.
struct EventPos {
    std::size_t block = 0;
    std::size_t event = 0;
    bool operator==(const EventPos &) const = default;
};

// One side of a row: the events summed per run, and their statistics.
struct DiffSide {
    std::vector<EventPos> events; // empty when the row exists on the other side only
    std::optional<PerfData> perf; // per-run sums over `events` (target unit); none if no perf data
    std::string label; // event name, or "name + name ..." for a group
};

struct DiffRow {
    std::string blockName;
    std::string eventName; // A's name (B's for only_b rows)
    std::int32_t instructionId = -1; // A's (B's for only_b rows)
    std::size_t occurrence = 0; // n-th row with this key in its block (loops)
    DiffSide a, b;

    double deltaP50 = 0; // b.p50 − a.p50 (0 when a side is missing)
    double ratio = 0; // b.p50 / a.p50 (1 when both are 0, +inf when only a.p50 is); NaN if a side is missing
    std::optional<double> pValue; // Mann–Whitney, both sides >= minRunsForTest runs
    std::optional<Interval> ci; // bootstrap CI of median(B) − median(A), same condition
    Verdict verdict = Verdict::NoData;
    bool ratioOnly = false; // too few runs for the test: verdict from the ratio alone
    bool exactTest = false; // p from the exact null distribution
    MatchMode match = MatchMode::Exact;
    bool framework = false; // Method::execute & co: shown, not part of group totals/ranking
    bool nested = false; // delegate-internal event: its time is inside a DELEGATE_CALL row

    // Grouping keys (from the ETRecord when linked): first op type, backend, top-level module.
    std::string opType; // "aten.convolution.default", or the event name when unlinked
    std::string backend; // delegate backend name, "portable" otherwise
    std::string module; // outermost nn.Module path under the model, "" when unknown
    double contribution = 0; // deltaP50 / sum of |deltaP50| of counted rows (signed share)
    // The runs the row compares (diffLatencyByScope): their method ("" unknown) and phase ("" unscoped).
    std::string method, phase;
};

// Sum of a group of rows (group totals use per-row medians: sum of p50s, not p50 of sums).
struct DiffTotal {
    std::string key;
    double a = 0, b = 0; // sums of p50 (target unit)
    double delta() const { return b - a; }
    std::size_t rows = 0;
};

// Total of one EventBlock pair, with statistics over per-run totals: Method::execute when both
// sides recorded it, else the per-run sum of the counted rows.
struct BlockTotal {
    std::string blockName;
    std::string source; // "Method::execute" or "sum of rows"
    DiffRow row; // statistics and verdict of the per-run totals
};

struct LatencyDiff {
    MatchMode mode = MatchMode::Exact;
    TimeScale unit = TimeScale::MS; // of every duration (A's target time scale)
    Pairing pairing = Pairing::Instruction;
    ProgramIdentity identity;
    bool heuristic() const { return mode == MatchMode::Heuristic; }
    // Rows are paired by instruction or through agreeing graphs: verdicts compare like with like
    // (what a CI gate may act on). False for operator_name and totals_only.
    bool comparable() const { return pairing == Pairing::Instruction || pairing == Pairing::Graph; }
    // Operator rows (not framework, not delegate-internal) paired on both sides / on one side only.
    std::size_t pairedRows = 0, onlyARows = 0, onlyBRows = 0;
    // One line to show above any result when the programs differ (empty for the same program):
    // "different programs: rows paired by operator name (N paired, a only in A, b only in B)".
    std::string banner;
    // Limits of the verdicts, one line each, e.g. "B has 1 run: no spread, verdicts are point
    // comparisons of single durations (no significance test)".
    std::vector<std::string> caveats;
    std::vector<DiffRow> rows; // ranked: counted rows by |deltaP50| desc, then the others
    std::vector<BlockTotal> blockTotals;
    std::vector<DiffTotal> byOpType, byBackend, byModule; // |delta| desc; byModule empty unless linked
    DiffTotal total; // over counted rows
    // diffLatencyByScope: per (method, phase) of the runs, keyed "decode_forward · decode"; empty
    // when the runs have neither. With several, `total` spans methods and is not a figure to quote.
    std::vector<DiffTotal> byMethodPhase;
    std::vector<std::string> notes; // one line each (e.g. why a mode was chosen, run counts)
    std::size_t count(Verdict v) const;
};

// Compares the EventBlocks of recording A with those of B. Never fails: what cannot be paired
// ends up in only_a / only_b rows.
LatencyDiff diffLatency(
    const std::vector<EventBlock> &a, const std::vector<EventBlock> &b, const DiffOptions &options = {});

// Totals by op type, backend and module (per method and phase when rows carry them) and the
// ranking of the rows: what diffLatency ends with, again for a diff assembled from several
// (analysis/scopediff.h, which compares two sessions per method and phase).
void rankDiff(LatencyDiff &diff);

// Statistics and verdict of two per-run samples (what every row uses).
void computeRowStatistics(DiffRow &row, const DiffOptions &options);

} // namespace etscope
