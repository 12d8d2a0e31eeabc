#include "analysis/compareresults.h"

#include "analysis/comparator.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace etscope::analysis {

namespace {

NumTensor toFloat32(const NumTensor &t)
{
    if (t.f32)
        return t;
    std::vector<float> v(static_cast<std::size_t>(t.numel));
    for (std::int64_t i = 0; i < t.numel; ++i)
        v[std::size_t(i)] = static_cast<float>(t.at(i));
    return NumTensor::fromFloats(t.sizes, std::move(v));
}

// SNR with the reference as signal but *without* §9's nan_to_num: compare_results feeds the
// raw float32 tensors to its own formula.
double snrRaw(const NumTensor &r, const NumTensor &o)
{
    double sig = 0, noise = 0;
    for (std::int64_t i = 0; i < r.numel; ++i)
        sig += r.at(i) * r.at(i);
    for (std::int64_t i = 0; i < r.numel; ++i) {
        const double d = r.at(i) - o.at(i);
        noise += d * d;
    }
    sig /= double(r.numel);
    noise /= double(r.numel);
    if (noise == 0)
        return sig == 0 || std::isnan(sig) ? std::nan("") : INFINITY;
    if (sig == 0)
        return -INFINITY;
    return 10.0 * std::log10(sig / noise);
}

} // namespace

double roundTo2(double x)
{
    if (!std::isfinite(x))
        return x;
    // printf rounds the exact binary value to 2 decimals, as Python's round(x, 2) does.
    return std::strtod(fmt::format("{:.2f}", x).c_str(), nullptr);
}

std::vector<OutputComparison> compareResults(const std::vector<NumValue> &reference, const std::vector<NumValue> &run)
{
    std::vector<OutputComparison> out;
    const std::size_t n = std::min(reference.size(), run.size());
    auto mse = makeComparator(Metric::MSE);
    auto cos = makeComparator(Metric::Cosine);
    for (std::size_t i = 0; i < n; ++i) {
        OutputComparison c;
        c.index = int(i);
        c.referenceSummary = summarizeValue(reference[i]);
        c.runSummary = summarizeValue(run[i]);
        if (reference[i].kind != NumValue::Kind::Tensor || run[i].kind != NumValue::Kind::Tensor) {
            out.push_back(std::move(c));
            continue;
        }
        NumTensor r = toFloat32(reference[i].items.front());
        NumTensor o = toFloat32(run[i].items.front());
        if (r.sizes != o.sizes) {
            // snr/mse would broadcast but cosine_similarity requires equal shapes, and the
            // Inspector evaluates all three.
            c.error = fmt::format("shapes [{}] and [{}] differ", fmt::join(r.sizes, ", "), fmt::join(o.sizes, ", "));
            out.push_back(std::move(c));
            continue;
        }
        c.comparable = true;
        c.snr = r.numel ? snrRaw(r, o) : std::nan("");
        ElementPair p { DenseView { r.f32, nullptr, r.numel }, DenseView { o.f32, nullptr, o.numel },
            DenseView { r.f32, nullptr, r.numel } };
        c.mse = mse->compute(p);
        c.cosine = cos->compute(p);
        out.push_back(std::move(c));
    }
    return out;
}

std::string compareResultsText(const std::vector<OutputComparison> &rows, bool full)
{
    std::string s;
    auto value = [&](double v) { return full ? fmt::format("{:.17g}", v) : fmt::format("{:.5f}", roundTo2(v)); };
    for (const char *metric : { "snr", "mse", "cosine_similarity" }) {
        s += fmt::format("{}\n", metric);
        for (const auto &r : rows) {
            if (!r.comparable) {
                s += fmt::format("  {} none{}\n", r.index, r.error.empty() ? "" : " (" + r.error + ")");
                continue;
            }
            const double v = metric[0] == 's' ? r.snr : metric[0] == 'm' ? r.mse : r.cosine;
            s += fmt::format("  {} {}\n", r.index, value(v));
        }
    }
    return s;
}

} // namespace etscope::analysis
