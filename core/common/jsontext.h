#pragma once

// The one JSON writer, and HTML text, for file-derived strings, which need not be valid UTF-8:
// invalid bytes become U+FFFD so that the output always parses (never an exception).
//
// A JSON document is built as an nlohmann value and written with jsonDocument (one indentation:
// one space per level, a final newline). Only a document whose size grows with the recording or
// the program (events × runs, instructions × values: too large to hold as a tree of values) is
// written piece by piece instead (the trace, the many-recordings export, backend events, runs,
// the program's listing and size report, the evaluator's AOT outputs): its strings through
// appendJsonString / jsonString, its pieces through jsonCompact. Nothing else calls nlohmann's dump
// or escapes a JSON string of its own (HACKING.md, "One way to do each thing").

#include <fmt/format.h>
#include <nlohmann/json_fwd.hpp>

#include <string>
#include <string_view>

namespace etscope {

// A whole JSON document: indented by one space per level, ending in a newline.
std::string jsonDocument(const nlohmann::json &doc);
std::string jsonDocument(const nlohmann::ordered_json &doc);
// One value on one line with no spaces: a piece of a streamed document, or a value shown as text.
std::string jsonCompact(const nlohmann::json &value);
std::string jsonCompact(const nlohmann::ordered_json &value);

// Appends s as a quoted JSON string.
void appendJsonString(fmt::memory_buffer &out, std::string_view s);
std::string jsonString(std::string_view s);

// Appends s with &, <, >, " and ' escaped (safe in element text and quoted attributes).
void appendHtmlEscaped(std::string &out, std::string_view s);
std::string htmlEscaped(std::string_view s);

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is invalid.
std::size_t utf8SequenceLength(std::string_view s, std::size_t i);

} // namespace etscope
