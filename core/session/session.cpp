#include "session/session.h"

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
        // A debug buffer has no header to sniff: it belongs to this ETDump only if every tensor
        // the ETDump logged lies inside it. Refuse it now rather than show garbage or cut-off
        // reads later (a file of random bytes, another run's buffer, a truncated copy).
        std::size_t tensors = 0;
        for (const RunData &run : session->etdump->runs)
            for (const DebugEventRecord &d : run.debugEvents)
                for (const TensorRef &t : d.value.tensors) {
                    if (t.offset < 0)
                        continue; // zero-size tensor, nothing in the buffer
                    ++tensors;
                    if (auto span = (*buffer)->bytes(t); !span)
                        return makeError(ErrorCode::InvalidArgument, inputs.debugBuffer,
                            fmt::format("not the debug buffer of {}: {}", inputs.etdump, span.error().reason));
                }
        if (tensors == 0)
            session->warnings.push_back(fmt::format(
                "{}: {} logs no tensors, so the debug buffer is not used", inputs.debugBuffer, inputs.etdump));
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
        if (!report(800, "reading ETRecord"))
            return cancelled(inputs.etrecord);
        auto record = readETRecord(inputs.etrecord);
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
