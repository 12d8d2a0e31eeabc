// significantText: the one number format of the window and the HTML report (six significant
// digits, positional). Every expected string below was rounded by hand from the value beside it.
#include "common/numberformat.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace etscope;

class TstNumberFormat : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void sixSignificantDigitsPositional()
    {
        // xnnpack_mlp_intermediates.tsv: the GEMM's 0.01099999999999568 ms (issue 28).
        QCOMPARE(significantText(0.01099999999999568), std::string("0.011"));
        QCOMPARE(significantText(0.0011855977172520334), std::string("0.0011856")); // 1.18560|
        QCOMPARE(significantText(9.999997683047166e-05), std::string("0.0001")); // 9.99999|77 rounds up
        QCOMPARE(significantText(0.043306), std::string("0.043306"));
        QCOMPARE(significantText(1.089284), std::string("1.08928"));
        QCOMPARE(significantText(-2.5), std::string("-2.5"));
        QCOMPARE(significantText(100), std::string("100"));
        QCOMPARE(significantText(2.3138161850920491e-15), std::string("0.00000000000000231382"));
        // Whole numbers from 1e5 up; below 1e-15 and from 1e15 up, exponent notation.
        QCOMPARE(significantText(123456.7), std::string("123457"));
        QCOMPARE(significantText(5.807853e-16), std::string("5.80785e-16"));
        QCOMPARE(significantText(1e15), std::string("1e+15"));
        QCOMPARE(significantText(0.000123456789, 3), std::string("0.000123"));
        // Zero, negative zero and what rounds to zero are "0".
        QCOMPARE(significantText(0.0), std::string("0"));
        QCOMPARE(significantText(-0.0), std::string("0"));
        QCOMPARE(significantText(std::numeric_limits<double>::quiet_NaN()), std::string("nan"));
        QCOMPARE(significantText(std::numeric_limits<double>::infinity()), std::string("inf"));
        QCOMPARE(significantText(-std::numeric_limits<double>::infinity()), std::string("-inf"));
    }

    void everyDigit()
    {
        QCOMPARE(fullPrecisionText(0.1), std::string("0.10000000000000001"));
        QCOMPARE(fullPrecisionText(0.025000000000000418), std::string("0.025000000000000418"));
    }
};

QTEST_GUILESS_MAIN(TstNumberFormat)
#include "tst_numberformat.moc"
