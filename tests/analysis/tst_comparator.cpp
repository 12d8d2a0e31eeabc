// Comparators against values computed by numpy (tests/tools/gen_gap_comparators.py writes
// tests/data/analysis/comparator_cases.json; the C++ code never produced those numbers).

#include "analysis/comparator.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>
#include <limits>

using namespace etscope;
using namespace etscope::analysis;

namespace {

double decode(const QJsonValue &v)
{
    if (v.isString()) {
        const QString s = v.toString();
        if (s == "nan")
            return std::numeric_limits<double>::quiet_NaN();
        return s == "inf" ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
    }
    return v.toDouble();
}

// float32 inputs become float32 tensors so the bulk (mapped float) path is exercised.
NumTensor toTensor(const QJsonObject &o)
{
    std::vector<std::int64_t> shape;
    for (const auto &d : o["shape"].toArray())
        shape.push_back(d.toInteger());
    const QJsonArray vals = o["values"].toArray();
    if (o["dtype"].toString() == "float32") {
        std::vector<float> v;
        for (const auto &x : vals)
            v.push_back(float(decode(x)));
        return NumTensor::fromFloats(shape, v);
    }
    std::vector<double> v;
    for (const auto &x : vals)
        v.push_back(decode(x));
    return NumTensor::fromDoubles(o["dtype"].toString() == "int32" ? ScalarType::Int : ScalarType::Double, shape, v);
}

bool sameValue(double got, double want)
{
    if (std::isnan(want))
        return std::isnan(got);
    if (std::isinf(want))
        return got == want;
    // Summation order differs from numpy's pairwise sums: allow a few ulps of relative error.
    return std::abs(got - want) <= 1e-12 * std::max(1.0, std::abs(want));
}

QJsonObject loadCases()
{
    QFile f(QStringLiteral(ETSCOPE_TEST_DATA_DIR "/analysis/comparator_cases.json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot open comparator_cases.json");
    return QJsonDocument::fromJson(f.readAll()).object();
}

} // namespace

class TestComparator : public QObject
{
    Q_OBJECT
private slots:
    void numpyCases_data()
    {
        QTest::addColumn<QJsonObject>("caseObj");
        QTest::addColumn<QString>("metric");
        const auto cases = loadCases()["cases"].toArray();
        QVERIFY(cases.size() >= 16);
        for (const auto &c : cases)
            for (const char *m : { "MSE", "L1", "SNR", "COSINE", "MAXABS", "MAXREL" })
                QTest::addRow("%s/%s", qPrintable(c.toObject()["name"].toString()), m) << c.toObject() << QString(m);
    }
    void numpyCases()
    {
        QFETCH(QJsonObject, caseObj);
        QFETCH(QString, metric);
        auto m = parseMetric(metric.toStdString());
        QVERIFY(m);
        auto cmp = makeComparator(*m);
        QCOMPARE(QString(cmp->name()), metric);
        auto got = compareTensors(*cmp, toTensor(caseObj["a"].toObject()), toTensor(caseObj["b"].toObject()));
        QVERIFY2(got.ok(), got.ok() ? "" : got.error().message().c_str());
        const double want = decode(caseObj["expected"].toObject()[metric]);
        QVERIFY2(
            sameValue(*got, want), qPrintable(QString("got %1 want %2").arg(*got, 0, 'g', 17).arg(want, 0, 'g', 17)));
    }

    void notBroadcastableIsAnError()
    {
        const auto errs = loadCases()["errors"].toArray();
        QCOMPARE(errs.size(), 1);
        auto cmp = makeComparator(Metric::MSE);
        auto r = compareTensors(
            *cmp, toTensor(errs[0].toObject()["a"].toObject()), toTensor(errs[0].toObject()["b"].toObject()));
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::InvalidArgument);
        QVERIFY(r.error().message().find("broadcast") != std::string::npos);
    }

    // §9 list reduction: pairwise over equal-length lists, one gap per pair.
    void listReduction()
    {
        auto mse = makeComparator(Metric::MSE);
        // Hand-computed: mean((1-2)^2, (2-2)^2) = 0.5; mean((4-1)^2) = 9.
        NumValue a = NumValue::list(
            { NumTensor::fromDoubles(ScalarType::Double, { 2 }, { 1, 2 }), NumTensor::fromFloats({ 1 }, { 4.f }) });
        NumValue b = NumValue::list({ NumTensor::fromDoubles(ScalarType::Double, { 2 }, { 2, 2 }),
            NumTensor::fromDoubles(ScalarType::Double, {}, { 1 }) });
        auto g = compareValues(*mse, a, b);
        QVERIFY(g.ok());
        QCOMPARE(g->size(), std::size_t(2));
        QCOMPARE((*g)[0], 0.5);
        QCOMPARE((*g)[1], 9.0);

        // Two tensors: a one-element list.
        auto one = compareValues(*mse, NumValue::tensor(a.items[0]), NumValue::tensor(b.items[0]));
        QVERIFY(one.ok());
        QCOMPARE(one->size(), std::size_t(1));

        auto mixed = compareValues(*mse, a, NumValue::tensor(b.items[0]));
        QVERIFY(!mixed.ok());
        auto shortList = compareValues(*mse, a, NumValue::list({ b.items[0] }));
        QVERIFY(!shortList.ok());
        QVERIFY(!compareValues(*mse, NumValue {}, a).ok());
    }

    void thresholdFollowsDirection()
    {
        QVERIFY(exceedsThreshold(Direction::HigherIsWorse, 2.0, 1.0));
        QVERIFY(!exceedsThreshold(Direction::HigherIsWorse, 0.5, 1.0));
        QVERIFY(exceedsThreshold(Direction::LowerIsWorse, 10.0, 20.0)); // SNR 10 dB < 20 dB
        QVERIFY(!exceedsThreshold(Direction::LowerIsWorse, std::numeric_limits<double>::infinity(), 20.0));
        QVERIFY(!exceedsThreshold(Direction::HigherIsWorse, std::numeric_limits<double>::quiet_NaN(), 0.0));
        QVERIFY(badness(Direction::LowerIsWorse, 5.0) > badness(Direction::LowerIsWorse, 30.0));
        QVERIFY(!parseMetric("nope"));
        QCOMPARE(*parseMetric("cosine"), Metric::Cosine);
    }
};

QTEST_GUILESS_MAIN(TestComparator)
#include "tst_comparator.moc"
