#include "numberformat.h"

#include "common/numberformat.h"
#include "qtstrings.h"

#include <cmath>

namespace etscope {

QString formatSignificant(double value, int digits)
{
    return toQString(significantText(value, digits));
}

QString formatGap(double value, int digits, const QString &none)
{
    if (std::isnan(value))
        return none;
    if (std::isinf(value))
        return value > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return formatSignificant(value, digits);
}

QString formatFull(double value)
{
    return toQString(fullPrecisionText(value));
}

double niceStep(double span, int target)
{
    if (!(span > 0) || !std::isfinite(span))
        return 1;
    const double raw = span / std::max(1, target);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double f : { 1.0, 2.0, 5.0 })
        if (f * mag >= raw * (1 - 1e-9))
            return f * mag;
    return 10 * mag;
}

NiceTicks niceTicks(double lo, double hi, int target)
{
    NiceTicks t;
    if (!std::isfinite(lo) || !std::isfinite(hi) || hi < lo)
        return t;
    if (hi == lo) {
        t.step = 0;
        t.values.push_back(lo);
        // Six significant digits at most, without trailing zeros (0.043306, not 0.0433060).
        t.decimals = std::max(0, 5 - int(std::floor(std::log10(std::max(std::abs(lo), 1e-300)))));
        while (t.decimals > 0) {
            const double scale = std::pow(10.0, t.decimals - 1);
            if (std::abs(std::round(lo * scale) / scale - lo) > std::abs(lo) * 1e-9)
                break;
            --t.decimals;
        }
        return t;
    }
    t.step = niceStep(hi - lo, target);
    t.decimals = std::max(0, -int(std::floor(std::log10(t.step) + 1e-9)));
    // Computed as first + i·step (never accumulated), so 0 is exactly 0 and 0.3 is not 0.30000000000000004.
    const double first = std::ceil(lo / t.step - 1e-9) * t.step;
    for (int i = 0;; ++i) {
        const double v = first + i * t.step;
        if (v > hi + t.step * 1e-9 || i > 1000)
            break;
        t.values.push_back(std::abs(v) < t.step * 1e-9 ? 0.0 : v);
    }
    return t;
}

QString formatTick(double value, int decimals)
{
    const QString s = QString::number(value, 'f', decimals);
    // "-0.0" is zero.
    if (s.startsWith(QLatin1Char('-')) && s.mid(1).count(QLatin1Char('0')) + s.count(QLatin1Char('.')) == s.size() - 1)
        return s.mid(1);
    return s;
}

} // namespace etscope
