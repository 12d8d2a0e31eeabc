#include "session/session.h"

#include "etdump/bufferprovenance.h"
#include "etrecord/etrecord.h"

#include <fmt/format.h>

namespace etscope {

namespace {
Error cancelled(const std::string &file)
{
    return makeError(ErrorCode::Cancelled, file, "cancelled");
}
} // namespace

Result<std::shared_ptr<const Session>> loadSession(const SessionInputs &inputs, const ProgressFn &progress)
{
    return loadSession(inputs, SessionSources {}, progress);
}

Result<std::shared_ptr<const Session>> loadSession(
    const SessionInputs &inputs, const SessionSources &sources, const ProgressFn &progress)
{
    auto report = [&](int permille, const char *stage) { return !progress || progress(permille, stage); };
    auto session = std::make_shared<Session>();
    session->inputs = inputs;

    if (!report(0, "reading ETDump"))
        return cancelled(inputs.etdump);
    auto etdump = sources.etdumpBytes ? readETDump(*sources.etdumpBytes) : readETDump(inputs.etdump);
    if (!etdump)
        return etdump.error();
    session->etdump = etdump.value();

    if (!inputs.debugBuffer.empty()) {
        if (!report(400, "mapping debug buffer"))
            return cancelled(inputs.debugBuffer);
        auto buffer = DebugBuffer::open(inputs.debugBuffer);
        if (!buffer)
            return buffer.error();
        // A debug buffer has no header to sniff: judge it against the tensors the ETDump logged
        // (bufferprovenance.h). Refuse a clear mismatch now rather than show a fake numeric bug.
        auto judged = judgeDebugBuffer(*session->etdump, **buffer);
        if (!judged)
            return makeError(ErrorCode::InvalidArgument, inputs.debugBuffer,
                fmt::format("not the debug buffer of {}: {}", inputs.etdump, judged.error().reason));
        if (judged->verdict == BufferProvenance::Verdict::Mismatch)
            return makeError(ErrorCode::InvalidArgument, inputs.debugBuffer,
                fmt::format("not the debug buffer of {}: {}", inputs.etdump, judged->reason()));
        if (judged->verdict == BufferProvenance::Verdict::Doubtful)
            session->warnings.push_back(fmt::format(
                "{}: probably not the debug buffer of {}: {}", inputs.debugBuffer, inputs.etdump, judged->reason()));
        if (judged->loggedTensors == 0)
            session->warnings.push_back(fmt::format(
                "{}: {} logs no tensors, so the debug buffer is not used", inputs.debugBuffer, inputs.etdump));
        session->debugBuffer = buffer.value();
    }

    if (!report(500, "building event blocks"))
        return cancelled(inputs.etdump);
    InspectorOptions options;
    options.time = inputs.time;
    options.debugBuffer = session->debugBuffer.get();
    options.delegateTimeConverter = sources.delegateTimeConverter;
    auto blocks = buildEventBlocks(*session->etdump, options);
    if (!blocks)
        return blocks.error();
    session->blocks = std::move(blocks.value());
    for (const EventBlock &b : session->blocks)
        for (const std::string &w : b.warnings)
            session->warnings.push_back(fmt::format("{}: block '{}': {}", inputs.etdump, b.name, w));

    if (!inputs.etrecord.empty() || sources.etrecord) {
        if (!report(800, "reading ETRecord"))
            return cancelled(inputs.etrecord);
        auto record = sources.etrecord ? Result<std::shared_ptr<const ETRecord>>(sources.etrecord)
                                       : readETRecord(inputs.etrecord);
        if (!record)
            return record.error();
        session->etrecord = record.value();
        for (const std::string &w : (*record)->warnings())
            session->warnings.push_back(w);
        if (!report(900, "linking ETRecord"))
            return cancelled(inputs.etrecord);
        auto linked = linkETRecord(session->blocks, **record, inputs.link);
        if (!linked)
            return linked.error();
        for (const std::string &w : linked->warnings)
            session->warnings.push_back(w);
    }

    report(1000, "done");
    return std::shared_ptr<const Session>(std::move(session));
}

} // namespace etscope
