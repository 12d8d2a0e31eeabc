#pragma once

// Text, JSON, TSV and SVG renderings of a program and its memory plan (etscope-cli `program`
// and `memory`; the app's exports use the same functions).

#include "program/memoryplan.h"
#include "program/program.h"

#include <string>
#include <vector>

namespace etscope {

std::string programText(const Program &program);
// {"file", "version", "constants": {...}, "segments": [...], "methods": [{"name", "inputs",
// "outputs", "values", "instructions": [{"index", "kind", "operator", "args"}], "operators",
// "delegates", "arenas"}]}
std::string programJson(const Program &program);

struct MemoryReport {
    const Program *program = nullptr;
    std::vector<const ProgramMethod *> methods;
    std::vector<MemoryPlan> plans; // one per method
    std::string etdumpPath; // empty without an ETDump
    std::vector<AllocatorUsage> allocations;
};

std::string memoryText(const MemoryReport &report);
// {"file", "methods": [{"name", "arenas": [{"id", "size", "peak_live_bytes", …}], "tensors":
// [{"value", "arena", "offset", "nbytes", "first", "last", …}], "live_bytes", "peak_live_bytes",
// "peak_instruction", "live_at_peak", "wasted_bytes", …}], "constants", "delegates",
// "allocations"}
std::string memoryJson(const MemoryReport &report);
// One row per planned tensor of one method.
std::string memoryTsv(const ProgramMethod &method, const MemoryPlan &plan);
// The plan as a picture: x = instruction, y = offset in the arena, one rectangle per tensor
// coloured by the operator that first touches it, the live bytes as a line.
std::string memorySvg(const ProgramMethod &method, const MemoryPlan &plan);

// Operator (or delegate backend, or kind) of the instruction that first touches a tensor.
std::string producerLabel(const ProgramMethod &method, const PlannedTensor &t);

} // namespace etscope
