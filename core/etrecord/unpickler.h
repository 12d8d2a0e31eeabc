#pragma once

// A pickle VM restricted to what torch.save writes (formats.md §4.2-§4.5). It interprets data
// only: every GLOBAL is checked against an allow-list and anything else is refused with
// ErrorCode::Refused naming the global. Nothing is ever imported or executed.

#include "common/error.h"
#include "etrecord/pyvalue.h"

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

namespace etscope {

struct UnpicklerOptions {
    std::string label; // file (and entry) named in error messages
    // Resolves BINPERSID ids; without it a persistent id is refused.
    std::function<Result<PyValue>(const PyValue &pid)> persistentLoad;
    std::size_t maxDepth = 512; // nesting of containers in the result
};

Result<PyValue> unpickle(std::span<const std::uint8_t> data, const UnpicklerOptions &options);

// True for the globals the unpickler accepts (exposed for tests and documentation).
bool isAllowedPickleGlobal(std::string_view module, std::string_view name);

// torch dtype global name ("float32", "half", ...) or storage class ("FloatStorage") to our enum.
std::optional<ScalarType> torchDtypeFromName(std::string_view name);
std::optional<ScalarType> torchStorageDtype(std::string_view className);

} // namespace etscope
