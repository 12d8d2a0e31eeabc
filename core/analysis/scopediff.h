#pragma once

// Latency A/B per method and phase (issue 35): two LLM recordings hold a prefill and a decode
// method each; compared block against block, every operator shows twice, unlabelled, and the
// headline total adds both methods' medians. Here the rows are paired within each (method,
// phase) the two recordings hold — each part a diffLatency of the scope's blocks (session/
// scope.h) — and labelled with it; each part has its own operator total. Recordings whose runs
// name no method (no program) compare whole, as before, unless the scope names a phase.

#include "analysis/latencydiff.h"
#include "common/error.h"
#include "session/scope.h"

#include <string>
#include <vector>

namespace etscope {

struct Session;

struct ScopeDiffPart {
    std::string label; // "decode_forward · decode"; "" for the whole recording
    Scope scope;
    std::size_t runsA = 0, runsB = 0; // runs of the part in A and in B (0: the part is on one side only)
    DiffTotal total; // the part's operator total (sum of p50s of its counted rows), key = label
    std::size_t firstRow = 0, rowCount = 0; // the part's rows in ScopedLatencyDiff::diff.rows
};

struct ScopedLatencyDiff {
    // Every part's rows, blocks named "<block> · <part label>" (so that a tree grouping rows by
    // block groups them by method and phase too); event positions are the sessions' own.
    // `total` sums the parts (its key says so); a view shows the parts' totals.
    LatencyDiff diff;
    std::vector<ScopeDiffPart> parts; // one per method and phase of A or B, A's order first
    std::vector<std::string> notes; // one line each: how rows were paired; methods only one side has
};

// A against B within `scope` (its method and phase; the whole scope pairs per method and phase
// of both). Errors (one line, naming the ETDump): a scope that selects no run of A.
Result<ScopedLatencyDiff> diffLatencyByScope(
    const Session &a, const Session &b, const Scope &scope, const DiffOptions &options = {});

} // namespace etscope
