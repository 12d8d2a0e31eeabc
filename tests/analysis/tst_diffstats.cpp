// Mann–Whitney U p-values and bootstrap intervals of the latency diff against SciPy / numpy:
// tests/tools/gen_diff_stats.py (scipy.stats.mannwhitneyu with its defaults, and an independent
// Python SplitMix64 + np.percentile bootstrap) wrote tests/data/analysis/diff_stats_expected.json.

#include "analysis/diffstats.h"
#include "analysis/latencydiff.h"
#include "session/session.h" // must coexist with etdumpfile.h names

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>

using namespace etscope;

namespace {

std::vector<double> toVector(const QJsonValue &v)
{
    std::vector<double> out;
    for (const auto &x : v.toArray())
        out.push_back(x.toDouble());
    return out;
}

QJsonObject expected()
{
    QFile f(QString::fromStdString(std::string(ETSCOPE_TEST_DATA_DIR) + "/analysis/diff_stats_expected.json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot open diff_stats_expected.json");
    return QJsonDocument::fromJson(f.readAll()).object();
}

bool close(double got, double want, double rel = 1e-12)
{
    return std::abs(got - want) <= rel * std::max(1e-300, std::abs(want)) || got == want;
}

} // namespace

class TestDiffStats : public QObject
{
    Q_OBJECT
private slots:
    void splitMix64()
    {
        // First outputs of SplitMix64 from the default seed, computed with Python integers.
        const QJsonArray first = expected()["splitmix64_first"].toArray();
        SplitMix64 rng(kDefaultBootstrapSeed);
        for (const auto &v : first)
            QCOMPARE(rng.next(), v.toString().toULongLong());
    }

    void mannWhitney_data()
    {
        QTest::addColumn<QJsonObject>("c");
        for (const auto &v : expected()["mannwhitneyu"].toArray())
            QTest::newRow(v.toObject()["name"].toString().toUtf8()) << v.toObject();
    }
    void mannWhitney()
    {
        QFETCH(QJsonObject, c);
        const auto r = mannWhitneyU(toVector(c["a"]), toVector(c["b"]));
        QCOMPARE(r.u, c["u"].toDouble());
        // scipy sums the exact distribution and evaluates erfc in a different order: a few ulps.
        QVERIFY2(close(r.pValue, c["p"].toDouble(), 1e-10),
            qPrintable(QString("p %1 vs scipy %2").arg(r.pValue, 0, 'g', 17).arg(c["p"].toDouble(), 0, 'g', 17)));
    }

    void bootstrap_data()
    {
        QTest::addColumn<QJsonObject>("c");
        for (const auto &v : expected()["bootstrap"].toArray())
            QTest::newRow(v.toObject()["name"].toString().toUtf8()) << v.toObject();
    }
    void bootstrap()
    {
        QFETCH(QJsonObject, c);
        BootstrapOptions o;
        o.iterations = c["iterations"].toInt();
        o.level = c["level"].toDouble();
        o.seed = c["seed"].toString().toULongLong();
        const Interval ci = bootstrapMedianDifference(toVector(c["a"]), toVector(c["b"]), o);
        // Same draws, same np.percentile arithmetic: identical up to the last bit or two.
        QVERIFY2(close(ci.low, c["low"].toDouble(), 1e-12), qPrintable(QString::number(ci.low, 'g', 17)));
        QVERIFY2(close(ci.high, c["high"].toDouble(), 1e-12), qPrintable(QString::number(ci.high, 'g', 17)));
    }

    void verdictRules()
    {
        // Hand-made samples: B = 3 x A in every run (50 runs) -> p tiny, ratio 3 -> slower.
        std::vector<double> a, b, same;
        for (int i = 0; i < 50; ++i) {
            a.push_back(1.0 + 0.01 * i);
            b.push_back(3.0 * (1.0 + 0.01 * i));
        }
        DiffRow row;
        row.a.events = { { 0, 0 } };
        row.b.events = { { 0, 0 } };
        row.a.perf = PerfData::fromRaw(a);
        row.b.perf = PerfData::fromRaw(b);
        computeRowStatistics(row, {});
        QCOMPARE(row.verdict, Verdict::Slower);
        QCOMPARE(row.ratio, 3.0);
        QVERIFY(row.pValue && *row.pValue < 1e-10);
        QVERIFY(row.ci && row.ci->low > 0);

        // Identical samples: p = 1, unchanged.
        row.b.perf = PerfData::fromRaw(a);
        computeRowStatistics(row, {});
        QCOMPARE(row.verdict, Verdict::Unchanged);
        QCOMPARE(*row.pValue, 1.0);
        QVERIFY(row.ci->low <= 0 && row.ci->high >= 0);

        // Significant but under the noise floor: B = 1.01 x A, shifted samples -> unchanged at 2%,
        // slower at 0.5%.
        for (double &x : b)
            x = 0;
        for (int i = 0; i < 50; ++i)
            b[i] = 1.015 * a[i] + 0.2; // clearly separated ranks, median ratio ~1.18
        row.b.perf = PerfData::fromRaw(b);
        DiffOptions floor;
        floor.minChange = 0.5;
        computeRowStatistics(row, floor);
        QCOMPARE(row.verdict, Verdict::Unchanged);
        floor.minChange = 0.005;
        computeRowStatistics(row, floor);
        QCOMPARE(row.verdict, Verdict::Slower);

        // Fewer than 5 runs: ratio alone, flagged.
        row.a.perf = PerfData::fromRaw({ 1.0, 1.0 });
        row.b.perf = PerfData::fromRaw({ 0.5, 0.5 });
        computeRowStatistics(row, {});
        QCOMPARE(row.verdict, Verdict::Faster);
        QVERIFY(row.ratioOnly);
        QVERIFY(!row.pValue);

        // One side only.
        row.b.events.clear();
        row.b.perf.reset();
        computeRowStatistics(row, {});
        QCOMPARE(row.verdict, Verdict::OnlyA);
    }
};

QTEST_GUILESS_MAIN(TestDiffStats)
#include "tst_diffstats.moc"
