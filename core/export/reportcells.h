#pragma once

// Table cells every section of the HTML report writes the same way: the window's number format
// (common/numberformat.h) with "–" where there is no value, and every digit for the sort script.

#include "common/numberformat.h"

#include <cmath>
#include <string>

namespace etscope::reportcells {

inline std::string number(double v)
{
    return std::isnan(v) ? "–" : significantText(v);
}

inline std::string sortValue(double v)
{
    if (std::isinf(v))
        return v > 0 ? "Infinity" : "-Infinity";
    return fullPrecisionText(v);
}

} // namespace etscope::reportcells
