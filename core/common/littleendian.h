#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

// The file formats we read (ETDump, .pte and .ptd headers) store integers little-endian at byte
// offsets with no alignment promise: copy the bytes, never cast the pointer.
namespace etscope {

static_assert(std::endian::native == std::endian::little, "the readers map files in place");

inline std::uint32_t readLe32(const std::uint8_t *p)
{
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

inline std::uint64_t readLe64(const std::uint8_t *p)
{
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

} // namespace etscope
