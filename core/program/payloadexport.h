#pragma once

// Text and JSON renderings of a decoded delegate payload (etscope-cli `program`, the Python
// package), shared so that every place shows a delegate's inside the same way.

#include "program/delegates/delegatepayload.h"

#include <fmt/format.h>

#include <string>

namespace etscope {

// Lines under a delegate: the summary, then one line per node ("node 0  FullyConnected
// %0 fp32[1, 64], … -> %3 fp32[1, 128]  clamp [0, +inf]"), each prefixed by `indent`.
std::string payloadText(const DelegatePayload &p, std::string_view indent);

// Appends the members a delegate's JSON entry gains (after a comma): "payload": {"backend",
// "decoded", "identifier", "version", "bytes", "note", "summary", "inputs", "outputs", "parts":
// [{"name", "bytes"}], "constants": [{"bytes", "place", "offset"?, "named_key"?}], "shaders"},
// "nodes": [{"index", "op", "inputs": [value], "outputs": [value], "params", "flags",
// "debug_handle"?}] where value = {"id", "dtype", "shape", "quant"?, "constant"?, "storage"?,
// "text"?}, and for Ethos-U "scratch_bytes", "command_stream_bytes", "weight_bytes".
void appendPayloadJson(fmt::memory_buffer &b, const DelegatePayload &p);

// One value as JSON ({"id", "dtype", "shape", …} as above).
void appendDelegateValueJson(fmt::memory_buffer &b, const DelegatePayload &p, std::int64_t id);

} // namespace etscope
