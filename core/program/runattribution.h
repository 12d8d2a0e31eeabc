#pragma once

// Which method of a program each `Execute` run of an ETDump executed. An ETDump does not say:
// its run_data blocks are all named "Execute". A run is attributed to a method when every one of
// its operator-level events fits that method's instructions (the same rule that pairs a program
// with an ETDump, instructionMismatch below).

#include "events/event.h"
#include "program/program.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace etscope {

// Why one operator-level profile event (chain ≥ 0) does not fit `method`, or empty when it
// does: its instruction id must exist in the method's chain 0, and its kind must be the
// instruction's — native_call_<op>.<overload> and OPERATOR_CALL a KernelCall calling that
// operator, DELEGATE_CALL and delegate events (`delegated`) a DelegateCall, JF_CALL / MOVE_CALL /
// FREE_CALL their instructions. Other names are checked by instruction id only.
std::string instructionMismatch(const ProgramMethod &method, std::string_view name, std::int64_t chainIndex,
    std::int32_t instructionId, bool delegated);

// The method a group of runs (one EventBlock: its runs share every event) was attributed to.
struct RunAttribution {
    enum class Kind {
        Matched, // exactly one method fits: `method`
        Ambiguous, // several fit (`candidates`): the events cannot tell them apart
        NoMatch, // none fits; `reason` says why the first method does not
        NoEvents, // the runs hold no operator-level profile event to compare (or no program)
    };
    Kind kind = Kind::NoEvents;
    const ProgramMethod *method = nullptr; // Matched only
    std::vector<const ProgramMethod *> candidates; // every method that fits (Matched: just `method`)
    std::size_t checkedEvents = 0; // operator-level events compared
    std::string reason; // NoMatch: the first method's mismatch

    // "prefill_forward"; "ambiguous: a, b"; "no method matches"; "no operator events".
    std::string label() const;
    // Whether `name` fits these runs: the matched method, or one of the ambiguous candidates.
    bool fits(std::string_view name) const;
};

// One attribution per block, in block order. Blocks that executed no method (the load-time
// "Default" block) come out NoEvents like any block without operator events.
std::vector<RunAttribution> attributeRuns(const std::vector<EventBlock> &blocks, const Program &program);

// Whether a recording came from a program of several methods (what pairProgramWithETDump asks of
// one method): every block holding operator-level events fits some method.
struct RecordingFit {
    bool fits = false;
    std::string reason; // when not: the first run no method fits ("run_data entry N: <why>"), or "no operator events"
    std::vector<const ProgramMethod *> methods; // methods some run was attributed to, in program order
    std::size_t ambiguousBlocks = 0;
};
RecordingFit fitRecording(
    const std::vector<EventBlock> &blocks, const std::vector<RunAttribution> &attributions, const Program &program);

} // namespace etscope
