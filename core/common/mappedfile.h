#pragma once

#include "common/error.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace etscope {

// A whole file mapped read-only (falls back to reading it once when mmap is unavailable).
// Files we open are never opened for writing. Movable, not copyable; shared via shared_ptr
// when several readers keep views into the same bytes.
class MappedFile
{
public:
    static Result<std::shared_ptr<const MappedFile>> open(const std::string &path);
    // Wraps bytes already in memory (tests, fuzzers, embedded blobs).
    static std::shared_ptr<const MappedFile> fromBytes(std::string path, std::string bytes);

    ~MappedFile();
    MappedFile(const MappedFile &) = delete;
    MappedFile &operator=(const MappedFile &) = delete;

    const std::string &path() const { return m_path; }
    std::span<const std::uint8_t> bytes() const { return { m_data, m_size }; }
    const std::uint8_t *data() const { return m_data; }
    std::size_t size() const { return m_size; }
    // Maps every page now, in one call, for readers that touch all bytes anyway: one fault per
    // page costs more than the read itself on some virtual machines. No-op for owned bytes.
    void prefault() const;

private:
    MappedFile() = default;
    std::string m_path;
    const std::uint8_t *m_data = nullptr;
    std::size_t m_size = 0;
    void *m_map = nullptr; // non-null when mmapped
    std::string m_owned; // storage when not mmapped
};

} // namespace etscope
