// Runs over time (analysis/runs.h) and the attribution of runs to methods
// (program/runattribution.h). Expected values: the generator's own log of which method each run
// called (tests/data/analysis/runs_llm.truth.json, written by tests/tools/gen_runs_etdump.cpp) and
// the figures of tests/tools/gen_runs_expected.py (numpy from the raw events, no etscope code).
#include "analysis/runs.h"
#include "etdump/etdumpfile.h"
#include "program/flattensor.h"
#include "program/memoryplan.h"
#include "program/program.h"
#include "runscases.h"
#include "testsession.h"

#include <QTest>

#include <fstream>

using namespace etscope;
using etscope::test::loadSessionOrDie;

namespace {

Result<RunsReport> analyze(const test::RunsCase &c, std::string method = {})
{
    auto session = loadSessionOrDie(c.etdump);
    std::shared_ptr<const Program> program;
    if (!c.program.empty()) {
        auto p = openProgramWithData(c.program, c.data);
        if (!p)
            qFatal("%s", p.error().message().c_str());
        program = *p;
    }
    RunsOptions opt;
    opt.method = std::move(method);
    opt.promptTokens = c.promptTokens;
    if (c.prefillRuns) {
        opt.phaseBy = PhaseRule::PrefillRuns;
        opt.prefillRuns = *c.prefillRuns;
    } else if (!c.phaseBy.empty()) {
        opt.phaseBy = *parsePhaseRule(c.phaseBy);
    }
    if (c.sharesBy == "backend-operator")
        opt.sharesBy = ShareRowsBy::BackendOperator;
    return analyzeRuns(session->blocks, program.get(), opt, c.etdump);
}

test::RunsCase llmCase()
{
    return test::runsCases().front();
}

} // namespace

class TstRuns : public QObject
{
    Q_OBJECT

private slots:
    // Every run's method equals the method the generator called; the two runs no method explains
    // are said so (one fits none, one fits both).
    void attribution()
    {
        const test::RunsCase c = llmCase();
        auto session = loadSessionOrDie(c.etdump);
        auto program = Program::open(c.program);
        QVERIFY(program.ok());
        const auto attributions = attributeRuns(session->blocks, **program);
        QCOMPARE(attributions.size(), session->blocks.size());
        std::ifstream tf(test::testData("analysis/runs_llm.truth.json"));
        const auto truth = nlohmann::json::parse(tf);
        // run_data entry i + 1 is run i (entry 0 is the load-time block).
        std::vector<const RunAttribution *> ofRun(truth.size() + 1, nullptr);
        for (std::size_t b = 0; b < session->blocks.size(); ++b)
            for (std::size_t r : session->blocks[b].runIndices)
                ofRun.at(r) = &attributions[b];
        QCOMPARE(ofRun[0]->kind, RunAttribution::Kind::NoEvents);
        for (std::size_t i = 0; i < truth.size(); ++i) {
            const RunAttribution &a = *ofRun[i + 1];
            if (truth[i]["method"].is_null())
                continue;
            QCOMPARE(a.kind, RunAttribution::Kind::Matched);
            QCOMPARE(a.method->name(), truth[i]["method"].get<std::string>());
        }
        const RunAttribution &none = *ofRun[51], &both = *ofRun[52];
        QCOMPARE(none.kind, RunAttribution::Kind::NoMatch);
        QCOMPARE(none.label(), std::string("no method matches"));
        QCOMPARE(none.reason,
            std::string(
                "kernel 'native_call_convolution.out' at instruction 0 but the program calls embedding.out there"));
        QCOMPARE(both.kind, RunAttribution::Kind::Ambiguous);
        QCOMPARE(both.label(), std::string("ambiguous: prefill_forward, kv_forward"));
        QVERIFY(both.fits("kv_forward") && both.fits("prefill_forward") && !both.fits("forward"));
    }

    // The pairing of a whole ETDump with one method keeps its rule (the same per-event check):
    // this recording mixes two methods, so neither pairs with all of it.
    void pairingOfMixedRecording()
    {
        auto etdump = readETDump(llmCase().etdump);
        auto program = Program::open(llmCase().program);
        QVERIFY(etdump.ok() && program.ok());
        const ProgramPairing p = pairProgramWithETDump(**program, **etdump);
        QVERIFY(p.method == nullptr);
        QVERIFY(!p.reason.empty());
    }

    // A recording of several methods fits its program when every run fits some method: the LLM
    // recording does not (its run 50 is another program's), the cnn_mlp one does (method forward).
    void recordingFit()
    {
        const test::RunsCase c = llmCase();
        auto session = loadSessionOrDie(c.etdump);
        auto program = Program::open(c.program);
        QVERIFY(program.ok());
        const RecordingFit no = fitRecording(session->blocks, attributeRuns(session->blocks, **program), **program);
        QVERIFY(!no.fits);
        QCOMPARE(no.reason,
            std::string("run_data entry 51: kernel 'native_call_convolution.out' at instruction 0 but the program "
                        "calls embedding.out there"));
        auto cnn = loadSessionOrDie(test::sharedFixture("runtime/cnn_mlp_50runs/etdump.etdp"));
        auto cnnProgram = Program::open(test::sharedFixture("runtime/cnn_mlp_50runs/cnn_mlp.pte"));
        QVERIFY(cnnProgram.ok());
        const RecordingFit yes = fitRecording(cnn->blocks, attributeRuns(cnn->blocks, **cnnProgram), **cnnProgram);
        QVERIFY(yes.fits);
        QCOMPARE(yes.methods.size(), 1u);
        QCOMPARE(yes.methods[0]->name(), std::string("forward"));
        QCOMPARE(yes.ambiguousBlocks, 0u);
    }

    void figures_data()
    {
        QTest::addColumn<int>("index");
        const auto cases = test::runsCases();
        for (std::size_t i = 0; i < cases.size(); ++i)
            QTest::newRow(cases[i].name.c_str()) << int(i);
    }
    void figures()
    {
        QFETCH(int, index);
        const test::RunsCase c = test::runsCases()[std::size_t(index)];
        auto report = analyze(c);
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message().c_str());
        const auto actual = nlohmann::json::parse(runsJson(*report));
        const std::string m = test::jsonMismatch(test::runsExpected(c.name), actual);
        QVERIFY2(m.empty(), m.c_str());
    }

    // What the figures say about the synthetic generation, by hand from the generator: 1 warm-up
    // decode call, 1 prefill run of 8 tokens (from kv_forward's sibling's input shape), 48 decode
    // runs of which position 30 stalls, 2 runs of no phase.
    void llmShape()
    {
        auto report = analyze(llmCase());
        QVERIFY(report.ok());
        QCOMPARE(report->rule, PhaseRule::Method);
        QCOMPARE(report->runs.size(), 52u);
        const PhaseFigures *decode = report->phase("decode");
        const PhaseFigures *prefill = report->phase("prefill");
        QVERIFY(decode && prefill && report->phase("other") && !report->phase("all"));
        QCOMPARE(decode->runs, 49u);
        QCOMPARE(decode->warmupRuns, 1u);
        QVERIFY(report->runs[0].warmup);
        QCOMPARE(decode->outlierRuns, 1u);
        QVERIFY(report->runs[2 + 30].outlier); // position 30
        QCOMPARE(prefill->tokens.value_or(0), 8);
        // Per position both bmm grow 1,000 ns and softmax 200 ns: 0.0022 ms (±2 % jitter).
        QVERIFY(decode->slopeMsPerPosition && std::abs(*decode->slopeMsPerPosition - 0.0022) < 0.0002);
        // The OPERATOR_CALL and DELEGATE_CALL wrappers are never counted: the XNNPACK GEMMs are.
        for (const ShareRow &s : decode->shares)
            QVERIFY(s.name != "OPERATOR_CALL" && s.name != "DELEGATE_CALL" && s.name != "XnnpackBackend");
        QCOMPARE(report->runs[50].method, std::string());
        QCOMPARE(report->runs[50].methodNote, std::string("no method matches"));
        QCOMPARE(report->runs[50].phase, std::string("other"));
    }

    // A backend's decoded operator names the delegate rows: XNNPACK's "GEMM #1" and "GEMM #2"
    // become one row holding both (expected: the sum of the two numpy rows).
    void backendOperatorRows()
    {
        const test::RunsCase c = llmCase();
        auto session = loadSessionOrDie(c.etdump);
        auto program = Program::open(c.program);
        QVERIFY(program.ok());
        RunsOptions opt;
        opt.backendOperator = [](const Event &e) {
            const auto hash = e.name.rfind(" #");
            return std::string(e.name.substr(0, hash));
        };
        auto report = analyzeRuns(session->blocks, program->get(), opt, c.etdump);
        QVERIFY(report.ok());
        const auto expected = test::runsExpected(c.name)["shares"]["decode"];
        double gemmMs = 0;
        std::uint64_t gemmCalls = 0;
        for (const auto &row : expected)
            if (row["name"].get<std::string>().starts_with("Fully Connected (NC, F32) GEMM #")) {
                gemmMs += row["total_ms"].get<double>();
                gemmCalls += row["calls"].get<std::uint64_t>();
            }
        const PhaseFigures *decode = report->phase("decode");
        QVERIFY(decode);
        const auto it = std::find_if(decode->shares.begin(), decode->shares.end(),
            [](const ShareRow &s) { return s.name == "Fully Connected (NC, F32) GEMM"; });
        QVERIFY(it != decode->shares.end());
        QCOMPARE(it->calls, gemmCalls);
        QVERIFY(std::abs(it->totalMs - gemmMs) < 1e-9);
        QCOMPARE(it->delegatedShare, 1.0);
        QCOMPARE(decode->shares.size(), expected.size() - 1);
    }

    // Shares by backend operator on the authored Vulkan recording, by hand from
    // tests/tools/gen_backend_etdumps.py: per run ETVK_COPY_INPUTS 18100 ns, ETVK_COPY_OUTPUTS
    // 18700 ns, GPU dispatches [9880, 41600, 6240, 12480], [9360, 40560, 6760, 11960],
    // [10400, 42120, 6240, 12220]; ETVK_EXECUTE, ETVK_COMPUTE_GRAPH_EXECUTE and DELEGATE_CALL wrap
    // them and are not counted. Counted: 54300 + 56100 + 29640 + 124280 + 19240 + 36660 = 320220 ns.
    void vulkanSharesByHand()
    {
        auto session = loadSessionOrDie(test::testData("backend/vulkan_stem/etdump.etdp"));
        RunsOptions opt;
        opt.sharesBy = ShareRowsBy::BackendOperator;
        auto report = analyzeRuns(session->blocks, nullptr, opt, "vulkan_stem");
        QVERIFY(report.ok());
        const PhaseFigures *all = report->phase("all");
        QVERIFY(all);
        QVERIFY(std::abs(all->countedMs - 0.32022) < 1e-12);
        const std::vector<std::pair<std::string, double>> expected { { "aten.convolution.default", 0.12428 },
            { "phase: copy outputs", 0.0561 }, { "phase: copy inputs", 0.0543 },
            { "staging copy (image_to_nchw_texture3d_float_float)", 0.03666 },
            { "staging copy (nchw_to_image_texture3d_float_float)", 0.02964 }, { "aten.relu.default", 0.01924 } };
        QCOMPARE(all->shares.size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            QCOMPARE(all->shares[i].name, expected[i].first);
            QVERIFY(std::abs(all->shares[i].totalMs - expected[i].second) < 1e-12);
            QCOMPARE(all->shares[i].calls, std::uint64_t(3));
            QVERIFY(std::abs(all->shares[i].share - expected[i].second / 0.32022) < 1e-9);
            QCOMPARE(all->shares[i].delegatedShare, 1.0);
        }
        // By operator the rows keep their names, and the wrappers stay out all the same.
        opt.sharesBy = ShareRowsBy::Operator;
        auto byName = analyzeRuns(session->blocks, nullptr, opt, "vulkan_stem");
        QVERIFY(byName.ok());
        QVERIFY(std::abs(byName->phase("all")->countedMs - 0.32022) < 1e-12);
        QCOMPARE(byName->phase("all")->shares.size(), expected.size());
        QCOMPARE(byName->phase("all")->shares[1].name, std::string("ETVK_COPY_OUTPUTS"));
        QCOMPARE(nlohmann::json::parse(runsJson(*report))["shares_by"].get<std::string>(), "backend-operator");
    }

    // --method keeps the runs that method fits (the ambiguous one resolved to it).
    void methodFilter()
    {
        auto report = analyze(llmCase(), "prefill_forward");
        QVERIFY(report.ok());
        QCOMPARE(report->runs.size(), 2u); // the prompt, and the run that only holds instruction 0
        for (const RunRow &r : report->runs)
            QCOMPARE(r.method, std::string("prefill_forward"));
        QCOMPARE(report->runs[1].runDataIndex, 52u);
    }

    void errors()
    {
        test::RunsCase c = llmCase();
        QCOMPARE(analyze(c, "generate").error().message(), c.etdump + ": the program has no method named 'generate'");
        c.program.clear();
        QCOMPARE(
            analyze(c, "kv_forward").error().message(), c.etdump + ": --method needs the program (--program P.pte)");
        auto session = loadSessionOrDie(c.etdump);
        RunsOptions opt;
        opt.time.source = opt.time.target = TimeScale::Cycles;
        auto r = analyzeRuns(session->blocks, nullptr, opt, c.etdump);
        QVERIFY(!r.ok());
        QVERIFY(r.error().message().find("--cycles-per-second") != std::string::npos);
    }

    // A recording without Method::execute has no runs, and says so without failing.
    void noRuns()
    {
        std::vector<EventBlock> none;
        auto r = analyzeRuns(none, nullptr, RunsOptions {}, "x.etdp");
        QVERIFY(r.ok());
        QVERIFY(r->runs.empty() && r->phases.empty() && !r->timeToFirstTokenMs);
        QVERIFY(!runsText(*r, 10).empty());
    }
};

QTEST_GUILESS_MAIN(TstRuns)
#include "tst_runs.moc"
