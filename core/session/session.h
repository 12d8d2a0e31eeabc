#pragma once

#include "common/error.h"
#include "etdump/debugbuffer.h"
#include "etdump/etdumpfile.h"
#include "etrecord/linker.h"
#include "events/event.h"
#include "events/eventblockbuilder.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace etscope {

class ETRecord;

// What the user opened. Only `etdump` is required.
struct SessionInputs {
    std::string etdump;
    std::string debugBuffer;
    std::string etrecord;
    std::string bundledProgram;
    TimeConversion time;
    LinkOptions link; // how `etrecord` is linked to the events (method, reference graph, quirks)
};

// Progress in [0, 1000]; return false to cancel.
using ProgressFn = std::function<bool(int permille, const std::string &stage)>;

// Everything loaded for one ETDump: decoded file, optional debug buffer, the Inspector's
// EventBlocks (linked to the ETRecord when one is given). Immutable once built: the GUI hands
// it between threads as shared_ptr<const Session>.
struct Session {
    SessionInputs inputs;
    std::shared_ptr<const ETDumpFile> etdump;
    std::shared_ptr<const DebugBuffer> debugBuffer; // may be null
    std::vector<EventBlock> blocks;
    std::vector<std::string> warnings; // non-fatal problems, one line each, file named

    std::shared_ptr<const ETRecord> etrecord; // null unless inputs.etrecord was given
};

// Reads the ETDump (and debug buffer), builds the EventBlocks and, when an ETRecord is given,
// reads it and links the blocks to it with inputs.link. A cancelled load returns
// ErrorCode::Cancelled.
Result<std::shared_ptr<const Session>> loadSession(const SessionInputs &inputs, const ProgressFn &progress = {});

} // namespace etscope
