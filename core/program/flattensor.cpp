#include "program/flattensor.h"
#include "common/littleendian.h"

#include "common/printable.h"
#include "program/program.h"

#include <flat_tensor_generated.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>

namespace etscope {

namespace tf = etscope::ptdfb;

namespace {

std::string layoutText(std::string_view dtype, std::span<const std::int32_t> sizes, std::optional<std::uint64_t> bytes)
{
    return bytes ? fmt::format("{}[{}] ({} bytes)", dtype, fmt::join(sizes, ", "), *bytes)
                 : fmt::format("{}[{}]", dtype, fmt::join(sizes, ", "));
}

} // namespace

std::optional<ScalarType> FlatTensorEntry::dtype() const
{
    if (!hasLayout || !elementSize(static_cast<ScalarType>(scalarType)))
        return std::nullopt;
    return static_cast<ScalarType>(scalarType);
}

std::string FlatTensorEntry::describe() const
{
    if (!hasLayout)
        return "(no layout)";
    const auto dt = dtype();
    return fmt::format(
        "{}[{}]", dt ? std::string(scalarTypeName(*dt)) : fmt::format("dtype{}", scalarType), fmt::join(sizes, ", "));
}

bool looksLikeFlatTensor(const std::uint8_t *data, std::size_t size)
{
    return size >= 8 && std::memcmp(data + 4, "FT01", 4) == 0;
}

const FlatTensorEntry *FlatTensorFile::find(std::string_view key) const
{
    auto it = std::lower_bound(m_byKey.begin(), m_byKey.end(), key,
        [this](std::size_t i, std::string_view k) { return m_entries[i].key < k; });
    return it != m_byKey.end() && m_entries[*it].key == key ? &m_entries[*it] : nullptr;
}

Result<std::shared_ptr<const FlatTensorFile>> FlatTensorFile::open(const std::string &path)
{
    auto file = MappedFile::open(path);
    if (!file)
        return file.error();
    return fromFile(std::move(*file));
}

// Header layout (flat_tensor_header.h / serialize.py upstream): at offset 8, after the
// flatbuffer's root offset and identifier, "FH01", u32 length (≥ 40), u64 flatbuffer offset,
// u64 flatbuffer size, u64 segment base offset, u64 segment data size, little-endian.
Result<std::shared_ptr<const FlatTensorFile>> FlatTensorFile::fromFile(std::shared_ptr<const MappedFile> file)
{
    const std::string &path = file->path();
    const std::uint8_t *data = file->data();
    const std::uint64_t size = file->size();
    auto corrupt = [&path](std::string reason) { return makeError(ErrorCode::Corrupt, path, std::move(reason)); };
    if (size == 0)
        return makeError(ErrorCode::Empty, path, "file is empty");
    if (size < 8)
        return makeError(ErrorCode::Truncated, path, "too short for a FlatTensor identifier");
    if (!looksLikeFlatTensor(data, size))
        return makeError(ErrorCode::BadIdentifier, path,
            fmt::format("not a FlatTensor data file (identifier '{}', expected 'FT01')",
                printable(std::string_view(reinterpret_cast<const char *>(data) + 4, 4))));
    if (size < 8 + std::uint64_t(kHeaderLength))
        return makeError(ErrorCode::Truncated, path,
            fmt::format("{} bytes: too short for the FlatTensor header ({} bytes from offset 8)", size, kHeaderLength));
    if (std::memcmp(data + 8, "FH01", 4) != 0)
        return corrupt(fmt::format("no FlatTensor header (magic '{}', expected 'FH01')",
            printable(std::string_view(reinterpret_cast<const char *>(data) + 8, 4))));

    auto ft = std::shared_ptr<FlatTensorFile>(new FlatTensorFile());
    ft->m_file = std::move(file);
    ft->m_headerLength = readLe32(data + 12);
    ft->m_flatbufferOffset = readLe64(data + 16);
    ft->m_flatbufferSize = readLe64(data + 24);
    ft->m_segmentBase = readLe64(data + 32);
    ft->m_segmentDataSize = readLe64(data + 40);
    if (ft->m_headerLength < kHeaderLength)
        return corrupt(fmt::format("FlatTensor header length {} < {}", ft->m_headerLength, kHeaderLength));
    if (8 + std::uint64_t(ft->m_headerLength) > size)
        return makeError(ErrorCode::Truncated, path,
            fmt::format(
                "FlatTensor header of {} bytes runs past the end of the file ({} bytes)", ft->m_headerLength, size));
    // The runtime loads [0, flatbuffer offset + size) as the flatbuffer (flat_tensor_data_map.cpp).
    std::uint64_t flatbufferEnd = 0, segmentEnd = 0;
    if (__builtin_add_overflow(ft->m_flatbufferOffset, ft->m_flatbufferSize, &flatbufferEnd) || flatbufferEnd > size)
        return makeError(ErrorCode::Truncated, path,
            fmt::format("header claims a flatbuffer of {} bytes at {} in a {}-byte file", ft->m_flatbufferSize,
                ft->m_flatbufferOffset, size));
    if (flatbufferEnd < 8 + std::uint64_t(ft->m_headerLength))
        return corrupt(fmt::format("header claims a flatbuffer of {} bytes at {}, inside its own header",
            ft->m_flatbufferSize, ft->m_flatbufferOffset));
    if (__builtin_add_overflow(ft->m_segmentBase, ft->m_segmentDataSize, &segmentEnd) || segmentEnd > size)
        return makeError(ErrorCode::Truncated, path,
            fmt::format("header claims {} bytes of segment data at {} in a {}-byte file", ft->m_segmentDataSize,
                ft->m_segmentBase, size));
    if (ft->m_segmentDataSize > 0 && ft->m_segmentBase < flatbufferEnd)
        return corrupt(fmt::format(
            "segment data at {} overlaps the flatbuffer (which ends at {})", ft->m_segmentBase, flatbufferEnd));
    if (flatbufferEnd >= FLATBUFFERS_MAX_BUFFER_SIZE)
        return makeError(ErrorCode::LimitExceeded, path,
            fmt::format("FlatTensor flatbuffer of {} bytes exceeds the 2 GiB flatbuffer limit", flatbufferEnd));

    flatbuffers::Verifier::Options opts;
    opts.max_depth = 16;
    opts.max_tables = std::max<flatbuffers::uoffset_t>(1'000'000, flatbuffers::uoffset_t(flatbufferEnd / 4));
    flatbuffers::Verifier verifier(data, std::size_t(flatbufferEnd), opts);
    if (!tf::VerifyFlatTensorBuffer(verifier))
        return corrupt("FlatTensor flatbuffer failed verification");
    const tf::FlatTensor *root = tf::GetFlatTensor(data);
    ft->m_version = root->version();
    // The runtime refuses a file without these lists (flat_tensor_data_map.cpp).
    if (!root->segments())
        return corrupt("FlatTensor has no segment list");
    if (!root->named_data()) // the list came with ExecuTorch's NamedData (upstream 320d55556f, 2025-03)
        return corrupt("FlatTensor has no named_data list: a .ptd from before NamedData (ExecuTorch, 2025-03), which "
                       "the runtime refuses too");
    if (root->segments()->size() > kMaxEntries || root->named_data()->size() > kMaxEntries)
        return makeError(ErrorCode::LimitExceeded, path,
            fmt::format("{} segments and {} names", root->segments()->size(), root->named_data()->size()));

    std::uint64_t alignment = 65536;
    auto alignTo = [&alignment](std::uint64_t offset) {
        while (alignment > 1 && offset % alignment != 0)
            alignment /= 2;
    };
    alignTo(ft->m_segmentBase);
    for (flatbuffers::uoffset_t i = 0; i < root->segments()->size(); ++i) {
        const tf::DataSegment *s = root->segments()->Get(i);
        std::uint64_t end = 0;
        if (__builtin_add_overflow(s->offset(), s->size(), &end) || end > ft->m_segmentDataSize)
            return corrupt(fmt::format("segment {} ({} bytes at {}) lies past the segment data ({} bytes)", i,
                s->size(), s->offset(), ft->m_segmentDataSize));
        ft->m_segments.push_back({ ft->m_segmentBase + s->offset(), s->size() });
        alignTo(s->offset());
    }
    ft->m_alignment = alignment;

    for (flatbuffers::uoffset_t i = 0; i < root->named_data()->size(); ++i) {
        const tf::NamedData *nd = root->named_data()->Get(i);
        if (!nd->key())
            return corrupt(fmt::format("named data {} has no key", i));
        FlatTensorEntry e;
        e.key = std::string_view(nd->key()->data(), nd->key()->size());
        const std::string what = fmt::format("named data '{}'", printable(e.key, 80));
        e.segment = nd->segment_index();
        if (e.segment >= ft->m_segments.size())
            return corrupt(
                fmt::format("{} refers to segment {} ({} segments)", what, e.segment, ft->m_segments.size()));
        e.offset = ft->m_segments[e.segment].offset;
        e.size = ft->m_segments[e.segment].size;
        if (const tf::TensorLayout *l = nd->tensor_layout()) {
            e.hasLayout = true;
            e.scalarType = static_cast<std::int8_t>(l->scalar_type());
            if (l->sizes())
                e.sizes = { l->sizes()->data(), l->sizes()->size() };
            if (l->dim_order())
                e.dimOrder = { l->dim_order()->data(), l->dim_order()->size() };
            if (e.dimOrder.size() != e.sizes.size())
                return corrupt(
                    fmt::format("{}: {} sizes but {} dim_order entries", what, e.sizes.size(), e.dimOrder.size()));
            if (const auto esize = elementSize(static_cast<ScalarType>(e.scalarType))) {
                std::uint64_t n = *esize;
                for (std::int32_t d : e.sizes)
                    if (d < 0 || __builtin_mul_overflow(n, std::uint64_t(d), &n))
                        return corrupt(fmt::format("{}: invalid sizes [{}]", what, fmt::join(e.sizes, ", ")));
                e.layoutBytes = n;
                // The runtime reads the layout's bytes from the segment (load_data_into upstream).
                if (n > e.size)
                    return corrupt(fmt::format("{} is {} but its segment {} holds {} bytes", what,
                        layoutText(scalarTypeName(static_cast<ScalarType>(e.scalarType)), e.sizes, n), e.segment,
                        e.size));
            }
        }
        ft->m_entries.push_back(e);
    }
    ft->m_byKey.resize(ft->m_entries.size());
    for (std::size_t i = 0; i < ft->m_byKey.size(); ++i)
        ft->m_byKey[i] = i;
    std::stable_sort(ft->m_byKey.begin(), ft->m_byKey.end(),
        [&ft](std::size_t a, std::size_t b) { return ft->m_entries[a].key < ft->m_entries[b].key; });
    for (std::size_t i = 1; i < ft->m_byKey.size(); ++i)
        if (ft->m_entries[ft->m_byKey[i]].key == ft->m_entries[ft->m_byKey[i - 1]].key)
            return corrupt(fmt::format("key '{}' appears twice", printable(ft->m_entries[ft->m_byKey[i]].key, 80)));
    return std::shared_ptr<const FlatTensorFile>(std::move(ft));
}

Result<std::shared_ptr<const Program>> pairProgramData(
    const std::shared_ptr<const Program> &program, const std::vector<std::shared_ptr<const FlatTensorFile>> &files)
{
    const std::string &pte = program->path();
    auto refuse = [&pte](const std::string &reason) { return makeError(ErrorCode::Refused, pte, reason); };
    // One name in two files is refused, as the runtime's merged data map does (merged_data_map.cpp).
    std::map<std::string_view, std::size_t> owner;
    for (std::size_t f = 0; f < files.size(); ++f)
        for (const FlatTensorEntry &e : files[f]->entries())
            if (auto [it, fresh] = owner.emplace(e.key, f); !fresh)
                return refuse(fmt::format("'{}' is in both {} and {}", printable(e.key, 80),
                    printable(files[it->second]->path()), printable(files[f]->path())));

    auto paired = std::shared_ptr<Program>(new Program(*program));
    paired->m_dataFiles.insert(paired->m_dataFiles.end(), files.begin(), files.end());
    std::vector<bool> used(paired->m_dataFiles.size(), false);
    std::vector<std::string> names;
    for (const auto &f : paired->m_dataFiles)
        names.push_back(printable(f->path()));
    const std::string allFiles = fmt::format("{}", fmt::join(names, ", "));

    // Each use of an external tensor in each method must agree with the file (the runtime checks
    // every one when a method loads: validateTensorLayout in tensor_parser_exec_aten.cpp).
    for (const ProgramMethod &m : paired->methods())
        for (std::size_t v = 0; v < m.valueCount(); ++v) {
            const ProgramValue pv = m.value(v);
            if (pv.kind != ProgramValueKind::Tensor || !pv.tensor.external)
                continue;
            const ProgramTensor &t = pv.tensor;
            const std::string name = printable(t.externalName, 80);
            const std::string mine = layoutText(scalarTypeName(t.dtype), t.sizes, t.nbytes);
            const std::string where = fmt::format("method '{}' value {}", printable(m.name(), 80), v);
            auto it = owner.find(t.externalName);
            if (it == owner.end())
                return refuse(fmt::format("external tensor '{}' ({}, {}) is not in {}", name, mine, where,
                    allFiles.empty() ? "any .ptd" : allFiles));
            const FlatTensorFile &file = *paired->m_dataFiles[it->second];
            const FlatTensorEntry &e = *file.find(t.externalName);
            used[it->second] = true;
            if (e.hasLayout) {
                const bool same = e.scalarType == static_cast<std::int8_t>(t.dtype)
                    && std::equal(e.sizes.begin(), e.sizes.end(), t.sizes.begin(), t.sizes.end())
                    && std::equal(e.dimOrder.begin(), e.dimOrder.end(), t.dimOrder.begin(), t.dimOrder.end());
                if (!same)
                    return refuse(fmt::format("external tensor '{}' is {} in the program ({}) but {} in {}", name, mine,
                        where, e.describe() + (e.layoutBytes ? fmt::format(" ({} bytes)", *e.layoutBytes) : ""),
                        printable(file.path())));
            }
            if (e.size < t.nbytes)
                return refuse(fmt::format("external tensor '{}' needs {} bytes ({}) but its data in {} has {}", name,
                    t.nbytes, where, printable(file.path()), e.size));
        }
    // Names without a tensor layout are delegate data (XNNPACK constants, the CUDA/AOTI weight
    // blob: backends/*/ add_named_data upstream), read by the program's delegates through
    // their opaque blobs: they cannot be matched by name, only counted.
    const bool hasDelegates = std::any_of(paired->methods().begin(), paired->methods().end(),
        [](const ProgramMethod &m) { return !m.delegates().empty(); });
    paired->m_delegateDataCount = 0;
    paired->m_delegateDataBytes = 0;
    for (std::size_t f = 0; f < used.size(); ++f) {
        const FlatTensorFile &file = *paired->m_dataFiles[f];
        std::vector<bool> segmentCounted(file.segments().size(), false);
        std::size_t blobs = 0;
        for (const FlatTensorEntry &e : file.entries()) {
            if (e.hasLayout)
                continue;
            ++blobs;
            if (!segmentCounted[e.segment])
                paired->m_delegateDataBytes += e.size;
            segmentCounted[e.segment] = true;
        }
        paired->m_delegateDataCount += blobs;
        if (used[f] || file.entries().empty())
            continue;
        if (blobs == 0)
            return refuse(fmt::format("none of the {} tensors in {} is an external tensor of the program",
                file.entries().size(), printable(file.path())));
        if (!hasDelegates)
            return refuse(fmt::format("{} holds only delegate data ({} without a tensor layout) but the program has "
                                      "no delegates",
                printable(file.path()), blobs == 1 ? "1 name" : fmt::format("{} names", blobs)));
    }
    for (ProgramExternalTensor &x : paired->m_external) {
        const auto it = owner.find(x.name);
        const FlatTensorEntry &e = *paired->m_dataFiles[it->second]->find(x.name);
        x.file = std::int32_t(it->second);
        x.segment = e.segment;
        x.offset = e.offset;
        x.dataBytes = e.size;
    }
    return std::shared_ptr<const Program>(std::move(paired));
}

Result<std::shared_ptr<const Program>> pairProgramData(
    const std::shared_ptr<const Program> &program, const std::vector<std::string> &ptdPaths)
{
    std::vector<std::shared_ptr<const FlatTensorFile>> files;
    for (const std::string &p : ptdPaths) {
        auto f = FlatTensorFile::open(p);
        if (!f)
            return f.error();
        files.push_back(std::move(*f));
    }
    return pairProgramData(program, files);
}

Result<std::shared_ptr<const Program>> openProgramWithData(
    const std::string &path, const std::vector<std::string> &ptdPaths)
{
    auto program = Program::openAny(path);
    if (!program || ptdPaths.empty())
        return program;
    return pairProgramData(*program, ptdPaths);
}

} // namespace etscope
