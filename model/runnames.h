#pragma once

// Runs are named one way in every view of the window: "run N", N the recording's executed run
// (a run of a block holding Method::execute) counted from 1 in file order — Session::runTable's
// index + 1 (`etscope-cli runs`, its --runs ranges and Python count the same runs from 0).

#include "session/session.h"

#include <QString>

namespace etscope {

// The run's index in the recording (SessionRun::index), or -1 for a run that executed nothing
// (the load-time "Default" block).
int recordingRun(const Session &session, std::size_t block, std::size_t runInBlock);
// "run 5"; "run_data entry 0" for a run that executed nothing; "run N" (N its place in the block,
// from 1) for a session without a run table (one built by hand).
QString runName(const Session &session, std::size_t block, std::size_t runInBlock);
// What a block's runs were, by method and phase (Session::runTable): "decode_forward · decode ·
// 64 runs", "forward · prefill 1 run, decode 63 runs"; "" when the runs name neither (no
// program, one phase) or the block executed nothing.
QString blockRunsLabel(const Session &session, std::size_t block);
// The rule above in one sentence, for tooltips and labels.
QString runNumbering();

} // namespace etscope
