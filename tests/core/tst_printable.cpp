// asText (core/common/printable.h): a compile spec's bytes shown as text only when they are text.
// Expected values by hand from the byte strings: values as backends' AOT code builds them at
// ExecuTorch commit cff6f4dd32e630945b7188512c1f2b4f102b05ad (OpenVINO's tests:
// CompileSpec("device", b"CPU"); Arm backends/arm/common/arm_compile_spec.py: the TOSA spec,
// " ".join(compiler_flags) and the output format, each str.encode()d), a C string's trailing NUL,
// and packed little-endian numbers for binary values.
#include "common/printable.h"

#include <QTest>

#include <string_view>
#include <vector>

using namespace etscope;

namespace {
std::vector<std::uint8_t> bytes(std::string_view s)
{
    return { s.begin(), s.end() };
}
} // namespace

class TstPrintable : public QObject
{
    Q_OBJECT
private slots:
    void text()
    {
        QCOMPARE(asText(bytes("CPU")).value_or("<binary>"), std::string("CPU"));
        QCOMPARE(asText(bytes(std::string_view("CPU\0\0", 5))).value_or("<binary>"), std::string("CPU"));
        QCOMPARE(asText(bytes("--output-format=raw --debug-force-regor\n")).value_or("<binary>"),
            std::string("--output-format=raw --debug-force-regor\n"));
        QCOMPARE(asText(bytes("ethos-u55-128")).value_or("<binary>"), std::string("ethos-u55-128"));
        QCOMPARE(asText(bytes("\xc2\xb5s")).value_or("<binary>"), std::string("\xc2\xb5s")); // "µs", UTF-8
    }

    void binary()
    {
        QVERIFY(!asText({}));
        QVERIFY(!asText(bytes(std::string_view("\0\0", 2))));
        QVERIFY(!asText(std::vector<std::uint8_t> { 0x01, 0x00, 0x00, 0x00 })); // int32 1, little-endian
        QVERIFY(!asText(std::vector<std::uint8_t> { 'a', 0x00, 'b' })); // a NUL inside: not a string
        QVERIFY(!asText(bytes("\xc2"))); // cut UTF-8 sequence
        QVERIFY(!asText(bytes("\xff\xfe"))); // not UTF-8
        QVERIFY(!asText(bytes("a\x1b[0m"))); // escape byte
    }
};

QTEST_GUILESS_MAIN(TstPrintable)
#include "tst_printable.moc"
