#include "etrecord/torchsave.h"

#include "etrecord/unpickler.h"
#include "etrecord/ziparchive.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>

namespace etscope {

namespace {
constexpr std::uint64_t kMaxPickleBytes = 1ull << 30;

Result<PyValue> loadFromArchive(std::shared_ptr<const ZipArchive> zip)
{
    const std::string &label = zip->label();
    std::string prefix;
    bool found = false;
    for (const ZipEntry &e : zip->entries()) {
        if (e.name == "data.pkl" || e.name.ends_with("/data.pkl")) {
            prefix = e.name.substr(0, e.name.size() - 8);
            found = true;
            break;
        }
    }
    if (!found)
        return makeError(ErrorCode::BadIdentifier, label, "not a torch.save archive (no data.pkl entry)");

    bool bigEndian = false;
    if (zip->find(prefix + "byteorder")) {
        auto order = zip->read(prefix + "byteorder", 64);
        if (!order)
            return order.error();
        if (*order == "big")
            bigEndian = true;
        else if (*order != "little")
            return makeError(ErrorCode::Corrupt, label, fmt::format("unknown byteorder '{}'", printable(*order)));
    }

    auto pickle = zip->read(prefix + "data.pkl", kMaxPickleBytes);
    if (!pickle)
        return pickle.error();

    std::map<std::string, std::shared_ptr<const PyStorage>> storages;
    UnpicklerOptions opts;
    opts.label = label;
    opts.persistentLoad = [&](const PyValue &pid) -> Result<PyValue> {
        const auto *t = pid.sequence();
        if (!t || t->size() < 5 || !(*t)[0].str() || *(*t)[0].str() != "storage")
            return makeError(ErrorCode::Corrupt, label, fmt::format("unexpected persistent id {}", pid.repr()));
        const PyGlobal *cls = (*t)[1].global();
        std::string key;
        if (const std::string *s = (*t)[2].str())
            key = *s;
        else if (auto i = (*t)[2].toInt())
            key = std::to_string(*i);
        if (!cls || key.empty() || key.find('/') != std::string::npos)
            return makeError(ErrorCode::Corrupt, label, fmt::format("malformed storage id {}", pid.repr()));
        std::optional<ScalarType> dtype;
        if (cls->qualified() != "torch.UntypedStorage") {
            dtype = torchStorageDtype(cls->name);
            if (!dtype)
                return makeError(ErrorCode::Unsupported, label,
                    fmt::format("unknown storage class {}", printable(cls->qualified())));
        }
        auto count = (*t)[4].toInt();
        if (!count || *count < 0)
            return makeError(
                ErrorCode::Corrupt, label, fmt::format("storage '{}' has no element count", printable(key)));
        const std::uint64_t esize = dtype ? elementSize(*dtype).value_or(1) : 1;
        const std::uint64_t need = static_cast<std::uint64_t>(*count) * esize;
        if (auto it = storages.find(key); it != storages.end())
            return PyValue(it->second);
        const std::string entry = prefix + "data/" + key;
        const ZipEntry *e = zip->find(entry);
        if (!e)
            return makeError(ErrorCode::Corrupt, label, fmt::format("storage '{}' has no data entry", printable(key)));
        if (e->size < need || static_cast<std::uint64_t>(*count) > e->size)
            return makeError(ErrorCode::Corrupt, label,
                fmt::format("storage '{}' declares {} bytes but its entry holds {}", printable(key), need, e->size));
        auto storage = std::make_shared<const PyStorage>(zip, entry, key, dtype, need, bigEndian);
        storages.emplace(key, storage);
        return PyValue(std::shared_ptr<const PyStorage>(storage));
    };
    return unpickle({ reinterpret_cast<const std::uint8_t *>(pickle->data()), pickle->size() }, opts);
}
} // namespace

Result<PyValue> loadTorchSave(const std::string &path)
{
    auto zip = ZipArchive::open(path);
    if (!zip)
        return zip.error();
    return loadFromArchive(zip.value());
}

Result<PyValue> loadTorchSave(std::shared_ptr<const MappedFile> bytes)
{
    if (!bytes)
        return makeError(ErrorCode::InvalidArgument, "", "no bytes given");
    auto zip = ZipArchive::open(bytes);
    if (!zip)
        return zip.error();
    return loadFromArchive(zip.value());
}

Result<PyValue> loadTorchSave(std::shared_ptr<const ZipArchive> archive)
{
    if (!archive)
        return makeError(ErrorCode::InvalidArgument, "", "no archive given");
    return loadFromArchive(std::move(archive));
}

Result<std::vector<double>> tensorValues(const PyTensor &t)
{
    const std::string label = t.storage ? t.storage->entry() : std::string("tensor");
    if (!t.storage)
        return makeError(ErrorCode::InvalidArgument, label, "tensor has no storage");
    if (!isConvertible(t.dtype) && t.dtype != ScalarType::ComplexFloat && t.dtype != ScalarType::ComplexDouble)
        return makeError(
            ErrorCode::Unsupported, label, fmt::format("cannot convert {} to numbers", scalarTypeName(t.dtype)));
    const auto esize = elementSize(t.dtype);
    if (!esize || t.sizes.size() != t.strides.size())
        return makeError(ErrorCode::Corrupt, label, "tensor metadata is inconsistent");
    auto bytes = t.storage->bytes();
    if (!bytes)
        return bytes.error();
    const std::string &data = **bytes;

    // Re-check bounds here too (a PyTensor may have been built by hand), without overflow.
    constexpr std::int64_t kMaxElems = std::int64_t(1) << 46;
    if (t.sizes.size() > 64 || t.storageOffset < 0 || t.storageOffset > kMaxElems)
        return makeError(ErrorCode::LimitExceeded, label, "tensor shape or offset out of range");
    std::int64_t numel = 1, maxIndex = t.storageOffset;
    for (std::size_t d = 0; d < t.sizes.size(); ++d) {
        const std::int64_t s = t.sizes[d];
        if (s < 0 || t.strides[d] < 0)
            return makeError(ErrorCode::Corrupt, label, "negative size or stride");
        if (s > 0 && (numel > kMaxElems / s || t.strides[d] > kMaxElems / s))
            return makeError(ErrorCode::LimitExceeded, label, "tensor too large");
        numel *= s;
        if (s > 0)
            maxIndex += (s - 1) * t.strides[d];
    }
    std::vector<double> out;
    if (numel == 0)
        return out;
    if (static_cast<std::uint64_t>(maxIndex + 1) * *esize > data.size())
        return makeError(ErrorCode::Corrupt, label, "tensor view exceeds its storage");
    out.reserve(static_cast<std::size_t>(numel));

    const bool swap = t.storage->bigEndian() && *esize > 1;
    // For complex types the element is (real, imag); elementToDouble takes the real part, and
    // byte swapping must be per component.
    const std::size_t swapUnit
        = (t.dtype == ScalarType::ComplexFloat || t.dtype == ScalarType::ComplexDouble) ? *esize / 2 : *esize;
    std::vector<std::int64_t> idx(t.sizes.size(), 0);
    const auto *base = reinterpret_cast<const std::uint8_t *>(data.data());
    std::uint8_t tmp[16];
    for (std::int64_t n = 0; n < numel; ++n) {
        std::int64_t e = t.storageOffset;
        for (std::size_t d = 0; d < idx.size(); ++d)
            e += idx[d] * t.strides[d];
        const std::uint8_t *p = base + static_cast<std::size_t>(e) * *esize;
        if (swap) {
            std::memcpy(tmp, p, *esize);
            for (std::size_t u = 0; u < *esize; u += swapUnit)
                std::reverse(tmp + u, tmp + u + swapUnit);
            p = tmp;
        }
        out.push_back(elementToDouble(t.dtype, p));
        for (std::size_t d = idx.size(); d-- > 0;) {
            if (++idx[d] < t.sizes[d])
                break;
            idx[d] = 0;
        }
    }
    return out;
}

} // namespace etscope
