#include "common/jsontext.h"

#include <nlohmann/json.hpp>

namespace etscope {

namespace {
template <class Json> std::string dumpReplacing(const Json &j, int indent)
{
    return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}
} // namespace

std::string jsonDocument(const nlohmann::json &doc)
{
    return dumpReplacing(doc, 1) + '\n';
}

std::string jsonDocument(const nlohmann::ordered_json &doc)
{
    return dumpReplacing(doc, 1) + '\n';
}

std::string jsonCompact(const nlohmann::json &value)
{
    return dumpReplacing(value, -1);
}

std::string jsonCompact(const nlohmann::ordered_json &value)
{
    return dumpReplacing(value, -1);
}

std::size_t utf8SequenceLength(std::string_view s, std::size_t i)
{
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80)
        return 1;
    std::size_t n;
    unsigned min;
    unsigned cp;
    if ((b & 0xE0) == 0xC0) {
        n = 2, min = 0x80, cp = b & 0x1F;
    } else if ((b & 0xF0) == 0xE0) {
        n = 3, min = 0x800, cp = b & 0x0F;
    } else if ((b & 0xF8) == 0xF0) {
        n = 4, min = 0x10000, cp = b & 0x07;
    } else {
        return 0;
    }
    if (i + n > s.size())
        return 0;
    for (std::size_t k = 1; k < n; ++k) {
        const auto c = static_cast<unsigned char>(s[i + k]);
        if ((c & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (c & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

void appendJsonString(fmt::memory_buffer &out, std::string_view s)
{
    out.push_back('"');
    std::size_t i = 0;
    while (i < s.size()) {
        // Fast path: a run of plain printable ASCII.
        std::size_t j = i;
        while (j < s.size()) {
            const auto c = static_cast<unsigned char>(s[j]);
            if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\')
                break;
            ++j;
        }
        out.append(s.data() + i, s.data() + j);
        i = j;
        if (i >= s.size())
            break;
        const auto c = static_cast<unsigned char>(s[i]);
        if (c == '"' || c == '\\') {
            out.push_back('\\');
            out.push_back(static_cast<char>(c));
            ++i;
        } else if (c < 0x20) {
            fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
            ++i;
        } else if (const std::size_t n = utf8SequenceLength(s, i)) {
            out.append(s.data() + i, s.data() + i + n);
            i += n;
        } else {
            out.append(std::string_view("\xEF\xBF\xBD"));
            ++i;
        }
    }
    out.push_back('"');
}

std::string jsonString(std::string_view s)
{
    fmt::memory_buffer b;
    appendJsonString(b, s);
    return fmt::to_string(b);
}

void appendHtmlEscaped(std::string &out, std::string_view s)
{
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        switch (c) {
        case '&':
            out += "&amp;";
            ++i;
            continue;
        case '<':
            out += "&lt;";
            ++i;
            continue;
        case '>':
            out += "&gt;";
            ++i;
            continue;
        case '"':
            out += "&quot;";
            ++i;
            continue;
        case '\'':
            out += "&#39;";
            ++i;
            continue;
        default:
            break;
        }
        if (c < 0x20 && c != '\n' && c != '\t') {
            out += "\xEF\xBF\xBD";
            ++i;
        } else if (const std::size_t n = utf8SequenceLength(s, i)) {
            out.append(s.data() + i, n);
            i += n;
        } else {
            out += "\xEF\xBF\xBD";
            ++i;
        }
    }
}

std::string htmlEscaped(std::string_view s)
{
    std::string out;
    appendHtmlEscaped(out, s);
    return out;
}

} // namespace etscope
