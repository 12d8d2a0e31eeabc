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
#include <span>
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
    std::vector<double> runMaxAbs; // per run: its max |a − b| against the majority (0: equal to it)
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

// Where one logged tensor varies, as a grid over its last two dimensions (leading dimensions
// folded: cell (r, c) stands for every element [..., r, c]); a tensor larger than `maxSide` rows
// or columns is pooled into cells of cellRows × cellCols elements so that the grid is at most
// maxSide × maxSide. A cell's count is the number of runs in which some element of the cell
// differs from the majority result (the report's reference run): with no pooling and no leading
// dimensions, the per-element count of runs that differ.
struct VaryingMap {
    std::size_t position = 0;
    std::int64_t rows = 1, cols = 1; // the tensor's last two dimensions (a 1-D tensor is one row)
    std::int64_t leading = 1; // slices folded onto one rows × cols plane (product of the other dims)
    std::int64_t cellRows = 1, cellCols = 1; // elements per cell along each side (1: not pooled)
    std::int64_t gridRows = 0, gridCols = 0;
    std::vector<std::uint32_t> counts; // gridRows × gridCols, row-major
    std::uint32_t maxCount = 0;
    std::size_t runs = 0, runsDiffer = 0;
    bool pooled() const { return cellRows > 1 || cellCols > 1; }
    std::uint32_t at(std::int64_t r, std::int64_t c) const
    {
        return counts[static_cast<std::size_t>(r * gridCols + c)];
    }
};

constexpr std::int64_t kVaryingMapMaxSide = 512;

// The grid of one tensor from its bytes: `reference` and each of `differing` hold the dense
// row-major elements of `dtype` and `sizes`, elements compared as bytes. `runs` is the number of
// runs in all (for the caption).
Result<VaryingMap> varyingMap(ScalarType dtype, const std::vector<std::int64_t> &sizes,
    std::span<const std::uint8_t> reference, const std::vector<std::span<const std::uint8_t>> &differing,
    std::int64_t maxSide = kVaryingMapMaxSide);

// The grid of the tensor at `position` of a report that analyzeDeterminism made from `inputs`.
Result<VaryingMap> determinismMap(const std::vector<DeterminismInput> &inputs, const DeterminismReport &report,
    std::size_t position, std::int64_t maxSide = kVaryingMapMaxSide);

// "64×64 elements, each cell one element; 3 runs differ" / "… pooled into 8×8-element cells (max)".
std::string varyingMapCaption(const VaryingMap &map);

// "deterministic: all 33 logged tensors are bit-exact over 20 runs", "deterministic within 3 bits:
// …", or "op #5 (native_call_gelu.out) varies on runs 3, 7, 19 in a 32×64 tile (rows 0–31, cols
// 0–63 of 64×64)".
std::string determinismSentence(const DeterminismReport &report);
std::string determinismText(const DeterminismReport &report);
std::string determinismJson(const DeterminismReport &report);

} // namespace etscope
