// Payloads of backends etscope has no node decoder for (QNN, OpenVINO, MediaTek,
// Samsung, …): shown as opaque with their size and identifier, naming the backend. For QNN the
// wrapper around the vendor's context binary is read: u32 magic 0x5678ABCD, i64 signature, u64
// context-binary size, zero padding to 256 bytes, then the context binary
// (backends/qualcomm/runtime/backends/QnnCustomProtocol.{h,cpp}, read by QnnExecuTorchBackend.cpp
// at ExecuTorch commit cff6f4dd32e630945b7188512c1f2b4f102b05ad); the binary itself is the QNN
// SDK's format and stays opaque.
#include "program/delegates/payloaddecoders.h"

#include "common/littleendian.h"
#include "common/printable.h"

#include <fmt/format.h>

namespace etscope::delegates {
namespace {

constexpr std::uint32_t kQnnMagic = 0x5678ABCD;
constexpr std::uint64_t kQnnHeader = 256;

bool readQnn(std::span<const std::uint8_t> blob, DelegatePayload &p)
{
    if (blob.size() < kQnnHeader || readLe32(blob.data()) != kQnnMagic)
        return false;
    const auto signature = static_cast<std::int64_t>(readLe64(blob.data() + 4));
    const std::uint64_t binary = readLe64(blob.data() + 12);
    if (binary > blob.size() - kQnnHeader)
        return false;
    p.backend = "QNN";
    p.identifier = "QNN context (magic 0x5678abcd)";
    p.version = fmt::format("signature {}", signature);
    p.note = fmt::format("QNN context binary of {} bytes: the vendor SDK's format, not decoded", binary);
    p.parts.clear();
    p.parts.push_back({ "header", kQnnHeader });
    p.parts.push_back({ "context binary", binary });
    if (blob.size() > kQnnHeader + binary)
        p.parts.push_back({ "trailing bytes", blob.size() - kQnnHeader - binary });
    return true;
}

} // namespace

DelegatePayload decodeOther(std::string_view backendId, std::span<const std::uint8_t> blob)
{
    DelegatePayload p = opaquePayload(blob, fmt::format("no decoder for backend '{}'", printable(backendId, 60)));
    if (readQnn(blob, p))
        p.finish();
    return p;
}

} // namespace etscope::delegates
