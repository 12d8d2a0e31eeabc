#pragma once

#include "common/error.h"
#include "etdump/debugbuffer.h"
#include "etdump/etdumpfile.h"
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

    // Filled by the ETRecord layer (core/etrecord) when an ETRecord is given; null otherwise.
    std::shared_ptr<const ETRecord> etrecord;
};

// Reads session.inputs.etrecord, stores it in session.etrecord and links session.blocks.
// etscope_core cannot depend on the ETRecord library, so that library installs this hook
// (etscope::installETRecordSupport()); without it loadSession refuses ETRecord inputs.
using SessionLinker = std::function<Status(Session &, const ProgressFn &)>;
void setETRecordLinker(SessionLinker linker);

// Loads and links. A cancelled load returns ErrorCode::InvalidArgument with reason "cancelled".
Result<std::shared_ptr<const Session>> loadSession(const SessionInputs &inputs, const ProgressFn &progress = {});

} // namespace etscope
