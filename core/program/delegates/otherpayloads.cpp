// Payloads of backends etscope has no decoder for yet (CoreML, QNN, OpenVINO, MediaTek,
// Samsung, …): shown as opaque with their size and identifier, naming the backend.
#include "program/delegates/payloaddecoders.h"

#include "common/printable.h"

#include <fmt/format.h>

namespace etscope::delegates {

DelegatePayload decodeOther(std::string_view backendId, std::span<const std::uint8_t> blob)
{
    return opaquePayload(blob, fmt::format("no decoder for backend '{}'", printable(backendId, 60)));
}

} // namespace etscope::delegates
