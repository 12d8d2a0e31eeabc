#pragma once

// Small helpers shared by the fuzz targets: a byte reader that never reads past the input and
// the MappedFile wrapper. Kept free of clang-only headers so the targets also build as plain
// replay programs with gcc.

#include "common/mappedfile.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

namespace etscope::fuzz {

// Known, reported bugs (their inputs are in regressions/<target>/) make a target stop at once.
// Long campaigns set ETSCOPE_FUZZ_SKIP_KNOWN=1 to step around exactly those bugs and keep
// exploring; ctest and the replay tests never set it, so the regressions stay visible.
inline bool skipKnownIssues()
{
    static const bool skip = std::getenv("ETSCOPE_FUZZ_SKIP_KNOWN") != nullptr;
    return skip;
}

// The project rule for errors: one line that names the file. Aborts (a finding) otherwise.
// Readers must not quote raw bytes from the file (identifiers, zip entry names, pickle values)
// in their messages: a crafted file could put a newline there. Relaxed in campaigns while a
// reported case is open (see regressions/).
inline void checkErrorMessage(const std::string &message, const char *file)
{
    const bool allowRawBytes = skipKnownIssues();
    const bool named = message.find(file) != std::string::npos;
    const bool oneLine = message.find('\n') == std::string::npos && message.find('\0') == std::string::npos;
    if (!named || (!oneLine && !allowRawBytes)) {
        std::fprintf(stderr, "error message breaks the one-line/names-the-file rule: [%s]\n", message.c_str());
        std::abort();
    }
}

inline std::shared_ptr<const MappedFile> asFile(const std::uint8_t *data, std::size_t size, const char *name)
{
    return MappedFile::fromBytes(name, std::string(reinterpret_cast<const char *>(data), size));
}

// Consumes the front of the input; returns zeros once it is exhausted.
class ByteReader
{
public:
    ByteReader(const std::uint8_t *data, std::size_t size)
        : m_data(data)
        , m_size(size)
    { }

    template <typename T> T take()
    {
        T v {};
        const std::size_t n = std::min(sizeof(T), m_size - m_pos);
        std::memcpy(&v, m_data + m_pos, n);
        m_pos += n;
        return v;
    }
    std::size_t remaining() const { return m_size - m_pos; }
    const std::uint8_t *rest() const { return m_data + m_pos; }

private:
    const std::uint8_t *m_data;
    std::size_t m_size;
    std::size_t m_pos = 0;
};

} // namespace etscope::fuzz
