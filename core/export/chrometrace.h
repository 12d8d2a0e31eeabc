#pragma once

#include "common/chunkedwriter.h"

// Chrome Trace Event Format (JSON object form) for ui.perfetto.dev and chrome://tracing: every
// profile event of the selected runs as a complete event ("ph":"X"), one process per
// EventBlock, one thread per nesting level (framework / operator / delegate-internal). Events
// come from the file's raw per-run records, so every profile event appears once at its real
// time; what linking added (op types, handles, module, backend) comes from the block's Event.

#include "common/error.h"
#include "session/session.h"

#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>

namespace etscope {

struct TraceOptions {
    std::optional<std::size_t> block; // index into Session::blocks; all blocks when absent
    // Inclusive range of run positions inside each block (0 = its first run); all when absent.
    std::optional<std::size_t> firstRun, lastRun;
    // Bytes buffered before the sink is called (the output is streamed, never held whole).
    std::size_t chunkSize = 1 << 20;
};

struct TraceStats {
    std::size_t events = 0; // "X" events written
    std::size_t bytes = 0;
};

// Receives the output in order; returns false when writing failed (the export stops).
using TraceSink = TextSink;

// Time axis: raw ticks of the session's source time scale as nanoseconds (cycles need
// session.inputs.time.cyclesPerSecond, refused otherwise), relative to the earliest profile
// event of the file; ts/dur in microseconds, the exact nanoseconds in args.
Result<TraceStats> writeChromeTrace(const Session &session, const TraceOptions &options, const TraceSink &sink);

// Parses "all", "N" or "N-M" (run positions inside a block).
Result<std::pair<std::optional<std::size_t>, std::optional<std::size_t>>> parseRunRange(std::string_view text);

} // namespace etscope
