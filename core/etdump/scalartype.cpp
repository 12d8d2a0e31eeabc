#include "etdump/scalartype.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace etscope {

std::optional<std::size_t> elementSize(ScalarType t)
{
    switch (t) {
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Bool:
    case ScalarType::QInt8:
    case ScalarType::QUInt8:
    case ScalarType::QUInt4x2:
    case ScalarType::QUInt2x4:
    case ScalarType::Bits1x8:
    case ScalarType::Bits2x4:
    case ScalarType::Bits4x2:
    case ScalarType::Bits8:
    case ScalarType::Float8e5m2:
    case ScalarType::Float8e4m3fn:
    case ScalarType::Float8e5m2fnuz:
    case ScalarType::Float8e4m3fnuz:
        return 1;
    case ScalarType::Short:
    case ScalarType::Half:
    case ScalarType::BFloat16:
    case ScalarType::Bits16:
    case ScalarType::UInt16:
        return 2;
    case ScalarType::Int:
    case ScalarType::Float:
    case ScalarType::QInt32:
    case ScalarType::UInt32:
    case ScalarType::ComplexHalf:
        return 4;
    case ScalarType::Long:
    case ScalarType::Double:
    case ScalarType::UInt64:
    case ScalarType::ComplexFloat:
        return 8;
    case ScalarType::ComplexDouble:
        return 16;
    }
    return std::nullopt;
}

std::string_view scalarTypeName(ScalarType t)
{
    switch (t) {
    case ScalarType::Byte:
        return "uint8";
    case ScalarType::Char:
        return "int8";
    case ScalarType::Short:
        return "int16";
    case ScalarType::Int:
        return "int32";
    case ScalarType::Long:
        return "int64";
    case ScalarType::Half:
        return "float16";
    case ScalarType::Float:
        return "float32";
    case ScalarType::Double:
        return "float64";
    case ScalarType::ComplexHalf:
        return "complex32";
    case ScalarType::ComplexFloat:
        return "complex64";
    case ScalarType::ComplexDouble:
        return "complex128";
    case ScalarType::Bool:
        return "bool";
    case ScalarType::QInt8:
        return "qint8";
    case ScalarType::QUInt8:
        return "quint8";
    case ScalarType::QInt32:
        return "qint32";
    case ScalarType::BFloat16:
        return "bfloat16";
    case ScalarType::QUInt4x2:
        return "quint4x2";
    case ScalarType::QUInt2x4:
        return "quint2x4";
    case ScalarType::Bits1x8:
        return "bits1x8";
    case ScalarType::Bits2x4:
        return "bits2x4";
    case ScalarType::Bits4x2:
        return "bits4x2";
    case ScalarType::Bits8:
        return "bits8";
    case ScalarType::Bits16:
        return "bits16";
    case ScalarType::Float8e5m2:
        return "float8_e5m2";
    case ScalarType::Float8e4m3fn:
        return "float8_e4m3fn";
    case ScalarType::Float8e5m2fnuz:
        return "float8_e5m2fnuz";
    case ScalarType::Float8e4m3fnuz:
        return "float8_e4m3fnuz";
    case ScalarType::UInt16:
        return "uint16";
    case ScalarType::UInt32:
        return "uint32";
    case ScalarType::UInt64:
        return "uint64";
    }
    return "unknown";
}

bool isConvertible(ScalarType t)
{
    return elementSize(t).has_value();
}

bool isFloatingPoint(ScalarType t)
{
    switch (t) {
    case ScalarType::Half:
    case ScalarType::Float:
    case ScalarType::Double:
    case ScalarType::BFloat16:
    case ScalarType::Float8e5m2:
    case ScalarType::Float8e4m3fn:
    case ScalarType::Float8e5m2fnuz:
    case ScalarType::Float8e4m3fnuz:
    case ScalarType::ComplexHalf:
    case ScalarType::ComplexFloat:
    case ScalarType::ComplexDouble:
        return true;
    default:
        return false;
    }
}

namespace {
template <typename T> T load(const std::uint8_t *p)
{
    T v;
    std::memcpy(&v, p, sizeof v); // all supported targets are little-endian, like this host
    return v;
}
} // namespace

double halfToDouble(std::uint16_t h)
{
    const int sign = (h >> 15) & 1;
    const int exp = (h >> 10) & 0x1f;
    const int man = h & 0x3ff;
    double v;
    if (exp == 0)
        v = std::ldexp(static_cast<double>(man), -24); // subnormal: man * 2^-14 / 2^10
    else if (exp == 31)
        v = man ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    else
        v = std::ldexp(static_cast<double>(man | 0x400), exp - 25);
    return sign ? -v : v;
}

double bfloat16ToDouble(std::uint16_t b)
{
    const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

double float8ToDouble(ScalarType t, std::uint8_t bits)
{
    int expBits = 0, bias = 0;
    bool fnuz = false;
    switch (t) {
    case ScalarType::Float8e5m2:
        expBits = 5;
        bias = 15;
        break;
    case ScalarType::Float8e4m3fn:
        expBits = 4;
        bias = 7;
        break;
    case ScalarType::Float8e5m2fnuz:
        expBits = 5;
        bias = 16;
        fnuz = true;
        break;
    case ScalarType::Float8e4m3fnuz:
        expBits = 4;
        bias = 8;
        fnuz = true;
        break;
    default:
        return std::numeric_limits<double>::quiet_NaN();
    }
    const int manBits = 7 - expBits;
    const int sign = bits >> 7;
    const int exp = (bits >> manBits) & ((1 << expBits) - 1);
    const int man = bits & ((1 << manBits) - 1);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (fnuz && bits == 0x80)
        return nan; // the single NaN encoding; there is no negative zero
    if (t == ScalarType::Float8e5m2 && exp == 31)
        return man ? nan : (sign ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity());
    if (t == ScalarType::Float8e4m3fn && exp == 15 && man == 7)
        return nan; // e4m3fn has no infinities; only S.1111.111 is NaN
    double v;
    if (exp == 0)
        v = std::ldexp(static_cast<double>(man), 1 - bias - manBits);
    else
        v = std::ldexp(static_cast<double>(man | (1 << manBits)), exp - bias - manBits);
    return sign ? -v : v;
}

double elementToDouble(ScalarType t, const std::uint8_t *p)
{
    switch (t) {
    case ScalarType::Byte:
    case ScalarType::QUInt8:
    case ScalarType::QUInt4x2:
    case ScalarType::QUInt2x4:
    case ScalarType::Bits1x8:
    case ScalarType::Bits2x4:
    case ScalarType::Bits4x2:
    case ScalarType::Bits8:
        return *p;
    case ScalarType::Char:
    case ScalarType::QInt8:
        return static_cast<std::int8_t>(*p);
    case ScalarType::Bool:
        return *p != 0 ? 1.0 : 0.0;
    case ScalarType::Short:
        return load<std::int16_t>(p);
    case ScalarType::Int:
    case ScalarType::QInt32:
        return load<std::int32_t>(p);
    case ScalarType::Long:
        return static_cast<double>(load<std::int64_t>(p));
    case ScalarType::Half:
        return halfToDouble(load<std::uint16_t>(p));
    case ScalarType::Float:
        return load<float>(p);
    case ScalarType::Double:
        return load<double>(p);
    case ScalarType::ComplexHalf:
        return halfToDouble(load<std::uint16_t>(p));
    case ScalarType::ComplexFloat:
        return load<float>(p);
    case ScalarType::ComplexDouble:
        return load<double>(p);
    case ScalarType::BFloat16:
        return bfloat16ToDouble(load<std::uint16_t>(p));
    case ScalarType::Bits16:
    case ScalarType::UInt16:
        return load<std::uint16_t>(p);
    case ScalarType::UInt32:
        return load<std::uint32_t>(p);
    case ScalarType::UInt64:
        return static_cast<double>(load<std::uint64_t>(p));
    case ScalarType::Float8e5m2:
    case ScalarType::Float8e4m3fn:
    case ScalarType::Float8e5m2fnuz:
    case ScalarType::Float8e4m3fnuz:
        return float8ToDouble(t, *p);
    }
    return std::numeric_limits<double>::quiet_NaN();
}

} // namespace etscope
