#pragma once

// How much of the time the events explain: per run, Method::execute against the events directly
// inside it (operator calls, delegate calls, anything else timed) and the gaps between them; for
// every event that encloses others (OPERATOR_CALL around its kernel, DELEGATE_CALL around a
// backend's operators and phases), how much its children explain; for Vulkan, the GPU
// dispatches against ETVK_COMPUTE_GRAPH_EXECUTE. A share of "operator time" is a share of the
// explained part only: when that part is small, the shares mislead, and the report says so.
// The rules are in docs/inspector-semantics.md ("How much of the time is seen").

#include "events/event.h"
#include "events/timescale.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace etscope {

// Below this fraction of Method::execute explained, every view that shows shares warns.
inline constexpr double kLowCoverage = 0.9;

struct CoverageLine {
    std::string parent; // "Method::execute", "OPERATOR_CALL", "DELEGATE_CALL", "ETVK_COMPUTE_GRAPH_EXECUTE", …
    std::string children; // "events", "kernels", "XNNPACK operators", "Vulkan dispatches", "backend events"
    double parentTime = 0; // summed over all its instances in all runs, target unit
    double childTime = 0; // the union of its direct children's intervals (per instance), summed
    std::size_t instances = 0;
    // The children run on another clock (GPU timestamps): their time is summed, not intersected
    // with the parent's interval, and may exceed it.
    bool otherClock = false;
    double fraction() const { return parentTime > 0 ? childTime / parentTime : 0; }
};

struct RunCoverage {
    std::size_t block = 0, runInBlock = 0;
    double execute = 0; // Method::execute
    double explained = 0; // union of the events directly inside it
    double operators = 0; // of which OPERATOR_CALL (portable/optimized kernels and their call)
    double delegates = 0; // of which DELEGATE_CALL
    double gaps() const { return execute - explained; }
};

struct CoverageReport {
    TimeScale unit = TimeScale::MS;
    std::vector<RunCoverage> runs;
    double execute = 0, explained = 0, operators = 0, delegates = 0; // over all runs
    std::optional<double> wall; // the run's wall time given by the user (target unit)
    std::vector<CoverageLine> lines; // Method::execute first, then by parent name
    double fraction() const { return execute > 0 ? explained / execute : 0; }
    bool low() const { return !runs.empty() && fraction() < kLowCoverage; }
};

// `time`: how the blocks' ticks became durations (the session's inputs.time). `wallMs`: the
// runs' wall time, if known, in milliseconds.
CoverageReport analyzeCoverage(
    const std::vector<EventBlock> &blocks, const TimeConversion &time, std::optional<double> wallMs = std::nullopt);

// "events explain 97.3 % of Method::execute (50 runs: 48.2 of 49.5 ms; gaps 1.3 ms)"; one line per
// CoverageLine after it ("kernels explain 98.1 % of OPERATOR_CALL (1400 calls: …)"); the wall
// time line; a warning line when low. Empty when no run has Method::execute.
std::vector<std::string> coverageSentences(const CoverageReport &report);
std::string coverageJson(const CoverageReport &report); // one JSON object

} // namespace etscope
