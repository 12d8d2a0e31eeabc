#pragma once

#include "common/error.h"

#include <functional>
#include <string>
#include <string_view>

namespace etscope {

// The one way etscope writes a file (CLI outputs, window exports, screenshots): streamed into a
// temporary file beside the target (PATH.tmp-etscope) and renamed over it once complete, so that a
// failed or interrupted write never leaves half a file and never touches the old one. A path that
// exists and is not a regular file (/dev/null, a FIFO, /dev/stdout) is written in place: renaming
// over it would replace a device node or a pipe with a regular file.
// HACKING.md ("One atomic write"): no other code opens a file for writing.

// Receives the bytes in order; false when they could not be written.
using WriteSink = std::function<bool(std::string_view chunk)>;

// `produce` writes the content through the sink; its error (or a write error) leaves the target
// as it was.
Status writeFileAtomically(const std::string &path, const std::function<Status(const WriteSink &sink)> &produce);
Status writeFileAtomically(const std::string &path, std::string_view bytes);

} // namespace etscope
