#include "common/numberformat.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace etscope {

std::string significantText(double value, int digits)
{
    if (std::isnan(value))
        return "nan";
    if (std::isinf(value))
        return value > 0 ? "inf" : "-inf";
    if (value == 0)
        return "0";
    const double a = std::abs(value);
    if (a >= 1e5 && a < 1e15)
        return fmt::format("{:.0f}", value);
    if (a >= 1e15 || a < 1e-15)
        return fmt::format("{:.{}g}", value, std::max(1, digits));
    const int exponent = static_cast<int>(std::floor(std::log10(a)));
    const int decimals = std::max(0, digits - 1 - exponent);
    std::string s = fmt::format("{:.{}f}", value, decimals);
    if (s.find('.') != std::string::npos) {
        while (s.back() == '0')
            s.pop_back();
        if (s.back() == '.')
            s.pop_back();
    }
    return s == "-0" ? "0" : s;
}

std::string fullPrecisionText(double value)
{
    if (std::isnan(value))
        return "nan";
    if (std::isinf(value))
        return value > 0 ? "inf" : "-inf";
    return fmt::format("{:.17g}", value);
}

} // namespace etscope
