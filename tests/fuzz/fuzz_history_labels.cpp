// Fuzz target: the labels CSV of `etscope-cli history --labels` (analysis/history.h): any bytes
// give labels sorted by order or one error line naming the file; a matching label index is
// built from them without a crash.
#include "fuzzinput.h"

#include "analysis/history.h"

#include <algorithm>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace etscope;
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    auto labels = parseHistoryLabels(text, "fuzz/labels.csv");
    if (!labels) {
        fuzz::checkErrorMessage(labels.error().message(), "fuzz/labels.csv");
        return 0;
    }
    if (!std::is_sorted(labels->begin(), labels->end(),
            [](const HistoryLabel &a, const HistoryLabel &b) { return a.order < b.order; }))
        std::abort();
    // Order the labelled "recordings" as history does (every label's own file, unreadable).
    std::vector<RecordingProfile> profiles;
    for (const auto &l : *labels) {
        RecordingProfile p;
        p.file = l.file;
        p.error = "unread";
        profiles.push_back(std::move(p));
    }
    (void)buildHistory(std::move(profiles), *labels, HistoryBy::Operator, TimeScale::MS, {});
    return 0;
}
