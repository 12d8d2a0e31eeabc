#pragma once

#include "analysis/numtensor.h"
#include "common/error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace etscope::analysis {

enum class Metric { MSE, L1, SNR, Cosine, MaxAbs, MaxRel };

// Which way a metric gets worse: MSE grows with error, SNR and cosine similarity shrink.
enum class Direction { HigherIsWorse, LowerIsWorse };

// Two equally long element sequences to compare, plus `a` before broadcasting (SNR takes its
// signal power over the reference's own elements). Elements are float32 or double; the
// comparators accumulate in double either way.
struct DenseView {
    const float *f32 = nullptr;
    const double *f64 = nullptr;
    std::int64_t n = 0;
};
struct ElementPair {
    DenseView a, b; // same length (broadcast already applied)
    DenseView aOwn; // a's own elements
};

// One metric. Implementations compute over whole tensors with Eigen expressions; the only
// virtual call is per tensor pair, never per element. Add a metric = add one subclass and a
// case in makeComparator().
class Comparator
{
public:
    virtual ~Comparator() = default;
    virtual Metric metric() const = 0;
    virtual const char *name() const = 0; // "MSE", "L1", "SNR", "COSINE", "MAXABS", "MAXREL"
    virtual Direction direction() const = 0;
    // Contract: the result is NaN whenever an input element is NaN (true for sums and for
    // maxCoeff<PropagateNaN>); compareTensors relies on it to skip the NaN scan.
    virtual double compute(const ElementPair &p) const = 0;
};

std::unique_ptr<Comparator> makeComparator(Metric m);
// Case-insensitive "MSE", "L1", "SNR", "COSINE", "MAXABS", "MAXREL".
std::optional<Metric> parseMetric(const std::string &name);
const char *metricName(Metric m);

// The Inspector's per-tensor comparison (§9): converted to double, nan_to_num applied to a side
// only when it contains a NaN, shapes broadcast (error when they do not). `a` = reference.
Result<double> compareTensors(const Comparator &c, const NumTensor &a, const NumTensor &b);
// List reduction (§9): two lists of equal length → one gap per pair; two tensors → one gap;
// a list on one side only, or lists of different lengths → error.
Result<std::vector<double>> compareValues(const Comparator &c, const NumValue &a, const NumValue &b);

// True when `gap` is worse than `threshold` in the metric's direction. NaN is never flagged
// (SNR of two all-zero tensors is NaN and means "identical").
bool exceedsThreshold(Direction d, double gap, double threshold);
// Sort key: larger = worse. NaN sorts as least bad.
double badness(Direction d, double gap);

// Numpy-style broadcast of two shapes; nullopt when not broadcastable.
std::optional<std::vector<std::int64_t>> broadcastShape(
    const std::vector<std::int64_t> &a, const std::vector<std::int64_t> &b);

} // namespace etscope::analysis
