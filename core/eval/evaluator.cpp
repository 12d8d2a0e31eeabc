// The interpreter: binds placeholders from the graph signature, runs call_function nodes in
// file order through the kernel registry and keeps every node's outputs.

#include "eval/kernels.h"

#include "bundled/bundledprogram.h"
#include "etrecord/torchsave.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <mutex>

#include <unistd.h>
#include <unordered_map>
#include <unordered_set>

namespace etscope::eval {

// ---------------------------------------------------------------- registry

namespace {

std::unordered_map<std::string, KernelFn> &kernelTable()
{
    static std::unordered_map<std::string, KernelFn> table;
    return table;
}

void ensureRegistered()
{
    static std::once_flag once;
    std::call_once(once, [] {
        registerElementwiseKernels();
        registerShapeKernels();
        registerReductionKernels();
        registerNnKernels();
        registerQuantKernels();
        registerIndexKernels();
        registerModelKernels();
    });
}

} // namespace

void registerKernel(std::initializer_list<const char *> keys, KernelFn fn)
{
    for (const char *k : keys)
        kernelTable()[k] = fn;
}

const KernelFn *findKernel(const std::string &key)
{
    ensureRegistered();
    auto it = kernelTable().find(key);
    return it == kernelTable().end() ? nullptr : &it->second;
}

const std::vector<std::string> &mutatedArguments(const std::string &key)
{
    static const std::map<std::string, std::vector<std::string>> table {
        { "llama.update_cache.default", { "cache" } },
        { "llama.sdpa_with_kv_cache.default", { "key_cache", "value_cache" } },
    };
    static const std::vector<std::string> none;
    auto it = table.find(key);
    return it == table.end() ? none : it->second;
}

std::string functionalKey(const std::string &key)
{
    const auto d1 = key.find('.');
    const auto d2 = d1 == std::string::npos ? d1 : key.find('.', d1 + 1);
    if (d2 == std::string::npos || d2 < d1 + 3 || key[d2 - 1] != '_' || key[d2 - 2] == '_')
        return {};
    std::string functional = key.substr(0, d2 - 1) + key.substr(d2);
    return findKernel(functional) ? functional : std::string();
}

bool hasKernel(const std::string &opKey)
{
    return findKernel(opKey) != nullptr || !functionalKey(opKey).empty();
}

std::vector<std::string> kernelNames()
{
    ensureRegistered();
    std::vector<std::string> names;
    for (const auto &[k, _] : kernelTable())
        names.push_back(k);
    std::sort(names.begin(), names.end());
    return names;
}

std::string operatorKey(const std::string &target)
{
    std::string s = target;
    for (const char *prefix : { "executorch.exir.dialects.edge.ops.", "torch.ops." })
        if (s.rfind(prefix, 0) == 0)
            s = s.substr(std::strlen(prefix));
    if (auto p = s.find("::"); p != std::string::npos)
        s.replace(p, 2, ".");
    if (s == "_operator.getitem" || s == "getitem")
        return "getitem";
    const auto dots = std::count(s.begin(), s.end(), '.');
    if (dots == 1)
        s = "aten." + s; // "add.Tensor" (Inspector's ATen op names)
    else if (dots == 0 && !s.empty())
        s = "aten." + s + ".default";
    return s;
}

// ---------------------------------------------------------------- arguments

const Value *KernelArgs::find(int index, const char *name) const
{
    for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i] == name)
            return &values[i];
    if (index >= 0 && std::size_t(index) < values.size() && names[std::size_t(index)].empty())
        return &values[std::size_t(index)];
    return nullptr;
}

Result<Tensor> KernelArgs::tensor(int index, const char *name) const
{
    const Value *v = find(index, name);
    if (!v || v->kind != Value::Kind::Tensor)
        return kernelError(fmt::format("argument '{}' must be a tensor, got {}", name, v ? v->describe() : "nothing"));
    return v->tensor;
}

Result<std::optional<Tensor>> KernelArgs::optTensor(int index, const char *name) const
{
    const Value *v = find(index, name);
    if (!v || v->isNone())
        return std::optional<Tensor>();
    if (v->kind != Value::Kind::Tensor)
        return kernelError(fmt::format("argument '{}' must be a tensor or None, got {}", name, v->describe()));
    return std::optional<Tensor>(v->tensor);
}

Result<std::vector<std::optional<Tensor>>> KernelArgs::tensorList(int index, const char *name) const
{
    const Value *v = find(index, name);
    if (v && v->kind == Value::Kind::TensorList)
        return v->tensors;
    if (v && v->kind == Value::Kind::Tensor)
        return std::vector<std::optional<Tensor>> { v->tensor };
    return kernelError(
        fmt::format("argument '{}' must be a list of tensors, got {}", name, v ? v->describe() : "nothing"));
}

Result<std::int64_t> KernelArgs::integer(int index, const char *name, std::optional<std::int64_t> def) const
{
    const Value *v = find(index, name);
    if (!v || v->isNone()) {
        if (def)
            return *def;
        return kernelError(fmt::format("missing int argument '{}'", name));
    }
    if (v->kind == Value::Kind::Int)
        return v->i;
    if (v->kind == Value::Kind::Bool)
        return std::int64_t(v->b);
    return kernelError(fmt::format("argument '{}' must be an int, got {}", name, v->describe()));
}

Result<double> KernelArgs::number(int index, const char *name, std::optional<double> def) const
{
    const Value *v = find(index, name);
    if (!v || v->isNone()) {
        if (def)
            return *def;
        return kernelError(fmt::format("missing number argument '{}'", name));
    }
    if (v->kind == Value::Kind::Double)
        return v->d;
    if (v->kind == Value::Kind::Int)
        return double(v->i);
    if (v->kind == Value::Kind::Bool)
        return double(v->b);
    return kernelError(fmt::format("argument '{}' must be a number, got {}", name, v->describe()));
}

Result<bool> KernelArgs::boolean(int index, const char *name, std::optional<bool> def) const
{
    const Value *v = find(index, name);
    if (!v || v->isNone()) {
        if (def)
            return *def;
        return kernelError(fmt::format("missing bool argument '{}'", name));
    }
    if (v->kind == Value::Kind::Bool)
        return v->b;
    if (v->kind == Value::Kind::Int)
        return v->i != 0;
    return kernelError(fmt::format("argument '{}' must be a bool, got {}", name, v->describe()));
}

Result<std::vector<std::int64_t>> KernelArgs::ints(
    int index, const char *name, std::optional<std::vector<std::int64_t>> def, int expand) const
{
    const Value *v = find(index, name);
    if (!v || v->isNone()) {
        if (def)
            return *def;
        return kernelError(fmt::format("missing int list argument '{}'", name));
    }
    if (v->kind == Value::Kind::IntList)
        return v->ints;
    if (v->kind == Value::Kind::Int)
        return std::vector<std::int64_t>(std::size_t(std::max(expand, 1)), v->i);
    return kernelError(fmt::format("argument '{}' must be an int list, got {}", name, v->describe()));
}

Result<std::optional<ScalarType>> KernelArgs::dtype(int index, const char *name) const
{
    const Value *v = find(index, name);
    if (!v || v->isNone())
        return std::optional<ScalarType>();
    if (v->kind == Value::Kind::Dtype)
        return std::optional<ScalarType>(v->dtype);
    return kernelError(fmt::format("argument '{}' must be a dtype, got {}", name, v->describe()));
}

Result<KernelArgs::Scalar> KernelArgs::scalar(int index, const char *name, std::optional<double> def) const
{
    const Value *v = find(index, name);
    Scalar s;
    if (!v || v->isNone()) {
        if (!def)
            return kernelError(fmt::format("missing scalar argument '{}'", name));
        s.d = *def;
        s.i = std::int64_t(*def);
        s.isFloat = double(s.i) != *def;
        return s;
    }
    switch (v->kind) {
    case Value::Kind::Int:
        s.i = v->i;
        s.d = double(v->i);
        return s;
    case Value::Kind::Bool:
        s.i = v->b;
        s.d = v->b;
        s.isBool = true;
        return s;
    case Value::Kind::Double:
        s.d = v->d;
        s.isFloat = true;
        s.i = (v->d == v->d && std::abs(v->d) < 9e18) ? std::int64_t(v->d) : 0;
        return s;
    case Value::Kind::Tensor:
        if (v->tensor.numel() == 1) {
            s.d = v->tensor.getDouble(0);
            s.i = v->tensor.getInt(0);
            s.isFloat = category(v->tensor.dtype) == Category::Float;
            s.isBool = v->tensor.dtype == ScalarType::Bool;
            return s;
        }
        break;
    default:
        break;
    }
    return kernelError(fmt::format("argument '{}' must be a scalar, got {}", name, v->describe()));
}

// ---------------------------------------------------------------- decoding node arguments

namespace {

std::vector<std::string> splitList(const std::string &text)
{
    std::vector<std::string> parts;
    std::string s = text;
    if (s.size() >= 2 && s.front() == '[' && s.back() == ']')
        s = s.substr(1, s.size() - 2);
    std::string cur;
    for (char c : s) {
        if (c == ',') {
            parts.push_back(cur);
            cur.clear();
        } else if (c != ' ') {
            cur += c;
        }
    }
    if (!cur.empty() || !parts.empty())
        parts.push_back(cur);
    return parts;
}

std::optional<std::int64_t> parseInt(const std::string &s)
{
    std::int64_t v = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size())
        return std::nullopt;
    return v;
}

std::optional<double> parseDouble(std::string s)
{
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"')
        s = s.substr(1, s.size() - 2);
    if (s == "nan" || s == "NaN")
        return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf" || s == "Infinity")
        return std::numeric_limits<double>::infinity();
    if (s == "-inf" || s == "-Infinity")
        return -std::numeric_limits<double>::infinity();
    if (s.empty())
        return std::nullopt;
    char *end = nullptr;
    const double d = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size())
        return std::nullopt;
    return d;
}

std::optional<ScalarType> dtypeFromName(const std::string &name)
{
    for (int i = 0; i < 32; ++i)
        if (jsonDtypeName(i) == name)
            return scalarTypeFromJson(i);
    return std::nullopt;
}

} // namespace

// ---------------------------------------------------------------- bridges

analysis::NumTensor toNumTensor(const Tensor &t)
{
    if (t.dtype == ScalarType::Float) {
        analysis::NumTensor n;
        n.dtype = ScalarType::Float;
        n.sizes = t.sizes;
        n.numel = t.numel();
        n.f32 = t.data<float>();
        n.owner = t.storage;
        return n;
    }
    return analysis::NumTensor::fromDoubles(t.dtype, t.sizes, toDoubles(t));
}

Result<Tensor> fromNumTensor(const analysis::NumTensor &t, std::optional<ScalarType> dtype)
{
    const ScalarType to = dtype.value_or(t.dtype);
    auto n = checkedNumel(t.sizes);
    if (!n)
        return n.error();
    if (*n != t.numel)
        return kernelError("tensor element count does not match its shape");
    std::vector<double> v(static_cast<std::size_t>(t.numel));
    for (std::int64_t i = 0; i < t.numel; ++i)
        v[std::size_t(i)] = t.at(i);
    return fromDoubleValues(to, t.sizes, v);
}

Result<Tensor> fromPyTensor(const PyTensor &t)
{
    const std::string label = t.storage ? t.storage->entry() : std::string("tensor");
    if (t.sizes.size() != t.strides.size())
        return makeError(ErrorCode::Corrupt, label, "tensor sizes and strides differ in rank");
    auto out = uninitTensor(t.dtype, t.sizes); // filled below or not returned
    if (!out)
        return makeError(out.error().code, label, out.error().reason);
    if (out->numel() == 0)
        return out;
    if (!t.storage)
        return makeError(ErrorCode::Corrupt, label, "tensor without storage");
    if (t.storage->bigEndian() && out->itemSize() > 1) {
        auto v = tensorValues(t);
        if (!v)
            return v.error();
        return fromDoubleValues(t.dtype, t.sizes, *v);
    }
    auto bytes = t.storage->bytes();
    if (!bytes)
        return bytes.error();
    const std::size_t es = out->itemSize();
    // Contiguous (the common case for saved weights): one copy straight from the storage.
    if (t.strides == contiguousStrides(t.sizes)) {
        const std::uint64_t need = (std::uint64_t(t.storageOffset) + std::uint64_t(out->numel())) * es;
        if (t.storageOffset < 0 || need > (*bytes)->size())
            return makeError(ErrorCode::Corrupt, label, "tensor view exceeds its storage");
        std::memcpy(
            out->mutableBytes(), (*bytes)->data() + std::size_t(t.storageOffset) * es, std::size_t(out->numel()) * es);
        return out;
    }
    Tensor src;
    src.dtype = t.dtype;
    const std::uint64_t elems = (*bytes)->size() / es;
    src.sizes = { std::int64_t(elems) };
    auto holder = std::make_shared<Storage>((*bytes)->begin(), (*bytes)->begin() + std::ptrdiff_t(elems * es));
    src.storage = holder;
    for (auto s : t.strides)
        if (s < 0)
            return makeError(ErrorCode::Corrupt, label, "negative stride");
    auto g = gatherStrided(src, t.sizes, t.strides, t.storageOffset);
    if (!g)
        return makeError(ErrorCode::Corrupt, label, "tensor view exceeds its storage");
    return g;
}

// ---------------------------------------------------------------- inputs

Result<std::vector<Value>> inputsFromPyValue(const PyValue &v, const std::string &label)
{
    std::vector<Value> out;
    auto one = [&](const PyValue &x) -> Status {
        if (const PyTensor *t = x.tensor()) {
            auto r = fromPyTensor(*t);
            if (!r)
                return r.error();
            out.push_back(Value::ofTensor(std::move(*r)));
        } else if (x.kind() == PyKind::Bool) {
            out.push_back(Value::ofBool(*x.toBool()));
        } else if (x.kind() == PyKind::Int) {
            out.push_back(Value::ofInt(*x.toInt()));
        } else if (x.kind() == PyKind::Float) {
            out.push_back(Value::ofDouble(*x.toDouble()));
        } else if (x.isNone()) {
            out.push_back(Value::none());
        } else {
            return makeError(ErrorCode::Unsupported, label,
                fmt::format("input {} is a {}, expected a tensor or a number", out.size(), pyKindName(x.kind())));
        }
        return Ok {};
    };
    if (const auto *seq = v.sequence()) {
        // ((args...), {kwargs}) as example_inputs are stored: take the positional tuple.
        if (seq->size() == 2 && (*seq)[0].sequence() && (*seq)[1].dict())
            return inputsFromPyValue((*seq)[0], label);
        for (const PyValue &x : *seq) {
            if (auto s = one(x); !s)
                return s.error();
        }
        return out;
    }
    if (auto s = one(v); !s)
        return s.error();
    return out;
}

Result<std::vector<Value>> inputsFromTorchSave(const std::string &path)
{
    auto v = loadTorchSave(path);
    if (!v)
        return v.error();
    return inputsFromPyValue(*v, path);
}

Result<std::vector<Value>> chooseInputs(const ETRecord &record, const InputChoice &choice)
{
    if (!choice.inputsFile.empty())
        return inputsFromTorchSave(choice.inputsFile);
    if (!choice.bundledProgram.empty()) {
        auto bp = BundledProgram::open(choice.bundledProgram);
        if (!bp)
            return bp.error();
        for (const auto &suite : (*bp)->suites()) {
            if (suite.methodName != choice.method)
                continue;
            const int n = int(suite.testCases.size());
            const int idx = choice.testCase < 0 ? n + choice.testCase : choice.testCase;
            if (idx < 0 || idx >= n)
                return makeError(ErrorCode::InvalidArgument, choice.bundledProgram,
                    fmt::format("test case {} out of range ({} test cases)", choice.testCase, n));
            std::vector<Value> out;
            for (const BundledValue &bv : suite.testCases[std::size_t(idx)].inputs) {
                switch (bv.kind) {
                case BundledValue::Kind::Tensor: {
                    auto t = fromDoubleValues(bv.dtype, bv.sizes, bv.values);
                    if (!t)
                        return makeError(t.error().code, choice.bundledProgram, t.error().reason);
                    out.push_back(Value::ofTensor(std::move(*t)));
                    break;
                }
                case BundledValue::Kind::Int:
                    out.push_back(Value::ofInt(bv.intValue));
                    break;
                case BundledValue::Kind::Bool:
                    out.push_back(Value::ofBool(bv.boolValue));
                    break;
                case BundledValue::Kind::Double:
                    out.push_back(Value::ofDouble(bv.doubleValue));
                    break;
                case BundledValue::Kind::None:
                    out.push_back(Value::none());
                    break;
                }
            }
            return out;
        }
        return makeError(ErrorCode::InvalidArgument, choice.bundledProgram,
            fmt::format("no test suite for method '{}'", choice.method));
    }
    if (record.hasRepresentativeInputs()) {
        auto v = record.loadRepresentativeInputs();
        if (!v)
            return v.error();
        if (!v->isNone())
            return inputsFromPyValue(*v, record.path() + ":representative_inputs");
    }
    return makeError(ErrorCode::InvalidArgument, record.path(),
        "no inputs to evaluate the graph: the ETRecord has no representative_inputs; give "
        "--inputs FILE (torch.save of a tuple of tensors) or --bundled-program P --test-case N");
}

// ---------------------------------------------------------------- program choice

const ETRecordProgram *findProgram(const ETRecord &record, const std::string &graphName)
{
    if (graphName.empty()) {
        if (const auto *p = record.edgeProgram("forward"))
            return p;
        return record.atenProgram();
    }
    if (const auto *p = record.program(graphName))
        return p;
    if (const auto *p = record.program(graphName + "/forward"))
        return p;
    for (const auto &p : record.programs())
        if (p.baseName == graphName && (p.method.empty() || p.method == "forward"))
            return &p;
    return nullptr;
}

// ---------------------------------------------------------------- the interpreter

namespace {

bool isWeightSpec(const std::string &kind)
{
    return kind == "parameter" || kind == "buffer" || kind == "tensor_constant" || kind == "constant_tensor"
        || kind == "custom_obj" || kind == "constant";
}

struct Producer {
    int node = -1; // index into program.nodes
    int index = 0;
};

std::string nodeContext(const GraphNode &n, const std::string &key)
{
    std::string s = fmt::format("node {} ({})", n.name, key);
    const std::string loc = n.sourceLocation();
    if (!loc.empty())
        s += " at " + loc;
    return s;
}

} // namespace

std::uint64_t physicalMemory()
{
    const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? std::uint64_t(pages) * std::uint64_t(size) : 0;
}

MemoryEstimate estimateMemory(
    const ExportedProgram &program, const std::map<std::string, Tensor> &weights, EvalOptions::Keep keep)
{
    MemoryEstimate m;
    for (const auto &[name, t] : weights)
        m.weights += std::uint64_t(std::max<std::int64_t>(t.numel(), 0)) * t.itemSize();
    for (const GraphNode &node : program.nodes) {
        const bool kept = keep == EvalOptions::Keep::All || node.debugHandle.has_value();
        for (const auto &o : node.outputs)
            for (const auto &name : o.tensorNames) {
                const TensorMetaInfo *meta = program.tensor(name);
                if (!meta)
                    continue;
                double bytes
                    = double(elementSize(scalarTypeFromJson(meta->jsonDtype).value_or(ScalarType::Float)).value_or(4));
                for (const auto &s : meta->sizes)
                    bytes *= double(parseInt(s).value_or(1));
                const auto b = std::uint64_t(std::min(bytes, 1e18));
                if (kept)
                    m.kept += b;
                else
                    m.transient = std::max(m.transient, 2 * b); // an output and its input alive together
            }
    }
    return m;
}

namespace {

// Where a slice / select output sits in its base: elements along `dim` from `start` by `step`
// (a select is a slice of one element whose dim is dropped).
struct ViewOf {
    std::string base;
    std::vector<std::int64_t> baseSizes;
    int dim = 0;
    std::int64_t start = 0, step = 1;
    bool select = false;
};

std::optional<ViewOf> viewOf(const std::string &key, const KernelArgs &args, const GraphNode &node)
{
    if (node.inputs.empty() || node.inputs[0].arg.kind != "as_tensor" || node.inputs[0].arg.tensorNames.empty())
        return std::nullopt;
    auto self = args.tensor(0, "self");
    if (!self || self->dim() == 0)
        return std::nullopt;
    ViewOf v;
    v.base = node.inputs[0].arg.tensorNames[0];
    v.baseSizes = self->sizes;
    auto dim = args.integer(1, "dim", 0);
    if (!dim)
        return std::nullopt;
    auto d = wrapDim(*dim, self->dim());
    if (!d)
        return std::nullopt;
    v.dim = *d;
    const std::int64_t n = self->sizes[std::size_t(*d)];
    if (key == "aten.select.int") {
        auto index = args.integer(2, "index");
        if (!index)
            return std::nullopt;
        v.select = true;
        v.start = *index < 0 ? *index + n : *index;
    } else {
        auto start = args.has(2, "start") ? args.integer(2, "start") : Result<std::int64_t>(0);
        auto step = args.integer(4, "step", 1);
        if (!start || !step || *step <= 0)
            return std::nullopt;
        v.start = std::clamp<std::int64_t>(*start < 0 ? *start + n : *start, 0, n);
        v.step = *step;
    }
    return v;
}

// `base` with the view's elements replaced by `value`.
Result<Tensor> writeView(const Tensor &base, const ViewOf &v, const Tensor &value)
{
    if (base.sizes != v.baseSizes || base.dtype != value.dtype)
        return kernelError("view no longer matches its base");
    auto out = makeTensor(base.dtype, base.sizes);
    if (!out)
        return out.error();
    const std::size_t es = base.itemSize();
    std::memcpy(out->mutableBytes(), base.bytes(), std::size_t(base.numel()) * es);
    const auto bs = contiguousStrides(base.sizes);
    std::vector<std::int64_t> coord(value.sizes.size());
    for (std::int64_t i = 0; i < value.numel(); ++i) {
        std::int64_t r = i;
        for (std::size_t d = value.sizes.size(); d-- > 0;) {
            coord[d] = r % value.sizes[d];
            r /= value.sizes[d];
        }
        std::int64_t at = 0;
        std::size_t vd = 0;
        for (std::size_t d = 0; d < base.sizes.size(); ++d) {
            std::int64_t c;
            if (int(d) == v.dim)
                c = v.select ? v.start : v.start + coord[vd++] * v.step;
            else
                c = coord[vd++];
            if (c < 0 || c >= base.sizes[d])
                return kernelError("view outside its base");
            at += c * bs[d];
        }
        std::memcpy(out->mutableBytes() + std::size_t(at) * es, value.bytes() + std::size_t(i) * es, es);
    }
    return out;
}

} // namespace

bool isQuantizeOp(const std::string &opKey)
{
    return opKey.rfind("quantized_decomposed.quantize_per_", 0) == 0 || opKey == "torchao.quantize_affine.default";
}

bool isDequantizeOp(const std::string &opKey)
{
    return opKey.rfind("quantized_decomposed.dequantize_per_", 0) == 0 || opKey == "torchao.dequantize_affine.default";
}

Result<EvalResult> evaluateProgram(const ExportedProgram &program, std::map<std::string, Tensor> weights,
    const std::vector<Value> &inputs, const EvalOptions &options)
{
    ensureRegistered();
    if (options.maxMemory >= 0) {
        const std::uint64_t budget = options.maxMemory > 0 ? std::uint64_t(options.maxMemory) : physicalMemory() / 2;
        const MemoryEstimate m = estimateMemory(program, weights, options.keep);
        if (budget > 0 && m.total() > budget)
            return makeError(ErrorCode::LimitExceeded, {},
                fmt::format("evaluating needs about {:.1f} MB (weights {:.1f} MB, kept outputs {:.1f} MB, largest "
                            "transient {:.1f} MB), over the memory budget of {:.1f} MB (--max-memory; --keep "
                            "handles keeps less)",
                    double(m.total()) / 1048576.0, double(m.weights) / 1048576.0, double(m.kept) / 1048576.0,
                    double(m.transient) / 1048576.0, double(budget) / 1048576.0));
    }
    ElementLimitScope limit(options.maxElements);
    EvalResult result;
    const int threads = options.threads > 0 ? options.threads : hardwareThreads();
    EvalThreadsScope threadsScope(threads);

    std::unordered_map<std::string, Value> env; // live values by tensor / argument name
    std::unordered_map<std::string, std::string> failed; // name -> operator that could not run
    std::unordered_map<std::string, Producer> producer;

    // Producers first: lets a read of a later node's output be told apart from a missing name.
    for (std::size_t i = 0; i < program.nodes.size(); ++i) {
        int k = 0;
        for (const auto &out : program.nodes[i].outputs) {
            if (out.kind == "as_tensor" || out.kind == "as_tensors")
                for (const auto &name : out.tensorNames) {
                    if (!producer.count(name))
                        producer[name] = Producer { int(i), k };
                    ++k;
                }
            else if (out.kind != "as_none")
                ++k;
        }
    }

    // Placeholders from the signature; without one every graph input is a user input.
    std::size_t nextInput = 0;
    auto bindUser = [&](const std::string &name) -> Status {
        if (nextInput >= inputs.size())
            return makeError(ErrorCode::InvalidArgument, {},
                fmt::format("the graph takes more inputs than the {} given (no value for '{}')", inputs.size(), name));
        env[name] = inputs[nextInput++];
        return Ok {};
    };
    if (!program.inputSpecs.empty()) {
        for (const SignatureSpec &spec : program.inputSpecs) {
            if (spec.argName.empty())
                continue;
            if (isWeightSpec(spec.kind)) {
                auto it = weights.find(spec.target);
                if (it == weights.end())
                    it = weights.find(spec.argName);
                if (it == weights.end()) {
                    failed[spec.argName] = "";
                    result.warnings.push_back(fmt::format("{} '{}' ({}) has no tensor in the ETRecord's state dict or "
                                                          "constants",
                        spec.kind, spec.target, spec.argName));
                    continue;
                }
                env[spec.argName] = Value::ofTensor(it->second);
            } else if (spec.kind == "user_input") {
                if (auto s = bindUser(spec.argName); !s)
                    return s.error();
            } else {
                result.warnings.push_back(fmt::format("input '{}' of kind {} is not bound", spec.argName, spec.kind));
            }
        }
    } else {
        for (const GraphArgument &a : program.inputs)
            for (const auto &name : a.tensorNames) {
                auto it = weights.find(name);
                if (it != weights.end())
                    env[name] = Value::ofTensor(it->second);
                else if (auto s = bindUser(name); !s)
                    return s.error();
            }
    }
    weights.clear(); // env holds the bound ones, released after their last reader
    if (nextInput < inputs.size())
        result.warnings.push_back(fmt::format("{} inputs given, the graph uses {}", inputs.size(), nextInput));

    // Last reader of each name, so that inputs and weights can be released when done.
    std::unordered_map<std::string, std::size_t> lastUse;
    for (std::size_t i = 0; i < program.nodes.size(); ++i)
        for (const auto &in : program.nodes[i].inputs)
            for (const auto &name : in.arg.tensorNames)
                lastUse[name] = i;
    for (const auto &o : program.outputs)
        for (const auto &name : o.tensorNames)
            lastUse[name] = program.nodes.size();

    std::unordered_set<std::string> produced;
    std::unordered_map<std::string, ViewOf> views; // outputs of slice / select, by name
    std::unordered_map<std::string, Tensor> twinSource; // floatTwin: quantize output -> its float input
    const std::size_t total = program.nodes.size();
    for (std::size_t ni = 0; ni < total; ++ni) {
        const GraphNode &node = program.nodes[ni];
        const std::string key = operatorKey(node.target);
        const bool getitem = key == "getitem";
        // "aten.relu_.default" -> "aten.relu.default" when only the functional kernel exists.
        const std::string inplace = getitem || findKernel(key) ? std::string() : functionalKey(key);

        NodeOutput out;
        out.node = node.name;
        out.target = key;
        out.debugHandle = node.debugHandle;
        out.nodeIndex = int(ni);

        // Decode the arguments.
        KernelArgs args;
        args.threads = threads;
        std::string error;
        std::string needs;
        for (const NamedArgument &na : node.inputs) {
            const GraphArgument &a = na.arg;
            Value v;
            auto lookup = [&](const std::string &name) -> std::optional<Tensor> {
                if (auto f = failed.find(name); f != failed.end()) {
                    if (needs.empty())
                        needs = f->second;
                    return std::nullopt;
                }
                if (options.inputOverride) {
                    if (auto p = producer.find(name); p != producer.end() && produced.count(name)) {
                        if (auto t
                            = options.inputOverride(program.nodes[std::size_t(p->second.node)].name, p->second.index))
                            return *t;
                    }
                }
                auto it = env.find(name);
                if (it == env.end() || it->second.kind != Value::Kind::Tensor) {
                    if (error.empty()) {
                        if (producer.count(name) && !produced.count(name))
                            error = fmt::format("reads '{}' before it is produced (cycle or out-of-order graph)", name);
                        else if (it != env.end())
                            error = fmt::format("'{}' is not a tensor ({})", name, it->second.describe());
                        else
                            error = fmt::format("reads '{}', which no node or input defines", name);
                    }
                    return std::nullopt;
                }
                return it->second.tensor;
            };
            if (a.kind == "as_none") {
                v = Value::none();
            } else if (a.kind == "as_tensor") {
                if (a.tensorNames.empty()) {
                    error = "tensor argument without a name";
                } else if (auto t = lookup(a.tensorNames[0])) {
                    v = Value::ofTensor(std::move(*t));
                } else if (env.count(a.tensorNames[0]) && env[a.tensorNames[0]].kind != Value::Kind::Tensor) {
                    v = env[a.tensorNames[0]];
                    error.clear();
                }
            } else if (a.kind == "as_tensors" || a.kind == "as_optional_tensors") {
                v.kind = Value::Kind::TensorList;
                for (const std::string &part : splitList(a.text)) {
                    if (part == "None" || part.empty()) {
                        v.tensors.emplace_back();
                    } else if (auto t = lookup(part)) {
                        v.tensors.emplace_back(std::move(*t));
                    } else {
                        v.tensors.emplace_back();
                    }
                }
            } else if (a.kind == "as_int" || a.kind == "as_sym_int") {
                if (auto x = parseInt(a.text))
                    v = Value::ofInt(*x);
                else if (auto it = env.find(a.text); it != env.end())
                    v = it->second; // a symbolic int bound as an input
                else
                    error = fmt::format("argument '{}': cannot read int '{}'", na.name, a.text);
            } else if (a.kind == "as_float" || a.kind == "as_sym_float") {
                if (auto x = parseDouble(a.text))
                    v = Value::ofDouble(*x);
                else
                    error = fmt::format("argument '{}': cannot read float '{}'", na.name, a.text);
            } else if (a.kind == "as_ints" || a.kind == "as_sym_ints") {
                v.kind = Value::Kind::IntList;
                for (const std::string &p : splitList(a.text)) {
                    if (auto x = parseInt(p))
                        v.ints.push_back(*x);
                    else
                        error = fmt::format("argument '{}': cannot read int list {}", na.name, a.text);
                }
            } else if (a.kind == "as_floats") {
                v.kind = Value::Kind::DoubleList;
                for (const std::string &p : splitList(a.text)) {
                    if (auto x = parseDouble(p))
                        v.doubles.push_back(*x);
                    else
                        error = fmt::format("argument '{}': cannot read float list {}", na.name, a.text);
                }
            } else if (a.kind == "as_bool" || a.kind == "as_sym_bool") {
                v = Value::ofBool(a.text == "True" || a.text == "true");
            } else if (a.kind == "as_bools") {
                v.kind = Value::Kind::BoolList;
                for (const std::string &p : splitList(a.text))
                    v.bools.push_back(p == "true" || p == "True");
            } else if (a.kind == "as_string") {
                v.kind = Value::Kind::String;
                v.str = a.text;
            } else if (a.kind == "as_scalar_type") {
                if (auto d = dtypeFromName(a.text)) {
                    v.kind = Value::Kind::Dtype;
                    v.dtype = *d;
                } else {
                    error = fmt::format("argument '{}': unsupported dtype {}", na.name, a.text);
                }
            } else {
                v.kind = Value::Kind::Other; // layouts, memory formats, devices
                v.str = a.text;
            }
            args.names.push_back(na.name);
            args.values.push_back(std::move(v));
        }

        std::vector<Tensor> outputs;
        if (!needs.empty() || (error.empty() && !getitem && !findKernel(key) && false)) {
            out.error = fmt::format("no reference (needs {})", needs);
        } else if (!error.empty()) {
            out.error = fmt::format("{}: {}", nodeContext(node, key), error);
            needs = key;
        } else if (getitem) {
            // A getitem node (older serializations): item `index` of a tensor list.
            const Value *list = args.values.empty() ? nullptr : &args.values[0];
            auto idx = args.integer(1, "index", std::nullopt);
            if (!list || list->kind != Value::Kind::TensorList || !idx || *idx < 0
                || std::size_t(*idx) >= list->tensors.size() || !list->tensors[std::size_t(*idx)]) {
                out.error
                    = fmt::format("{}: getitem needs a tensor list and an index in range", nodeContext(node, key));
                needs = key;
            } else {
                outputs.push_back(*list->tensors[std::size_t(*idx)]);
            }
        } else if (options.floatTwin && isDequantizeOp(key) && !node.inputs.empty()
            && node.inputs[0].arg.kind == "as_tensor" && !node.inputs[0].arg.tensorNames.empty()
            && twinSource.count(node.inputs[0].arg.tensorNames[0])) {
            // Float twin: quantize -> dequantize is the identity on the quantize's input.
            auto odt = args.dtype(-1,
                key == "torchao.dequantize_affine.default" ? "output_dtype"
                    : key.find("per_token") != std::string::npos || key.find("group") != std::string::npos
                    ? "output_dtype"
                    : "out_dtype");
            auto passed
                = cast(twinSource.at(node.inputs[0].arg.tensorNames[0]), odt && *odt ? **odt : ScalarType::Float);
            if (!passed) {
                out.error = fmt::format("{}: {}", nodeContext(node, key), passed.error().reason);
                needs = key;
            } else {
                outputs.push_back(std::move(*passed));
                ++result.floatTwinPairs;
            }
        } else if (const KernelFn *fn = findKernel(inplace.empty() ? key : inplace)) {
            auto r = (*fn)(args);
            if (!r) {
                out.error = fmt::format("{}: {}", nodeContext(node, key), r.error().reason);
                needs = key;
            } else {
                outputs = std::move(*r);
                // Cache updates (Tensor(a!) arguments): later readers of the argument see the
                // new value; the graph outputs come first.
                const auto &mutated = mutatedArguments(key);
                if (!mutated.empty() && outputs.size() > mutated.size()) {
                    const std::size_t first = outputs.size() - mutated.size();
                    for (std::size_t q = 0; q < mutated.size(); ++q)
                        for (const NamedArgument &na : node.inputs)
                            if (na.name == mutated[q] && na.arg.kind == "as_tensor" && !na.arg.tensorNames.empty()
                                && env.count(na.arg.tensorNames[0]))
                                env[na.arg.tensorNames[0]] = Value::ofTensor(outputs[first + q]);
                    outputs.resize(first);
                }
                // In-place op (graphs traced without functionalization): later readers of
                // `self` see the new value.
                if (!inplace.empty() && !outputs.empty() && !node.inputs.empty()
                    && node.inputs[0].arg.kind == "as_tensor" && !node.inputs[0].arg.tensorNames.empty()) {
                    const std::string &self = node.inputs[0].arg.tensorNames[0];
                    auto it = env.find(self);
                    if (it != env.end() && it->second.kind == Value::Kind::Tensor
                        && it->second.tensor.dtype == outputs[0].dtype && it->second.tensor.sizes == outputs[0].sizes) {
                        it->second.tensor = outputs[0];
                        // A write into a slice / select view reaches its base (graphs traced
                        // without functionalization: `mask[a:b, c:d] = v`).
                        std::string cur = self;
                        Tensor value = outputs[0];
                        for (auto v = views.find(cur); v != views.end(); v = views.find(cur)) {
                            auto b = env.find(v->second.base);
                            if (b == env.end() || b->second.kind != Value::Kind::Tensor)
                                break;
                            auto merged = writeView(b->second.tensor, v->second, value);
                            if (!merged)
                                break;
                            b->second.tensor = *merged;
                            value = *merged;
                            cur = v->second.base;
                        }
                    } else
                        result.warnings.push_back(fmt::format(
                            "{}: in-place update of '{}' changes its dtype or shape", nodeContext(node, key), self));
                }
            }
        } else {
            out.error = fmt::format("{}: no kernel for {}", nodeContext(node, key), key);
            needs = key;
        }

        // Bind outputs to their names.
        std::vector<std::string> outNames;
        for (const auto &o : node.outputs)
            for (const auto &n : o.tensorNames)
                outNames.push_back(n);
        if (out.error.empty() && outputs.size() < outNames.size()) {
            out.error = fmt::format("{}: the kernel returned {} outputs, the graph names {}", nodeContext(node, key),
                outputs.size(), outNames.size());
            needs = key;
        }
        if (out.error.empty()) {
            for (std::size_t k = 0; k < outNames.size(); ++k) {
                const Tensor &t = outputs[k];
                if (const TensorMetaInfo *meta = program.tensor(outNames[k])) {
                    bool same = meta->sizes.size() == t.sizes.size();
                    for (std::size_t d = 0; same && d < t.sizes.size(); ++d)
                        if (auto s = parseInt(meta->sizes[d]))
                            same = *s == t.sizes[d];
                    if (!same)
                        result.warnings.push_back(fmt::format("{}: output '{}' has shape [{}], the graph says {}",
                            nodeContext(node, key), outNames[k], fmt::join(t.sizes, ", "), meta->shapeText()));
                }
                env[outNames[k]] = Value::ofTensor(t);
                produced.insert(outNames[k]);
                if (k == 0 && options.floatTwin && isQuantizeOp(key))
                    if (auto x = args.tensor(0, "input"); x)
                        twinSource[outNames[0]] = *x;
                if (k == 0 && (key == "aten.slice.Tensor" || key == "aten.select.int"))
                    if (auto v = viewOf(key, args, node); v) {
                        // The view's readers may write through it: its bases stay alive as long.
                        const std::size_t until = lastUse.count(outNames[0]) ? lastUse[outNames[0]] : ni;
                        for (std::string b = v->base; !b.empty();) {
                            lastUse[b] = std::max(lastUse[b], until);
                            auto up = views.find(b);
                            b = up == views.end() ? std::string() : up->second.base;
                        }
                        views[outNames[0]] = *v;
                    }
            }
            out.outputs = std::move(outputs);
        } else {
            for (const auto &n : outNames) {
                failed[n] = needs;
                produced.insert(n);
            }
        }

        // Release what no later node reads (node outputs stay alive through `result`).
        for (const auto &in : node.inputs)
            for (const auto &name : in.arg.tensorNames)
                if (auto it = lastUse.find(name); it != lastUse.end() && it->second == ni)
                    env.erase(name);

        if (options.keep == EvalOptions::Keep::DebugHandles && !node.debugHandle) {
            out.outputs.clear(); // env still holds them for later readers
            out.kept = false;
        }
        if (!getitem)
            result.nodes.push_back(std::move(out));
        if (options.progress && !options.progress(int((ni + 1) * 1000 / std::max<std::size_t>(total, 1))))
            return makeError(ErrorCode::Cancelled, {}, "evaluation cancelled");
    }

    dnnlTrimScratch();
    for (const auto &o : program.outputs) {
        for (const auto &name : o.tensorNames) {
            auto it = env.find(name);
            result.programOutputs.push_back(
                it != env.end() && it->second.kind == Value::Kind::Tensor ? it->second.tensor : Tensor {});
        }
    }
    return result;
}

Result<std::map<std::string, Tensor>> loadWeights(
    const ETRecord &record, const ETRecordProgram &program, std::vector<std::string> *warnings)
{
    std::map<std::string, Tensor> weights;
    for (int which = 0; which < 2; ++which) {
        auto blob = which == 0 ? record.loadStateDict(program) : record.loadConstants(program);
        if (!blob)
            return blob.error();
        const PyDict *d = blob->dict();
        if (!d)
            continue;
        for (const auto &[k, v] : d->items) {
            const std::string *name = k.str();
            const PyTensor *t = v.tensor();
            if (!name || !t)
                continue;
            auto tensor = fromPyTensor(*t);
            if (!tensor) {
                if (warnings)
                    warnings->push_back(fmt::format("weight '{}': {}", *name, tensor.error().message()));
                continue;
            }
            weights[*name] = std::move(*tensor);
        }
    }
    return weights;
}

Result<EvalResult> evaluate(
    const ETRecord &record, const std::string &graphName, const std::vector<Value> &inputs, const EvalOptions &options)
{
    const ETRecordProgram *p = findProgram(record, graphName);
    if (!p || !p->program)
        return makeError(ErrorCode::InvalidArgument, record.path(),
            fmt::format("no graph named '{}' in the ETRecord", graphName.empty() ? "forward" : graphName));
    std::vector<std::string> warnings;
    auto weights = loadWeights(record, *p, &warnings);
    if (!weights)
        return weights.error();
    auto r = evaluateProgram(*p->program, std::move(*weights), inputs, options);
    if (!r)
        return Error { r.error().code, r.error().file.empty() ? record.path() : r.error().file, r.error().reason };
    r->warnings.insert(r->warnings.begin(), warnings.begin(), warnings.end());
    return r;
}

} // namespace etscope::eval
