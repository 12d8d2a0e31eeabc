// Core values as Python values (values.h): numpy arrays over the debug buffer's mapped bytes,
// runtime and evaluator values, and the small per-event fields.
#include "native/values.h"

#include "native/common.h"
#include "native/process.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>

namespace py = pybind11;

namespace etscope::python {
namespace {

// numpy dtype of an ETDump scalar type, when numpy has one with the same bytes.
std::optional<py::dtype> numpyDtype(ScalarType t)
{
    switch (t) {
    case ScalarType::Byte:
        return py::dtype("uint8");
    case ScalarType::Char:
        return py::dtype("int8");
    case ScalarType::Short:
        return py::dtype("int16");
    case ScalarType::Int:
        return py::dtype("int32");
    case ScalarType::Long:
        return py::dtype("int64");
    case ScalarType::Half:
        return py::dtype("float16");
    case ScalarType::Float:
        return py::dtype("float32");
    case ScalarType::Double:
        return py::dtype("float64");
    case ScalarType::Bool:
        return py::dtype("bool");
    case ScalarType::UInt16:
        return py::dtype("uint16");
    case ScalarType::UInt32:
        return py::dtype("uint32");
    case ScalarType::UInt64:
        return py::dtype("uint64");
    default:
        return std::nullopt;
    }
}

py::array readOnly(py::array a)
{
    a.attr("flags").attr("writeable") = false;
    return a;
}

py::object numTensorToNumpy(const analysis::NumTensor &t)
{
    std::vector<py::ssize_t> shape(t.sizes.begin(), t.sizes.end());
    py::array_t<double> a(shape);
    double *out = a.mutable_data();
    for (std::int64_t i = 0; i < t.numel; ++i)
        out[i] = t.at(i);
    if (auto d = numpyDtype(t.dtype); d && !(t.dtype == ScalarType::Double))
        return a.attr("astype")(*d);
    return a;
}

} // namespace

py::object tensorToNumpy(const TensorRef &ref, const DebugBuffer *buffer, py::handle owner)
{
    const auto dtype = numpyDtype(ref.dtype);
    if (!buffer) {
        orThrow(checkedNumel(ref, {})); // the shape and its limits, without allocating
        const std::vector<std::int64_t> &shape = ref.sizes;
        const py::object &broadcastTo = numpyBroadcastTo(); // never freed: see process.cpp
        auto zero = py::array(dtype ? *dtype : py::dtype("float64"), std::vector<py::ssize_t> {});
        std::memset(zero.mutable_data(), 0, static_cast<std::size_t>(zero.nbytes()));
        return broadcastTo(zero, py::tuple(py::cast(shape)));
    }
    std::vector<py::ssize_t> shape(ref.sizes.begin(), ref.sizes.end());
    const bool viewable = ref.offset >= 0 && (ref.strides.empty() || ref.strides.size() == ref.sizes.size())
        && std::all_of(ref.strides.begin(), ref.strides.end(), [](std::int64_t s) { return s >= 0; });
    if (dtype && viewable) {
        auto span = orThrow(buffer->bytes(ref)); // every element lies inside the buffer
        if (ref.strides.empty())
            return readOnly(py::array(*dtype, shape, span.data(), owner));
        std::vector<py::ssize_t> strides;
        for (std::int64_t s : ref.strides)
            strides.push_back(static_cast<py::ssize_t>(s) * dtype->itemsize());
        return readOnly(py::array(*dtype, shape, strides, span.data(), owner));
    }
    auto data = orThrow(inflate(ref, buffer));
    py::array_t<double> values(shape);
    std::copy(data.values.begin(), data.values.end(), values.mutable_data());
    return readOnly(dtype ? py::array(values.attr("astype")(*dtype)) : py::array(values));
}

py::object valueToPython(const RuntimeValue &v, const DebugBuffer *buffer, py::handle owner)
{
    switch (v.kind) {
    case RuntimeValue::Kind::None:
        return py::none();
    case RuntimeValue::Kind::Int:
        return py::int_(v.intValue);
    case RuntimeValue::Kind::Bool:
        return py::bool_(v.boolValue);
    case RuntimeValue::Kind::Float:
    case RuntimeValue::Kind::Double:
        return py::float_(v.doubleValue);
    case RuntimeValue::Kind::String:
        return text(v.stringValue);
    case RuntimeValue::Kind::Tensor:
        return tensorToNumpy(v.tensors.at(0), buffer, owner);
    case RuntimeValue::Kind::TensorList: {
        py::list l;
        for (const TensorRef &t : v.tensors)
            l.append(tensorToNumpy(t, buffer, owner));
        return l;
    }
    }
    return py::none();
}

py::list valuesToPython(const std::vector<RuntimeValue> &vs, const DebugBuffer *buffer, py::handle owner)
{
    py::list l;
    for (const RuntimeValue &v : vs)
        l.append(valueToPython(v, buffer, owner));
    return l;
}

py::object numValueToPython(const analysis::NumValue &v)
{
    switch (v.kind) {
    case analysis::NumValue::Kind::None:
        return py::none();
    case analysis::NumValue::Kind::Tensor:
        return numTensorToNumpy(v.items.at(0));
    case analysis::NumValue::Kind::List: {
        py::list l;
        for (const auto &t : v.items)
            l.append(numTensorToNumpy(t));
        return l;
    }
    }
    return py::none();
}

py::object delegateIdToPython(const DelegateDebugId &id)
{
    if (const auto *i = std::get_if<std::int64_t>(&id))
        return py::int_(*i);
    if (const auto *s = std::get_if<std::string>(&id))
        return text(*s);
    return py::none();
}

py::object moduleStackToPython(const std::optional<std::vector<ModuleFrame>> &stack)
{
    if (!stack)
        return py::none();
    py::dict d;
    for (const ModuleFrame &f : *stack)
        d[py::str(f.key)] = py::make_tuple(f.path, f.type);
    return d;
}

py::object optionalStr(const std::optional<std::string> &s)
{
    return s ? py::object(py::str(*s)) : py::none();
}

std::pair<py::dict, py::dict> linkedNodeDicts(const Event &e)
{
    py::dict stacks, modules;
    for (const LinkedNode &n : e.linkedNodes()) {
        py::str name = text(n.nodeName);
        if (stacks.contains(name))
            continue;
        stacks[name] = optionalStr(n.stackTrace);
        modules[name] = moduleStackToPython(n.moduleStack);
    }
    return { stacks, modules };
}

py::object debugHandlesToPython(const Event &e)
{
    const auto &h = e.debugHandles();
    if (!h)
        return py::none();
    if (e.debugHandlesIsScalar() && h->size() == 1)
        return py::int_((*h)[0]);
    return py::cast(*h);
}

py::list floatList(std::span<const double> xs)
{
    py::list l(xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i)
        PyList_SET_ITEM(l.ptr(), i, PyFloat_FromDouble(xs[i]));
    return l;
}

py::list intList(std::span<const std::uint64_t> xs)
{
    py::list l(xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i)
        PyList_SET_ITEM(l.ptr(), i, PyLong_FromUnsignedLongLong(xs[i]));
    return l;
}

py::object untracked(py::object list)
{
    PyObject_GC_UnTrack(list.ptr());
    return list;
}

} // namespace etscope::python
