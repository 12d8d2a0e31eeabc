#include "etrecord/lenientjson.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace etscope {

namespace {
// Returns the text with bare NaN/Infinity/-Infinity replaced, or nothing when there is none
// (the common case, so no copy is made).
std::optional<std::string> rewriteNonStrictTokens(std::string_view t)
{
    std::optional<std::string> out;
    std::size_t copied = 0;
    bool inString = false;
    for (std::size_t i = 0; i < t.size(); ++i) {
        const char c = t[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
            continue;
        }
        std::string_view token;
        const char *replacement = nullptr;
        if (c == 'N' && t.substr(i, 3) == "NaN") {
            token = "NaN";
            replacement = kJsonNaN;
        } else if (c == 'I' && t.substr(i, 8) == "Infinity") {
            token = "Infinity";
            replacement = kJsonInf;
        } else if (c == '-' && t.substr(i, 9) == "-Infinity") {
            token = "-Infinity";
            replacement = kJsonNegInf;
        }
        if (!replacement)
            continue;
        if (!out) {
            out.emplace();
            out->reserve(t.size() + 64);
        }
        out->append(t.substr(copied, i - copied));
        out->push_back('"');
        // The sentinel starts with \x01, which must be escaped inside a JSON string.
        out->append("\\u0001");
        out->append(replacement + 1);
        out->push_back('"');
        i += token.size() - 1;
        copied = i + 1;
    }
    if (out)
        out->append(t.substr(copied));
    return out;
}
} // namespace

namespace {
template <typename Json> Result<Json> parseImpl(std::string_view text, const std::string &label)
{
    auto rewritten = rewriteNonStrictTokens(text);
    const std::string_view src = rewritten ? std::string_view(*rewritten) : text;
    // Exceptions stay inside this function: callers only see Result.
    try {
        return Json::parse(src.begin(), src.end());
    } catch (const typename Json::parse_error &e) {
        return makeError(ErrorCode::Corrupt, label, fmt::format("malformed JSON at byte {}", e.byte));
    } catch (const std::exception &) {
        return makeError(ErrorCode::Corrupt, label, "malformed JSON");
    }
}

} // namespace

Result<nlohmann::json> parseLenientJson(std::string_view text, const std::string &label)
{
    return parseImpl<nlohmann::json>(text, label);
}

Result<nlohmann::ordered_json> parseLenientOrderedJson(std::string_view text, const std::string &label)
{
    return parseImpl<nlohmann::ordered_json>(text, label);
}

std::optional<double> jsonToDouble(const nlohmann::json &j)
{
    if (j.is_number())
        return j.get<double>();
    if (j.is_string()) {
        const auto &s = j.get_ref<const std::string &>();
        if (s == kJsonNaN)
            return std::numeric_limits<double>::quiet_NaN();
        if (s == kJsonInf)
            return std::numeric_limits<double>::infinity();
        if (s == kJsonNegInf)
            return -std::numeric_limits<double>::infinity();
    }
    return std::nullopt;
}

} // namespace etscope
