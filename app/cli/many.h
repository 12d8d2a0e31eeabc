#pragma once

// Many recordings at once for `tsv`, `csv`, `diff` and `report` (core/export/recordings.h).

#include "command.h"

#include <optional>
#include <string>
#include <vector>

namespace etscope::cli {

// The ETDump arguments of a command: --etdump plus positional ones. True when they name more
// than one recording, a directory or a glob.
std::vector<std::string> recordingArgs(const std::string &etdump, const std::vector<std::string> &positional);
bool isMany(const std::vector<std::string> &args);

struct ManyTableArgs {
    std::vector<std::string> recordings;
    InputOptions in; // time scales, ETRecord; etdump/debugBuffer unused
    std::string format = "tsv"; // tsv, csv or jsonl
    bool all = false, modules = false, aggregate = true;
    unsigned jobs = 0;
    std::string output;
};
int runManyTable(const ManyTableArgs &args);

// Loads the recordings named by opts.etdump (file, directory or glob) in parallel and pools them
// into one set of EventBlocks (OPERATOR_CALL rows kept); prints errors and returns none on failure.
std::optional<std::vector<EventBlock>> loadPooledBlocks(const InputOptions &opts);

} // namespace etscope::cli
