#pragma once

// A history loaded as `history` and `report --history` load it (export/recordings.h): the time
// scales parsed, the recordings that could not be read and the warnings on stderr.
#include "export/recordings.h"

#include <memory>
#include <string>

namespace etscope::cli {

// Null after printing the one-line error.
std::shared_ptr<const History> loadHistoryOrReport(
    HistoryInputs in, const std::string &sourceTimeScale, const std::string &targetTimeScale, double cyclesPerSecond);

} // namespace etscope::cli
