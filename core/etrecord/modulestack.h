#pragma once

#include "events/event.h"

#include <string_view>
#include <vector>

namespace etscope {

// Decodes a serialized nn_module_stack ("key,path,type;key,path,type", formats.md §3.4).
// Commas and semicolons inside (), [] or quotes belong to the path, e.g.
// "L__self___layers_0,getattr(L['self'].layers, '0'),torch.nn.modules.linear.Linear".
// Like the Python dict it becomes, a repeated key keeps its first position and takes the
// last value. Malformed entries are kept with what could be split (never fails).
std::vector<ModuleFrame> decodeModuleStack(std::string_view text);

// Dotted module path for display: "layers.0" from "getattr(L['self'].layers, '0')",
// "conv1" from "L['self'].conv1"; plain paths are returned unchanged.
std::string normalizeModulePath(std::string_view path);
// What a module is called in tables and graphs: its dotted path, or "(model)" for the root
// module itself (its path is "L['self']", its key "L__self__").
std::string moduleDisplayName(std::string_view path);

} // namespace etscope
