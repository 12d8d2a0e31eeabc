// The memory-plan analysis against tests/tools/memory_plan_reference.py (stdlib json, naive
// fixpoint/all-pairs algorithms), whose output for the fixtures and the authored programs is
// committed as tests/data/program/expected_memory.json.
#include "testpaths.h"

#include "program/memoryplan.h"
#include "program/programexport.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <fstream>

using namespace etscope;
using etscope::test::sharedFixture;
using nlohmann::json;

class TestMemoryPlan : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void againstReference_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("pte");
        QTest::newRow("cnn_mlp") << "cnn_mlp"
                                 << QString::fromStdString(sharedFixture("runtime/cnn_mlp_50runs/cnn_mlp.pte"));
        QTest::newRow("xnn_mlp") << "xnn_mlp"
                                 << QString::fromStdString(
                                        sharedFixture("runtime/xnnpack_mlp_intermediates/xnn_mlp.pte"));
        QTest::newRow("reuse") << "reuse" << QString(ETSCOPE_PROGRAM_BUILD_DIR "/reuse.pte");
        QTest::newRow("loop") << "loop" << QString(ETSCOPE_PROGRAM_BUILD_DIR "/loop.pte");
    }

    void againstReference()
    {
        QFETCH(QString, name);
        QFETCH(QString, pte);
        std::ifstream in(ETSCOPE_TEST_DATA_DIR "/program/expected_memory.json");
        const json expected = json::parse(in)[name.toStdString()][0];
        auto prog = Program::open(pte.toStdString());
        QVERIFY2(prog.ok(), prog.ok() ? "" : prog.error().message().c_str());
        const MemoryPlan plan = analyzeMemoryPlan((*prog)->methods()[0]);
        QCOMPARE(plan.instructionCount, expected["instructions"].get<std::size_t>());
        QCOMPARE(plan.tensors.size(), expected["tensors"].size());
        for (std::size_t i = 0; i < plan.tensors.size(); ++i) {
            const PlannedTensor &t = plan.tensors[i];
            const json &e = expected["tensors"][i];
            const QByteArray where = QByteArray("tensor %") + QByteArray::number(t.value);
            QVERIFY2(t.value == e["value"].get<int>(), where);
            QVERIFY2(t.arena == e["arena"].get<std::uint32_t>(), where);
            QVERIFY2(t.offset == e["offset"].get<std::uint64_t>(), where);
            QVERIFY2(t.nbytes == e["nbytes"].get<std::uint64_t>(), where);
            QVERIFY2(t.first == e["first"].get<int>(), where + " first " + QByteArray::number(t.first));
            QVERIFY2(t.last == e["last"].get<int>(), where + " last " + QByteArray::number(t.last));
            QVERIFY2(t.sharesMemory == e["shares_memory"].get<bool>(), where + " shares");
            QVERIFY2(t.couldShare == e["could_share"].get<bool>(), where + " could share");
        }
        QCOMPARE(plan.liveBytes, expected["live_bytes"].get<std::vector<std::uint64_t>>());
        QCOMPARE(plan.peakLiveBytes, expected["peak_live_bytes"].get<std::uint64_t>());
        QCOMPARE(plan.peakInstruction, expected["peak_instruction"].get<int>());
        QCOMPARE(plan.plannedBytes, expected["planned_bytes"].get<std::uint64_t>());
        QCOMPARE(plan.wastedBytes, expected["wasted_bytes"].get<std::uint64_t>());
        std::vector<int> live;
        for (std::size_t t : plan.liveAtPeak)
            live.push_back(plan.tensors[t].value);
        QCOMPARE(live, expected["live_at_peak"].get<std::vector<int>>());
        QCOMPARE(plan.arenas.size(), expected["arenas"].size());
        for (std::size_t a = 0; a < plan.arenas.size(); ++a) {
            const json &e = expected["arenas"][a];
            QCOMPARE(plan.arenas[a].id, e["id"].get<std::uint32_t>());
            QCOMPARE(plan.arenas[a].size, e["size"].get<std::uint64_t>());
            QCOMPARE(plan.arenas[a].peakLiveBytes, e["peak_live_bytes"].get<std::uint64_t>());
            QCOMPARE(plan.arenas[a].peakInstruction, e["peak_instruction"].get<int>());
            QCOMPARE(plan.arenas[a].wastedBytes, e["wasted_bytes"].get<std::uint64_t>());
        }
        QCOMPARE(plan.loops.size(), expected["loops"].size());
        for (std::size_t l = 0; l < plan.loops.size(); ++l) {
            QCOMPARE(plan.loops[l].begin, expected["loops"][l][0].get<int>());
            QCOMPARE(plan.loops[l].end, expected["loops"][l][1].get<int>());
        }
    }

    // Hand-derived facts of the authored programs (tests/tools/gen_program_fixtures.py), so that
    // the reference script itself is checked too.
    void handDerived()
    {
        auto loop = Program::open(ETSCOPE_PROGRAM_BUILD_DIR "/loop.pte");
        QVERIFY(loop.ok());
        const MemoryPlan lp = analyzeMemoryPlan((*loop)->methods()[0]);
        // a = add(x, x) at 0 is read at 1 inside the loop 1..3: live 0..3, not 0..1.
        QCOMPARE(lp.tensorOfValue(1)->first, 0);
        QCOMPARE(lp.tensorOfValue(1)->last, 3);
        // c made at 2, moved at 4: widened back to the loop's start.
        QCOMPARE(lp.tensorOfValue(3)->first, 1);
        QCOMPARE(lp.tensorOfValue(3)->last, 4);
        // Peak: a, b, c (3 × 16 bytes) at instruction 1.
        QCOMPARE(lp.peakLiveBytes, 48u);
        QCOMPARE(lp.peakInstruction, 1);

        auto reuse = Program::open(ETSCOPE_PROGRAM_BUILD_DIR "/reuse.pte");
        QVERIFY(reuse.ok());
        const MemoryPlan rp = analyzeMemoryPlan((*reuse)->methods()[0]);
        // Instruction 3 holds values 2, 3 and 4 of arena 1: 3 × 256 bytes = the whole arena.
        QCOMPARE(rp.peakLiveBytes, 768u);
        QCOMPARE(rp.arenas[0].wastedBytes, 0u);
        QCOMPARE(rp.sharingTensors, 4u); // 0/2 and 1/3 overlap
        QVERIFY(rp.tensorOfValue(5)->couldShare); // dead before 8 is made, yet apart from it
        QCOMPARE(rp.wastedBytes, 1024u - 768u);
    }

    void exportsAreConsistent()
    {
        auto prog = Program::open(ETSCOPE_PROGRAM_BUILD_DIR "/reuse.pte");
        QVERIFY(prog.ok());
        MemoryReport report;
        report.program = prog->get();
        report.methods.push_back(&(*prog)->methods()[0]);
        report.plans.push_back(analyzeMemoryPlan(*report.methods[0]));
        const json j = json::parse(memoryJson(report));
        QCOMPARE(j["methods"][0]["peak_live_bytes"].get<int>(), 768);
        QCOMPARE(j["methods"][0]["tensors"].size(), 8u);
        QCOMPARE(j["methods"][0]["arenas"][1]["id"].get<int>(), 2);
        const std::string tsv = memoryTsv(*report.methods[0], report.plans[0]);
        QCOMPARE(std::count(tsv.begin(), tsv.end(), '\n'), 9); // header + 8 tensors
        const std::string svg = memorySvg(*report.methods[0], report.plans[0]);
        QCOMPARE(std::size_t(std::count(svg.begin(), svg.end(), '<') - 0) > 8u, true);
        QVERIFY(svg.find("%2 float32[1, 64] 256 bytes @1:0, instructions 1..3, made by aten::relu.out")
            != std::string::npos);
        const json pj = json::parse(programJson(**prog));
        QCOMPARE(pj["methods"][0]["instructions"][3]["operator"].get<std::string>(), std::string("aten::add.out"));
        QCOMPARE(
            pj["methods"][0]["instructions"][3]["args"].get<std::vector<int>>(), (std::vector<int> { 3, 2, 4, 4 }));
    }
};

QTEST_GUILESS_MAIN(TestMemoryPlan)
#include "tst_memoryplan.moc"
