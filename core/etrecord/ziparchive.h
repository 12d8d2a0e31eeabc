#pragma once

#include "common/error.h"
#include "common/mappedfile.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

struct zip; // libzip handle, kept out of our headers

namespace etscope {

// One entry of a zip central directory.
struct ZipEntry {
    std::string name;
    std::uint64_t size = 0; // uncompressed, as declared
    std::uint64_t compressedSize = 0;
    std::uint16_t method = 0; // 0 stored, 8 deflate
};

// Read-only zip archive over bytes we never write to (libzip underneath). Sizes are taken from
// the central directory and checked against the archive before anything is allocated, so a
// hostile entry cannot make us reserve gigabytes. Thread-safe: reads are serialized.
class ZipArchive
{
public:
    static constexpr std::uint64_t kDefaultEntryCap = 2ull << 30; // 2 GiB

    static Result<std::shared_ptr<const ZipArchive>> open(const std::string &path);
    // `label` names the archive in error messages (e.g. "etrecord.bin:reference_outputs").
    static Result<std::shared_ptr<const ZipArchive>> open(
        std::shared_ptr<const MappedFile> bytes, std::string label = {});
    // Archive over bytes owned by `owner` (e.g. a stored entry of another archive).
    static Result<std::shared_ptr<const ZipArchive>> open(
        std::shared_ptr<const void> owner, std::span<const std::uint8_t> bytes, std::string label);
    ~ZipArchive();
    ZipArchive(const ZipArchive &) = delete;
    ZipArchive &operator=(const ZipArchive &) = delete;

    const std::string &label() const { return m_label; }
    const std::vector<ZipEntry> &entries() const { return m_entries; }
    const ZipEntry *find(const std::string &name) const;
    std::uint64_t archiveSize() const { return m_data.size(); }

    // Whole entry. Fails with LimitExceeded above `cap`, Corrupt when the data is shorter than
    // declared or fails its CRC.
    Result<std::string> read(const std::string &name, std::uint64_t cap = kDefaultEntryCap) const;

    // The bytes of a stored (uncompressed) entry in place, without copying or CRC check; none
    // for compressed entries or when the local header does not add up.
    std::optional<std::span<const std::uint8_t>> storedBytes(const std::string &name) const;

private:
    ZipArchive() = default;
    std::shared_ptr<const void> m_owner;
    std::span<const std::uint8_t> m_data;
    std::unordered_map<std::string, std::uint64_t> m_localOffsets; // from our own directory scan
    std::string m_label;
    std::vector<ZipEntry> m_entries;
    std::unordered_map<std::string, std::size_t> m_index;
    ::zip *m_zip = nullptr;
    mutable std::mutex m_mutex;
};

} // namespace etscope
