#pragma once

// One number format for everything a person reads (the window's tables and charts through
// model/numberformat.h, the HTML report, …): `digits` significant digits, always in positional
// notation (never "9.7e-05" next to "0.000412" in the same column), whole numbers from 1e5 up,
// trailing zeros dropped. Below 1e-15 and from 1e15 up, beyond positional reading, "%.{digits}g".

#include <string>

namespace etscope {

std::string significantText(double value, int digits = 6);
// Every digit of a double ("%.17g"), for tooltips behind rounded cells.
std::string fullPrecisionText(double value);

} // namespace etscope
