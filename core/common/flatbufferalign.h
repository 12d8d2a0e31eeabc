#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstdint>

namespace etscope {

// Whether a flatbuffer vector's elements may be read in place. The verifier checks the
// alignment of a vector's length field only (4 bytes), so the 8-byte elements of a verified
// vector can still sit 4 bytes off: files written by flatc never do, crafted ones may.
template <typename T> bool elementsAligned(const flatbuffers::Vector<T> *v)
{
    return !v || reinterpret_cast<std::uintptr_t>(v->data()) % alignof(T) == 0;
}

} // namespace etscope
