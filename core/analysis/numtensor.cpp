#include "analysis/numtensor.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace etscope::analysis {

NumTensor NumTensor::fromDoubles(ScalarType dtype, std::vector<std::int64_t> sizes, std::vector<double> values)
{
    auto storage = std::make_shared<std::vector<double>>(std::move(values));
    NumTensor t;
    t.dtype = dtype;
    t.sizes = std::move(sizes);
    t.numel = std::int64_t(storage->size());
    t.f64 = storage->data();
    t.owner = std::move(storage);
    return t;
}

NumTensor NumTensor::fromFloats(std::vector<std::int64_t> sizes, std::vector<float> values)
{
    auto storage = std::make_shared<std::vector<float>>(std::move(values));
    NumTensor t;
    t.dtype = ScalarType::Float;
    t.sizes = std::move(sizes);
    t.numel = std::int64_t(storage->size());
    t.f32 = storage->data();
    t.owner = std::move(storage);
    return t;
}

bool isContiguous(const TensorRef &ref)
{
    if (ref.strides.empty())
        return true;
    if (ref.strides.size() != ref.sizes.size())
        return false;
    std::int64_t expect = 1;
    for (std::size_t i = ref.sizes.size(); i-- > 0;) {
        // Size-1 dimensions may carry any stride without changing the layout.
        if (ref.sizes[i] != 1 && ref.strides[i] != expect)
            return false;
        expect *= ref.sizes[i];
    }
    return true;
}

Result<NumTensor> loadTensor(const TensorRef &ref, const std::shared_ptr<const DebugBuffer> &buffer)
{
    if (buffer && ref.dtype == ScalarType::Float && isContiguous(ref) && ref.numel() > 0) {
        auto bytes = buffer->bytes(ref);
        if (!bytes)
            return bytes.error();
        const auto *p = bytes->data();
        if (reinterpret_cast<std::uintptr_t>(p) % alignof(float) == 0
            && bytes->size() == std::size_t(ref.numel()) * sizeof(float)) {
            NumTensor t;
            t.dtype = ScalarType::Float;
            t.sizes = ref.sizes;
            t.numel = ref.numel();
            t.f32 = reinterpret_cast<const float *>(p);
            t.owner = buffer;
            return t;
        }
    }
    auto data = inflate(ref, buffer.get());
    if (!data)
        return data.error();
    return NumTensor::fromDoubles(data->dtype, std::move(data->sizes), std::move(data->values));
}

Result<NumValue> loadRuntimeValue(const RuntimeValue &v, const std::shared_ptr<const DebugBuffer> &buffer)
{
    using K = RuntimeValue::Kind;
    switch (v.kind) {
    case K::Tensor: {
        if (v.tensors.empty())
            return makeError(ErrorCode::Corrupt, buffer ? buffer->path() : "", "tensor value without a tensor");
        auto t = loadTensor(v.tensors.front(), buffer);
        if (!t)
            return t.error();
        return NumValue::tensor(std::move(*t));
    }
    case K::TensorList: {
        std::vector<NumTensor> items;
        for (const auto &ref : v.tensors) {
            auto t = loadTensor(ref, buffer);
            if (!t)
                return t.error();
            items.push_back(std::move(*t));
        }
        return NumValue::list(std::move(items));
    }
    case K::Int:
        return NumValue::tensor(NumTensor::scalar(ScalarType::Long, double(v.intValue)));
    case K::Bool:
        return NumValue::tensor(NumTensor::scalar(ScalarType::Bool, v.boolValue ? 1.0 : 0.0));
    case K::Float:
        return NumValue::tensor(NumTensor::scalar(ScalarType::Float, v.doubleValue));
    case K::Double:
        return NumValue::tensor(NumTensor::scalar(ScalarType::Double, v.doubleValue));
    case K::None:
    case K::String:
        break;
    }
    return NumValue {};
}

Result<NumValue> loadRuntimeList(const std::vector<RuntimeValue> &vs, const std::shared_ptr<const DebugBuffer> &buffer)
{
    NumValue out;
    out.kind = NumValue::Kind::List;
    for (const auto &v : vs) {
        auto nv = loadRuntimeValue(v, buffer);
        if (!nv)
            return nv.error();
        for (auto &t : nv->items)
            out.items.push_back(std::move(t));
    }
    return out;
}

std::string summarizeTensor(const NumTensor &t)
{
    std::string shape = describeShape(t.dtype, t.sizes);
    if (t.numel == 0)
        return shape;
    double mn = std::numeric_limits<double>::infinity(), mx = -mn, sum = 0;
    std::int64_t finite = 0, nonFinite = 0;
    for (std::int64_t i = 0; i < t.numel; ++i) {
        double x = t.at(i);
        if (!std::isfinite(x)) {
            ++nonFinite;
            continue;
        }
        mn = std::min(mn, x);
        mx = std::max(mx, x);
        sum += x;
        ++finite;
    }
    if (finite == 0)
        return fmt::format("{} all non-finite", shape);
    std::string s = fmt::format("{} min={:.6g} max={:.6g} mean={:.6g}", shape, mn, mx, sum / double(finite));
    if (nonFinite)
        s += fmt::format(" nonfinite={}", nonFinite);
    return s;
}

std::string summarizeValue(const NumValue &v)
{
    switch (v.kind) {
    case NumValue::Kind::None:
        return "none";
    case NumValue::Kind::Tensor:
        return summarizeTensor(v.items.front());
    case NumValue::Kind::List:
        break;
    }
    std::string s = "[";
    for (std::size_t i = 0; i < v.items.size(); ++i) {
        if (i)
            s += "; ";
        s += summarizeTensor(v.items[i]);
    }
    return s + "]";
}

} // namespace etscope::analysis
