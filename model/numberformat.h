#pragma once

#include <QString>

#include <vector>

namespace etscope {

// One number format for the whole app and the HTML report (core/common/numberformat.h):
// `digits` significant digits, always in positional notation (never "9.7e-05" next to "0.000412"
// in the same column); whole numbers from 1e5 up.
QString formatSignificant(double value, int digits = 6);
// A gap or error: formatSignificant, "inf" / "-inf", and `none` for NaN (no value).
QString formatGap(double value, int digits = 6, const QString &none = {});
// Every digit of a double ("%.17g"), for tooltips behind rounded cells.
QString formatFull(double value);

// "Nice" axis ticks: multiples of 1, 2 or 5 × 10^k covering [lo, hi] with about `target` ticks.
struct NiceTicks {
    double step = 0;
    std::vector<double> values; // ascending, inside [lo, hi]
    int decimals = 0; // enough to tell neighbouring ticks apart, and no more
};
double niceStep(double span, int target);
NiceTicks niceTicks(double lo, double hi, int target = 5);
// A tick label with the decimals of its axis ("0", "0.5", "1.0" → "0.0", "0.5", "1.0").
QString formatTick(double value, int decimals);

} // namespace etscope
