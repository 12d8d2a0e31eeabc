#pragma once

// Determinism: the same tensors logged over several runs of one program on one input (one
// recording whose debug buffer holds every run's intermediates, or several recordings), compared
// bit for bit. Per logged tensor: how many distinct results, which runs differ from the
// majority, by how much (absolute, relative, in units in the last place), and where in the
// tensor (the bounding tile of the differing elements over its last two dimensions); the first
// operator in program order whose output varies. The rules are in docs/inspector-semantics.md
// ("Determinism").

#include "common/error.h"
#include "etdump/debugbuffer.h"
#include "etdump/etdumpfile.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace etscope {

struct DeterminismInput {
    std::shared_ptr<const ETDumpFile> etdump;
    std::shared_ptr<const DebugBuffer> debugBuffer;
};

// The bounding tile of the differing elements over the tensor's last two dimensions (a 1-D
// tensor is one row): rows [rowBegin, rowEnd), columns [colBegin, colEnd).
struct VaryingRegion {
    std::int64_t rowBegin = 0, rowEnd = 0, colBegin = 0, colEnd = 0;
    std::int64_t rows = 1, cols = 1; // the tensor's last two dimensions
    std::size_t elements = 0; // elements that differ in some run (union over runs)
};

struct TensorDeterminism {
    std::size_t position = 0; // in program order (the first run's order of logged tensors)
    std::int32_t instructionId = -1;
    std::string name; // the operator that logged it ("native_call_convolution.out"), "program output", …
    std::size_t occurrence = 0; // k-th tensor this instruction logged in a run
    bool programOutput = false;
    ScalarType dtype = ScalarType::Float;
    std::vector<std::int64_t> sizes;
    std::size_t runs = 0;
    std::size_t distinct = 0; // distinct bitwise results
    std::size_t referenceRun = 0; // first run of the majority result
    std::vector<std::size_t> runsDiffer; // 0-based, runs whose result is not the majority's
    // Against the majority, over every element of the differing runs (0 when none differ).
    double maxAbs = 0, meanAbs = 0, maxRel = 0, meanRel = 0; // relative: |a − b| / |b| over b ≠ 0
    std::uint64_t maxUlp = 0; // floating types: largest distance in units in the last place
    int bits = 0; // floating types: low mantissa bits that can differ (⌈log2(maxUlp + 1)⌉)
    std::optional<VaryingRegion> region;
    std::vector<std::size_t> earlierVarying; // positions of earlier tensors that vary
    bool varies() const { return distinct > 1; }
};

struct DeterminismReport {
    std::size_t runs = 0;
    std::vector<std::string> runSources; // per run: "file run_data k"
    std::vector<TensorDeterminism> tensors;
    std::optional<std::size_t> firstVarying; // position
    std::vector<std::string> warnings;
};

// Runs: every run_data entry that logged tensors, recording after recording. Runs whose tensors
// do not line up with the first run's (other instructions, shapes or dtypes) are left out with a
// warning. Errors: no run logged tensors, or a tensor lies outside its debug buffer.
Result<DeterminismReport> analyzeDeterminism(const std::vector<DeterminismInput> &inputs);

// "deterministic: all 33 logged tensors are bit-exact over 20 runs", "deterministic within 3 bits:
// …", or "op #5 (native_call_gelu.out) varies on runs 3, 7, 19 in a 32×64 tile (rows 0–31, cols
// 0–63 of 64×64)".
std::string determinismSentence(const DeterminismReport &report);
std::string determinismText(const DeterminismReport &report);
std::string determinismJson(const DeterminismReport &report);

} // namespace etscope
