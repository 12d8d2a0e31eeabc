#include "common/printable.h"

#include <fmt/format.h>

#include <algorithm>

namespace etscope {

std::string printable(std::string_view text, std::size_t max)
{
    std::string out;
    out.reserve(std::min(text.size(), max) + 8);
    std::size_t i = 0;
    for (; i < text.size() && out.size() < max;) {
        const auto c = static_cast<unsigned char>(text[i]);
        // Valid multi-byte UTF-8 sequences pass through; everything else non-printable is escaped.
        std::size_t len = c >= 0xF0 && c < 0xF5 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 1;
        bool ok = len > 1 && i + len <= text.size();
        for (std::size_t k = 1; ok && k < len; ++k)
            ok = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
        if (ok) {
            out.append(text.substr(i, len));
            i += len;
        } else if (c >= 0x20 && c < 0x7F) {
            out.push_back(static_cast<char>(c));
            ++i;
        } else {
            out += fmt::format("\\x{:02x}", c);
            ++i;
        }
    }
    if (i < text.size())
        out += "...";
    return out;
}

std::optional<std::string> asText(std::span<const std::uint8_t> bytes)
{
    while (!bytes.empty() && bytes.back() == 0)
        bytes = bytes.first(bytes.size() - 1);
    if (bytes.empty())
        return std::nullopt; // nothing, or only NULs: no text to show
    for (std::size_t i = 0; i < bytes.size();) {
        const std::uint8_t c = bytes[i];
        if (c >= 0x20 && c < 0x7F) {
            ++i;
            continue;
        }
        if (c == '\t' || c == '\n' || c == '\r') {
            ++i;
            continue;
        }
        const std::size_t len = c >= 0xF0 && c < 0xF5 ? 4 : c >= 0xE0 && c < 0xF0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
        if (len == 0 || i + len > bytes.size())
            return std::nullopt;
        for (std::size_t k = 1; k < len; ++k)
            if ((bytes[i + k] & 0xC0) != 0x80)
                return std::nullopt;
        i += len;
    }
    return std::string(reinterpret_cast<const char *>(bytes.data()), bytes.size());
}

} // namespace etscope
