#pragma once

// Shared body of the delegate payload fuzz targets (fuzz_xnnpack_payload, fuzz_vulkan_payload,
// fuzz_ethosu_payload): decode the bytes as the named backend's payload, check that the parts
// add up to the size whatever the bytes, and render the result as text and JSON.

#include "program/delegates/delegatepayload.h"
#include "program/payloadexport.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace etscope::fuzz {

inline void fuzzPayload(std::string_view backendId, const std::uint8_t *data, std::size_t size)
{
    const DelegatePayload p = decodeDelegatePayload(backendId, { data, size });
    std::uint64_t sum = 0;
    for (const PayloadPart &part : p.parts)
        sum += part.bytes;
    if (sum != size || p.bytes != size)
        std::abort(); // every byte is in exactly one part
    for (const DelegateNode &n : p.nodes)
        for (std::int64_t id : n.inputs)
            (void)p.value(id);
    (void)p.summary();
    (void)payloadText(p, "  ");
    fmt::memory_buffer b;
    appendPayloadJson(b, p);
}

} // namespace etscope::fuzz
