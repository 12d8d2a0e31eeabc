#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace etscope {

// ExecuTorch's ScalarType numbering as stored in ETDump and BundledProgram files
// (formats.md §1.3). Not the numbering used in exported-program JSON.
enum class ScalarType : std::int8_t {
    Byte = 0,
    Char = 1,
    Short = 2,
    Int = 3,
    Long = 4,
    Half = 5,
    Float = 6,
    Double = 7,
    ComplexHalf = 8,
    ComplexFloat = 9,
    ComplexDouble = 10,
    Bool = 11,
    QInt8 = 12,
    QUInt8 = 13,
    QInt32 = 14,
    BFloat16 = 15,
    QUInt4x2 = 16,
    QUInt2x4 = 17,
    Bits1x8 = 18,
    Bits2x4 = 19,
    Bits4x2 = 20,
    Bits8 = 21,
    Bits16 = 22,
    Float8e5m2 = 23,
    Float8e4m3fn = 24,
    Float8e5m2fnuz = 25,
    Float8e4m3fnuz = 26,
    UInt16 = 27,
    UInt32 = 28,
    UInt64 = 29,
};

// Bytes per element; nullopt for values outside the enum.
std::optional<std::size_t> elementSize(ScalarType t);
// Lower-case name as torch prints dtypes ("float32", "int64", "bfloat16", ...).
std::string_view scalarTypeName(ScalarType t);
// True for types whose elements we can convert to double (all but the complex ones).
bool isConvertible(ScalarType t);
bool isFloatingPoint(ScalarType t);

// Decode one element (little-endian bytes at p) to double. Complex types yield the real part.
double elementToDouble(ScalarType t, const std::uint8_t *p);

// Standard conversions, exposed for tests.
double halfToDouble(std::uint16_t bits);
double bfloat16ToDouble(std::uint16_t bits);
double float8ToDouble(ScalarType t, std::uint8_t bits);

} // namespace etscope
