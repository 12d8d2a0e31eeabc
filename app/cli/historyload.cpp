#include "historyload.h"

#include "command.h"

#include <cstdio>

namespace etscope::cli {

std::shared_ptr<const History> loadHistoryOrReport(
    HistoryInputs in, const std::string &sourceTimeScale, const std::string &targetTimeScale, double cyclesPerSecond)
{
    const auto source = parseTimeScale(sourceTimeScale);
    const auto target = parseTimeScale(targetTimeScale);
    if (!source || !target) {
        reportError(makeError(ErrorCode::InvalidArgument, {}, "unknown time scale"));
        return nullptr;
    }
    in.time.source = *source;
    in.time.target = *target;
    if (cyclesPerSecond > 0)
        in.time.cyclesPerSecond = cyclesPerSecond;
    auto h = loadHistory(in);
    if (!h) {
        reportError(h.error());
        return nullptr;
    }
    for (const auto &e : h->errors)
        std::fprintf(stderr, "etscope-cli: %s\n", e.c_str());
    for (const auto &w : h->warnings)
        std::fprintf(stderr, "etscope-cli: warning: %s\n", w.c_str());
    return std::make_shared<const History>(std::move(*h));
}

} // namespace etscope::cli
