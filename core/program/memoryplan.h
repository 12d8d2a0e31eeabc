#pragma once

// The memory plan of one method: where every planned tensor lives, when it is live, and what
// the plan costs. Lifetimes are instruction indices of chain 0 in execution order.

#include "program/program.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace etscope {

struct ETDumpFile;

struct PlannedTensor {
    std::int32_t value = -1; // index into the method's values
    std::uint32_t arena = 0;
    std::uint64_t offset = 0;
    std::uint64_t nbytes = 0;
    // First instruction that touches it (0 for inputs) .. last one (the end for outputs); both
    // widened over any JumpFalse loop they overlap. -1/-1 when nothing uses it.
    std::int32_t first = -1;
    std::int32_t last = -1;
    bool isInput = false;
    bool isOutput = false;
    bool sharesMemory = false; // its bytes overlap another planned tensor's
    bool couldShare = false; // shares nothing although a tensor of its arena is never live with it
    bool external = false; // a mutable buffer whose initial data is in a .ptd
    ProgramDevice device; // extra_tensor_info.device_type/index (CPU unless the program says otherwise)

    bool isLive(std::int64_t instruction) const { return first >= 0 && first <= instruction && instruction <= last; }
};

struct ArenaUsage {
    std::uint32_t id = 0; // memory id as in the program
    std::uint64_t size = 0; // non_const_buffer_sizes[id]
    std::uint64_t peakLiveBytes = 0;
    std::int32_t peakInstruction = -1;
    std::uint64_t wastedBytes = 0; // size − peak live bytes
    ProgramDevice device; // non_const_buffer_device (CPU unless the program says otherwise)
};

// A backward JumpFalse: instructions [begin, end] may run repeatedly.
struct ProgramLoop {
    std::int32_t begin = 0, end = 0;
};

struct MemoryPlan {
    std::string method;
    std::size_t instructionCount = 0;
    std::vector<ArenaUsage> arenas; // planned arenas (ids ≥ 1), in id order
    std::vector<PlannedTensor> tensors; // by value index
    std::vector<ProgramLoop> loops; // merged, sorted
    std::vector<std::uint64_t> liveBytes; // per instruction, all arenas
    std::uint64_t plannedBytes = 0; // sum of the arena sizes
    std::uint64_t peakLiveBytes = 0;
    std::int32_t peakInstruction = -1;
    std::vector<std::size_t> liveAtPeak; // indices into tensors, by value index
    std::uint64_t wastedBytes = 0; // plannedBytes − peakLiveBytes
    std::size_t sharingTensors = 0; // tensors whose bytes overlap another's (buffer reuse)
    std::size_t couldShareTensors = 0;
    std::size_t unplannedTensors = 0; // non-constant tensors given memory at run time
    std::size_t constantTensors = 0; // in the program or (external ones) in a .ptd
    std::size_t externalTensors = 0; // distinct names whose data is in a .ptd (constants and mutable buffers)
    std::uint64_t externalBytes = 0; // their bytes, from the program's sizes × dtype

    const PlannedTensor *tensorOfValue(std::int32_t value) const;
};

MemoryPlan analyzeMemoryPlan(const ProgramMethod &method);

// Allocation events an ETDump recorded, per allocator of each run that has any.
struct AllocatorUsage {
    std::size_t run = 0;
    std::string runName;
    std::string allocator;
    std::uint64_t count = 0;
    std::uint64_t totalBytes = 0;
    std::uint64_t largestBytes = 0;
};
std::vector<AllocatorUsage> allocatorUsage(const ETDumpFile &etdump);

// Whether an ETDump was recorded from a method of this program: every operator-level event's
// instruction id exists, and its kernel name (native_call_<op>.<overload>, DELEGATE_CALL, …)
// names the instruction there.
struct ProgramPairing {
    const ProgramMethod *method = nullptr; // the method that matches, or null
    std::size_t checkedEvents = 0;
    std::string reason; // why not, when method is null
};
ProgramPairing pairProgramWithETDump(const Program &program, const ETDumpFile &etdump);

// What the program says about one instruction, as (label, value) lines for a details view:
// kind, operator and overload (or delegate backend), each argument with its dtype, shape and
// place in memory.
std::vector<std::pair<std::string, std::string>> instructionDetails(
    const ProgramMethod &method, std::size_t instruction);

} // namespace etscope
