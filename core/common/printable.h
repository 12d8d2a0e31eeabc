#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace etscope {

// Text from a file made safe for one-line messages: control bytes and invalid UTF-8 become
// \xNN escapes, and it is cut after `max` bytes ("..." appended).
std::string printable(std::string_view text, std::size_t max = 120);

} // namespace etscope
