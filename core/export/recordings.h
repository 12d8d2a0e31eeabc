#pragma once

// Many recordings at once (device farms, CI history): expand files, directories and globs into
// ETDumps with the debug buffer found beside each, load them in parallel (one file per worker
// at a time, so memory stays bounded by the largest file), keep a compact per-file summary and
// aggregate per event across files.

#include "analysis/history.h"
#include "common/error.h"
#include "events/inspectortable.h"
#include "session/session.h"

#include <functional>
#include <string>
#include <vector>

namespace etscope {

struct RecordingInput {
    std::string etdump;
    std::string debugBuffer; // "" when none was found
};

// The debug buffer beside an ETDump when named the usual way: <stem>.bin, or debug_output.bin
// next to etdump.etdp. "" when there is none.
std::string findDebugBufferBeside(const std::string &etdump);

// Each argument is a file, a directory (searched recursively for *.etdp) or a glob pattern.
// Order: arguments in order, directory and glob matches sorted by path; duplicates dropped.
Result<std::vector<RecordingInput>> expandRecordings(const std::vector<std::string> &args);

// One Inspector-table row of one file, kept without the session.
struct RecordingEvent {
    std::size_t blockIndex = 0;
    std::string block;
    std::string event;
    std::size_t occurrence = 0; // k-th event of this name in its block (aggregation key)
    std::int32_t instructionId = -1;
    std::vector<std::string> opTypes;
    bool delegated = false;
    std::string delegateDebugId, delegateBackend, module;
    std::optional<PerfData> perf;
};

struct RecordingSummary {
    std::string file; // ETDump path as expanded
    std::string debugBuffer;
    std::string error; // non-empty: the file could not be loaded (one line)
    std::vector<std::string> warnings;
    TimeScale unit = TimeScale::MS;
    std::string tsvRows; // the file's own TSV rows (no header), as `tsv` writes them
    std::vector<RecordingEvent> events;
};

struct RecordingsOptions {
    TimeConversion time;
    std::string etrecord; // linked into every file when given
    // The program the recordings ran (and its .ptd files) and how phases are decided; with a
    // scope, each recording is reduced to the scope's runs (session/scope.h) before it is
    // summarized, and a recording with no run in scope is an error of that file.
    std::string program;
    std::vector<std::string> programData;
    PhaseOptions phases;
    Scope scope;
    TableOptions table;
    char separator = '\t';
    unsigned threads = 0; // 0: all cores
};

// Loads every input on a pool of workers; results in input order.
std::vector<RecordingSummary> summarizeRecordings(
    const std::vector<RecordingInput> &inputs, const RecordingsOptions &options);

// `file` column + each file's own rows (index, block, event, statistics, …), then one
// aggregated row per (block, event, occurrence) over all files, file column "(all N files)",
// statistics over the pooled per-run durations.
std::string formatManyDelimited(
    const std::vector<RecordingSummary> &files, const RecordingsOptions &options, bool aggregate = true);

// The recordings pooled into one set of EventBlocks: per (block, event, occurrence) the per-run
// durations of every file in order (as if all runs had been one recording), for comparisons of
// whole groups of recordings (e.g. `diff` of device farm A against farm B).
std::vector<EventBlock> poolRecordings(const std::vector<RecordingSummary> &files);

// One JSON object per line per event per file.
std::string formatJsonl(const std::vector<RecordingSummary> &files);

// The history of the recordings named by files, directories and globs (analysis/history.h):
// each loaded on the pool, reduced to its profile, ordered by `labelsCsv` when given.
struct HistoryInputs {
    std::vector<std::string> recordings;
    std::string labelsCsv;
    std::vector<HistoryLabel> labels; // used when labelsCsv is empty (in order)
    HistoryBy by = HistoryBy::Operator;
    TimeConversion time;
    unsigned threads = 0;
    ChangePointOptions changePoints;
};
Result<History> loadHistory(const HistoryInputs &inputs);

} // namespace etscope
