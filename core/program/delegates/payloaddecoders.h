#pragma once

// The per-backend decoders behind decodeDelegatePayload (delegatepayload.cpp), and what they
// share. Internal to core/program/delegates.

#include "common/alignedbytes.h"
#include "program/delegates/delegatepayload.h"

#include <flatbuffers/flatbuffers.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace etscope::delegates {

// The 30-byte header XNNPACK ("XH00") and Vulkan ("VH00") put before their flatbuffer: magic
// at 4, u16 header length at 8, u32 flatbuffer offset at 10 and size at 14, u32 offset of the
// constant bytes at 18 and u64 size at 22 (backends/xnnpack/runtime/XNNHeader.{h,cpp},
// backends/vulkan/runtime/VulkanDelegateHeader.cpp at ExecuTorch commit
// cff6f4dd32e630945b7188512c1f2b4f102b05ad).
struct SegmentedHeader {
    std::uint16_t headerLength = 0;
    std::uint32_t flatbufferOffset = 0, flatbufferSize = 0;
    std::uint32_t constantOffset = 0;
    std::uint64_t constantSize = 0;
};
inline constexpr std::size_t kSegmentedHeaderSize = 30;
// nullopt when the magic is absent; an error text when the fields do not fit the blob.
struct SegmentedHeaderRead {
    std::optional<SegmentedHeader> header;
    std::string error;
};
SegmentedHeaderRead readSegmentedHeader(std::span<const std::uint8_t> blob, const char (&magic)[5]);
// header / graph / padding / constants / trailing parts of a segmented payload.
void addSegmentedParts(DelegatePayload &p, const SegmentedHeader &h, const char *graphName, const char *dataName);

// The 4 identifier bytes of a flatbuffer (at offset 4), printable, or "" when too short.
std::string flatbufferIdentifier(std::span<const std::uint8_t> fb);

// The verified root of a payload's graph flatbuffer (limits sized for graphs of millions of
// nodes); root is nullptr when verification fails. flatbuffers checks the alignment of each
// scalar relative to the buffer's start but then loads it at its absolute address, so a graph
// whose start sits off an 8-byte boundary in the blob (a header field says where it starts) is
// read from an aligned copy, which lives as long as this object.
template <typename Root> class VerifiedGraph
{
public:
    explicit VerifiedGraph(std::span<const std::uint8_t> fb)
    {
        if (reinterpret_cast<std::uintptr_t>(fb.data()) % alignof(std::max_align_t) != 0) {
            m_copy.emplace(fb.data(), fb.size());
            fb = { m_copy->data(), m_copy->size() };
        }
        flatbuffers::Verifier::Options opts;
        opts.max_tables = 100'000'000;
        opts.max_depth = 64;
        flatbuffers::Verifier verifier(fb.data(), fb.size(), opts);
        if (verifier.VerifyBuffer<Root>(nullptr))
            m_root = flatbuffers::GetRoot<Root>(fb.data());
    }
    VerifiedGraph(const VerifiedGraph &) = delete;
    VerifiedGraph &operator=(const VerifiedGraph &) = delete;
    const Root *root() const { return m_root; }

private:
    std::optional<AlignedBytes> m_copy;
    const Root *m_root = nullptr;
};

DelegatePayload decodeXnnpack(std::span<const std::uint8_t> blob);
DelegatePayload decodeVulkan(std::span<const std::uint8_t> blob);
DelegatePayload decodeEthosU(std::span<const std::uint8_t> blob);
DelegatePayload decodeCoreML(std::span<const std::uint8_t> blob);
// Any other backend (QNN, OpenVINO, MediaTek, Samsung, …): opaque, with its identifier.
DelegatePayload decodeOther(std::string_view backendId, std::span<const std::uint8_t> blob);

bool looksLikeXnnpack(std::span<const std::uint8_t> blob);
bool looksLikeVulkan(std::span<const std::uint8_t> blob);
bool looksLikeVela(std::span<const std::uint8_t> blob);
bool looksLikeCoreMLReference(std::span<const std::uint8_t> blob);

} // namespace etscope::delegates
