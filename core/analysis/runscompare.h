#pragma once

// N recordings side by side (devices or backends of one model): `etscope-cli runs` with several
// --etdump prints one table, a column per recording — runs, time to first token, prefill and
// decode tokens/s, per-phase medians, coverage, and the per-phase shares of the operators that
// lead in any recording.

#include "analysis/coverage.h"
#include "analysis/runs.h"

#include <string>
#include <vector>

namespace etscope {

struct RecordingRuns {
    RunsReport runs;
    CoverageReport coverage;
};

// Rows: figures; columns: recordings (named by their paths, shortened to what tells them apart).
// `topN` operators per phase (the union of each recording's top N), 0 = all.
std::string runsSideBySideText(const std::vector<RecordingRuns> &recordings, std::size_t topN);
// The runs JSON (runsJson) with a "coverage" member added last.
std::string runsJsonWithCoverage(const RunsReport &runs, const CoverageReport &coverage);
// {"recordings": [ the runs JSON of each with its "coverage" ]}.
std::string runsSideBySideJson(const std::vector<RecordingRuns> &recordings);

} // namespace etscope
