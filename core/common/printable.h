#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace etscope {

// Text from a file made safe for one-line messages: control bytes and invalid UTF-8 become
// \xNN escapes, and it is cut after `max` bytes ("..." appended).
std::string printable(std::string_view text, std::size_t max = 120);

// Bytes that are text (valid UTF-8 without control bytes other than tab, newline and carriage
// return; a C string's trailing NULs dropped) as that text; nullopt for anything binary. For
// values a file does not type, such as a delegate's compile specs: OpenVINO's `device` is "CPU",
// Ethos-U's are its target and compiler flags, XNNPACK's are packed numbers.
std::optional<std::string> asText(std::span<const std::uint8_t> bytes);

} // namespace etscope
