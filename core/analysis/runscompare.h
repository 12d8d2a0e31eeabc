#pragma once

// N recordings side by side (devices or backends of one model): `etscope-cli runs` with several
// --etdump prints one table, a column per recording — runs, time to first token, prefill and
// decode tokens/s, per-phase medians, coverage, and the per-phase shares of the operators that
// lead in any recording.

#include "analysis/coverage.h"
#include "analysis/runs.h"
#include "common/error.h"

#include <optional>
#include <string>
#include <vector>

namespace etscope {

struct RecordingRuns {
    RunsReport runs;
    CoverageReport coverage;
};

// One recording's column: its runs and figures as `opt` asks (its scope included) and how much of
// Method::execute its events explain over the same runs. `wallMs`: the runs' wall time, if known.
Result<RecordingRuns> analyzeRecordingRuns(
    const Session &session, const RunsOptions &opt, std::optional<double> wallMs = std::nullopt);

// What a row of the side-by-side table counts.
enum class SideBySideKind {
    Runs, // count
    TimeToFirstToken, // ms
    PhaseRuns, // count, of `phase`
    PhaseMedian, // ms, the median run of `phase`
    PhaseTokensPerS, // tokens/s of `phase`
    Coverage, // %, events / Method::execute
    Share, // %, `op`'s share of `phase`'s counted time (0 when the phase has it not among its rows)
};

// One figure across the recordings; a value is absent where the recording has no such figure
// (no such phase, no time to first token, no Method::execute).
struct SideBySideRow {
    SideBySideKind kind = SideBySideKind::Runs;
    std::string phase, op; // where the kind names them
    std::string label; // "decode: median run (ms)", "decode share: aten.mm"
    std::vector<std::optional<double>> values; // one per recording, in its unit (count, ms, tokens/s, %)
};

// Rows in table order: runs, time to first token, per phase (runs, median, tokens/s), coverage,
// per phase the shares of the operators that lead in any recording (the union of each one's top
// `topN`, in first-seen order; 0 = all).
std::vector<SideBySideRow> runsSideBySideRows(const std::vector<RecordingRuns> &recordings, std::size_t topN);
// The text of one value as the table prints it ("–" when absent).
std::string sideBySideCell(SideBySideKind kind, const std::optional<double> &value);

// Rows: figures; columns: recordings (named by their paths, shortened to what tells them apart).
// `topN` operators per phase (the union of each recording's top N), 0 = all.
std::string runsSideBySideText(const std::vector<RecordingRuns> &recordings, std::size_t topN);
// The runs JSON (runsJson) with a "coverage" member added last.
std::string runsJsonWithCoverage(const RunsReport &runs, const CoverageReport &coverage);
// {"recordings": [ the runs JSON of each with its "coverage" ]}.
std::string runsSideBySideJson(const std::vector<RecordingRuns> &recordings);

} // namespace etscope
