#include "etrecord/ziparchive.h"

#include "etrecord/pyvalue.h"

#include <fmt/format.h>
#include <zip.h>

namespace etscope {

namespace {
// Deflate cannot expand better than about 1032:1; anything claiming more is lying.
constexpr std::uint64_t kMaxDeflateRatio = 1100;

std::string zipErrorText(zip_error_t *err)
{
    const char *s = zip_error_strerror(err);
    return s ? s : "unknown zip error";
}
} // namespace

ZipArchive::~ZipArchive()
{
    if (m_zip)
        zip_discard(m_zip);
}

Result<std::shared_ptr<const ZipArchive>> ZipArchive::open(const std::string &path)
{
    auto file = MappedFile::open(path);
    if (!file)
        return file.error();
    return open(file.value(), path);
}

Result<std::shared_ptr<const ZipArchive>> ZipArchive::open(std::shared_ptr<const MappedFile> bytes, std::string label)
{
    if (!bytes)
        return makeError(ErrorCode::InvalidArgument, label, "no bytes given");
    if (label.empty())
        label = bytes->path();
    const std::span<const std::uint8_t> span = bytes->bytes();
    return open(std::shared_ptr<const void>(std::move(bytes)), span, std::move(label));
}

namespace {
std::uint64_t le(std::span<const std::uint8_t> d, std::size_t pos, int n)
{
    std::uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i)
        v = (v << 8) | d[pos + static_cast<std::size_t>(i)];
    return v;
}

// Local-header offsets by entry name, from the central directory (ZIP64 aware). libzip does
// not expose them; we only use them to view stored entries in place. Best effort: anything
// that does not add up is skipped and reading falls back to libzip.
std::unordered_map<std::string, std::uint64_t> scanLocalOffsets(std::span<const std::uint8_t> d)
{
    std::unordered_map<std::string, std::uint64_t> out;
    if (d.size() < 22)
        return out;
    std::size_t eocd = std::string::npos;
    const std::size_t stop = d.size() > 22 + 65535 ? d.size() - 22 - 65535 : 0;
    for (std::size_t i = d.size() - 22 + 1; i-- > stop;)
        if (d[i] == 'P' && d[i + 1] == 'K' && d[i + 2] == 5 && d[i + 3] == 6) {
            eocd = i;
            break;
        }
    if (eocd == std::string::npos)
        return out;
    std::uint64_t count = le(d, eocd + 10, 2), cdSize = le(d, eocd + 12, 4), cdOffset = le(d, eocd + 16, 4);
    if ((count == 0xFFFF || cdOffset == 0xFFFFFFFF) && eocd >= 20 && le(d, eocd - 20, 4) == 0x07064b50) {
        const std::uint64_t z64 = le(d, eocd - 20 + 8, 8);
        if (z64 + 56 <= d.size() && le(d, z64, 4) == 0x06064b50) {
            count = le(d, z64 + 32, 8);
            cdSize = le(d, z64 + 40, 8);
            cdOffset = le(d, z64 + 48, 8);
        }
    }
    if (cdOffset > d.size() || cdSize > d.size() - cdOffset)
        return out;
    std::size_t pos = cdOffset;
    const std::size_t end = cdOffset + cdSize;
    for (std::uint64_t i = 0; i < count && pos + 46 <= end; ++i) {
        if (le(d, pos, 4) != 0x02014b50)
            break;
        const std::size_t nameLen = le(d, pos + 28, 2), extraLen = le(d, pos + 30, 2), commentLen = le(d, pos + 32, 2);
        if (pos + 46 + nameLen + extraLen + commentLen > end)
            break;
        const std::uint64_t compSize32 = le(d, pos + 20, 4), size32 = le(d, pos + 24, 4);
        std::uint64_t offset = le(d, pos + 42, 4);
        if (offset == 0xFFFFFFFF) {
            // ZIP64 extra: sizes first (only those that overflowed), then the offset.
            std::size_t e = pos + 46 + nameLen;
            const std::size_t eEnd = e + extraLen;
            while (e + 4 <= eEnd) {
                const std::size_t id = le(d, e, 2), len = le(d, e + 2, 2);
                if (e + 4 + len > eEnd)
                    break;
                if (id == 1) {
                    std::size_t f = e + 4;
                    if (size32 == 0xFFFFFFFF)
                        f += 8;
                    if (compSize32 == 0xFFFFFFFF)
                        f += 8;
                    if (f + 8 <= e + 4 + len)
                        offset = le(d, f, 8);
                }
                e += 4 + len;
            }
        }
        out.emplace(std::string(reinterpret_cast<const char *>(d.data() + pos + 46), nameLen), offset);
        pos += 46 + nameLen + extraLen + commentLen;
    }
    return out;
}
} // namespace

Result<std::shared_ptr<const ZipArchive>> ZipArchive::open(
    std::shared_ptr<const void> owner, std::span<const std::uint8_t> bytes, std::string label)
{
    if (bytes.size() == 0)
        return makeError(ErrorCode::Empty, label, "empty file, not a zip archive");
    if (bytes.size() < 22)
        return makeError(ErrorCode::Truncated, label, "too short for a zip archive");

    zip_error_t err;
    zip_error_init(&err);
    zip_source_t *src = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &err);
    if (!src) {
        Error e = makeError(ErrorCode::Io, label, "cannot read zip: " + zipErrorText(&err));
        zip_error_fini(&err);
        return e;
    }
    zip_t *z = zip_open_from_source(src, ZIP_RDONLY, &err);
    if (!z) {
        const int code = zip_error_code_zip(&err);
        const ErrorCode ec = code == ZIP_ER_NOZIP ? ErrorCode::BadIdentifier
            : code == ZIP_ER_MEMORY               ? ErrorCode::LimitExceeded
                                                  : ErrorCode::Corrupt;
        Error e = makeError(ec, label,
            code == ZIP_ER_NOZIP ? std::string("not a zip archive (no central directory found; truncated?)")
                                 : "corrupt zip archive: " + zipErrorText(&err));
        zip_source_free(src);
        zip_error_fini(&err);
        return e;
    }
    zip_error_fini(&err);

    std::shared_ptr<ZipArchive> a(new ZipArchive);
    a->m_owner = std::move(owner);
    a->m_data = bytes;
    a->m_localOffsets = scanLocalOffsets(bytes);
    a->m_label = std::move(label);
    a->m_zip = z;
    const zip_int64_t n = zip_get_num_entries(z, 0);
    if (n < 0)
        return makeError(ErrorCode::Corrupt, a->m_label, "cannot count zip entries");
    a->m_entries.reserve(static_cast<std::size_t>(n));
    for (zip_int64_t i = 0; i < n; ++i) {
        zip_stat_t st;
        zip_stat_init(&st);
        if (zip_stat_index(z, static_cast<zip_uint64_t>(i), 0, &st) != 0 || !(st.valid & ZIP_STAT_NAME))
            return makeError(ErrorCode::Corrupt, a->m_label, fmt::format("cannot read zip entry #{}", i));
        ZipEntry e;
        e.name = st.name;
        e.size = (st.valid & ZIP_STAT_SIZE) ? st.size : 0;
        e.compressedSize = (st.valid & ZIP_STAT_COMP_SIZE) ? st.comp_size : 0;
        e.method = (st.valid & ZIP_STAT_COMP_METHOD) ? static_cast<std::uint16_t>(st.comp_method) : 0;
        // Python's zipfile keeps the last of duplicate names; so do we.
        a->m_index[e.name] = a->m_entries.size();
        a->m_entries.push_back(std::move(e));
    }
    return std::shared_ptr<const ZipArchive>(std::move(a));
}

const ZipEntry *ZipArchive::find(const std::string &name) const
{
    auto it = m_index.find(name);
    return it == m_index.end() ? nullptr : &m_entries[it->second];
}

std::optional<std::span<const std::uint8_t>> ZipArchive::storedBytes(const std::string &name) const
{
    const ZipEntry *e = find(name);
    auto off = m_localOffsets.find(name);
    if (!e || e->method != ZIP_CM_STORE || e->size != e->compressedSize || off == m_localOffsets.end())
        return std::nullopt;
    const std::uint64_t h = off->second;
    if (h > m_data.size() || m_data.size() - h < 30 || le(m_data, h, 4) != 0x04034b50)
        return std::nullopt;
    const std::uint64_t start = h + 30 + le(m_data, h + 26, 2) + le(m_data, h + 28, 2);
    if (start > m_data.size() || m_data.size() - start < e->size)
        return std::nullopt;
    return m_data.subspan(start, e->size);
}

Result<std::string> ZipArchive::read(const std::string &name, std::uint64_t cap) const
{
    const ZipEntry *e = find(name);
    if (!e)
        return makeError(ErrorCode::Corrupt, m_label, fmt::format("no entry '{}'", printable(name)));
    const std::uint64_t total = m_data.size();
    if (e->compressedSize > total)
        return makeError(ErrorCode::Corrupt, m_label,
            fmt::format("entry '{}' claims {} compressed bytes but the archive has only {}", printable(name),
                e->compressedSize, total));
    if (e->method == ZIP_CM_STORE && e->size != e->compressedSize)
        return makeError(ErrorCode::Corrupt, m_label,
            fmt::format(
                "stored entry '{}' declares size {} but holds {} bytes", printable(name), e->size, e->compressedSize));
    if (e->method != ZIP_CM_STORE && e->size > e->compressedSize * kMaxDeflateRatio + 1024)
        return makeError(ErrorCode::LimitExceeded, m_label,
            fmt::format(
                "entry '{}' claims {} bytes from {} compressed bytes", printable(name), e->size, e->compressedSize));
    if (e->size > cap)
        return makeError(ErrorCode::LimitExceeded, m_label,
            fmt::format("entry '{}' is {} bytes, above the limit of {}", printable(name), e->size, cap));

    std::lock_guard lock(m_mutex);
    const zip_int64_t idx = zip_name_locate(m_zip, name.c_str(), ZIP_FL_ENC_RAW);
    zip_file_t *f = idx >= 0 ? zip_fopen_index(m_zip, static_cast<zip_uint64_t>(idx), 0) : nullptr;
    if (!f)
        return makeError(ErrorCode::Corrupt, m_label,
            fmt::format("cannot open entry '{}': {}", printable(name), zip_strerror(m_zip)));
    std::string out;
    out.resize(static_cast<std::size_t>(e->size));
    std::uint64_t got = 0;
    while (got < e->size) {
        const zip_int64_t r = zip_fread(f, out.data() + got, e->size - got);
        if (r <= 0)
            break;
        got += static_cast<std::uint64_t>(r);
    }
    // One more read detects data longer than declared and triggers libzip's CRC check.
    char extra = 0;
    const zip_int64_t tail = got == e->size ? zip_fread(f, &extra, 1) : 0;
    std::string ferr = zip_file_strerror(f);
    const bool failed = tail < 0;
    zip_fclose(f);
    if (failed)
        return makeError(ErrorCode::Corrupt, m_label, fmt::format("entry '{}' is damaged: {}", printable(name), ferr));
    if (got != e->size)
        return makeError(ErrorCode::Truncated, m_label,
            fmt::format("entry '{}' declares {} bytes but only {} could be read", printable(name), e->size, got));
    return out;
}

} // namespace etscope
