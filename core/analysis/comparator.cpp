#include "analysis/comparator.h"

#include <Eigen/Core>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

namespace etscope::analysis {

namespace {

using Eigen::ArrayXd;
using Eigen::ArrayXf;
using MapF = Eigen::Map<const ArrayXf>;
using MapD = Eigen::Map<const ArrayXd>;

// Calls f(a, b) with both sides as double-valued Eigen array expressions. Float32 inputs are
// cast lazily inside the expression, so the bulk path never materialises a double copy.
template <typename F> double withArrays(const DenseView &a, const DenseView &b, F &&f)
{
    const Eigen::Index n = a.n;
    if (a.f32 && b.f32)
        return f(MapF(a.f32, n).cast<double>(), MapF(b.f32, n).cast<double>());
    if (a.f32)
        return f(MapF(a.f32, n).cast<double>(), MapD(b.f64, n));
    if (b.f32)
        return f(MapD(a.f64, n), MapF(b.f32, n).cast<double>());
    return f(MapD(a.f64, n), MapD(b.f64, n));
}

template <typename F> double withArray(const DenseView &a, F &&f)
{
    if (a.f32)
        return f(MapF(a.f32, a.n).cast<double>());
    return f(MapD(a.f64, a.n));
}

// Metrics needing several sums walk the data in cache-sized blocks so that each block is read
// from memory once and the further sums hit the cache.
constexpr std::int64_t kBlock = 8192;

DenseView slice(const DenseView &v, std::int64_t off, std::int64_t n)
{
    return DenseView { v.f32 ? v.f32 + off : nullptr, v.f64 ? v.f64 + off : nullptr, n };
}

template <typename F> void forBlocks(const DenseView &a, const DenseView &b, F &&f)
{
    for (std::int64_t off = 0; off < a.n; off += kBlock) {
        const std::int64_t n = std::min(kBlock, a.n - off);
        withArrays(slice(a, off, n), slice(b, off, n), f);
    }
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

double sumSquaredError(const DenseView &a, const DenseView &b)
{
    return withArrays(a, b, [](const auto &x, const auto &y) { return (x - y).square().sum(); });
}

class MseComparator final : public Comparator
{
public:
    Metric metric() const override { return Metric::MSE; }
    const char *name() const override { return "MSE"; }
    Direction direction() const override { return Direction::HigherIsWorse; }
    double compute(const ElementPair &p) const override
    {
        // torch.mean of an empty tensor is NaN.
        return p.a.n == 0 ? kNaN : sumSquaredError(p.a, p.b) / double(p.a.n);
    }
};

class L1Comparator final : public Comparator
{
public:
    Metric metric() const override { return Metric::L1; }
    const char *name() const override { return "L1"; }
    Direction direction() const override { return Direction::HigherIsWorse; }
    double compute(const ElementPair &p) const override
    {
        // A sum, not a mean, as upstream's L1 comparator.
        return withArrays(p.a, p.b, [](const auto &x, const auto &y) { return (x - y).abs().sum(); });
    }
};

class SnrComparator final : public Comparator
{
public:
    Metric metric() const override { return Metric::SNR; }
    const char *name() const override { return "SNR"; }
    Direction direction() const override { return Direction::LowerIsWorse; }
    double compute(const ElementPair &p) const override
    {
        if (p.a.n == 0 || p.aOwn.n == 0)
            return kNaN;
        double sig = 0, err = 0;
        if (p.aOwn.f32 == p.a.f32 && p.aOwn.f64 == p.a.f64 && p.aOwn.n == p.a.n) {
            forBlocks(p.a, p.b, [&](const auto &x, const auto &y) {
                sig += x.square().sum();
                err += (x - y).square().sum();
                return 0.0;
            });
        } else {
            sig = withArray(p.aOwn, [](const auto &x) { return x.square().sum(); });
            err = sumSquaredError(p.a, p.b);
        }
        const double signal = sig / double(p.aOwn.n);
        const double noise = err / double(p.a.n);
        // Spelled out instead of relying on x/0: identical and non-zero → +inf, zero reference
        // with error → -inf, both zero → NaN (0/0), as the float64 division upstream gives.
        if (noise == 0)
            return signal == 0 ? kNaN : (std::isnan(signal) ? kNaN : kInf);
        if (signal == 0)
            return -kInf;
        return 10.0 * std::log10(signal / noise);
    }
};

class CosineComparator final : public Comparator
{
public:
    Metric metric() const override { return Metric::Cosine; }
    const char *name() const override { return "COSINE"; }
    Direction direction() const override { return Direction::LowerIsWorse; }
    double compute(const ElementPair &p) const override
    {
        double dot = 0, aa = 0, bb = 0;
        forBlocks(p.a, p.b, [&](const auto &x, const auto &y) {
            dot += (x * y).sum();
            aa += x.square().sum();
            bb += y.square().sum();
            return 0.0;
        });
        const double denom = std::sqrt(aa) * std::sqrt(bb);
        return denom == 0 ? kNaN : dot / denom;
    }
};

class MaxAbsComparator final : public Comparator
{
public:
    Metric metric() const override { return Metric::MaxAbs; }
    const char *name() const override { return "MAXABS"; }
    Direction direction() const override { return Direction::HigherIsWorse; }
    double compute(const ElementPair &p) const override
    {
        if (p.a.n == 0)
            return kNaN;
        return withArrays(p.a, p.b,
            [](const auto &x, const auto &y) { return (x - y).abs().template maxCoeff<Eigen::PropagateNaN>(); });
    }
};

class MaxRelComparator final : public Comparator
{
public:
    Metric metric() const override { return Metric::MaxRel; }
    const char *name() const override { return "MAXREL"; }
    Direction direction() const override { return Direction::HigherIsWorse; }
    double compute(const ElementPair &p) const override
    {
        if (p.a.n == 0)
            return kNaN;
        // |a-b| / |a| per element; where the reference is 0 an exact match counts 0 and any
        // difference counts +inf (the relative error is unbounded there).
        return withArrays(p.a, p.b, [](const auto &x, const auto &y) {
            const auto d = (x - y).abs();
            return (d == 0.0).select(ArrayXd::Zero(x.size()), d / x.abs()).template maxCoeff<Eigen::PropagateNaN>();
        });
    }
};

bool hasNaN(const NumTensor &t)
{
    if (t.numel == 0)
        return false;
    if (t.f32)
        return MapF(t.f32, t.numel).isNaN().any();
    return MapD(t.f64, t.numel).isNaN().any();
}

// torch.nan_to_num defaults: NaN → 0, ±inf → ±max double.
std::vector<double> nanToNum(const NumTensor &t)
{
    std::vector<double> v(std::size_t(t.numel));
    const double big = std::numeric_limits<double>::max();
    for (std::int64_t i = 0; i < t.numel; ++i) {
        double x = t.at(i);
        v[std::size_t(i)] = std::isnan(x) ? 0.0 : (std::isinf(x) ? (x > 0 ? big : -big) : x);
    }
    return v;
}

DenseView viewOf(const NumTensor &t)
{
    return DenseView { t.f32, t.f64, t.numel };
}

// Expands `t` (shape `from`) to `to` following numpy broadcasting.
std::vector<double> expand(const NumTensor &t, const std::vector<std::int64_t> &to)
{
    const std::size_t rank = to.size();
    const std::size_t offset = rank - t.sizes.size();
    // Source strides in the output's rank; 0 where the source dimension is broadcast.
    std::vector<std::int64_t> stride(rank, 0);
    std::int64_t s = 1;
    for (std::size_t i = t.sizes.size(); i-- > 0;) {
        stride[i + offset] = t.sizes[i] == 1 ? 0 : s;
        s *= t.sizes[i];
    }
    std::int64_t total = 1;
    for (auto d : to)
        total *= d;
    std::vector<double> out(static_cast<std::size_t>(total));
    std::vector<std::int64_t> idx(rank, 0);
    std::int64_t src = 0;
    for (std::int64_t k = 0; k < total; ++k) {
        out[std::size_t(k)] = t.at(src);
        for (std::size_t d = rank; d-- > 0;) {
            if (++idx[d] < to[d]) {
                src += stride[d];
                break;
            }
            src -= stride[d] * (to[d] - 1);
            idx[d] = 0;
        }
    }
    return out;
}

} // namespace

std::unique_ptr<Comparator> makeComparator(Metric m)
{
    switch (m) {
    case Metric::MSE:
        return std::make_unique<MseComparator>();
    case Metric::L1:
        return std::make_unique<L1Comparator>();
    case Metric::SNR:
        return std::make_unique<SnrComparator>();
    case Metric::Cosine:
        return std::make_unique<CosineComparator>();
    case Metric::MaxAbs:
        return std::make_unique<MaxAbsComparator>();
    case Metric::MaxRel:
        return std::make_unique<MaxRelComparator>();
    }
    return nullptr;
}

const char *metricName(Metric m)
{
    switch (m) {
    case Metric::MSE:
        return "MSE";
    case Metric::L1:
        return "L1";
    case Metric::SNR:
        return "SNR";
    case Metric::Cosine:
        return "COSINE";
    case Metric::MaxAbs:
        return "MAXABS";
    case Metric::MaxRel:
        return "MAXREL";
    }
    return "?";
}

std::optional<Metric> parseMetric(const std::string &name)
{
    std::string up;
    for (char c : name)
        up += char(std::toupper(static_cast<unsigned char>(c)));
    for (Metric m : { Metric::MSE, Metric::L1, Metric::SNR, Metric::Cosine, Metric::MaxAbs, Metric::MaxRel })
        if (up == metricName(m))
            return m;
    if (up == "COSINE_SIMILARITY")
        return Metric::Cosine;
    return std::nullopt;
}

std::optional<std::vector<std::int64_t>> broadcastShape(
    const std::vector<std::int64_t> &a, const std::vector<std::int64_t> &b)
{
    const std::size_t rank = std::max(a.size(), b.size());
    std::vector<std::int64_t> out(rank);
    for (std::size_t i = 0; i < rank; ++i) {
        const std::int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        const std::int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (da != db && da != 1 && db != 1)
            return std::nullopt;
        out[i] = da == 1 ? db : da;
    }
    return out;
}

namespace {

Result<double> compareClean(const Comparator &c, const NumTensor &a, const NumTensor &b)
{
    auto shape = broadcastShape(a.sizes, b.sizes);
    if (!shape)
        return makeError(ErrorCode::InvalidArgument, "",
            fmt::format("shapes [{}] and [{}] do not broadcast", fmt::join(a.sizes, ", "), fmt::join(b.sizes, ", ")));
    std::int64_t total = 1;
    for (auto d : *shape)
        total *= d;
    ElementPair p;
    p.aOwn = viewOf(a);
    if (total == a.numel && total == b.numel) {
        // Same elements in the same order (only size-1 dimensions differ): no copy.
        p.a = viewOf(a);
        p.b = viewOf(b);
        return c.compute(p);
    }
    std::vector<double> ea = expand(a, *shape), eb = expand(b, *shape);
    p.a = DenseView { nullptr, ea.data(), total };
    p.b = DenseView { nullptr, eb.data(), total };
    return c.compute(p);
}

} // namespace

Result<double> compareTensors(const Comparator &c, const NumTensor &a, const NumTensor &b)
{
    // One pass in the common case: every comparator returns NaN when an input holds a NaN (the
    // Comparator contract), so only a NaN result needs the NaN scan and, when a side really
    // has one, the recomputation with nan_to_num on that side (§9: only then are its
    // infinities clamped too).
    auto r = compareClean(c, a, b);
    if (!r || !std::isnan(*r))
        return r;
    const bool na = hasNaN(a), nb = hasNaN(b);
    if (!na && !nb)
        return r; // NaN from the data itself (inf - inf, 0/0 SNR): keep it
    NumTensor ca = na ? NumTensor::fromDoubles(a.dtype, a.sizes, nanToNum(a)) : a;
    NumTensor cb = nb ? NumTensor::fromDoubles(b.dtype, b.sizes, nanToNum(b)) : b;
    return compareClean(c, ca, cb);
}

Result<std::vector<double>> compareValues(const Comparator &c, const NumValue &a, const NumValue &b)
{
    using K = NumValue::Kind;
    if (a.isNone() || b.isNone())
        return makeError(ErrorCode::InvalidArgument, "", "a value to compare is missing or not numeric");
    if ((a.kind == K::List) != (b.kind == K::List))
        return makeError(ErrorCode::InvalidArgument, "", "cannot compare a list with a single tensor");
    if (a.items.size() != b.items.size())
        return makeError(ErrorCode::InvalidArgument, "",
            fmt::format("lists of different lengths ({} vs {})", a.items.size(), b.items.size()));
    std::vector<double> gaps;
    gaps.reserve(a.items.size());
    for (std::size_t i = 0; i < a.items.size(); ++i) {
        auto g = compareTensors(c, a.items[i], b.items[i]);
        if (!g)
            return g.error();
        gaps.push_back(*g);
    }
    return gaps;
}

bool exceedsThreshold(Direction d, double gap, double threshold)
{
    if (std::isnan(gap))
        return false;
    return d == Direction::HigherIsWorse ? gap > threshold : gap < threshold;
}

double badness(Direction d, double gap)
{
    if (std::isnan(gap))
        return -kInf;
    return d == Direction::HigherIsWorse ? gap : -gap;
}

} // namespace etscope::analysis
