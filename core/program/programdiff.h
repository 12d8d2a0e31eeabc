#pragma once

// Two builds of one model compared (etscope-cli program-diff): size per part, operators that
// run on portable kernels vs inside delegates (added, removed, moved into or out of a
// delegate), delegates per backend (added, removed, split, merged), constants changed by
// content hash, memory-plan peak per method, inputs/outputs changed. Two programs of
// different models are refused with the reason: they share no method whose inputs have the
// same shapes.

#include "program/program.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace etscope {

struct ProgramDiffCount {
    std::string name;
    std::int64_t a = 0, b = 0;
};

struct ProgramMethodDiff {
    std::string name;
    bool inA = false, inB = false;
    // "float32[1, 64]" per input/output, in order.
    std::vector<std::string> inputsA, inputsB, outputsA, outputsB;
    std::uint64_t peakA = 0, peakB = 0; // memory plan peak live bytes
    std::uint64_t plannedA = 0, plannedB = 0; // arena bytes
    // Portable operators (KernelCall labels) with their counts in A and B, where they differ.
    std::vector<ProgramDiffCount> portableOps;
    // Delegated node ops ("XNNPACK:FullyConnected") with their counts, where they differ.
    std::vector<ProgramDiffCount> delegatedOps;
    // Delegate calls per backend id, where they differ.
    std::vector<ProgramDiffCount> delegates;
    // Lines such as "aten::linear moved into a delegate: portable 2 -> 0, XNNPACK FullyConnected 0 -> 2"
    // and "XnnpackBackend split: 1 -> 2 delegates (nodes 8 -> 8)".
    std::vector<std::string> notes;
};

struct ProgramDiff {
    std::string fileA, fileB;
    bool comparable = false;
    std::string refusal; // why not, when !comparable
    std::uint64_t bytesA = 0, bytesB = 0;
    std::vector<ProgramDiffCount> sizeParts; // top-level size categories (programsize.h)
    // Constants by content (64-bit FNV-1a of the bytes): same, only in A, only in B.
    std::size_t constantsSame = 0, constantsOnlyA = 0, constantsOnlyB = 0;
    std::uint64_t constantBytesOnlyA = 0, constantBytesOnlyB = 0;
    std::vector<ProgramMethodDiff> methods;

    double growthPercent() const { return bytesA ? 100.0 * (double(bytesB) - double(bytesA)) / double(bytesA) : 0.0; }
};

ProgramDiff diffPrograms(const Program &a, const Program &b);

std::string programDiffText(const ProgramDiff &d);
// {"a", "b", "comparable", "refusal"?, "file_bytes": {"a", "b", "growth_percent"}, "size_parts":
// [{"name", "a", "b"}], "constants": {"same", "only_a", "only_b", "bytes_only_a", "bytes_only_b"},
// "methods": [{"name", "in_a", "in_b", "inputs": {"a", "b"}, "outputs": {"a", "b"},
// "peak_live_bytes": {"a", "b"}, "planned_bytes": {"a", "b"}, "portable_ops", "delegated_ops",
// "delegates": [{"name", "a", "b"}], "notes"}]}
std::string programDiffJson(const ProgramDiff &d);

} // namespace etscope
