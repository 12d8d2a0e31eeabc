#pragma once

// Names that tell files apart: runs are usually all called etdump.etdp, so the file name alone
// says nothing. Used by the window's title, status bar, Open Recent and the A/B of a comparison.

#include <string>
#include <vector>

namespace etscope {

// For each path, its shortest trailing part ("run_a/etdump.etdp", "x/run_a/etdump.etdp") that no
// other path of the list ends with; the file name alone when it is unique. Equal paths get
// equal names. Separators are '/' (and '\' on input, read as '/').
std::vector<std::string> distinguishingNames(const std::vector<std::string> &paths);

} // namespace etscope
