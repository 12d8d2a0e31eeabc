// Two runs of the same synthetic program written with the test ETDump writer; the runtime run
// has known perturbations at instructions 2 and 5. Stored values and the numpy-computed gaps
// come from tests/tools/gen_gap_synthetic.py (tests/data/analysis/synthetic_runs.json): the
// table must flag exactly those rows, with exactly those gaps, for every metric.

#include "analysis/numericgap.h"
#include "etdumpwriter.h"
#include "session/session.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace etscope;
using namespace etscope::analysis;

namespace {

QJsonObject loadJson()
{
    QFile f(QStringLiteral(ETSCOPE_TEST_DATA_DIR "/analysis/synthetic_runs.json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot open synthetic_runs.json");
    return QJsonDocument::fromJson(f.readAll()).object();
}

ScalarType dtypeOf(const QString &s)
{
    return s == "float64" ? ScalarType::Double : s == "int64" ? ScalarType::Long : ScalarType::Float;
}

std::vector<std::int64_t> ints(const QJsonValue &v)
{
    std::vector<std::int64_t> out;
    for (const auto &x : v.toArray())
        out.push_back(x.toInteger());
    return out;
}

// Writes one run (ETDump + debug buffer) and loads it as a session.
std::shared_ptr<const Session> writeRun(const QJsonArray &instrs, const QString &dir, const QString &name)
{
    test::ETDumpWriter w;
    test::DebugBufferWriter buf;
    w.beginRun("Execute");
    for (int i = 0; i < instrs.size(); ++i) {
        const QJsonObject ins = instrs[i].toObject();
        w.addKernel(ins["op"].toString().toStdString(), i, std::uint64_t(1000 * i), 100, 20);
        test::DebugSpec d;
        d.instructionId = i;
        d.kind = ins["list"].toBool() ? test::DebugSpec::Kind::TensorList : test::DebugSpec::Kind::Tensor;
        for (const auto &tv : ins["tensors"].toArray()) {
            const QJsonObject t = tv.toObject();
            test::TensorSpec spec;
            spec.dtype = dtypeOf(t["dtype"].toString());
            spec.sizes = ints(t["sizes"]);
            spec.strides = ints(t["strides"]);
            const QJsonArray stored = t["stored"].toArray();
            if (spec.dtype == ScalarType::Float) {
                std::vector<float> v;
                for (const auto &x : stored)
                    v.push_back(float(x.toDouble()));
                spec.offset = buf.appendValues(v);
            } else if (spec.dtype == ScalarType::Double) {
                std::vector<double> v;
                for (const auto &x : stored)
                    v.push_back(x.toDouble());
                spec.offset = buf.appendValues(v);
            } else {
                std::vector<std::int64_t> v;
                for (const auto &x : stored)
                    v.push_back(x.toInteger());
                spec.offset = buf.appendValues(v);
            }
            d.tensors.push_back(spec);
        }
        w.addDebug(d);
    }
    const std::string base = (dir + "/" + name).toStdString();
    SessionInputs in;
    in.etdump = test::writeFile(base + ".etdp", w.finish());
    in.debugBuffer = test::writeFile(base + ".bin", buf.finish(4096));
    auto s = loadSession(in);
    if (!s)
        qFatal("%s", s.error().message().c_str());
    return *s;
}

} // namespace

class TestGapSynthetic : public QObject
{
    Q_OBJECT
private slots:
    void flagsExactlyThePerturbedRows_data()
    {
        QTest::addColumn<QString>("metric");
        QTest::addColumn<double>("threshold");
        QTest::newRow("MSE") << "MSE" << 0.0;
        QTest::newRow("L1") << "L1" << 0.0;
        QTest::newRow("SNR") << "SNR" << 1e6;
        QTest::newRow("MAXABS") << "MAXABS" << 0.0;
        QTest::newRow("COSINE") << "COSINE" << 1.0 - 1e-12;
    }
    void flagsExactlyThePerturbedRows()
    {
        QFETCH(QString, metric);
        QFETCH(double, threshold);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QJsonObject data = loadJson();
        auto refSession = writeRun(data["reference"].toArray(), dir.path(), "reference");
        auto runSession = writeRun(data["runtime"].toArray(), dir.path(), "runtime");
        auto ref = referenceFromSession(*refSession);
        QVERIFY(ref.ok());
        GapOptions o;
        o.metric = *parseMetric(metric.toStdString());
        o.threshold = threshold;
        auto t = computeNumericGap(*runSession, *ref, o);
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().message().c_str());
        const QJsonArray exp = data["expected"].toArray();
        QCOMPARE(qsizetype(t->rows.size()), exp.size());
        for (int i = 0; i < exp.size(); ++i) {
            const QJsonObject e = exp[i].toObject();
            const GapRow &r = t->rows[std::size_t(i)];
            QCOMPARE(r.instructionId, std::int32_t(e["instruction"].toInt()));
            QCOMPARE(r.flagged, e["perturbed"].toBool());
            const QJsonArray g = e["gaps"].toObject()[metric].toArray();
            QCOMPARE(qsizetype(r.gap.size()), g.size());
            for (int k = 0; k < g.size(); ++k) {
                const double want = g[k].isString() ? std::numeric_limits<double>::infinity() : g[k].toDouble();
                const double got = r.gap[std::size_t(k)];
                const bool ok
                    = std::isinf(want) ? got == want : std::abs(got - want) <= 1e-12 * std::max(1.0, std::abs(want));
                QVERIFY2(ok,
                    qPrintable(QString("instr %1: got %2 want %3").arg(i).arg(got, 0, 'g', 17).arg(want, 0, 'g', 17)));
            }
        }
        QCOMPARE(t->rows[3].gap.size(), std::size_t(2)); // TensorList: one gap per tensor
    }
};

QTEST_GUILESS_MAIN(TestGapSynthetic)
#include "tst_gapsynthetic.moc"
