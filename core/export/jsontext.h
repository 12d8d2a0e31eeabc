#pragma once

// Small helpers for writing JSON and HTML text from file-derived strings, which need not be
// valid UTF-8: invalid bytes become U+FFFD so that the output always parses.

#include <fmt/format.h>

#include <string>
#include <string_view>

namespace etscope {

// Appends s as a quoted JSON string.
void appendJsonString(fmt::memory_buffer &out, std::string_view s);
std::string jsonString(std::string_view s);

// Appends s with &, <, >, " and ' escaped (safe in element text and quoted attributes).
void appendHtmlEscaped(std::string &out, std::string_view s);
std::string htmlEscaped(std::string_view s);

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is invalid.
std::size_t utf8SequenceLength(std::string_view s, std::size_t i);

} // namespace etscope
