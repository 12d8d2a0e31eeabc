#pragma once

// Text forms of a LatencyDiff shared by `etscope-cli diff`, the compare view's exports and
// `report --compare`: delimited rows (TSV/CSV), JSON, a readable table, and the CI gate.

#include "analysis/latencydiff.h"

#include <string>

namespace etscope {

// Header + one line per row, in ranked order. Durations carry the unit in their column names
// ("p50_a (ms)"), like the Inspector's TSV. Missing values are empty cells.
std::string formatDiffDelimited(const LatencyDiff &diff, char sep = '\t');
std::string formatDiffJson(const LatencyDiff &diff, const DiffOptions &options);
// Human-readable: notes, the rows (top `maxRows`, 0 = all), block totals, group totals.
std::string formatDiffText(const LatencyDiff &diff, std::size_t maxRows = 0);

// The CI gate: true when a matched row or a block total is `slower` and its median grew by
// more than `percent` percent. `why` gets one line per offending row.
bool slowerThan(const LatencyDiff &diff, double percent, std::string *why = nullptr);

// Column names of formatDiffDelimited (for views that export the same columns).
std::vector<std::string> diffColumnNames(TimeScale unit);

} // namespace etscope
