// The Arm Ethos-U delegate's payload: Vela's block stream. Each block is a 32-byte header (a
// 16-byte NUL-padded name, a u32 unpadded data length, a u8 "external" flag, 11 reserved
// bytes) and its data padded to 16 bytes; the stream opens with "vela_bin_stream" and closes
// with "vela_end_stream". Blocks: cmd_data (the NPU command stream, starting "COP1"/"COP2"),
// weight_data, scratch_size (u32: the SRAM working area), inputs and outputs (an i32 count, then
// per tensor six i32 shape dims, the element size, the offset in the scratch area and its
// region). An external block holds a 64-character key into the named data instead of its
// bytes. (backends/arm/runtime/VelaBinStream.{h,cpp} and backends/arm/arm_vela.py at
// ExecuTorch commit cff6f4dd32e630945b7188512c1f2b4f102b05ad.) Vela writes no dtype, only the
// element size, so a value's dtype here is "1-byte", "2-byte", ….
#include "program/delegates/payloaddecoders.h"

#include "common/littleendian.h"

#include <fmt/format.h>

#include <cstring>
#include <string_view>

namespace etscope::delegates {
namespace {

constexpr std::size_t kBlockHeader = 32;
constexpr std::size_t kIoDims = 6;
constexpr std::size_t kIoBytes = (kIoDims + 3) * 4;

std::uint64_t padded16(std::uint64_t n)
{
    return (n + 15) / 16 * 16;
}

std::int32_t readI32(const std::uint8_t *p)
{
    return static_cast<std::int32_t>(readLe32(p));
}

// Appends the tensors of an inputs/outputs block; false when the block is too short.
bool readIos(std::span<const std::uint8_t> data, bool input, DelegatePayload &p)
{
    if (data.size() < 4)
        return false;
    const std::int32_t count = readI32(data.data());
    if (count < 0 || std::uint64_t(count) > (data.size() - 4) / kIoBytes)
        return false;
    for (std::int32_t i = 0; i < count; ++i) {
        const std::uint8_t *io = data.data() + 4 + std::size_t(i) * kIoBytes;
        DelegateValue v;
        v.id = static_cast<std::uint32_t>(p.values.size());
        for (std::size_t d = 0; d < kIoDims; ++d)
            v.shape.push_back(static_cast<std::uint64_t>(std::max(0, readI32(io + d * 4))));
        const std::int32_t elem = readI32(io + kIoDims * 4);
        v.dtype = fmt::format("{}-byte", elem);
        v.storage
            = fmt::format("scratch region {} offset {}", readI32(io + kIoDims * 4 + 8), readI32(io + kIoDims * 4 + 4));
        (input ? v.input : v.output) = true;
        (input ? p.inputs : p.outputs).push_back(v.id);
        p.values.push_back(std::move(v));
    }
    return true;
}

} // namespace

bool looksLikeVela(std::span<const std::uint8_t> blob)
{
    constexpr std::string_view magic = "vela_bin_stream";
    return blob.size() >= magic.size() && std::memcmp(blob.data(), magic.data(), magic.size()) == 0;
}

DelegatePayload decodeEthosU(std::span<const std::uint8_t> blob)
{
    if (!looksLikeVela(blob))
        return opaquePayload(blob, "no Vela block stream (vela_bin_stream)");
    DelegatePayload p;
    p.backend = "Ethos-U";
    p.decoded = true;
    p.identifier = "vela_bin_stream";
    p.bytes = blob.size();
    std::uint64_t pos = 0;
    bool ended = false;
    while (pos < blob.size()) {
        if (blob.size() - pos < kBlockHeader)
            return opaquePayload(blob, fmt::format("Vela block at {} is cut short", pos));
        const std::uint8_t *h = blob.data() + pos;
        std::string name(reinterpret_cast<const char *>(h), strnlen(reinterpret_cast<const char *>(h), 16));
        const std::uint32_t size = readLe32(h + 16);
        const bool external = h[20] == 1;
        const std::uint64_t span = padded16(size);
        if (span > blob.size() - pos - kBlockHeader)
            return opaquePayload(blob, fmt::format("Vela block '{}' ({} bytes) runs past the payload", name, size));
        const std::span<const std::uint8_t> data = blob.subspan(pos + kBlockHeader, size);
        std::string part = name + " block";
        if (external) {
            const std::string key(reinterpret_cast<const char *>(data.data()), data.size());
            DelegateConstant k;
            k.place = DelegateConstant::Place::Named;
            k.namedKey = key;
            p.constants.push_back(std::move(k));
            part += " (external key)";
        } else if (name == "cmd_data") {
            p.commandStreamBytes = size;
            if (size >= 4) // the driver's magic, COP1 or COP2 (VelaBinStream.cpp checks it)
                p.identifier += " " + std::string(reinterpret_cast<const char *>(data.data()), 4);
        } else if (name == "weight_data") {
            p.weightBytes = size;
            if (size > 0)
                p.constants.push_back({ size, DelegateConstant::Place::ConstantData, pos + kBlockHeader, {} });
        } else if (name == "scratch_size") {
            if (size >= 4)
                p.scratchBytes = readLe32(data.data());
        } else if (name == "inputs" || name == "outputs") {
            if (!readIos(data, name == "inputs", p))
                p.note = fmt::format("the {} block is malformed", name);
        } else if (name == "vela_end_stream") {
            ended = true;
        } else if (name != "vela_bin_stream") {
            p.note = fmt::format("unknown Vela block '{}'", name);
        }
        p.parts.push_back({ std::move(part), kBlockHeader + span });
        pos += kBlockHeader + span;
        if (ended)
            break;
    }
    if (!ended && p.note.empty())
        p.note = "no vela_end_stream block";
    if (pos < blob.size())
        p.parts.push_back({ "trailing bytes", blob.size() - pos });
    p.finish();
    return p;
}

} // namespace etscope::delegates
