#pragma once

// Latency A/B of two sessions per method and phase (issue 35): two LLM recordings hold a prefill
// and a decode method each; compared block against block, every operator shows twice,
// unlabelled, and the headline total adds both methods' medians. Here rows pair only within one
// (method, phase) of the runs — each part a diffLatency of the part's scoped blocks
// (session/scope.h) — carry the method and phase, and each part has its own operator total.
// The one route every front end takes (window, `etscope-cli diff`, Python `Inspector.diff`).

#include "analysis/latencydiff.h"
#include "common/error.h"
#include "session/scope.h"

#include <string>
#include <vector>

namespace etscope {

struct Session;

struct ScopeDiffPart {
    std::string label; // "decode_forward · decode"; "" for a recording of one kind of run
    Scope scope;
    std::size_t runsA = 0, runsB = 0; // runs of the part in A and in B (0: the part is on one side only)
    DiffTotal total; // the part's operator total (sum of p50s of its counted rows), key = label
};

struct ScopedLatencyDiff {
    // Every part's rows, ranked together; with several parts each row's block is named
    // "<block> · <part label>" (a tree grouping rows by block groups them by method and phase
    // too) and `byMethodPhase` holds the parts' totals. Event positions are the sessions' own.
    LatencyDiff diff;
    std::vector<ScopeDiffPart> parts; // one per method and phase of A or B, A's order first
    std::vector<std::string> notes; // one line each: how rows were paired; what only one side has
};

// A against B within `scope`. The parts are the (method, phase) pairs of the runs in scope, a
// phase's warm-up runs a part of their own ("decode_forward · warmup"); runs that name neither a
// method nor a phase (no program, one kind of run) compare whole, warm-up included, as
// upstream's Inspector would see them. Errors (one line, naming A's ETDump): a scope that
// selects no run, no part with runs on both sides.
Result<ScopedLatencyDiff> diffLatencyByScope(
    const Session &a, const Session &b, const Scope &scope, const DiffOptions &options = {});

} // namespace etscope
