// Fuzz target: the built-in evaluator on an exported-program JSON. User inputs and weights are
// synthesized from the graph's tensor metadata (small, deterministic values; at most 4096
// elements each) and the evaluator runs single-threaded with a 2^20 element limit. Any outcome
// is fine except a crash, a sanitizer report or a multi-line error.
#include "fuzzinput.h"

#include "etrecord/exportedprogram.h"
#include "eval/evaluator.h"

#include <charconv>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace {

using namespace etscope;

eval::Tensor synthesize(const TensorMetaInfo *meta, std::uint32_t seed)
{
    std::vector<std::int64_t> sizes { 2, 3 };
    ScalarType dtype = ScalarType::Float;
    if (meta) {
        sizes.clear();
        std::int64_t n = 1;
        for (const std::string &s : meta->sizes) {
            std::int64_t v = 1;
            auto r = std::from_chars(s.data(), s.data() + s.size(), v);
            if (r.ec != std::errc() || v < 0 || v > 64)
                v = 1;
            n *= std::max<std::int64_t>(v, 1);
            sizes.push_back(n > 4096 ? 1 : v);
        }
        if (auto d = scalarTypeFromJson(meta->jsonDtype); d && elementSize(*d) && *d != ScalarType::ComplexHalf
            && *d != ScalarType::ComplexFloat && *d != ScalarType::ComplexDouble)
            dtype = *d;
    }
    auto t = eval::Tensor::zeros(dtype, sizes);
    if (!t)
        t = eval::Tensor::zeros(ScalarType::Float, { 2, 3 });
    std::vector<double> v(static_cast<std::size_t>(t->numel()));
    for (std::size_t i = 0; i < v.size(); ++i) {
        seed = seed * 1103515245u + 12345u;
        v[i] = double(int((seed >> 16) % 17) - 8) / 4.0;
    }
    return eval::Tensor::fromDoubles(t->dtype, t->sizes, v);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    auto ep = parseExportedProgram(text, "fuzz.json");
    if (!ep)
        return 0;
    std::map<std::string, eval::Tensor> weights;
    std::vector<eval::Value> inputs;
    std::uint32_t seed = 1;
    for (const SignatureSpec &s : ep->inputSpecs) {
        if (s.kind == "user_input")
            inputs.push_back(eval::Value::ofTensor(synthesize(ep->tensor(s.argName), seed++)));
        else if (!s.target.empty())
            weights[s.target] = synthesize(ep->tensor(s.argName), seed++);
    }
    if (ep->inputSpecs.empty())
        for (const auto &a : ep->inputs)
            for (const auto &n : a.tensorNames)
                inputs.push_back(eval::Value::ofTensor(synthesize(ep->tensor(n), seed++)));
    eval::EvalOptions opts;
    opts.threads = 1;
    opts.maxElements = std::int64_t(1) << 20;
    opts.floatTwin = (size & 1) != 0; // quantized graphs also as their float twin
    auto r = eval::evaluateProgram(*ep, weights, inputs, opts);
    if (!r) {
        const std::string m = r.error().message();
        if (m.find('\n') != std::string::npos)
            std::abort();
        return 0;
    }
    for (const auto &n : r->nodes) {
        if (n.error.find('\n') != std::string::npos)
            std::abort();
        for (const auto &t : n.outputs)
            (void)eval::toNumTensor(t);
    }
    return 0;
}
