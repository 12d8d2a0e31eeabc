// The quantization kernels (core/eval/kernels_quant.cpp) to the bit.
//
// Expected values: tests/tools/gen_quant_kernels.py, an independent numpy transcription of
// upstream's definitions (torch/ao/quantization/fx/_decomposed.py, torchao's quant_primitives.py;
// commits in the script), checked there against torch 1.13's own quantize_per_tensor,
// quantize_per_channel, fake_quantize_per_channel_affine and repeat_interleave. Every output must
// match exactly (same dtype, shape and bits; NaN matches NaN). Error cases expect a one-line
// kernel error containing the given text.

#include "testpaths.h"

#include "eval/kernels.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>
#include <limits>

using namespace etscope;
using namespace etscope::eval;

namespace {

ScalarType dtypeNamed(const QString &n)
{
    static const std::pair<const char *, ScalarType> names[] = { { "float32", ScalarType::Float },
        { "float64", ScalarType::Double }, { "int8", ScalarType::Char }, { "uint8", ScalarType::Byte },
        { "int16", ScalarType::Short }, { "int32", ScalarType::Int }, { "int64", ScalarType::Long } };
    for (const auto &[name, t] : names)
        if (n == QLatin1String(name))
            return t;
    qFatal("unknown dtype %s", qPrintable(n));
}

double number(const QJsonValue &v)
{
    if (v.isString()) {
        const QString s = v.toString();
        if (s == QLatin1String("nan"))
            return std::numeric_limits<double>::quiet_NaN();
        return s.startsWith(QLatin1Char('-')) ? -std::numeric_limits<double>::infinity()
                                              : std::numeric_limits<double>::infinity();
    }
    return v.toDouble();
}

Tensor tensorOf(const QJsonObject &o)
{
    const ScalarType dt = dtypeNamed(o.value(QLatin1String("dtype")).toString());
    std::vector<std::int64_t> sizes;
    for (const auto &s : o.value(QLatin1String("sizes")).toArray())
        sizes.push_back(s.toInteger());
    const QJsonArray data = o.value(QLatin1String("data")).toArray();
    if (dt == ScalarType::Float || dt == ScalarType::Double) {
        std::vector<double> v;
        for (const auto &d : data)
            v.push_back(number(d));
        return *fromDoubleValues(dt, sizes, v);
    }
    std::vector<std::int64_t> v;
    for (const auto &d : data)
        v.push_back(d.toInteger());
    return *fromIntValues(dt, sizes, v);
}

Value valueOf(const QJsonObject &o)
{
    Value v;
    if (o.contains(QLatin1String("t")))
        return Value::ofTensor(tensorOf(o.value(QLatin1String("t")).toObject()));
    if (o.contains(QLatin1String("i")))
        return Value::ofInt(o.value(QLatin1String("i")).toInteger());
    if (o.contains(QLatin1String("f")))
        return Value::ofDouble(o.value(QLatin1String("f")).toDouble());
    if (o.contains(QLatin1String("b")))
        return Value::ofBool(o.value(QLatin1String("b")).toBool());
    if (o.contains(QLatin1String("dt"))) {
        v.kind = Value::Kind::Dtype;
        v.dtype = dtypeNamed(o.value(QLatin1String("dt")).toString());
    } else if (o.contains(QLatin1String("s"))) {
        v.kind = Value::Kind::String;
        v.str = o.value(QLatin1String("s")).toString().toStdString();
    } else if (o.contains(QLatin1String("ints"))) {
        v.kind = Value::Kind::IntList;
        for (const auto &i : o.value(QLatin1String("ints")).toArray())
            v.ints.push_back(i.toInteger());
    }
    return v; // {"none": true} -> None
}

// Exact comparison: dtype, shape, every element's bits (NaN = NaN).
QString compareExact(const Tensor &got, const Tensor &want)
{
    if (got.dtype != want.dtype)
        return QStringLiteral("dtype %1, expected %2")
            .arg(QString::fromStdString(std::string(scalarTypeName(got.dtype))),
                QString::fromStdString(std::string(scalarTypeName(want.dtype))));
    if (got.sizes != want.sizes)
        return QStringLiteral("shape differs");
    for (std::int64_t i = 0; i < got.numel(); ++i) {
        const double a = got.getDouble(i), b = want.getDouble(i);
        if (category(want.dtype) != Category::Float ? got.getInt(i) != want.getInt(i)
                                                    : !(a == b || (std::isnan(a) && std::isnan(b))))
            return QStringLiteral("element %1: %2, expected %3").arg(i).arg(a, 0, 'g', 17).arg(b, 0, 'g', 17);
    }
    return {};
}

QJsonArray loadCases()
{
    QFile f(QString::fromStdString(test::testData("eval/quant_kernels.json")));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot open quant_kernels.json");
    return QJsonDocument::fromJson(f.readAll()).object().value(QLatin1String("cases")).toArray();
}

} // namespace

class TestQuantKernels : public QObject
{
    Q_OBJECT

private slots:
    void numpyOracle_data();
    void numpyOracle();
    void everyUpstreamOpRegistered();
};

void TestQuantKernels::numpyOracle_data()
{
    QTest::addColumn<QJsonObject>("c");
    const QJsonArray cases = loadCases();
    QVERIFY(cases.size() >= 60);
    for (const auto &c : cases)
        QTest::newRow(qPrintable(c.toObject().value(QLatin1String("name")).toString())) << c.toObject();
}

void TestQuantKernels::numpyOracle()
{
    QFETCH(QJsonObject, c);
    const std::string op = c.value(QLatin1String("op")).toString().toStdString();
    const KernelFn *fn = findKernel(op);
    QVERIFY2(fn, op.c_str());
    KernelArgs args;
    for (const auto &a : c.value(QLatin1String("args")).toArray()) {
        args.names.push_back(a.toArray().at(0).toString().toStdString());
        args.values.push_back(valueOf(a.toArray().at(1).toObject()));
    }
    auto r = (*fn)(args);
    if (c.contains(QLatin1String("error"))) {
        QVERIFY2(!r, "expected an error");
        const std::string why = r.error().reason;
        QVERIFY2(why.find(c.value(QLatin1String("error")).toString().toStdString()) != std::string::npos, why.c_str());
        QVERIFY2(why.find('\n') == std::string::npos, why.c_str());
        return;
    }
    QVERIFY2(r, r ? "" : r.error().reason.c_str());
    const QJsonArray expect = c.value(QLatin1String("expect")).toArray();
    QCOMPARE(r->size(), std::size_t(expect.size()));
    for (int k = 0; k < expect.size(); ++k) {
        const Tensor want = tensorOf(expect.at(k).toObject().value(QLatin1String("t")).toObject());
        const QString why = compareExact((*r)[std::size_t(k)], want);
        QVERIFY2(why.isEmpty(), qPrintable(QStringLiteral("output %1: %2").arg(k).arg(why)));
    }
}

void TestQuantKernels::everyUpstreamOpRegistered()
{
    for (const char *op :
        { "quantized_decomposed.quantize_per_tensor.default", "quantized_decomposed.dequantize_per_tensor.tensor",
            "quantized_decomposed.quantize_per_channel.default", "quantized_decomposed.dequantize_per_channel.default",
            "quantized_decomposed.choose_qparams.tensor", "quantized_decomposed.choose_qparams_symmetric.tensor",
            "quantized_decomposed.choose_qparams_per_token_asymmetric.default",
            "quantized_decomposed.quantize_per_token.default", "quantized_decomposed.dequantize_per_token.default",
            "quantized_decomposed.quantize_per_channel_group.default",
            "quantized_decomposed.dequantize_per_channel_group.default", "torchao.quantize_affine.default",
            "torchao.dequantize_affine.default", "torchao.choose_qparams_affine.default",
            "aten.repeat_interleave.Tensor", "aten.repeat_interleave.self_int", "aten.repeat_interleave.self_Tensor" })
        QVERIFY2(hasKernel(op), op);
}

QTEST_GUILESS_MAIN(TestQuantKernels)
#include "tst_quantkernels.moc"
