#include "etrecord/unpickler.h"

#include "etrecord/exportedprogram.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

namespace etscope {

namespace {

struct DtypeName {
    const char *name;
    ScalarType type;
};
constexpr std::array kDtypeNames {
    DtypeName { "float32", ScalarType::Float },
    DtypeName { "float", ScalarType::Float },
    DtypeName { "float64", ScalarType::Double },
    DtypeName { "double", ScalarType::Double },
    DtypeName { "float16", ScalarType::Half },
    DtypeName { "half", ScalarType::Half },
    DtypeName { "bfloat16", ScalarType::BFloat16 },
    DtypeName { "int64", ScalarType::Long },
    DtypeName { "long", ScalarType::Long },
    DtypeName { "int32", ScalarType::Int },
    DtypeName { "int", ScalarType::Int },
    DtypeName { "int16", ScalarType::Short },
    DtypeName { "short", ScalarType::Short },
    DtypeName { "int8", ScalarType::Char },
    DtypeName { "uint8", ScalarType::Byte },
    DtypeName { "bool", ScalarType::Bool },
    DtypeName { "complex64", ScalarType::ComplexFloat },
    DtypeName { "cfloat", ScalarType::ComplexFloat },
    DtypeName { "complex128", ScalarType::ComplexDouble },
    DtypeName { "cdouble", ScalarType::ComplexDouble },
    DtypeName { "uint16", ScalarType::UInt16 },
    DtypeName { "uint32", ScalarType::UInt32 },
    DtypeName { "uint64", ScalarType::UInt64 },
    DtypeName { "float8_e5m2", ScalarType::Float8e5m2 },
    DtypeName { "float8_e4m3fn", ScalarType::Float8e4m3fn },
    DtypeName { "qint8", ScalarType::QInt8 },
    DtypeName { "quint8", ScalarType::QUInt8 },
    DtypeName { "qint32", ScalarType::QInt32 },
};

constexpr std::array kStorageNames {
    DtypeName { "DoubleStorage", ScalarType::Double },
    DtypeName { "FloatStorage", ScalarType::Float },
    DtypeName { "HalfStorage", ScalarType::Half },
    DtypeName { "BFloat16Storage", ScalarType::BFloat16 },
    DtypeName { "LongStorage", ScalarType::Long },
    DtypeName { "IntStorage", ScalarType::Int },
    DtypeName { "ShortStorage", ScalarType::Short },
    DtypeName { "CharStorage", ScalarType::Char },
    DtypeName { "ByteStorage", ScalarType::Byte },
    DtypeName { "BoolStorage", ScalarType::Bool },
    DtypeName { "ComplexFloatStorage", ScalarType::ComplexFloat },
    DtypeName { "ComplexDoubleStorage", ScalarType::ComplexDouble },
    DtypeName { "QInt8Storage", ScalarType::QInt8 },
    DtypeName { "QUInt8Storage", ScalarType::QUInt8 },
    DtypeName { "QInt32Storage", ScalarType::QInt32 },
    DtypeName { "QUInt4x2Storage", ScalarType::QUInt4x2 },
    DtypeName { "QUInt2x4Storage", ScalarType::QUInt2x4 },
};

// Callables we interpret ourselves; nothing here runs Python code.
constexpr std::array<std::string_view, 14> kCallables {
    "torch._utils._rebuild_tensor_v2",
    "torch._utils._rebuild_tensor_v3",
    "torch._utils._rebuild_parameter",
    "torch._utils._rebuild_parameter_with_state",
    "torch._tensor._rebuild_from_type_v2",
    "collections.OrderedDict",
    "_codecs.encode",
    "__builtin__.bytes",
    "builtins.bytes",
    "__builtin__.set",
    "builtins.set",
    "__builtin__.frozenset",
    "builtins.frozenset",
    "torch.device",
};
constexpr std::string_view kFakeTensor = "executorch.exir.serde.export_serialize._reconstruct_fake_tensor";

// Classes that only appear as arguments (e.g. the subclass in _rebuild_from_type_v2).
constexpr std::array<std::string_view, 4> kTokens { "torch.Tensor", "torch._tensor.Tensor",
    "torch.nn.parameter.Parameter", "torch.UntypedStorage" };

bool isCallable(const std::string &q)
{
    for (auto c : kCallables)
        if (q == c)
            return true;
    return q == kFakeTensor;
}

class Vm
{
public:
    Vm(std::span<const std::uint8_t> data, const UnpicklerOptions &opts)
        : m_d(data)
        , m_opts(opts)
    { }
    ~Vm()
    {
        // Break any reference cycles a hostile pickle built through the memo.
        // Containers reachable from a returned result were checked acyclic (m_done); the rest
        // are dropped either way.
        auto drop = [this](const void *p) { return !m_keep || !m_done.count(p); };
        for (auto &l : m_lists)
            if (drop(l.get()))
                l->items.clear();
        for (auto &t : m_tuples)
            if (drop(t.get()))
                t->items.clear();
        for (auto &d : m_dicts)
            if (drop(d.get()))
                d->items.clear();
    }

    Result<PyValue> run();

private:
    Error err(ErrorCode c, std::string reason) const
    {
        return makeError(c, m_opts.label, fmt::format("pickle offset {}: {}", m_opStart, reason));
    }
    Error truncated() const { return err(ErrorCode::Truncated, "pickle data ends inside an opcode"); }

    bool need(std::size_t n) const { return m_d.size() - m_pos >= n; }
    template <typename T> T readLe()
    {
        T v {};
        std::memcpy(&v, m_d.data() + m_pos, sizeof(T));
        m_pos += sizeof(T);
        return v; // little-endian hosts only (x86-64/arm64), as everywhere else in core
    }

    Result<PyValue> pop()
    {
        if (m_stack.size() <= markBase())
            return err(ErrorCode::Corrupt, "stack underflow");
        PyValue v = std::move(m_stack.back());
        m_stack.pop_back();
        return v;
    }
    std::size_t markBase() const { return m_marks.empty() ? 0 : m_marks.back(); }
    Result<std::vector<PyValue>> popToMark()
    {
        if (m_marks.empty())
            return err(ErrorCode::Corrupt, "no MARK on the stack");
        const std::size_t base = m_marks.back();
        m_marks.pop_back();
        std::vector<PyValue> items(std::make_move_iterator(m_stack.begin() + static_cast<std::ptrdiff_t>(base)),
            std::make_move_iterator(m_stack.end()));
        m_stack.resize(base);
        return items;
    }

    PyValue newTuple(std::vector<PyValue> items)
    {
        auto t = std::make_shared<PyTuple>();
        t->items = std::move(items);
        m_tuples.push_back(t);
        return PyValue(std::move(t));
    }
    PyValue newList(std::vector<PyValue> items = {})
    {
        auto l = std::make_shared<PyList>();
        l->items = std::move(items);
        m_lists.push_back(l);
        return PyValue(std::move(l));
    }
    PyValue newDict()
    {
        auto d = std::make_shared<PyDict>();
        m_dicts.push_back(d);
        return PyValue(std::move(d));
    }

    Result<std::string> readLine()
    {
        const std::size_t start = m_pos;
        while (m_pos < m_d.size() && m_d[m_pos] != '\n') {
            if (m_pos - start > 512)
                return err(ErrorCode::Corrupt, "GLOBAL name too long");
            ++m_pos;
        }
        if (m_pos >= m_d.size())
            return truncated();
        std::string s(reinterpret_cast<const char *>(m_d.data() + start), m_pos - start);
        ++m_pos;
        return s;
    }

    Result<PyValue> global(const std::string &module, const std::string &name)
    {
        if (!isAllowedPickleGlobal(module, name))
            return err(ErrorCode::Refused,
                fmt::format("refusing pickle global '{}.{}': not a torch.save tensor/container type "
                            "(restricted unpickler; nothing is executed)",
                    printable(module), printable(name)));
        return PyValue(PyGlobal { module, name });
    }

    Result<PyValue> call(const PyValue &callable, std::vector<PyValue> args, int depth = 0);
    Result<PyValue> rebuildTensor(const std::vector<PyValue> &args, bool v3);
    Status validate(const PyValue &v, std::size_t depth);

    std::span<const std::uint8_t> m_d;
    const UnpicklerOptions &m_opts;
    std::size_t m_pos = 0, m_opStart = 0;
    std::vector<PyValue> m_stack;
    std::vector<std::size_t> m_marks;
    std::unordered_map<std::uint64_t, PyValue> m_memo;
    std::vector<std::shared_ptr<PyList>> m_lists;
    std::vector<std::shared_ptr<PyTuple>> m_tuples;
    std::vector<std::shared_ptr<PyDict>> m_dicts;
    std::unordered_set<const void *> m_done, m_onPath;
    bool m_keep = false;
};

Result<std::vector<std::int64_t>> intTuple(const PyValue &v, const char *what, const std::string &label)
{
    const auto *seq = v.sequence();
    if (!seq)
        return makeError(
            ErrorCode::Corrupt, label, fmt::format("tensor {} is a {}, not a tuple", what, pyKindName(v.kind())));
    std::vector<std::int64_t> out;
    out.reserve(seq->size());
    for (const PyValue &x : *seq) {
        auto i = x.toInt();
        if (!i || *i < 0)
            return makeError(
                ErrorCode::Corrupt, label, fmt::format("tensor {} holds {}, not a non-negative int", what, x.repr()));
        out.push_back(*i);
    }
    return out;
}

Result<PyValue> Vm::rebuildTensor(const std::vector<PyValue> &args, bool v3)
{
    const std::size_t minArgs = v3 ? 7 : 6;
    if (args.size() < minArgs)
        return err(ErrorCode::Corrupt,
            fmt::format("_rebuild_tensor_v{} takes {} arguments, got {}", v3 ? 3 : 2, minArgs, args.size()));
    auto *sp = std::get_if<std::shared_ptr<const PyStorage>>(&args[0].v);
    if (!sp || !*sp)
        return err(ErrorCode::Corrupt, "tensor rebuilt from something that is not a storage");
    const PyStorage &storage = **sp;
    auto t = std::make_shared<PyTensor>();
    t->storage = *sp;
    auto off = args[1].toInt();
    if (!off || *off < 0)
        return err(ErrorCode::Corrupt, "tensor storage offset is not a non-negative int");
    t->storageOffset = *off;
    auto sizes = intTuple(args[2], "size", m_opts.label);
    if (!sizes)
        return sizes.error();
    auto strides = intTuple(args[3], "stride", m_opts.label);
    if (!strides)
        return strides.error();
    if (sizes->size() != strides->size())
        return err(
            ErrorCode::Corrupt, fmt::format("tensor has {} sizes but {} strides", sizes->size(), strides->size()));
    t->sizes = std::move(sizes.value());
    t->strides = std::move(strides.value());
    t->requiresGrad = args[4].toBool().value_or(false);
    if (v3) {
        const PyGlobal *g = args[6].global();
        auto dt = g && g->module == "torch" ? torchDtypeFromName(g->name) : std::nullopt;
        if (!dt)
            return err(ErrorCode::Unsupported, fmt::format("unknown tensor dtype {}", args[6].repr()));
        t->dtype = *dt;
    } else {
        if (!storage.dtype())
            return err(ErrorCode::Corrupt, "_rebuild_tensor_v2 on an untyped storage (no dtype)");
        t->dtype = *storage.dtype();
    }
    const auto esize = elementSize(t->dtype);
    if (!esize)
        return err(ErrorCode::Unsupported, "tensor dtype without element size");
    // The view must fit its storage: checked now, from metadata only, so reading later is safe.
    // The limits keep every product and sum below int64 overflow.
    constexpr std::int64_t kMaxElems = std::int64_t(1) << 46;
    if (t->sizes.size() > 64)
        return err(ErrorCode::LimitExceeded, fmt::format("tensor has {} dimensions", t->sizes.size()));
    if (t->storageOffset > kMaxElems)
        return err(ErrorCode::LimitExceeded, "tensor storage offset too large");
    std::int64_t numel = 1, maxIndex = t->storageOffset;
    for (std::size_t d = 0; d < t->sizes.size(); ++d) {
        const std::int64_t s = t->sizes[d];
        if (s != 0 && numel > kMaxElems / s)
            return err(ErrorCode::LimitExceeded, "tensor has too many elements");
        numel *= s;
        if (s > 0) {
            if (t->strides[d] > kMaxElems / s)
                return err(ErrorCode::LimitExceeded, "tensor stride too large");
            maxIndex += (s - 1) * t->strides[d];
        }
    }
    if (numel > 0) {
        const auto need = static_cast<std::uint64_t>(maxIndex + 1) * *esize;
        if (need > storage.byteSize())
            return err(ErrorCode::Corrupt,
                fmt::format(
                    "tensor view needs {} bytes but storage '{}' has {}", need, storage.key(), storage.byteSize()));
    }
    return PyValue(std::move(t));
}

Result<PyValue> Vm::call(const PyValue &callable, std::vector<PyValue> args, int depth)
{
    if (depth > 8)
        return err(ErrorCode::Refused, "rebuild calls nested too deeply");
    const PyGlobal *g = callable.global();
    if (!g)
        return err(ErrorCode::Refused,
            fmt::format("refusing to call a {} (only allow-listed globals)", pyKindName(callable.kind())));
    const std::string q = g->qualified();
    if (!isCallable(q))
        return err(ErrorCode::Refused, fmt::format("refusing to call '{}': allowed as a value only", q));

    if (q == "torch._utils._rebuild_tensor_v2")
        return rebuildTensor(args, false);
    if (q == "torch._utils._rebuild_tensor_v3")
        return rebuildTensor(args, true);
    if (q == "torch._utils._rebuild_parameter" || q == "torch._utils._rebuild_parameter_with_state") {
        if (args.size() < 2 || !args[0].tensor())
            return err(ErrorCode::Corrupt, "_rebuild_parameter without a tensor");
        auto t = std::make_shared<PyTensor>(*args[0].tensor());
        t->isParameter = true;
        t->requiresGrad = args[1].toBool().value_or(false);
        return PyValue(std::move(t));
    }
    if (q == "torch._tensor._rebuild_from_type_v2") {
        if (args.size() < 3 || !args[2].sequence())
            return err(ErrorCode::Corrupt, "_rebuild_from_type_v2 with malformed arguments");
        return call(args[0], *args[2].sequence(), depth + 1);
    }
    if (q == "collections.OrderedDict") {
        if (!args.empty())
            return err(ErrorCode::Unsupported, "OrderedDict built from arguments");
        return newDict();
    }
    if (q == "_codecs.encode") {
        // Protocol 2 spells bytes as latin-1 text; undo it code point by code point.
        if (args.empty() || !args[0].str())
            return err(ErrorCode::Corrupt, "_codecs.encode without text");
        const std::string &s = *args[0].str();
        PyBytes out;
        out.data.reserve(s.size());
        for (std::size_t i = 0; i < s.size();) {
            const auto c = static_cast<unsigned char>(s[i]);
            if (c < 0x80) {
                out.data.push_back(static_cast<char>(c));
                ++i;
            } else if ((c & 0xE0) == 0xC0 && i + 1 < s.size() && c <= 0xC3) {
                out.data.push_back(
                    static_cast<char>(((c & 0x03) << 6) | (static_cast<unsigned char>(s[i + 1]) & 0x3F)));
                i += 2;
            } else {
                return err(ErrorCode::Corrupt, "_codecs.encode text is not latin-1");
            }
        }
        return PyValue(std::move(out));
    }
    if (q == "__builtin__.bytes" || q == "builtins.bytes") {
        PyBytes out;
        if (!args.empty()) {
            const auto *seq = args[0].sequence();
            if (!seq)
                return err(ErrorCode::Unsupported, "bytes() from a non-list argument");
            for (const PyValue &x : *seq) {
                auto i = x.toInt();
                if (!i || *i < 0 || *i > 255)
                    return err(ErrorCode::Corrupt, "bytes() element out of range");
                out.data.push_back(static_cast<char>(*i));
            }
        }
        return PyValue(std::move(out));
    }
    if (q.ends_with(".set") || q.ends_with(".frozenset")) {
        // Sets are shown as lists; torch.save never relies on their semantics.
        std::vector<PyValue> items;
        if (!args.empty()) {
            const auto *seq = args[0].sequence();
            if (!seq)
                return err(ErrorCode::Unsupported, "set() from a non-list argument");
            items = *seq;
        }
        return newList(std::move(items));
    }
    if (q == "torch.device") {
        if (args.empty() || !args[0].str())
            return err(ErrorCode::Corrupt, "torch.device without a type");
        std::string dev = *args[0].str();
        if (args.size() > 1)
            if (auto i = args[1].toInt())
                dev += ":" + std::to_string(*i);
        return PyValue(std::move(dev));
    }
    if (q == kFakeTensor) {
        if (args.empty() || !args[0].bytes())
            return err(ErrorCode::Corrupt, "_reconstruct_fake_tensor without serialized metadata");
        auto meta = parseTensorMetaJson(args[0].bytes()->data);
        if (!meta)
            return err(ErrorCode::Corrupt, "fake tensor metadata: " + meta.error().reason);
        auto f = std::make_shared<PyFakeTensor>();
        f->jsonDtype = meta->jsonDtype;
        f->dtype = scalarTypeFromJson(meta->jsonDtype);
        f->sizes = meta->sizes;
        f->isParameter = args.size() > 1 && args[1].toBool().value_or(false);
        return PyValue(std::move(f));
    }
    return err(ErrorCode::Refused, fmt::format("refusing to call '{}'", q));
}

Status Vm::validate(const PyValue &v, std::size_t depth)
{
    const void *p = nullptr;
    const std::vector<PyValue> *children = nullptr;
    const PyDict *dict = nullptr;
    if (const PyTuple *t = v.tuple()) {
        p = t;
        children = &t->items;
    } else if (const PyList *l = v.list()) {
        p = l;
        children = &l->items;
    } else if ((dict = v.dict())) {
        p = dict;
    } else {
        return Ok {};
    }
    if (m_done.count(p))
        return Ok {};
    if (depth > m_opts.maxDepth)
        return makeError(
            ErrorCode::LimitExceeded, m_opts.label, fmt::format("pickle nests deeper than {}", m_opts.maxDepth));
    if (!m_onPath.insert(p).second)
        return makeError(ErrorCode::Refused, m_opts.label, "pickle builds a self-referencing container");
    if (children) {
        for (const PyValue &c : *children)
            if (auto s = validate(c, depth + 1); !s)
                return s;
    } else {
        for (const auto &[k, val] : dict->items) {
            if (auto s = validate(k, depth + 1); !s)
                return s;
            if (auto s = validate(val, depth + 1); !s)
                return s;
        }
    }
    m_onPath.erase(p);
    m_done.insert(p);
    return Ok {};
}

#define ETS_TRY(var, expr)                                                                                             \
    auto var = (expr);                                                                                                 \
    if (!var)                                                                                                          \
        return var.error();

Result<PyValue> Vm::run()
{
    while (m_pos < m_d.size()) {
        m_opStart = m_pos;
        const std::uint8_t op = m_d[m_pos++];
        switch (op) {
        case 0x80: // PROTO
            if (!need(1))
                return truncated();
            ++m_pos;
            break;
        case 0x95: // FRAME: framing is only a read-ahead hint
            if (!need(8))
                return truncated();
            m_pos += 8;
            break;
        case '.': { // STOP
            if (m_stack.size() != 1 || !m_marks.empty())
                return err(ErrorCode::Corrupt, fmt::format("STOP with {} values on the stack", m_stack.size()));
            PyValue result = std::move(m_stack.back());
            if (auto s = validate(result, 0); !s)
                return s.error();
            m_keep = true;
            return result;
        }
        case '(':
            m_marks.push_back(m_stack.size());
            break;
        case '0': {
            ETS_TRY(v, pop());
            break;
        }
        case '1': {
            ETS_TRY(v, popToMark());
            break;
        }
        case 'N':
            m_stack.emplace_back(PyNone {});
            break;
        case 0x88:
            m_stack.emplace_back(true);
            break;
        case 0x89:
            m_stack.emplace_back(false);
            break;
        case 'J':
            if (!need(4))
                return truncated();
            m_stack.emplace_back(PyInt { readLe<std::int32_t>(), false });
            break;
        case 'K':
            if (!need(1))
                return truncated();
            m_stack.emplace_back(PyInt { m_d[m_pos++], false });
            break;
        case 'M':
            if (!need(2))
                return truncated();
            m_stack.emplace_back(PyInt { readLe<std::uint16_t>(), false });
            break;
        case 0x8a:
        case 0x8b: { // LONG1 / LONG4: little-endian two's complement of n bytes
            std::uint64_t n = 0;
            if (op == 0x8a) {
                if (!need(1))
                    return truncated();
                n = m_d[m_pos++];
            } else {
                if (!need(4))
                    return truncated();
                const auto n32 = readLe<std::int32_t>();
                if (n32 < 0)
                    return err(ErrorCode::Corrupt, "negative LONG4 length");
                n = static_cast<std::uint64_t>(n32);
            }
            if (!need(n))
                return truncated();
            PyInt v;
            if (n > 8) {
                v.big = true;
            } else if (n > 0) {
                std::uint64_t u = 0;
                for (std::uint64_t i = 0; i < n; ++i)
                    u |= std::uint64_t(m_d[m_pos + i]) << (8 * i);
                if (n < 8 && (m_d[m_pos + n - 1] & 0x80))
                    u |= ~std::uint64_t(0) << (8 * n);
                v.value = static_cast<std::int64_t>(u);
            }
            m_pos += n;
            m_stack.emplace_back(v);
            break;
        }
        case 'G': { // BINFLOAT is big-endian
            if (!need(8))
                return truncated();
            std::uint64_t u = 0;
            for (int i = 0; i < 8; ++i)
                u = (u << 8) | m_d[m_pos + static_cast<std::size_t>(i)];
            m_pos += 8;
            double d;
            std::memcpy(&d, &u, 8);
            m_stack.emplace_back(d);
            break;
        }
        case 'X':
        case 0x8c:
        case 0x8d:
        case 'C':
        case 'B':
        case 0x8e: {
            std::uint64_t n = 0;
            const std::size_t lenBytes = (op == 0x8c || op == 'C') ? 1 : (op == 0x8d || op == 0x8e) ? 8 : 4;
            if (!need(lenBytes))
                return truncated();
            for (std::size_t i = 0; i < lenBytes; ++i)
                n |= std::uint64_t(m_d[m_pos + i]) << (8 * i);
            m_pos += lenBytes;
            if (!need(n))
                return truncated();
            std::string s(reinterpret_cast<const char *>(m_d.data() + m_pos), static_cast<std::size_t>(n));
            m_pos += n;
            if (op == 'C' || op == 'B' || op == 0x8e)
                m_stack.emplace_back(PyBytes { std::move(s) });
            else
                m_stack.emplace_back(std::move(s));
            break;
        }
        case ')':
            m_stack.push_back(newTuple({}));
            break;
        case 't': {
            ETS_TRY(items, popToMark());
            m_stack.push_back(newTuple(std::move(items.value())));
            break;
        }
        case 0x85:
        case 0x86:
        case 0x87: {
            const std::size_t n = op - 0x84u;
            if (m_stack.size() < markBase() + n)
                return err(ErrorCode::Corrupt, "stack underflow");
            std::vector<PyValue> items(std::make_move_iterator(m_stack.end() - static_cast<std::ptrdiff_t>(n)),
                std::make_move_iterator(m_stack.end()));
            m_stack.resize(m_stack.size() - n);
            m_stack.push_back(newTuple(std::move(items)));
            break;
        }
        case ']':
            m_stack.push_back(newList());
            break;
        case '}':
            m_stack.push_back(newDict());
            break;
        case 'a':
        case 'e': {
            std::vector<PyValue> items;
            if (op == 'a') {
                ETS_TRY(v, pop());
                items.push_back(std::move(v.value()));
            } else {
                ETS_TRY(popped, popToMark());
                items = std::move(popped.value());
            }
            if (m_stack.size() <= markBase())
                return err(ErrorCode::Corrupt, "APPEND without a list");
            auto *lp = std::get_if<std::shared_ptr<PyList>>(&m_stack.back().v);
            if (!lp)
                return err(ErrorCode::Corrupt, fmt::format("APPEND to a {}", pyKindName(m_stack.back().kind())));
            for (auto &i : items)
                (*lp)->items.push_back(std::move(i));
            break;
        }
        case 's':
        case 'u': {
            std::vector<PyValue> items;
            if (op == 's') {
                ETS_TRY(val, pop());
                ETS_TRY(key, pop());
                items.push_back(std::move(key.value()));
                items.push_back(std::move(val.value()));
            } else {
                ETS_TRY(popped, popToMark());
                items = std::move(popped.value());
            }
            if (items.size() % 2)
                return err(ErrorCode::Corrupt, "SETITEMS with an odd number of values");
            if (m_stack.size() <= markBase())
                return err(ErrorCode::Corrupt, "SETITEM without a dict");
            auto *dp = std::get_if<std::shared_ptr<PyDict>>(&m_stack.back().v);
            if (!dp)
                return err(ErrorCode::Corrupt, fmt::format("SETITEM on a {}", pyKindName(m_stack.back().kind())));
            for (std::size_t i = 0; i < items.size(); i += 2) {
                const PyKind k = items[i].kind();
                if (k == PyKind::List || k == PyKind::Dict)
                    return err(ErrorCode::Corrupt, "unhashable dict key");
                (*dp)->set(std::move(items[i]), std::move(items[i + 1]));
            }
            break;
        }
        case 'c': {
            ETS_TRY(module, readLine());
            ETS_TRY(name, readLine());
            ETS_TRY(g, global(module.value(), name.value()));
            m_stack.push_back(std::move(g.value()));
            break;
        }
        case 0x93: {
            ETS_TRY(name, pop());
            ETS_TRY(module, pop());
            if (!name->str() || !module->str())
                return err(ErrorCode::Corrupt, "STACK_GLOBAL needs two strings");
            ETS_TRY(g, global(*module->str(), *name->str()));
            m_stack.push_back(std::move(g.value()));
            break;
        }
        case 'R':
        case 0x81: {
            ETS_TRY(args, pop());
            ETS_TRY(fn, pop());
            const auto *seq = args->sequence();
            if (!seq)
                return err(ErrorCode::Corrupt, "call arguments are not a tuple");
            if (op == 0x81) { // NEWOBJ: cls.__new__(cls, *args)
                const PyGlobal *g = fn->global();
                if (!g || g->qualified() != "collections.OrderedDict")
                    return err(ErrorCode::Refused, fmt::format("refusing to instantiate {}", fn->repr()));
                m_stack.push_back(newDict());
                break;
            }
            ETS_TRY(r, call(fn.value(), *seq));
            m_stack.push_back(std::move(r.value()));
            break;
        }
        case 'b': { // BUILD
            ETS_TRY(state, pop());
            if (m_stack.size() <= markBase())
                return err(ErrorCode::Corrupt, "BUILD without an object");
            PyValue &obj = m_stack.back();
            if (obj.tensor() || state->isNone())
                break; // Python attributes of tensors carry nothing we display
            auto *dp = std::get_if<std::shared_ptr<PyDict>>(&obj.v);
            if (dp && state->dict()) {
                for (const auto &[k, v] : state->dict()->items)
                    (*dp)->set(k, v);
                break;
            }
            return err(ErrorCode::Unsupported, fmt::format("BUILD on a {}", pyKindName(obj.kind())));
        }
        case 'q':
        case 'r':
        case 0x94: {
            std::uint64_t idx = 0;
            if (op == 'q') {
                if (!need(1))
                    return truncated();
                idx = m_d[m_pos++];
            } else if (op == 'r') {
                if (!need(4))
                    return truncated();
                idx = readLe<std::uint32_t>();
            } else {
                idx = m_memo.size();
            }
            if (m_stack.size() <= markBase())
                return err(ErrorCode::Corrupt, "memo store on an empty stack");
            m_memo[idx] = m_stack.back();
            break;
        }
        case 'h':
        case 'j': {
            std::uint64_t idx = 0;
            if (op == 'h') {
                if (!need(1))
                    return truncated();
                idx = m_d[m_pos++];
            } else {
                if (!need(4))
                    return truncated();
                idx = readLe<std::uint32_t>();
            }
            auto it = m_memo.find(idx);
            if (it == m_memo.end())
                return err(ErrorCode::Corrupt, fmt::format("memo key {} was never stored", idx));
            m_stack.push_back(it->second);
            break;
        }
        case 'Q': { // BINPERSID
            ETS_TRY(pid, pop());
            if (!m_opts.persistentLoad)
                return err(ErrorCode::Refused, "persistent id outside a torch.save archive");
            ETS_TRY(v, m_opts.persistentLoad(pid.value()));
            m_stack.push_back(std::move(v.value()));
            break;
        }
        default:
            return err(ErrorCode::Unsupported,
                fmt::format("pickle opcode 0x{:02x} is not supported by the restricted unpickler", op));
        }
    }
    m_opStart = m_pos;
    return truncated();
}

#undef ETS_TRY

} // namespace

std::optional<ScalarType> torchDtypeFromName(std::string_view name)
{
    for (const auto &d : kDtypeNames)
        if (name == d.name)
            return d.type;
    return std::nullopt;
}

std::optional<ScalarType> torchStorageDtype(std::string_view className)
{
    for (const auto &d : kStorageNames)
        if (className == d.name)
            return d.type;
    return std::nullopt;
}

bool isAllowedPickleGlobal(std::string_view module, std::string_view name)
{
    std::string q = std::string(module) + "." + std::string(name);
    if (isCallable(q))
        return true;
    for (auto t : kTokens)
        if (q == t)
            return true;
    if (module == "torch")
        return torchDtypeFromName(name) || torchStorageDtype(name);
    return false;
}

Result<PyValue> unpickle(std::span<const std::uint8_t> data, const UnpicklerOptions &options)
{
    if (data.empty())
        return makeError(ErrorCode::Empty, options.label, "empty pickle");
    Vm vm(data, options);
    return vm.run();
}

} // namespace etscope
