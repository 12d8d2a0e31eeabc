#include "etrecord/pyvalue.h"

#include "etrecord/ziparchive.h"

#include <fmt/format.h>

#include <algorithm>

namespace etscope {

PyStorage::PyStorage(std::shared_ptr<const ZipArchive> archive, std::string entry, std::string key,
    std::optional<ScalarType> dtype, std::uint64_t byteSize, bool bigEndian)
    : m_archive(std::move(archive))
    , m_entry(std::move(entry))
    , m_key(std::move(key))
    , m_dtype(dtype)
    , m_byteSize(byteSize)
    , m_bigEndian(bigEndian)
{ }

bool PyStorage::isLoaded() const
{
    std::lock_guard lock(m_mutex);
    return m_data != nullptr;
}

Result<std::shared_ptr<const std::string>> PyStorage::bytes() const
{
    std::lock_guard lock(m_mutex);
    if (m_data)
        return m_data;
    if (!m_archive)
        return makeError(ErrorCode::InvalidArgument, m_entry, "storage has no archive");
    auto data = m_archive->read(m_entry);
    if (!data)
        return data.error();
    m_data = std::make_shared<const std::string>(std::move(data.value()));
    return m_data;
}

std::int64_t PyTensor::numel() const
{
    std::int64_t n = 1;
    for (std::int64_t s : sizes)
        n *= s;
    return n;
}

const PyValue *PyDict::get(std::string_view key) const
{
    auto it = m_strIndex.find(std::string(key));
    return it == m_strIndex.end() ? nullptr : &items[it->second].second;
}

void PyDict::set(PyValue key, PyValue value)
{
    if (const std::string *s = key.str()) {
        auto [it, inserted] = m_strIndex.try_emplace(*s, items.size());
        if (!inserted) {
            items[it->second].second = std::move(value);
            return;
        }
    } else if (auto i = key.toInt(); i && key.kind() == PyKind::Int) {
        for (auto &item : items)
            if (item.first.kind() == PyKind::Int && item.first.toInt() == i) {
                item.second = std::move(value);
                return;
            }
    }
    items.emplace_back(std::move(key), std::move(value));
}

std::optional<bool> PyValue::toBool() const
{
    if (auto *b = std::get_if<bool>(&v))
        return *b;
    return std::nullopt;
}

std::optional<std::int64_t> PyValue::toInt() const
{
    if (auto *b = std::get_if<bool>(&v))
        return *b ? 1 : 0;
    if (auto *i = std::get_if<PyInt>(&v))
        return i->big ? std::nullopt : std::optional<std::int64_t>(i->value);
    return std::nullopt;
}

std::optional<double> PyValue::toDouble() const
{
    if (auto *d = std::get_if<double>(&v))
        return *d;
    if (auto i = toInt())
        return static_cast<double>(*i);
    return std::nullopt;
}

const std::string *PyValue::str() const
{
    return std::get_if<std::string>(&v);
}
const PyBytes *PyValue::bytes() const
{
    return std::get_if<PyBytes>(&v);
}
const PyGlobal *PyValue::global() const
{
    return std::get_if<PyGlobal>(&v);
}

const std::vector<PyValue> *PyValue::sequence() const
{
    if (auto *t = tuple())
        return &t->items;
    if (auto *l = list())
        return &l->items;
    return nullptr;
}

const PyTuple *PyValue::tuple() const
{
    auto *p = std::get_if<std::shared_ptr<PyTuple>>(&v);
    return p ? p->get() : nullptr;
}
const PyList *PyValue::list() const
{
    auto *p = std::get_if<std::shared_ptr<PyList>>(&v);
    return p ? p->get() : nullptr;
}
const PyDict *PyValue::dict() const
{
    auto *p = std::get_if<std::shared_ptr<PyDict>>(&v);
    return p ? p->get() : nullptr;
}
const PyTensor *PyValue::tensor() const
{
    auto *p = std::get_if<std::shared_ptr<PyTensor>>(&v);
    return p ? p->get() : nullptr;
}
const PyFakeTensor *PyValue::fakeTensor() const
{
    auto *p = std::get_if<std::shared_ptr<PyFakeTensor>>(&v);
    return p ? p->get() : nullptr;
}

namespace {
std::string seqRepr(
    const std::vector<PyValue> &items, std::size_t maxItems, const char *open, const char *close, bool tuple)
{
    std::string out = open;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i)
            out += ", ";
        if (i == maxItems) {
            out += fmt::format("... ({} total)", items.size());
            break;
        }
        out += items[i].repr(maxItems);
    }
    if (tuple && items.size() == 1)
        out += ",";
    return out + close;
}

std::string shapeText(const std::vector<std::int64_t> &sizes)
{
    return fmt::format("[{}]", fmt::join(sizes, ", "));
}
} // namespace

std::string PyValue::repr(std::size_t maxItems) const
{
    // Values nest as deep as the pickle says (thousands of TUPLE1s); cap the recursion so a
    // message about a hostile value neither overflows the stack nor grows without bound.
    static thread_local int depth = 0;
    if (depth >= 32)
        return "...";
    ++depth;
    struct DepthGuard {
        ~DepthGuard() { --depth; }
    } guard;
    switch (kind()) {
    case PyKind::None:
        return "None";
    case PyKind::Bool:
        return *toBool() ? "True" : "False";
    case PyKind::Int: {
        const PyInt &i = std::get<PyInt>(v);
        return i.big ? std::string("<int beyond 64 bits>") : std::to_string(i.value);
    }
    case PyKind::Float:
        return fmt::format("{}", std::get<double>(v));
    case PyKind::Str:
        return "'" + printable(*str()) + "'";
    case PyKind::Bytes:
        return fmt::format("<bytes, {} B>", bytes()->data.size());
    case PyKind::Tuple:
        return seqRepr(tuple()->items, maxItems, "(", ")", true);
    case PyKind::List:
        return seqRepr(list()->items, maxItems, "[", "]", false);
    case PyKind::Dict: {
        std::string out = "{";
        const auto &items = dict()->items;
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (i)
                out += ", ";
            if (i == maxItems) {
                out += fmt::format("... ({} total)", items.size());
                break;
            }
            out += items[i].first.repr(maxItems) + ": " + items[i].second.repr(maxItems);
        }
        return out + "}";
    }
    case PyKind::Tensor: {
        const PyTensor *t = tensor();
        return fmt::format("tensor({}, {})", scalarTypeName(t->dtype), shapeText(t->sizes));
    }
    case PyKind::FakeTensor: {
        const PyFakeTensor *t = fakeTensor();
        return fmt::format("fake_tensor({}, [{}])",
            t->dtype ? scalarTypeName(*t->dtype) : "dtype#" + std::to_string(t->jsonDtype), fmt::join(t->sizes, ", "));
    }
    case PyKind::Global:
        return printable(global()->qualified());
    case PyKind::Storage:
        return "<storage " + printable(std::get<std::shared_ptr<const PyStorage>>(v)->key()) + ">";
    }
    return "?";
}

const char *pyKindName(PyKind k)
{
    switch (k) {
    case PyKind::None:
        return "None";
    case PyKind::Bool:
        return "bool";
    case PyKind::Int:
        return "int";
    case PyKind::Float:
        return "float";
    case PyKind::Str:
        return "str";
    case PyKind::Bytes:
        return "bytes";
    case PyKind::Tuple:
        return "tuple";
    case PyKind::List:
        return "list";
    case PyKind::Dict:
        return "dict";
    case PyKind::Tensor:
        return "tensor";
    case PyKind::FakeTensor:
        return "fake tensor";
    case PyKind::Global:
        return "global";
    case PyKind::Storage:
        return "storage";
    }
    return "?";
}

} // namespace etscope
