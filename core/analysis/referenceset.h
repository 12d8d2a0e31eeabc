#pragma once

#include "analysis/numtensor.h"
#include "bundled/bundledprogram.h"
#include "common/error.h"
#include "events/event.h"
#include "session/session.h"

#include <cstdint>
#include <string>
#include <vector>

namespace etscope::analysis {

// One operator's logged outputs, from the runtime under test or from a reference. For ETDump
// sources `outputs` is the event's debug_data (one NumValue per logged Value, TensorLists kept
// as lists); for an AOT source it is the single value stored under the debug handle key.
struct OpOutputs {
    int blockIndex = -1; // event position in its Session (-1 for AOT entries)
    int eventIndex = -1;
    std::int32_t instructionId = -1;
    std::int64_t chainIndex = 0;
    int occurrence = 0; // n-th event with the same (chain, instruction) in the block
    std::vector<std::int64_t> debugHandles; // as a tuple; merged keys after §8 step 5
    std::vector<std::string> ops; // event name(s) / AOT op names
    std::vector<NumValue> outputs;
    int numOutputs = 1;
    bool delegated = false;
    std::string backend; // delegate backend, or "" for portable kernels
    std::vector<LinkedNode> stack; // stack traces of the linked graph nodes
    // Reference entries only: why the value is missing ("no reference (needs aten.foo)"), or
    // what a reader should know about it (isolated mode: inputs without a runtime value).
    std::string note;
};

// Where reference numbers come from. Each source yields intermediates keyed either by
// instruction (second ETDump without ETRecord) or by debug handle (ETRecord-linked ETDump,
// AOT outputs file), and/or final outputs.
struct ReferenceSet {
    std::string description;
    bool keyedByHandle = false;
    std::vector<OpOutputs> intermediates;
    std::vector<NumValue> finalOutputs; // program outputs, in order
    bool isolated = false; // each op fed the runtime's inputs (its own error only)
};

// A second ETDump (+ debug buffer) of the same program: every non-framework, non-OPERATOR_CALL
// event with debug data, in execution order. When the session's events carry debug handles
// (an ETRecord was linked) the entries are collected and merged like the Inspector's runtime
// side (§8 steps 4-5) and the set is keyed by handle. Final outputs: the run outputs of the
// last block that has any.
Result<ReferenceSet> referenceFromSession(const Session &s);

// The runtime side of the comparison, same rules (exposed for the gap table and tests).
Result<std::vector<OpOutputs>> collectByInstruction(const Session &s);
Result<std::vector<OpOutputs>> collectByHandle(const Session &s, std::vector<std::string> *warnings = nullptr);
bool sessionHasHandles(const Session &s);

// The expected outputs of one bundled test case as final outputs. testCase < 0 counts from the
// end like a Python index: the runtime records bundled_input_index -1, so the Inspector's
// default is the last case (-1).
Result<ReferenceSet> referenceFromBundled(
    const BundledProgram &bp, int testCase = -1, const std::string &method = "forward");

NumValue toNumValue(const BundledValue &v);

// Program outputs of one block of a session (blockIndex < 0: the last block with outputs).
Result<std::vector<NumValue>> sessionRunOutputs(const Session &s, int blockIndex = -1);

// An AOT intermediate outputs file: a torch.save'd dict whose keys are a debug handle (int) or
// a tuple of ints, and whose values are a tensor or a list/tuple of tensors, e.g.
//   torch.save({(1,): conv_out, (2,): relu_out, (3, 4): [values, indices]}, "aot.pt")
// Entries keep the dict order. Other key/value types are rejected with a typed error.
Result<ReferenceSet> referenceFromAotOutputs(const std::string &path);

// ETRecord `reference_outputs` ({method: [test case → list of output tensors]}) as final
// outputs; testCase < 0 counts from the end (Inspector default: -1, the last).
Result<ReferenceSet> referenceFromETRecord(
    const std::string &path, int testCase = -1, const std::string &method = "forward");

} // namespace etscope::analysis

namespace etscope::analysis {

// What the user named as reference (CLI options / GUI dialog). Exactly one source is used,
// in this priority: reference ETDump, AOT outputs, BundledProgram, ETRecord reference_outputs.
struct ReferenceInputs {
    std::string etdump, debugBuffer, etrecord; // second run (etrecord: links it by debug handle)
    std::string aotOutputs;
    std::string bundledProgram;
    std::string etrecordOutputs; // ETRecord whose reference_outputs to use
    int testCase = -1; // bundled test case; -1 = last (Inspector default)
};
bool hasReference(const ReferenceInputs &in);
Result<ReferenceSet> loadReference(const ReferenceInputs &in);

} // namespace etscope::analysis
