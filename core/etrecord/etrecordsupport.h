#pragma once

#include "etrecord/linker.h"

namespace etscope {

// Lets loadSession() read and link ETRecords (SessionInputs::etrecord) with `options`. Call once
// at startup, before any session is loaded (again to change the options); etscope_core cannot
// depend on this library, so it is a hook (setETRecordLinker in session.h).
void installETRecordSupport(const LinkOptions &options = {});

} // namespace etscope
