// Statistics must be bit-identical to numpy (np.percentile linear, np.mean pairwise sum).
// Expected values were printed by numpy 1.24 (Debian 12):
//   x = [math.sin(i*0.7)*1000.0 + i/7.0 for i in range(n)]
//   repr(float(np.mean(x))), [repr(float(np.percentile(x, q))) for q in (10, 50, 90)]
#include "events/perfdata.h"

#include <QTest>
#include <cmath>

using namespace etscope;

class TstPerfData : public QObject
{
    Q_OBJECT
private slots:
    void semanticsExample()
    {
        // inspector-semantics.md §3 worked example.
        const auto p = PerfData::fromRaw({ 175.748, 78.678, 70.429, 122.006, 97.495 });
        QCOMPARE(p.p10, 73.7286);
        QCOMPARE(p.p50, 97.495);
        QCOMPARE(p.p90, 154.2512);
        QCOMPARE(p.avg, 108.8712);
        QCOMPARE(p.min, 70.429);
        QCOMPARE(p.max, 175.748);
    }

    void numpyExact_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<double>("mean");
        QTest::addColumn<double>("p10");
        QTest::addColumn<double>("p50");
        QTest::addColumn<double>("p90");
        QTest::newRow("3") << 3 << 543.3653295515742 << 128.87210887610965 << 644.3605443805482 << 917.4604642954492;
        // n >= 8: pairwise summation differs from the naive sum (78.38166516292377).
        QTest::newRow("8") << 8 << 78.38166516292378 << -903.9388244768112 << 167.77978936366682 << 900.2671899364641;
        QTest::newRow("37") << 37 << 3.56334965921766 << -921.0603704179252 << 36.194475792565264 << 912.4769405561368;
        QTest::newRow("128") << 128 << 16.565466320481 << -928.4925987845893 << 133.20435080945978 << 986.9367097264508;
        QTest::newRow("129") << 129 << 24.314565455377824 << -928.2008098513727 << 139.9774387918309
                             << 990.4846296691456;
        QTest::newRow("1000") << 1000 << 73.60428192674809 << -871.7341136227059 << 92.01990252226338
                              << 1011.4254712751176;
        QTest::newRow("4099") << 4099 << 293.3259775549295 << -665.7019725161756 << 294.4872994939033
                              << 1252.0173857161105;
    }

    void numpyExact()
    {
        QFETCH(int, n);
        QFETCH(double, mean);
        QFETCH(double, p10);
        QFETCH(double, p50);
        QFETCH(double, p90);
        std::vector<double> x;
        for (int i = 0; i < n; ++i)
            x.push_back(std::sin(i * 0.7) * 1000.0 + i / 7.0);
        const auto p = PerfData::fromRaw(x);
        QCOMPARE(p.avg, mean);
        QCOMPARE(p.p10, p10);
        QCOMPARE(p.p50, p50);
        QCOMPARE(p.p90, p90);
    }

    void nanPropagates()
    {
        const auto p = PerfData::fromRaw({ 1.0, std::nan(""), 3.0 });
        QVERIFY(std::isnan(p.p50));
        QVERIFY(std::isnan(p.avg));
    }
};

QTEST_GUILESS_MAIN(TstPerfData)
#include "tst_perfdata.moc"
