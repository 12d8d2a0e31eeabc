#include "analysis/noise.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace etscope::analysis {

namespace {

// Machine epsilon (the gap between 1 and the next value) of the floating dtypes.
std::optional<double> epsilon(ScalarType t)
{
    switch (t) {
    case ScalarType::Float:
    case ScalarType::ComplexFloat:
        return std::ldexp(1.0, -23);
    case ScalarType::Double:
    case ScalarType::ComplexDouble:
        return std::ldexp(1.0, -52);
    case ScalarType::Half:
    case ScalarType::ComplexHalf:
        return std::ldexp(1.0, -10);
    case ScalarType::BFloat16:
        return std::ldexp(1.0, -7);
    case ScalarType::Float8e5m2:
    case ScalarType::Float8e5m2fnuz:
        return std::ldexp(1.0, -2);
    case ScalarType::Float8e4m3fn:
    case ScalarType::Float8e4m3fnuz:
        return std::ldexp(1.0, -3);
    default:
        return std::nullopt;
    }
}

struct Magnitude {
    double sumSq = 0, sumAbs = 0, maxAbs = 0;
    std::int64_t n = 0;
};

Magnitude magnitudeOf(const NumTensor &t)
{
    Magnitude m;
    for (std::int64_t i = 0; i < t.numel; ++i) {
        const double v = t.at(i);
        if (!std::isfinite(v))
            continue;
        m.sumSq += v * v;
        m.sumAbs += std::fabs(v);
        m.maxAbs = std::max(m.maxAbs, std::fabs(v));
        ++m.n;
    }
    return m;
}

} // namespace

std::optional<double> relativeTolerance(ScalarType dtype)
{
    auto eps = epsilon(dtype);
    if (!eps)
        return std::nullopt;
    return std::sqrt(*eps);
}

double noiseThreshold(Metric m, const NumTensor &reference, const NumTensor &runtime)
{
    // The coarser dtype decides: a float32 runtime against a float64 reference rounds as float32.
    const auto ta = relativeTolerance(reference.dtype), tb = relativeTolerance(runtime.dtype);
    const bool floating = ta || tb;
    const double tau = std::max(ta.value_or(0), tb.value_or(0));
    const bool exact = !floating && (reference.dtype == ScalarType::Bool || runtime.dtype == ScalarType::Bool);
    const double unit = exact ? 0.0 : 1.0; // integers: one unit of rounding
    const Magnitude mag = magnitudeOf(reference);
    const double n = double(std::max<std::int64_t>(1, std::max(reference.numel, runtime.numel)));
    const double rms = mag.n ? std::sqrt(mag.sumSq / double(mag.n)) : 0.0;
    const double meanAbs = mag.n ? mag.sumAbs / double(mag.n) : 0.0;
    // The absolute error the rule tolerates per element.
    const double rmsErr = floating ? tau * rms : unit;
    switch (m) {
    case Metric::MSE:
        return rmsErr * rmsErr;
    case Metric::L1:
        return floating ? tau * meanAbs * n : unit * n;
    case Metric::MaxAbs:
        return floating ? tau * mag.maxAbs : unit;
    case Metric::MaxRel:
        return floating ? tau : (mag.maxAbs > 0 ? unit / mag.maxAbs : 0.0);
    case Metric::SNR:
        if (floating)
            return -20.0 * std::log10(tau);
        if (unit == 0 || rms == 0)
            return std::numeric_limits<double>::infinity(); // any difference is above noise
        return 20.0 * std::log10(rms / unit);
    case Metric::Cosine: {
        const double rel = floating ? tau : (rms > 0 ? unit / rms : 0.0);
        return 1.0 - rel * rel / 2.0;
    }
    }
    return 0;
}

double excessOverNoise(Direction d, Metric m, double gap, double threshold)
{
    if (std::isnan(gap))
        return gap;
    if (m == Metric::SNR)
        return (threshold - gap) / 10.0; // 10 dB = one decade of noise power
    if (m == Metric::Cosine) {
        const double g = std::max(1.0 - gap, 1e-300), t = std::max(1.0 - threshold, 1e-300);
        return std::log10(g / t);
    }
    if (d == Direction::LowerIsWorse)
        return threshold - gap;
    if (gap <= 0)
        return -std::numeric_limits<double>::infinity();
    if (threshold <= 0)
        return std::numeric_limits<double>::infinity();
    return std::log10(gap / threshold);
}

double gapSeverity(double excess)
{
    if (std::isnan(excess))
        return excess;
    if (excess <= 0)
        return 0.5 * std::clamp(1.0 + excess / kSeverityDecadesBelow, 0.0, 1.0);
    return 0.5 + 0.5 * std::clamp(excess / kSeverityDecadesAbove, 0.0, 1.0);
}

double gapSeverity(double excess, bool flagged)
{
    const double s = std::isnan(excess) ? 0.0 : gapSeverity(excess);
    return flagged ? std::max(s, 0.5) : std::min(s, 0.499);
}

std::string thresholdDescription(Metric m, std::optional<double> userThreshold)
{
    if (userThreshold)
        return fmt::format("threshold {} {:g}", metricName(m), *userThreshold);
    return "noise level (relative error √ε of the dtype: float32 3.45e-4)";
}

} // namespace etscope::analysis
