#pragma once

// History: many recordings of one program ordered by a label (a commit, a date, a CSV mapping),
// one series per operator (or per method, or the run's total) of each recording's p50 with its
// p10–p90 spread, and the change points of every series by E-divisive means with a permutation
// test (analysis/changepoint.h). The rules are in docs/history.md.

#include "analysis/changepoint.h"
#include "common/error.h"
#include "events/event.h"
#include "events/timescale.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace etscope {

struct Session;

enum class HistoryBy {
    Operator, // every operator event (kernels, delegate events), by name and occurrence in its block
    Method, // Method::execute per block
    Total, // per run, the sum of the block's operator events
};
const char *historyByName(HistoryBy by); // "operator", "method", "total"

// One recording reduced to what a history keeps: per series its p10/p50/p90 over the runs.
struct HistoryPoint {
    double p10 = 0, p50 = 0, p90 = 0;
    std::size_t runs = 0;
};
struct RecordingProfile {
    std::string file;
    std::string error; // non-empty: not loaded (one line naming the file)
    std::vector<std::string> warnings;
    // The program as the recording shows it: a hash of its blocks' names and of every timed
    // event's name and instruction id, in order. Equal signatures: one program.
    std::uint64_t signature = 0;
    std::shared_ptr<const std::vector<std::string>> names; // series names, shared by equal signatures
    std::vector<HistoryPoint> points; // one per name
    std::size_t runs = 0; // Method::execute runs (or the largest block's run count)
};
// Reduces a loaded session to its profile (names not shared: see profileRecordings).
RecordingProfile profileSession(const Session &session, HistoryBy by);

// Labels and order. A CSV with a header naming `file` and `label` columns, and optionally
// `order` (a number): rows sorted by `order`, else kept in the CSV's order. A `file` is matched
// against each recording's path as given, then relative to the CSV's folder, then by file name.
struct HistoryLabel {
    std::string file, label;
    std::string resolved; // `file` relative to the CSV's folder, normalised
    double order = 0;
};
Result<std::vector<HistoryLabel>> readHistoryLabels(const std::string &csvPath);
// The same from the file's bytes (`csvPath` names it in errors and anchors relative paths).
// Errors never quote the file's bytes.
Result<std::vector<HistoryLabel>> parseHistoryLabels(std::string_view text, const std::string &csvPath);

struct HistoryRecording {
    std::size_t index = 0; // in the ordered list of all recordings
    std::string file, label;
    std::size_t group = 0; // which program (HistoryGroup)
    std::size_t indexInGroup = 0;
    std::size_t runs = 0;
};

struct HistoryGroup {
    std::uint64_t signature = 0;
    std::vector<std::size_t> recordings; // into History::recordings, in order
};

struct HistorySeries {
    std::string name;
    std::size_t group = 0;
    std::vector<double> p10, p50, p90; // per recording of the group, in order
};

struct HistoryChange {
    std::size_t series = 0; // into History::series
    std::string name;
    std::size_t group = 0;
    std::size_t index = 0; // place in the group's ordered series of the first recording after the change
    std::size_t recordingBefore = 0, recordingAfter = 0; // into History::recordings
    // Mean of the p50s between the neighbouring change points (or the ends), each with the
    // half-width of its 95 % confidence interval (1.96 s / √n, normal approximation; 0 for n < 2).
    double before = 0, beforeCi = 0, after = 0, afterCi = 0;
    std::size_t beforeCount = 0, afterCount = 0;
    double changePercent = 0; // (after / before − 1) × 100
    ChangePoint test; // p-value, Q̂, permutations
};

struct History {
    HistoryBy by = HistoryBy::Operator;
    TimeScale unit = TimeScale::MS;
    ChangePointOptions options;
    std::vector<HistoryRecording> recordings; // ordered; recordings that failed are left out
    std::vector<HistoryGroup> groups; // by first appearance
    std::vector<HistorySeries> series; // group by group, program order within
    std::vector<HistoryChange> changes; // by series, then index
    std::vector<std::string> errors; // recordings that could not be read (one line each)
    std::vector<std::string> warnings;
};

// Loads the recordings on a pool of workers, one at a time per worker, keeping only profiles.
std::vector<RecordingProfile> profileRecordings(
    const std::vector<std::string> &etdumps, HistoryBy by, const TimeConversion &time, unsigned threads);

// Orders the profiles (labels or as given), groups them by program, builds the series and
// finds their change points. `labels` empty: label = file, order as given.
Result<History> buildHistory(std::vector<RecordingProfile> profiles, const std::vector<HistoryLabel> &labels,
    HistoryBy by, TimeScale unit, const ChangePointOptions &options);

// The seed of one series: options.seed mixed with the FNV-1a hash of its name, so that a
// series' result does not depend on which other series exist.
std::uint64_t seriesSeed(std::uint64_t seed, std::string_view name);

// "native_call_convolution.out #2: 0.3667 → 0.3851 ms (±0.0012 → ±0.0015), +5.0 %, at #12 'c12'
// (after #11 'c11'), p = 0.001".
std::string describeChange(const History &h, const HistoryChange &c);
std::string formatHistoryText(const History &h);
std::string historyJson(const History &h);

// True when some change is significant and slower by more than percent.
bool historyHasSlowdown(const History &h, double percent);

} // namespace etscope
