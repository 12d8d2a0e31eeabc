#include "session/session.h"

#include <fmt/format.h>

namespace etscope {

namespace {
SessionLinker &etrecordLinker()
{
    static SessionLinker linker;
    return linker;
}

Error cancelled(const std::string &file)
{
    return makeError(ErrorCode::InvalidArgument, file, "cancelled");
}
} // namespace

void setETRecordLinker(SessionLinker linker)
{
    etrecordLinker() = std::move(linker);
}

Result<std::shared_ptr<const Session>> loadSession(const SessionInputs &inputs, const ProgressFn &progress)
{
    auto report = [&](int permille, const char *stage) { return !progress || progress(permille, stage); };
    auto session = std::make_shared<Session>();
    session->inputs = inputs;

    if (!report(0, "reading ETDump"))
        return cancelled(inputs.etdump);
    auto etdump = readETDump(inputs.etdump);
    if (!etdump)
        return etdump.error();
    session->etdump = etdump.value();

    if (!inputs.debugBuffer.empty()) {
        if (!report(400, "mapping debug buffer"))
            return cancelled(inputs.debugBuffer);
        auto buffer = DebugBuffer::open(inputs.debugBuffer);
        if (!buffer)
            return buffer.error();
        session->debugBuffer = buffer.value();
    }

    if (!report(500, "building event blocks"))
        return cancelled(inputs.etdump);
    InspectorOptions options;
    options.time = inputs.time;
    options.debugBuffer = session->debugBuffer.get();
    auto blocks = buildEventBlocks(*session->etdump, options);
    if (!blocks)
        return blocks.error();
    session->blocks = std::move(blocks.value());
    for (const EventBlock &b : session->blocks)
        for (const std::string &w : b.warnings)
            session->warnings.push_back(fmt::format("{}: block '{}': {}", inputs.etdump, b.name, w));

    if (!inputs.etrecord.empty()) {
        if (!etrecordLinker())
            return makeError(ErrorCode::Unsupported, inputs.etrecord,
                             "ETRecord support is not installed in this program (installETRecordSupport)");
        if (!report(800, "linking ETRecord"))
            return cancelled(inputs.etrecord);
        if (auto linked = etrecordLinker()(*session, progress); !linked)
            return linked.error();
    }

    report(1000, "done");
    return std::shared_ptr<const Session>(std::move(session));
}

} // namespace etscope
