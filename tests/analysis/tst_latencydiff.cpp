// Latency A/B on real recordings. Expected values are independent of the diff code:
//  - B files are the real 50-run fixtures re-encoded (tests/common/etdumprescale.h) with chosen
//    operators slowed by a known factor in every run; exactly those rows must come out `slower`
//    (or `faster`) with ratio = factor, Method::execute must grow by exactly the added ticks,
//    every other row is bit-identical in B and must be `unchanged` with p = 1.
//  - Delegated vs portable: A is the real XNNPACK recording with its ETRecord; B is a portable
//    twin synthesized here with known per-run durations and the ETRecord written by
//    tests/tools/gen_diff_fixtures.py (one instruction per graph node, same debug handles).
//  - Different programs (issue 28): the instruction -> kernel tables of the fixtures, written
//    by hand from their program.json files and READMEs (see differentProgramsPairByOperatorName).

#include "analysis/latencydiff.h"
#include "etdumprescale.h"
#include "etdumpwriter.h"
#include "session/session.h"
#include "testpaths.h"
#include "testsession.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <map>

using namespace etscope;
using namespace etscope::test;

Q_DECLARE_METATYPE(std::vector<etscope::test::Rescale>)

namespace {

std::shared_ptr<const Session> load(const std::string &etdump, const std::string &etrecord = {})
{
    return test::loadSessionOrDie(etdump, {}, etrecord);
}

std::string writeRescaled(const QTemporaryDir &dir, const std::string &fixture, const std::vector<Rescale> &changes)
{
    auto bytes = rescaleETDump(sharedFixture(fixture), changes);
    if (!bytes)
        qFatal("%s", bytes.error().message().c_str());
    return writeFile(dir.filePath("b.etdp").toStdString(), *bytes);
}

const DiffRow *findRow(const LatencyDiff &d, const std::string &block, const std::string &name, int instr)
{
    for (const DiffRow &r : d.rows)
        if (r.blockName == block && r.eventName == name && r.instructionId == instr)
            return &r;
    return nullptr;
}

} // namespace

class TestLatencyDiff : public QObject
{
    Q_OBJECT
private slots:

    void selfIsUnchanged_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::newRow("cnn_mlp") << "runtime/cnn_mlp_50runs/etdump.etdp";
        QTest::newRow("add") << "runtime/add_pte_50runs/etdump.etdp";
        QTest::newRow("bundled") << "runtime/bundled_program_50runs/etdump.etdp";
    }
    void selfIsUnchanged()
    {
        QFETCH(QString, fixture);
        auto s = load(sharedFixture(fixture.toStdString()));
        const LatencyDiff d = diffLatency(s->blocks, s->blocks);
        QCOMPARE(d.mode, MatchMode::Exact);
        QVERIFY(!d.rows.empty());
        for (const DiffRow &r : d.rows) {
            QCOMPARE(verdictName(r.verdict), "unchanged");
            QCOMPARE(r.deltaP50, 0.0);
            QCOMPARE(r.ratio, 1.0);
        }
        for (const BlockTotal &t : d.blockTotals)
            QCOMPARE(t.row.verdict, Verdict::Unchanged);
    }

    void slowedOperators_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<std::vector<Rescale>>("changes");
        QTest::newRow("cnn_mlp conv x2, addmm x3, mean x0.5")
            << "runtime/cnn_mlp_50runs/etdump.etdp"
            << std::vector<Rescale> { { "native_call_convolution.out", 3, 2.0 }, { "native_call_addmm.out", 13, 3.0 },
                   { "native_call_mean.out", 21, 0.5 } };
        QTest::newRow("add x3") << "runtime/add_pte_50runs/etdump.etdp"
                                << std::vector<Rescale> { { "native_call_add.out", 0, 3.0 } };
        QTest::newRow("bundled mul x4, add#2 x2")
            << "runtime/bundled_program_50runs/etdump.etdp"
            << std::vector<Rescale> { { "native_call_mul.out", 0, 4.0 }, { "native_call_add.out", 2, 2.0 } };
    }
    void slowedOperators()
    {
        QFETCH(QString, fixture);
        QFETCH(std::vector<Rescale>, changes);
        QTemporaryDir dir;
        auto a = load(sharedFixture(fixture.toStdString()));
        auto b = load(writeRescaled(dir, fixture.toStdString(), changes));
        const LatencyDiff d = diffLatency(a->blocks, b->blocks);
        QCOMPARE(d.mode, MatchMode::Exact);
        QCOMPARE(d.count(Verdict::OnlyA) + d.count(Verdict::OnlyB), std::size_t(0));

        std::size_t changed = 0;
        for (const DiffRow &r : d.rows) {
            const Rescale *c = nullptr;
            for (const Rescale &x : changes)
                if (x.eventName == r.eventName && x.instructionId == r.instructionId && r.blockName == "Execute")
                    c = &x;
            if (r.blockName == "Default") { // one run (load): verdict from the ratio alone
                QVERIFY(r.ratioOnly && !r.pValue);
                QCOMPARE(r.verdict, Verdict::Unchanged);
                continue;
            }
            QVERIFY(r.pValue); // 50 runs on both sides
            if (c) {
                ++changed;
                QCOMPARE(r.verdict, c->factor > 1 ? Verdict::Slower : Verdict::Faster);
                // Durations were rounded to whole ticks: ratio = factor within 1 tick of the median.
                const double medianTicks = r.a.perf->p50 * 1e6;
                QVERIFY2(
                    std::abs(r.ratio - c->factor) <= (c->factor == std::floor(c->factor) ? 1e-12 : 1.0 / medianTicks),
                    qPrintable(QString("%1: ratio %2").arg(r.eventName.c_str()).arg(r.ratio, 0, 'g', 17)));
                QVERIFY(*r.pValue < 1e-10);
                QVERIFY(r.ci->low > 0 || c->factor < 1);
            } else if (r.eventName == kMethodExecute) {
                // Grows by exactly the ticks added to the rescaled kernels in that run.
                const Event &ea = a->blocks[r.a.events[0].block].events[r.a.events[0].event];
                const Event &eb = b->blocks[r.b.events[0].block].events[r.b.events[0].event];
                const auto &blk = a->blocks[r.a.events[0].block];
                for (std::size_t run = 0; run < ea.perfData->raw.size(); ++run) {
                    double added = 0;
                    for (const Event &e : blk.events)
                        for (const Rescale &x : changes)
                            if (e.name == x.eventName && e.instructionId == x.instructionId) {
                                const double ticks = std::round(e.perfData->raw[run] * 1e6);
                                added += std::llround(ticks * x.factor) - ticks;
                            }
                    QVERIFY(std::abs((eb.perfData->raw[run] - ea.perfData->raw[run]) * 1e6 - added) < 1e-3);
                }
                QCOMPARE(r.verdict, Verdict::Slower);
            } else {
                QCOMPARE(verdictName(r.verdict), "unchanged");
                QCOMPARE(r.ratio, 1.0);
                QCOMPARE(*r.pValue, 1.0);
            }
        }
        QCOMPARE(changed, changes.size());
        // Ranked by contribution: the first counted row is the biggest absolute change.
        QVERIFY(std::abs(d.rows.front().deltaP50) >= std::abs(d.rows[1].deltaP50));
        QVERIFY(d.total.delta() > 0);
        bool executeTotal = false;
        for (const BlockTotal &t : d.blockTotals)
            if (t.blockName == "Execute") {
                executeTotal = true;
                QCOMPARE(t.source, std::string(kMethodExecute));
                QCOMPARE(t.row.verdict, Verdict::Slower);
            }
        QVERIFY(executeTotal);
    }

    void heuristicWithoutETRecords()
    {
        // Two different programs without ETRecords (add.pte: add; bundled: mul, add, add): pairs by
        // operator name + order of occurrence and says it is a heuristic.
        auto a = load(sharedFixture("runtime/add_pte_50runs/etdump.etdp"));
        auto b = load(sharedFixture("runtime/bundled_program_50runs/etdump.etdp"));
        const LatencyDiff d = diffLatency(a->blocks, b->blocks);
        QCOMPARE(d.mode, MatchMode::Heuristic);
        QVERIFY(d.heuristic());
        QVERIFY(d.notes.front().find("heuristic") != std::string::npos);
        // add.out instr 0 of A pairs with the first add.out of B (instr 1); B's mul and second add are only_b.
        const DiffRow *add = findRow(d, "Execute", "native_call_add.out", 0);
        QVERIFY(add);
        QCOMPARE(b->blocks[add->b.events[0].block].events[add->b.events[0].event].instructionId, 1);
        QCOMPARE(d.count(Verdict::OnlyB), std::size_t(2));
        QCOMPARE(d.count(Verdict::OnlyA), std::size_t(0));
    }

    // xnn_mlp (4 instructions: DELEGATE_CALL, native_layer_norm, DELEGATE_CALL, argmax; 8 XNNPACK
    // profile events, its README) against cnn_mlp (28 portable instructions, cnn_mlp.program.json:
    // 0 convolution, 1 relu, ..., 14 native_layer_norm, ..., 27 argmax): different programs, with
    // or without their ETRecords (both number their graph nodes from 1, so bare debug handles
    // would pair XNNPACK's fully-connected block with convolutions). Expected by hand: the only
    // operator names in common are native_layer_norm.out (A 1 <-> B 14) and argmax.out (A 3 <-> B
    // 27); A's 2 DELEGATE_CALLs and 8 delegate events and B's other 26 kernels are one-sided.
    void differentProgramsPairByOperatorName_data()
    {
        QTest::addColumn<bool>("etrecords");
        QTest::newRow("no ETRecords") << false;
        QTest::newRow("both ETRecords") << true;
    }
    void differentProgramsPairByOperatorName()
    {
        QFETCH(bool, etrecords);
        auto a = load(sharedFixture("runtime/xnnpack_mlp_intermediates/etdump.etdp"),
            etrecords ? testData("etrecord/xnn_mlp_etrecord.bin") : std::string());
        auto b = load(sharedFixture("runtime/cnn_mlp_intermediates/etdump.etdp"),
            etrecords ? testData("etrecord/cnn_mlp_etrecord.bin") : std::string());
        const ProgramIdentity id = judgeProgramIdentity(a->blocks, b->blocks);
        QVERIFY(!id.sameInstructions);
        QVERIFY(!id.sameGraph);
        QCOMPARE(id.reason, std::string("instruction 0 runs DELEGATE_CALL in A, native_call_convolution.out in B"));

        const LatencyDiff d = diffLatency(a->blocks, b->blocks);
        QCOMPARE(d.pairing, Pairing::OperatorName);
        QCOMPARE(d.mode, MatchMode::Heuristic);
        QVERIFY(!d.comparable());
        QCOMPARE(d.banner,
            std::string("different programs: rows paired by operator name (2 paired, 10 only in A, 26 only in B)"));
        std::map<std::string, std::pair<int, int>> paired; // operator rows on both sides: A, B instruction
        for (const DiffRow &r : d.rows) {
            if (r.a.events.empty() || r.b.events.empty())
                continue;
            const Event &ea = a->blocks[r.a.events[0].block].events[r.a.events[0].event];
            const Event &eb = b->blocks[r.b.events[0].block].events[r.b.events[0].event];
            QCOMPARE(r.a.events.size(), std::size_t(1));
            QCOMPARE(r.b.events.size(), std::size_t(1));
            QCOMPARE(std::string(ea.name), std::string(eb.name)); // never DELEGATE_CALL <-> convolution
            if (!r.framework)
                paired[std::string(ea.name)] = { ea.instructionId, eb.instructionId };
        }
        const std::map<std::string, std::pair<int, int>> expected
            = { { "native_call_native_layer_norm.out", { 1, 14 } }, { "native_call_argmax.out", { 3, 27 } } };
        QCOMPARE(paired, expected);
        std::size_t delegateCalls = 0;
        for (const DiffRow &r : d.rows)
            if (r.eventName == kDelegateCall) {
                QCOMPARE(r.verdict, Verdict::OnlyA);
                ++delegateCalls;
            }
        QCOMPARE(delegateCalls, std::size_t(2));
        QCOMPARE(d.count(Verdict::OnlyA), std::size_t(10));
        QCOMPARE(d.count(Verdict::OnlyB), std::size_t(26));
        // Both recordings hold one run (their READMEs: "Executed 1 time(s)").
        QCOMPARE(d.caveats,
            std::vector<std::string> { "A and B have 1 run each: no spread, verdicts are point comparisons of single "
                                       "durations (no significance test)" });
        // The whole runs still compare: Method::execute on both sides.
        bool executeTotal = false;
        for (const BlockTotal &t : d.blockTotals)
            executeTotal = executeTotal || (t.blockName == "Execute" && t.source == kMethodExecute);
        QVERIFY(executeTotal);
    }

    // add.pte (one add.out) against xnn_mlp (DELEGATE_CALL, native_layer_norm, DELEGATE_CALL,
    // argmax): not one operator name in common, so nothing pairs but the framework rows and the
    // block totals (Method::execute).
    void differentProgramsTotalsOnly()
    {
        auto a = load(sharedFixture("runtime/add_pte_50runs/etdump.etdp"));
        auto b = load(sharedFixture("runtime/xnnpack_mlp_intermediates/etdump.etdp"));
        const LatencyDiff d = diffLatency(a->blocks, b->blocks);
        QCOMPARE(d.pairing, Pairing::TotalsOnly);
        QCOMPARE(d.pairedRows, std::size_t(0));
        QCOMPARE(d.onlyARows, std::size_t(1));
        QCOMPARE(d.onlyBRows, std::size_t(12)); // 2 DELEGATE_CALL + 8 XNNPACK events + layer_norm + argmax
        QVERIFY(d.banner.starts_with("different programs, no operator name in common: totals only"));
        for (const DiffRow &r : d.rows)
            QVERIFY(r.framework || r.a.events.empty() || r.b.events.empty());
        bool executeTotal = false;
        for (const BlockTotal &t : d.blockTotals)
            executeTotal = executeTotal || (t.blockName == "Execute" && t.source == kMethodExecute);
        QVERIFY(executeTotal);
    }

    // The same program recorded twice (50 runs, profiling only; 1 run with intermediate outputs):
    // instruction pairing as before, every row pairs the same kernel at the same instruction, and
    // the verdicts against a single run carry a caveat.
    void sameProgramKeepsInstructionPairing()
    {
        auto a = load(sharedFixture("runtime/cnn_mlp_50runs/etdump.etdp"));
        auto b = load(sharedFixture("runtime/cnn_mlp_intermediates/etdump.etdp"));
        const ProgramIdentity id = judgeProgramIdentity(a->blocks, b->blocks);
        QVERIFY(id.sameInstructions);
        QVERIFY(id.reason.empty());
        const LatencyDiff d = diffLatency(a->blocks, b->blocks);
        QCOMPARE(d.pairing, Pairing::Instruction);
        QCOMPARE(d.mode, MatchMode::Exact);
        QVERIFY(d.comparable());
        QVERIFY(d.banner.empty());
        QCOMPARE(d.rows.size(), std::size_t(31)); // 28 kernels + Method::execute + Method::init + load_method
        for (const DiffRow &r : d.rows) {
            QCOMPARE(r.a.events.size(), std::size_t(1));
            QCOMPARE(r.b.events.size(), std::size_t(1));
            const Event &ea = a->blocks[r.a.events[0].block].events[r.a.events[0].event];
            const Event &eb = b->blocks[r.b.events[0].block].events[r.b.events[0].event];
            QCOMPARE(std::string(ea.name), std::string(eb.name));
            QCOMPARE(ea.instructionId, eb.instructionId);
        }
        QCOMPARE(d.pairedRows, std::size_t(28));
        QCOMPARE(d.caveats,
            std::vector<std::string> {
                "B has 1 run: no spread, verdicts are point comparisons of single durations (no significance test)" });
        // The same recording against itself: 50 runs on both sides, no caveat.
        QVERIFY(diffLatency(a->blocks, a->blocks).caveats.empty());
    }

    void delegatedVsPortable()
    {
        const QJsonObject exp = [] {
            QFile f(QString::fromStdString(testData("analysis/xnn_mlp_portable_expected.json")));
            f.open(QIODevice::ReadOnly);
            return QJsonDocument::fromJson(f.readAll()).object();
        }();
        const QJsonArray instrs = exp["instructions"].toArray();
        QCOMPARE(instrs.size(), 15);

        // Portable twin: 5 runs, kernel i of run r takes 1000 * (i + 1) + 7 * r ns.
        const int runs = 5;
        auto kernelNs = [](int i, int r) { return std::uint64_t(1000 * (i + 1) + 7 * r); };
        ETDumpWriter w;
        w.beginRun("Default");
        w.addProfile({ "Method::init", -1, 0, -1, std::nullopt, std::nullopt, 100, 200 });
        w.addProfile({ "Program::load_method", -1, 0, -1, std::nullopt, std::nullopt, 50, 300 });
        std::uint64_t t = 1'000'000;
        for (int r = 0; r < runs; ++r) {
            w.beginRun("Execute");
            const std::uint64_t start = t;
            for (int i = 0; i < instrs.size(); ++i) {
                const std::string op = instrs[i].toObject()["kernel"].toString().toStdString().substr(12);
                w.addKernel(op, i, t, kernelNs(i, r), 100);
                t += kernelNs(i, r) + 100;
            }
            w.addProfile({ "Method::execute", -1, 0, -1, std::nullopt, std::nullopt, start, t + 10 });
            t += 10'000;
        }
        QTemporaryDir dir;
        const std::string bPath = writeFile(dir.filePath("portable.etdp").toStdString(), w.finish());

        const std::string xnn = sharedFixture("runtime/xnnpack_mlp_intermediates/etdump.etdp");
        auto a = load(xnn, testData("etrecord/xnn_mlp_etrecord.bin"));
        auto b = load(bPath, testData("analysis/xnn_mlp_portable_etrecord.bin"));
        const LatencyDiff d = diffLatency(a->blocks, b->blocks);
        QCOMPARE(d.mode, MatchMode::Graph);

        // debug_handle_map of xnn_mlp_etrecord.bin (etrecord_expected.json): instruction 0 -> handles
        // {1..5} (XNNPACK), 1 -> 6, 2 -> {7..10} (XNNPACK), 3 -> 11. The portable twin's handles per
        // instruction (xnn_mlp_portable_expected.json) are 1,1,2,3,3,4,5 | 6 | 7,7,8,9,9,10 | 11.
        QCOMPARE(instrs[13].toObject()["handle"].toInt(), 10);
        QCOMPARE(instrs[14].toObject()["handle"].toInt(), 11);
        const std::map<int, std::vector<int>> groups
            = { { 0, { 0, 1, 2, 3, 4, 5, 6 } }, { 1, { 7 } }, { 2, { 8, 9, 10, 11, 12, 13 } }, { 3, { 14 } } };
        for (const auto &[aInstr, bInstrs] : groups) {
            const DiffRow *row = nullptr;
            for (const DiffRow &r : d.rows)
                if (r.blockName == "Execute" && !r.nested && !r.framework && !r.a.events.empty()
                    && r.instructionId == aInstr && !r.a.events.empty())
                    row = &r;
            QVERIFY2(row, qPrintable(QString("no row for A instruction %1").arg(aInstr)));
            QCOMPARE(row->match, MatchMode::Graph);
            std::vector<int> got;
            for (const EventPos &p : row->b.events)
                got.push_back(b->blocks[p.block].events[p.event].instructionId);
            QCOMPARE(got, bInstrs);
            // B side = per-run sum of the matched portable kernels (known durations, ms).
            QCOMPARE(row->b.perf->raw.size(), std::size_t(runs));
            for (int r = 0; r < runs; ++r) {
                std::uint64_t sum = 0;
                for (int i : bInstrs)
                    sum += kernelNs(i, r);
                QCOMPARE(row->b.perf->raw[r], double(sum) / 1e6);
            }
            if (aInstr == 0 || aInstr == 2) {
                QCOMPARE(row->eventName, std::string(kDelegateCall));
                QCOMPARE(row->backend, std::string("XnnpackBackend -> portable"));
            }
            QVERIFY(row->ratioOnly); // A has a single run
        }
        // XNNPACK-internal events have no portable counterpart: listed (only_a, nested), not dropped.
        std::size_t nestedOnlyA = 0;
        for (const DiffRow &r : d.rows)
            if (r.nested && r.verdict == Verdict::OnlyA)
                ++nestedOnlyA;
        QCOMPARE(nestedOnlyA, std::size_t(8)); // "delegate profile events=8" in the fixture README
        QVERIFY(!d.byModule.empty());
        QVERIFY(findRow(d, "Execute", kMethodExecute, 0));
        // Issue 28: different programs, but one model whose two graphs agree: still graph pairing.
        QVERIFY(!d.identity.sameInstructions);
        QVERIFY(d.identity.sameGraph);
        QCOMPARE(d.pairing, Pairing::Graph);
        QVERIFY(d.comparable());
    }
};

QTEST_GUILESS_MAIN(TestLatencyDiff)
#include "tst_latencydiff.moc"
