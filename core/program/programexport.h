#pragma once

// Text, JSON, TSV and SVG renderings of a program and its memory plan (etscope-cli `program`
// and `memory`; the app's exports use the same functions).

#include "program/memoryplan.h"
#include "program/program.h"

#include <string>
#include <vector>

namespace etscope {

class FlatTensorFile;

std::string programText(const Program &program);
// {"file", "version", "constants": {...}, "segments": [...], "external": {"count", "bytes",
// "mutable_buffers", "delegate_data_names", "delegate_data_bytes", "tensors": [{"name", "dtype", "shape", "nbytes",
// "mutable", "device", "method", "value", "file"?, "segment"?, "offset"?, "data_bytes"?}], "data_files": [...]},
// "methods": [{"name", "inputs", "outputs", "values", "instructions": [{"index", "kind",
// "operator", "args"}], "operators", "delegates", "external_tensors", "external_bytes",
// "arenas": [{"id", "size", "device"}]}]}
// Tensor values carry "device" ("cpu", "cuda:0") and, when their data is in a .ptd, "external".
std::string programJson(const Program &program);

struct MemoryReport {
    const Program *program = nullptr;
    std::vector<const ProgramMethod *> methods;
    std::vector<MemoryPlan> plans; // one per method
    std::string etdumpPath; // empty without an ETDump
    std::vector<AllocatorUsage> allocations;
};

std::string memoryText(const MemoryReport &report);
// {"file", "methods": [{"name", "arenas": [{"id", "size", "peak_live_bytes", …, "device"}],
// "tensors": [{"value", "arena", "offset", "nbytes", "first", "last", …, "device",
// "external"?}], "live_bytes", "peak_live_bytes", "peak_instruction", "live_at_peak",
// "wasted_bytes", …, "external_tensors", "external_bytes"}], "constants", "delegates",
// "external" (as in programJson), "allocations"}
std::string memoryJson(const MemoryReport &report);
// One row per planned tensor of one method.
std::string memoryTsv(const ProgramMethod &method, const MemoryPlan &plan);
// The plan as a picture: x = instruction, y = offset in the arena, one rectangle per tensor
// coloured by the operator that first touches it, the live bytes as a line.
std::string memorySvg(const ProgramMethod &method, const MemoryPlan &plan);

// A .ptd alone: header facts and one line per name.
std::string flatTensorText(const FlatTensorFile &file);
// {"file", "version", "file_bytes", "flatbuffer_offset", "flatbuffer_size", "segment_base",
// "segment_data_bytes", "segment_alignment", "segments": [{"offset", "size"}], "named_data":
// [{"key", "segment", "offset", "size", "dtype"?, "shape"?, "dim_order"?, "nbytes"?}]}
std::string flatTensorJson(const FlatTensorFile &file);

// Operator (or delegate backend, or kind) of the instruction that first touches a tensor.
std::string producerLabel(const ProgramMethod &method, const PlannedTensor &t);

} // namespace etscope
