#include "program/runattribution.h"

#include "common/printable.h"

#include <fmt/format.h>

namespace etscope {

std::string instructionMismatch(const ProgramMethod &method, std::string_view name, std::int64_t chainIndex,
    std::int32_t instructionId, bool delegated)
{
    const std::size_t n = method.instructionCount();
    if (chainIndex != 0 || instructionId < 0 || std::size_t(instructionId) >= n)
        return fmt::format("event '{}' is at chain {} instruction {} but method '{}' has {} instructions",
            printable(name, 60), chainIndex, instructionId, printable(method.name(), 60), n);
    const ProgramInstruction ins = method.instruction(std::size_t(instructionId));
    auto expect = [&](InstructionKind kind) -> std::string {
        if (ins.kind == kind)
            return {};
        return fmt::format("event '{}' at instruction {} but the program has a {} there ({})", printable(name, 60),
            instructionId, instructionKindName(ins.kind),
            printable(method.instructionLabel(std::size_t(instructionId)), 60));
    };
    if (delegated || name == kDelegateCall)
        return expect(InstructionKind::DelegateCall);
    if (name == kOperatorCall)
        return expect(InstructionKind::KernelCall);
    if (name == "JF_CALL")
        return expect(InstructionKind::JumpFalse);
    if (name == "MOVE_CALL")
        return expect(InstructionKind::Move);
    if (name == "FREE_CALL")
        return expect(InstructionKind::Free);
    constexpr std::string_view kNativeCall = "native_call_";
    if (name.starts_with(kNativeCall)) {
        std::string why = expect(InstructionKind::KernelCall);
        if (!why.empty())
            return why;
        const auto op = std::size_t(ins.operatorIndex);
        if (op >= method.operators().size())
            return fmt::format("instruction {} calls operator {} but method '{}' has {} operators", instructionId,
                ins.operatorIndex, printable(method.name(), 60), method.operators().size());
        const std::string kernel = method.operators()[op].kernelName();
        if (name.substr(kNativeCall.size()) != kernel)
            return fmt::format("kernel '{}' at instruction {} but the program calls {} there", printable(name, 60),
                instructionId, kernel);
    }
    return {};
}

std::string RunAttribution::label() const
{
    switch (kind) {
    case Kind::Matched:
        return method->name();
    case Kind::Ambiguous: {
        std::string s = "ambiguous:";
        for (std::size_t i = 0; i < candidates.size(); ++i)
            s += (i ? ", " : " ") + candidates[i]->name();
        return s;
    }
    case Kind::NoMatch:
        return "no method matches";
    case Kind::NoEvents:
        break;
    }
    return "no operator events";
}

bool RunAttribution::fits(std::string_view name) const
{
    for (const ProgramMethod *m : candidates)
        if (m->name() == name)
            return true;
    return false;
}

std::vector<RunAttribution> attributeRuns(const std::vector<EventBlock> &blocks, const Program &program)
{
    std::vector<RunAttribution> out(blocks.size());
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        RunAttribution &a = out[b];
        for (const ProgramMethod &m : program.methods()) {
            std::size_t checked = 0;
            std::string why;
            for (const Event &e : blocks[b].events) {
                // Profile events only (debug-only rows carry no kernel name), method-level ones
                // (chain -1: Method::execute, …) excepted.
                if (!e.perfData || e.chainIndex < 0)
                    continue;
                why = instructionMismatch(m, e.name, e.chainIndex, e.instructionId, e.isDelegatedOp);
                if (!why.empty())
                    break;
                ++checked;
            }
            if (checked == 0 && why.empty())
                break; // nothing to compare: the same for every method
            if (why.empty()) {
                a.candidates.push_back(&m);
                a.checkedEvents = checked;
            } else if (a.reason.empty())
                a.reason = std::move(why);
        }
        if (a.candidates.size() == 1) {
            a.kind = RunAttribution::Kind::Matched;
            a.method = a.candidates.front();
            a.reason.clear();
        } else if (a.candidates.size() > 1) {
            a.kind = RunAttribution::Kind::Ambiguous;
            a.reason.clear();
        } else if (!a.reason.empty()) {
            a.kind = RunAttribution::Kind::NoMatch;
        }
    }
    return out;
}

RecordingFit fitRecording(
    const std::vector<EventBlock> &blocks, const std::vector<RunAttribution> &attributions, const Program &program)
{
    RecordingFit fit;
    bool any = false;
    std::vector<bool> used(program.methods().size());
    for (std::size_t b = 0; b < blocks.size() && b < attributions.size(); ++b) {
        const RunAttribution &a = attributions[b];
        if (a.kind == RunAttribution::Kind::NoEvents)
            continue;
        any = true;
        if (a.kind == RunAttribution::Kind::NoMatch) {
            fit.reason = fmt::format(
                "run_data entry {}: {}", blocks[b].runIndices.empty() ? 0 : blocks[b].runIndices[0], a.reason);
            fit.methods.clear();
            return fit;
        }
        if (a.kind == RunAttribution::Kind::Ambiguous)
            ++fit.ambiguousBlocks;
        for (const ProgramMethod *m : a.candidates)
            used[std::size_t(m - program.methods().data())] = true;
    }
    if (!any) {
        fit.reason = "the ETDump has no instruction events to compare";
        return fit;
    }
    for (std::size_t i = 0; i < used.size(); ++i)
        if (used[i])
            fit.methods.push_back(&program.methods()[i]);
    fit.fits = true;
    return fit;
}

} // namespace etscope
