#include "session/session.h"

#include "bundled/bundledprogram.h"
#include "etdump/bufferprovenance.h"
#include "etrecord/etrecord.h"
#include "program/flattensor.h"
#include "program/memoryplan.h"
#include "program/runattribution.h"
#include "session/runtable.h"

#include <fmt/format.h>

#include <algorithm>

namespace etscope {

namespace {
Error cancelled(const std::string &file)
{
    return makeError(ErrorCode::Cancelled, file, "cancelled");
}

void warn(Session &s, SessionWarningKind kind, std::string text)
{
    s.warnings.emplace_back(kind, std::move(text));
}

// A companion that cannot be used: an error for the CLI, a warning (and the companion left out of
// the session's inputs) for interactive use.
Status dropOrFail(Session &s, std::string &input, const Error &error)
{
    if (!s.inputs.dropUnpairable)
        return error;
    warn(s, SessionWarningKind::Dropped, fmt::format("left out {}", error.message()));
    input.clear();
    return Ok {};
}

// Reads the debug buffer and judges it against the ETDump (bufferprovenance.h): a clear
// mismatch is refused rather than shown as a fake numeric bug.
Status loadDebugBuffer(Session &s)
{
    const std::string path = s.inputs.debugBuffer;
    auto buffer = DebugBuffer::open(path);
    if (!buffer)
        return dropOrFail(s, s.inputs.debugBuffer, buffer.error());
    auto judged = judgeDebugBuffer(*s.etdump, **buffer);
    if (!judged || judged->verdict == BufferProvenance::Verdict::Mismatch)
        return dropOrFail(s, s.inputs.debugBuffer,
            makeError(ErrorCode::InvalidArgument, path,
                fmt::format("not the debug buffer of {}: {}", s.inputs.etdump,
                    judged ? judged->reason() : judged.error().reason)));
    if (judged->verdict == BufferProvenance::Verdict::Doubtful)
        warn(s, SessionWarningKind::SuspectDebugBuffer,
            fmt::format("{}: probably not the debug buffer of {}: {}", path, s.inputs.etdump, judged->reason()));
    if (judged->loggedTensors == 0)
        warn(s, SessionWarningKind::UnusedDebugBuffer,
            fmt::format("{}: {} logs no tensors, so the debug buffer is not used", path, s.inputs.etdump));
    s.debugBuffer = buffer.value();
    return Ok {};
}

// Reads the program (the .pte, else the BundledProgram's) and chooses the method to show: the one
// the ETDump's events match, else the one asked for, else the first.
// `alone`: the program is all the session has, so failing to read it fails the load.
Status loadProgram(Session &s, bool alone)
{
    const bool fromBundled = s.inputs.program.empty();
    std::string &input = fromBundled ? s.inputs.bundledProgram : s.inputs.program;
    auto program = Program::openAny(input);
    if (!program) {
        if (fromBundled) // the BundledProgram still serves its test cases to the numeric gap
            return Ok {};
        return alone ? Status(program.error()) : dropOrFail(s, input, program.error());
    }
    if (!s.inputs.programData.empty()) {
        // The weights in .ptd files (FlatTensor): paired by names and sizes, as the runtime
        // loads them (flattensor.h). A file that does not belong is left out (or refused).
        auto paired = pairProgramData(*program, s.inputs.programData);
        if (paired) {
            program = paired;
        } else {
            if (!s.inputs.dropUnpairable)
                return paired.error();
            // The weights are left out, not the program: say which files and why.
            std::string files;
            for (const std::string &d : s.inputs.programData)
                files += (files.empty() ? "" : ", ") + d;
            warn(s, SessionWarningKind::Dropped,
                fmt::format("left out {} (does not belong to the program): {}", files, paired.error().message()));
            s.inputs.programData.clear();
        }
    }
    const Program &p = **program;
    const ProgramMethod *asked = s.inputs.method.empty() ? nullptr : p.method(s.inputs.method);
    if (!s.inputs.method.empty() && !asked)
        return makeError(ErrorCode::InvalidArgument, p.path(), fmt::format("no method named '{}'", s.inputs.method));
    if (s.etdump) {
        // Each run to the method whose instructions and kernel names it matches (an ETDump does
        // not say which method ran: LLM programs run prefill and decode methods in turn).
        std::vector<RunAttribution> runs = attributeRuns(s.blocks, p);
        const RecordingFit fit = fitRecording(s.blocks, runs, p);
        // The methods some run executed, in program order (also when other runs fit none).
        std::vector<const ProgramMethod *> ran;
        for (const ProgramMethod &m : p.methods())
            if (std::any_of(runs.begin(), runs.end(), [&m](const RunAttribution &a) { return a.fits(m.name()); }))
                ran.push_back(&m);
        if (ran.empty()) {
            // One method that does not fit says its first mismatch, as `etscope-cli memory` does.
            const std::string reason
                = p.methods().size() == 1 ? pairProgramWithETDump(p, *s.etdump).reason : fit.reason;
            const std::string why = fmt::format("{}: program does not match {}: {}", p.path(), s.etdump->path, reason);
            if (fromBundled) // a BundledProgram's program is a companion of its test cases, not a claim
                return Ok {};
            if (!s.inputs.dropUnpairable)
                return makeError(ErrorCode::InvalidArgument, p.path(),
                    fmt::format("program does not match {}: {}", s.etdump->path, reason));
            warn(s, SessionWarningKind::ProgramMismatch, why);
            input.clear();
            return Ok {};
        }
        if (!fit.fits) // some runs fit, others not: pair, and say which run does not
            warn(s, SessionWarningKind::General,
                fmt::format(
                    "{}: some runs of {} match no method of the program: {}", p.path(), s.etdump->path, fit.reason));
        s.method = asked ? asked : ran.front();
        s.methodPairedWithETDump = std::find(ran.begin(), ran.end(), s.method) != ran.end();
        s.runMethods = std::move(runs);
    } else {
        s.method = asked ? asked : (p.methods().empty() ? nullptr : &p.methods().front());
    }
    s.program = program.value();
    return Ok {};
}
} // namespace

bool Session::hasWarning(SessionWarningKind kind) const
{
    for (const SessionWarning &w : warnings)
        if (w.kind == kind)
            return true;
    return false;
}

std::vector<std::string> Session::warningsOf(SessionWarningKind kind) const
{
    std::vector<std::string> out;
    for (const SessionWarning &w : warnings)
        if (w.kind == kind)
            out.push_back(w);
    return out;
}

std::optional<std::size_t> Session::instructionOfEvent(int block, int event) const
{
    if (!method || !methodPairedWithETDump || block < 0 || event < 0 || std::size_t(block) >= blocks.size())
        return std::nullopt;
    const auto &events = blocks[std::size_t(block)].events;
    if (std::size_t(event) >= events.size())
        return std::nullopt;
    const Event &ev = events[std::size_t(event)];
    if (ev.chainIndex != 0 || ev.instructionId < 0 || ev.isFramework()
        || std::size_t(ev.instructionId) >= method->instructionCount())
        return std::nullopt;
    // A run of another method: its instruction ids are that method's.
    if (std::size_t(block) < runMethods.size() && runMethods[std::size_t(block)].kind == RunAttribution::Kind::Matched
        && runMethods[std::size_t(block)].method != method)
        return std::nullopt;
    return std::size_t(ev.instructionId);
}

const ProgramMethod *Session::methodOfBlock(std::size_t block) const
{
    if (!program)
        return nullptr;
    if (block < runMethods.size()) {
        const RunAttribution &a = runMethods[block];
        if (a.kind == RunAttribution::Kind::Matched)
            return a.method;
        if (a.kind == RunAttribution::Kind::NoMatch)
            return nullptr; // its ids are no method's
        if (a.kind == RunAttribution::Kind::Ambiguous
            && std::find(a.candidates.begin(), a.candidates.end(), method) == a.candidates.end())
            return nullptr;
    }
    return methodPairedWithETDump ? method : nullptr;
}

PayloadEventLinks payloadEventLinks(
    const Session &session, const BackendEventTable &table, std::optional<std::size_t> onlyBlock)
{
    if (!session.program)
        return {};
    return linkPayloadEvents(
        session.blocks, table, [&session](std::size_t block) { return session.methodOfBlock(block); }, onlyBlock);
}

std::optional<PayloadNodeRef> payloadNodeRef(const PayloadEventLinks &links, std::size_t block, std::size_t event)
{
    const PayloadEventLink *l = links.find(block, event);
    const DelegatePayload *p = l ? links.payload(*l) : nullptr;
    if (!p)
        return std::nullopt;
    PayloadNodeRef r;
    r.delegate = l->delegate;
    r.node = l->node;
    r.op = p->nodes[std::size_t(l->node)].op;
    r.label = links.nodeLabel(*l);
    r.placedBy = payloadLinkBasisName(l->basis);
    r.details = links.describe(*l);
    return r;
}

std::optional<EventPosition> Session::eventOfInstruction(std::size_t instruction) const
{
    if (!method || !methodPairedWithETDump)
        return std::nullopt;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        if (b < runMethods.size() && runMethods[b].kind == RunAttribution::Kind::Matched
            && runMethods[b].method != method)
            continue; // runs of another method
        const auto &events = blocks[b].events;
        for (std::size_t e = 0; e < events.size(); ++e) {
            const Event &ev = events[e];
            if (ev.chainIndex == 0 && ev.instructionId == std::int64_t(instruction) && !ev.isFramework()
                && !ev.isDelegatedOp)
                return EventPosition { int(b), int(e) };
        }
    }
    return std::nullopt;
}

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
    Session &s = *session;

    if (inputs.etdump.empty() && !sources.etdumpBytes) {
        // A program opened alone: its methods, plan and instructions, no events.
        if (inputs.program.empty())
            return makeError(ErrorCode::InvalidArgument,
                inputs.programData.empty() ? inputs.bundledProgram : inputs.programData.front(),
                inputs.programData.empty() ? "no ETDump and no program to show"
                                           : "program data (.ptd) needs its program (.pte)");
        if (auto st = loadProgram(s, true); !st)
            return st.error();
        report(1000, "done");
        return std::shared_ptr<const Session>(std::move(session));
    }

    if (!report(0, "reading ETDump"))
        return cancelled(inputs.etdump);
    auto etdump = sources.etdumpBytes ? readETDump(*sources.etdumpBytes) : readETDump(inputs.etdump);
    if (!etdump)
        return etdump.error();
    s.etdump = etdump.value();

    if (!inputs.debugBuffer.empty()) {
        if (!report(400, "mapping debug buffer"))
            return cancelled(inputs.debugBuffer);
        if (auto st = loadDebugBuffer(s); !st)
            return st.error();
    }

    if (!report(500, "building event blocks"))
        return cancelled(inputs.etdump);
    InspectorOptions options;
    options.time = inputs.time;
    options.debugBuffer = s.debugBuffer.get();
    options.delegateTimeConverter = sources.delegateTimeConverter;
    auto blocks = buildEventBlocks(*s.etdump, options);
    if (!blocks)
        return blocks.error();
    s.blocks = std::move(blocks.value());
    for (const EventBlock &b : s.blocks)
        for (const std::string &w : b.warnings)
            warn(s, SessionWarningKind::General, fmt::format("{}: block '{}': {}", inputs.etdump, b.name, w));

    if (!inputs.etrecord.empty() || sources.etrecord) {
        if (!report(800, "reading ETRecord"))
            return cancelled(inputs.etrecord);
        auto record = sources.etrecord ? Result<std::shared_ptr<const ETRecord>>(sources.etrecord)
                                       : readETRecord(inputs.etrecord);
        if (!record) {
            if (auto st = dropOrFail(s, s.inputs.etrecord, record.error()); !st)
                return st.error();
        } else {
            s.etrecord = record.value();
            for (const std::string &w : (*record)->warnings())
                warn(s, SessionWarningKind::General, w);
            if (!report(900, "linking ETRecord"))
                return cancelled(inputs.etrecord);
            auto linked = linkETRecord(s.blocks, **record, inputs.link);
            if (!linked)
                return linked.error();
            for (std::size_t i = 0; i < linked->warnings.size(); ++i)
                // The linker puts its mismatch verdict first.
                warn(s, i == 0 && linked->mismatch ? SessionWarningKind::ETRecordMismatch : SessionWarningKind::General,
                    linked->warnings[i]);
        }
    }

    if (!inputs.program.empty() || !inputs.bundledProgram.empty()) {
        if (!report(950, "reading program"))
            return cancelled(inputs.program);
        if (auto st = loadProgram(s, false); !st)
            return st.error();
    }

    // Each run's method (above) and phase, decided once.
    s.runTable = buildRunTable(s.blocks, s.runMethods, inputs.phases);

    report(1000, "done");
    return std::shared_ptr<const Session>(std::move(session));
}

} // namespace etscope
