#pragma once

// Python's json module writes NaN/Infinity as bare tokens (not strict JSON); exported programs
// contain them (e.g. "max_val": Infinity). We rewrite those tokens, outside string literals
// only, into sentinel strings before handing the text to nlohmann, and read numbers through
// jsonToDouble() which understands the sentinels.

#include "common/error.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace etscope {

inline constexpr const char *kJsonNaN = "\x01NaN";
inline constexpr const char *kJsonInf = "\x01Infinity";
inline constexpr const char *kJsonNegInf = "\x01-Infinity";

Result<nlohmann::json> parseLenientJson(std::string_view text, const std::string &label);
// Same, keeping object keys in file order (Python dict order matters for a few lookups). Slower
// for big objects: use only where order is needed.
Result<nlohmann::ordered_json> parseLenientOrderedJson(std::string_view text, const std::string &label);

// Number (int or float) or one of the sentinels above; none otherwise.
std::optional<double> jsonToDouble(const nlohmann::json &j);

} // namespace etscope
