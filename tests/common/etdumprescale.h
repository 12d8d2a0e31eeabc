#pragma once

// Test helper: re-encodes a real ETDump with chosen operators made slower (or faster) by a known
// factor in every run, as if the kernel itself had taken that much longer: the event's duration
// becomes round(duration * factor) and every later timestamp of the run moves by the difference,
// so enclosing events (OPERATOR_CALL, Method::execute) grow by exactly that amount and all other
// events keep their durations. Profile and allocation events only (the 50-run fixtures have no
// debug events).

#include "common/error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace etscope::test {

struct Rescale {
    std::string eventName; // e.g. "native_call_addmm.out"
    std::int32_t instructionId; // which instance
    double factor; // 2.0 = twice as slow
};

// Returns the new file's bytes, or an error naming `path`.
Result<std::string> rescaleETDump(const std::string &path, const std::vector<Rescale> &changes);

} // namespace etscope::test
