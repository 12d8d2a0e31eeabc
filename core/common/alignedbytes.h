#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

namespace etscope {

// A copy of `size` bytes at an address aligned for any scalar (alignof(std::max_align_t)).
// For a flatbuffer that was laid out for its own start but sits at an offset in a file that
// breaks that alignment (upstream's Python ETDump serializer output behind a 4-byte size
// prefix): reading it in place would check and read 8-byte fields 4 bytes off.
class AlignedBytes
{
public:
    AlignedBytes(const std::uint8_t *data, std::size_t size)
        // (new[] rather than make_unique_for_overwrite, which libc++ has only from LLVM 16 on)
        : m_words(new std::max_align_t[size / sizeof(std::max_align_t) + 1])
        , m_size(size)
    {
        std::memcpy(m_words.get(), data, size);
    }
    const std::uint8_t *data() const { return reinterpret_cast<const std::uint8_t *>(m_words.get()); }
    std::size_t size() const { return m_size; }

private:
    std::unique_ptr<std::max_align_t[]> m_words;
    std::size_t m_size;
};

} // namespace etscope
