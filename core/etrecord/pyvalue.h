#pragma once

#include "common/printable.h" // printable(), used with PyValue text in messages

// Values produced by the restricted unpickler (torch.save blobs inside an ETRecord). Only the
// Python types that torch.save writes for tensors and plain containers exist here; anything
// else is refused while unpickling, so consumers never meet an arbitrary object.

#include "common/error.h"
#include "etdump/scalartype.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace etscope {

class ZipArchive;
struct PyValue;

struct PyNone {
    bool operator==(const PyNone &) const = default;
};

// Python int. Values beyond int64 (LONG1/LONG4 with more than 8 bytes) keep only the flag.
struct PyInt {
    std::int64_t value = 0;
    bool big = false;
};

struct PyBytes {
    std::string data;
};

// An allow-listed global that is a value rather than something we call (torch dtypes, storage
// classes, tensor classes), e.g. {"torch", "float32"}.
struct PyGlobal {
    std::string module;
    std::string name;
    std::string qualified() const { return module + "." + name; }
};

// The bytes of one torch storage (`data/<key>` in the archive), read on first use only.
class PyStorage
{
public:
    PyStorage(std::shared_ptr<const ZipArchive> archive, std::string entry, std::string key,
        std::optional<ScalarType> dtype, std::uint64_t byteSize, bool bigEndian);

    const std::string &key() const { return m_key; }
    const std::string &entry() const { return m_entry; }
    // Dtype of a typed storage (torch.FloatStorage, ...); none for torch.UntypedStorage.
    std::optional<ScalarType> dtype() const { return m_dtype; }
    std::uint64_t byteSize() const { return m_byteSize; }
    bool bigEndian() const { return m_bigEndian; }
    bool isLoaded() const;

    // Reads the storage once and keeps it; later calls share the same bytes.
    Result<std::shared_ptr<const std::string>> bytes() const;

private:
    std::shared_ptr<const ZipArchive> m_archive;
    std::string m_entry;
    std::string m_key;
    std::optional<ScalarType> m_dtype;
    std::uint64_t m_byteSize = 0;
    bool m_bigEndian = false;
    mutable std::mutex m_mutex;
    mutable std::shared_ptr<const std::string> m_data;
};

// A tensor rebuilt from a storage; offset and strides are in elements, like torch.
struct PyTensor {
    ScalarType dtype = ScalarType::Float;
    std::vector<std::int64_t> sizes;
    std::vector<std::int64_t> strides;
    std::int64_t storageOffset = 0;
    std::shared_ptr<const PyStorage> storage;
    bool requiresGrad = false;
    bool isParameter = false;

    std::int64_t numel() const;
};

// A tensor without data (executorch's _reconstruct_fake_tensor): shape and dtype only.
struct PyFakeTensor {
    int jsonDtype = 0; // exported-program ScalarType numbering (formats.md §3.4)
    std::optional<ScalarType> dtype; // same, mapped to our enum when it has an equivalent
    std::vector<std::string> sizes; // decimal, or a symbol such as "s0"
    bool isParameter = false;
};

struct PyTuple {
    std::vector<PyValue> items;
};
struct PyList {
    std::vector<PyValue> items;
};
struct PyDict {
    // Insertion order is kept (Python dicts and OrderedDicts are ordered).
    std::vector<std::pair<PyValue, PyValue>> items;
    const PyValue *get(std::string_view key) const; // string keys only
    // Python semantics: an existing key keeps its position and gets the new value.
    void set(PyValue key, PyValue value);

private:
    std::unordered_map<std::string, std::size_t> m_strIndex;
};

enum class PyKind { None, Bool, Int, Float, Str, Bytes, Tuple, List, Dict, Tensor, FakeTensor, Global, Storage };

struct PyValue {
    using Variant = std::variant<PyNone, bool, PyInt, double, std::string, PyBytes, std::shared_ptr<PyTuple>,
        std::shared_ptr<PyList>, std::shared_ptr<PyDict>, std::shared_ptr<PyTensor>, std::shared_ptr<PyFakeTensor>,
        PyGlobal, std::shared_ptr<const PyStorage>>;
    Variant v;

    PyValue() = default;
    template <typename T>
    requires(!std::is_same_v<std::decay_t<T>, PyValue> && !std::is_pointer_v<std::decay_t<T>>) PyValue(T value)
        : v(std::move(value))
    { }

    PyKind kind() const { return static_cast<PyKind>(v.index()); }
    bool isNone() const { return kind() == PyKind::None; }
    std::optional<bool> toBool() const;
    std::optional<std::int64_t> toInt() const; // bool and int
    std::optional<double> toDouble() const; // bool, int and float
    const std::string *str() const;
    const PyBytes *bytes() const;
    const std::vector<PyValue> *sequence() const; // tuple or list
    const PyTuple *tuple() const;
    const PyList *list() const;
    const PyDict *dict() const;
    const PyTensor *tensor() const;
    const PyFakeTensor *fakeTensor() const;
    const PyGlobal *global() const;

    // Short Python-like text for display ("tensor(float32, [2, 3])", "{'a': 1}"); long
    // containers are elided past `maxItems`.
    std::string repr(std::size_t maxItems = 8) const;
};

const char *pyKindName(PyKind k);

} // namespace etscope
