#pragma once

#include "analysis/comparator.h"
#include "analysis/referenceset.h"
#include "common/error.h"
#include "session/session.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace etscope::analysis {

// One row of the numeric gap table: the Inspector's calculate_numeric_gap columns plus what
// etscope adds (instruction id, delegate info, the runtime event's position for selection).
struct GapRow {
    int blockIndex = -1; // runtime event (for eventSelected in the GUI)
    int eventIndex = -1;
    std::int32_t instructionId = -1;
    std::vector<std::int64_t> debugHandles; // aot_debug_handle == runtime_debug_handle
    std::vector<std::string> referenceOps; // aot_ops
    std::vector<std::string> runtimeOps; // runtime_ops
    NumValue reference; // aot_intermediate_output
    NumValue runtime; // runtime_intermediate_output
    std::vector<double> gap; // one number per compared element (§9)
    std::vector<double> noise; // the threshold each gap is judged by (noise.h, or the user's)
    std::vector<LinkedNode> stackTraces; // op name → first stack trace
    bool delegated = false;
    std::string backend;
    bool flagged = false; // some gap is worse than its threshold (the noise level by default)
    std::string error; // non-empty: compared values did not fit (e.g. shapes)
    std::int64_t referenceHandle = -1; // handle matching: the AOT key compared (§8 step 6)
    std::string note; // from the reference entry (e.g. isolated-mode fallbacks)

    // The row's worst gap in the metric's direction (NaN when no gap).
    double worst(Direction d) const;
    // The largest excessOverNoise of the row's gaps: <= 0 noise, 1 = ten times the noise level.
    // NaN when no gap.
    double excess(Metric m, Direction d) const;
};

struct GapOptions {
    Metric metric = Metric::MSE;
    std::optional<double> threshold; // replaces the noise rule (noise.h) when given
    enum class Matching { Auto, Instruction, DebugHandle } matching = Matching::Auto;
};

struct GapTable {
    Metric metric = Metric::MSE;
    Direction direction = Direction::HigherIsWorse;
    std::optional<double> threshold; // the user's; unset = the noise rule
    bool isolated = false; // the reference fed each op the runtime's inputs (ReferenceSet::isolated)
    std::string referenceDescription;
    bool matchedByHandle = false;
    std::vector<GapRow> rows; // execution order of the runtime events
    std::vector<std::string> warnings;
};

// Pairs runtime intermediates with the reference and computes the gap per row.
// * Instruction matching (second ETDump without handles): same block position among blocks
//   with debug data, same (chain, instruction, occurrence); debug_data compared pairwise, or
//   last with last (with a warning) when the lists differ in length.
// * Handle matching (§8 steps 4-7): runtime entries merged by overlapping handles, joined with
//   reference entries sharing a handle, one row per runtime output whose handle the reference has.
Result<GapTable> computeNumericGap(const Session &runtime, const ReferenceSet &reference, const GapOptions &opts);

// The gap of one run against one reference under several metrics (the same rows in each table),
// accumulated and, when an isolated reference is given, isolated too. The isolated tables are
// all there or none (an isolated table that cannot be computed drops them all).
struct GapTables {
    std::vector<GapTable> accumulated; // one per metric, in the order asked
    std::vector<GapTable> isolated; // the same metrics, or empty
};
Result<GapTables> computeGapTables(const Session &runtime, const ReferenceSet &accumulated,
    const ReferenceSet *isolated, std::span<const Metric> metrics);

// Judges every row again: by `threshold` in the metric's units, or by the noise rule (noise.h)
// when unset; sets GapRow::noise and GapRow::flagged and the table's threshold.
void applyThreshold(GapTable &t, std::optional<double> threshold);

// The first row in execution order whose gap is above its threshold: where the error enters.
const GapRow *firstFlagged(const GapTable &t);
// "MSE, accumulated, flagged above the noise level (…)": what a legend names.
std::string gapLegend(Metric m, std::string_view mode, std::optional<double> threshold);
std::string gapLegend(const GapTable &t);
// One legend for tables shown together: metrics judged alike share a clause
// ("MSE · SNR · MAXABS, accumulated, flagged above the noise level (…)").
std::string gapLegend(const std::vector<GapTable> &tables);

// A row's runtime ops as the gap views name them: "native_call_addmm.out", "DELEGATE_CALL
// [XnnpackBackend]".
std::string gapOpText(const GapRow &r);
// The sentence every gap view ends with: "error enters: instruction 3 native_call_mul.out" (the
// first flagged row in execution order), else "no op exceeds the noise level" (or "… the
// threshold" when the user gave one).
std::string gapVerdict(const GapTable &t);

// Worst first in the metric's direction; rows without a gap last; stable.
void sortWorstFirst(GapTable &t);

// Tab-separated, one row per line, header first. Gaps full precision ("%.17g"), ';'-joined.
std::string gapTableTsv(const GapTable &t);
// Human-readable aligned table for the terminal.
std::string gapTableText(const GapTable &t);

} // namespace etscope::analysis
