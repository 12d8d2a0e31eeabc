// How much of the time the events explain (analysis/coverage.h). Truth:
// tests/data/analysis/coverage_expected.json, computed by tests/tools/gen_coverage_expected.py
// with numpy from `flatc --json` of each recording (nesting by the events' own start/end times,
// unions of intervals), without etscope: real fixtures (portable kernels, XNNPACK, a 50-run
// add) and the authored Vulkan recording.
#include "analysis/coverage.h"
#include "testsession.h"

#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

using namespace etscope;

namespace {

nlohmann::json expected()
{
    std::ifstream in(ETSCOPE_TEST_DATA_DIR "/analysis/coverage_expected.json");
    return nlohmann::json::parse(in);
}

std::string pathOf(const std::string &name)
{
    if (name == "vulkan_stem")
        return ETSCOPE_TEST_DATA_DIR "/backend/vulkan_stem/etdump.etdp";
    return ETSCOPE_SHARED_DIR "/fixtures/runtime/" + name + "/etdump.etdp";
}

bool close(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

} // namespace

class TstCoverage : public QObject
{
    Q_OBJECT

private slots:
    void equalsNumpy_data()
    {
        QTest::addColumn<QString>("name");
        const auto all = expected();
        for (const auto &[name, v] : all.items())
            QTest::newRow(name.c_str()) << QString::fromStdString(name);
    }
    void equalsNumpy()
    {
        QFETCH(QString, name);
        const auto truth = expected()[name.toStdString()];
        auto session = test::loadSessionOrDie(pathOf(name.toStdString()));
        const CoverageReport r = analyzeCoverage(session->blocks, session->inputs.time);
        QCOMPARE(r.unit, TimeScale::MS);
        QVERIFY(r.runs.size() == truth["runs"].size());
        QVERIFY(close(r.execute, truth["execute"].get<double>()));
        QVERIFY(close(r.explained, truth["explained"].get<double>()));
        // Single Execute block in every one of these: runs in file order.
        for (std::size_t i = 0; i < r.runs.size(); ++i) {
            const auto &t = truth["runs"][i];
            QVERIFY(close(r.runs[i].execute, t["execute"].get<double>()));
            QVERIFY(close(r.runs[i].explained, t["explained"].get<double>()));
            QVERIFY(close(r.runs[i].operators, t["operator_calls"].get<double>()));
            QVERIFY(close(r.runs[i].delegates, t["delegate_calls"].get<double>()));
        }
        std::size_t hostLines = 0;
        for (const CoverageLine &l : r.lines) {
            if (l.otherClock) {
                const auto &vk = truth["vulkan_dispatches"];
                QCOMPARE(l.parent, std::string("ETVK_COMPUTE_GRAPH_EXECUTE"));
                QCOMPARE(l.children, std::string("Vulkan dispatches"));
                QVERIFY(close(l.parentTime, vk["parent_time"].get<double>()));
                QVERIFY(close(l.childTime, vk["child_time"].get<double>()));
                QCOMPARE(l.instances, vk["instances"].get<std::size_t>());
                continue;
            }
            ++hostLines;
            QVERIFY2(truth["lines"].contains(l.parent), l.parent.c_str());
            const auto &t = truth["lines"][l.parent];
            QVERIFY2(close(l.parentTime, t["parent_time"].get<double>()), l.parent.c_str());
            QVERIFY2(close(l.childTime, t["child_time"].get<double>()), l.parent.c_str());
            QCOMPARE(l.instances, t["instances"].get<std::size_t>());
        }
        QVERIFY(hostLines == truth["lines"].size());
        QCOMPARE(r.lines.front().parent, std::string("Method::execute"));
        QCOMPARE(bool(truth.contains("vulkan_dispatches")),
            std::any_of(r.lines.begin(), r.lines.end(), [](const CoverageLine &l) { return l.otherClock; }));
    }

    // The sentences: percentages with units, what explains what, the warning when low.
    void sentences()
    {
        auto cnn = test::loadSessionOrDie(pathOf("cnn_mlp_50runs"));
        auto s = coverageSentences(analyzeCoverage(cnn->blocks, cnn->inputs.time));
        QVERIFY(s.at(0).starts_with("events explain 98.7 % of Method::execute (50 runs: "));
        QVERIFY(s.at(0).find(" ms; gaps ") != std::string::npos);
        QVERIFY(s.at(1).starts_with("kernels explain 98.4 % of OPERATOR_CALL (1400 instances: "));
        QCOMPARE(s.size(), std::size_t(2)); // no warning at 98.7 %

        auto xnn = test::loadSessionOrDie(pathOf("xnnpack_mlp_intermediates"));
        s = coverageSentences(analyzeCoverage(xnn->blocks, xnn->inputs.time));
        QVERIFY(std::find_if(s.begin(), s.end(), [](const std::string &l) {
            return l.starts_with("XNNPACK operators explain 57.1 % of DELEGATE_CALL (2 instances");
        }) != s.end());

        auto vk = test::loadSessionOrDie(pathOf("vulkan_stem"));
        s = coverageSentences(analyzeCoverage(vk->blocks, vk->inputs.time));
        QVERIFY(std::find_if(s.begin(), s.end(), [](const std::string &l) {
            return l.starts_with("Vulkan dispatches explain 49.1 % of ETVK_COMPUTE_GRAPH_EXECUTE (3 instances")
                && l.ends_with("GPU clock, summed)");
        }) != s.end());

        auto add = test::loadSessionOrDie(pathOf("add_pte_50runs"));
        const auto low = analyzeCoverage(add->blocks, add->inputs.time);
        QVERIFY(low.low());
        s = coverageSentences(low);
        QVERIFY(s.back().starts_with("warning: events explain only 80.7 % of Method::execute"));

        // A wall time: 10 × Method::execute's total is 10 % of it.
        const auto walled = analyzeCoverage(
            cnn->blocks, cnn->inputs.time, analyzeCoverage(cnn->blocks, cnn->inputs.time).execute * 10);
        s = coverageSentences(walled);
        QVERIFY(std::find_if(s.begin(), s.end(), [](const std::string &l) {
            return l.starts_with("Method::execute is 10 % of the wall time given");
        }) != s.end());
        QVERIFY(s.back().starts_with("warning: events explain only 9.87 % of the wall time given"));
    }
};

QTEST_GUILESS_MAIN(TstCoverage)
#include "tst_coverage.moc"
