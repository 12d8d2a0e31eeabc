// The real two-method LLM recordings (tests/data/runtime/llm_decoder, issue 29 item 6): the
// program opens with its weights file, and every Execute run is attributed to the method the
// runner executed. Expected values: the runner's own log (runs.truth.json, one line per
// Method::execute, written from runner.log by tests/tools/gen_llm_fixture.py --check --truth) and
// the README's counts (141 / 140 instructions, 24 external tensors of 541,952 bytes, counted in
// llm_decoder.program.json and llm_decoder.flat_tensor.json).
#include "session/session.h"
#include "testpaths.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <algorithm>
#include <fstream>

using namespace etscope;

namespace {

std::string llm(const std::string &relative)
{
    return test::testData("runtime/llm_decoder/" + relative);
}

std::vector<std::string> truthOf(const std::string &recording)
{
    std::ifstream f(llm(recording + "/runs.truth.json"));
    std::vector<std::string> methods;
    for (const auto &run : nlohmann::json::parse(f))
        methods.push_back(run.at("method").get<std::string>());
    return methods;
}

SessionInputs inputsOf(const std::string &recording)
{
    SessionInputs in;
    in.etdump = llm(recording + "/etdump.etdp");
    in.program = llm("llm_decoder.pte");
    in.programData = { llm("llm_decoder.ptd") };
    return in;
}

} // namespace

class TstLlmFixture : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void programWithItsWeights()
    {
        SessionInputs in;
        in.program = llm("llm_decoder.pte");
        in.programData = { llm("llm_decoder.ptd") };
        auto s = loadSession(in);
        QVERIFY2(s, s ? "" : s.error().message().c_str());
        QVERIFY((*s)->warnings.empty());
        const Program &p = *(*s)->program;
        QCOMPARE(p.dataFiles().size(), std::size_t(1));
        QCOMPARE(p.methods().size(), std::size_t(2));
        QCOMPARE(p.methods()[0].name(), std::string("prefill_forward"));
        QCOMPARE(p.methods()[1].name(), std::string("decode_forward"));
    }

    // Every Execute run's method is the one the runner logged; the load-time blocks executed none.
    void runAttribution_data()
    {
        QTest::addColumn<QString>("recording");
        QTest::addColumn<int>("runs");
        QTest::newRow("profile") << u"profile"_qs << 65;
        QTest::newRow("intermediates") << u"intermediates"_qs << 3;
    }
    void runAttribution()
    {
        QFETCH(QString, recording);
        QFETCH(int, runs);
        SessionInputs in = inputsOf(recording.toStdString());
        if (recording == u"intermediates"_qs)
            in.debugBuffer = llm("intermediates/debug_output.bin");
        auto s = loadSession(in);
        QVERIFY2(s, s ? "" : s.error().message().c_str());
        const Session &session = **s;
        QVERIFY(session.program);
        QCOMPARE(session.runMethods.size(), session.blocks.size());

        const std::vector<std::string> truth = truthOf(recording.toStdString());
        QCOMPARE(int(truth.size()), runs);
        // Execute run N of the log is the N-th run_data entry named Execute, in file order.
        std::vector<std::size_t> executeEntries;
        for (const EventBlock &b : session.blocks)
            if (b.name == "Execute")
                executeEntries.insert(executeEntries.end(), b.runIndices.begin(), b.runIndices.end());
        std::sort(executeEntries.begin(), executeEntries.end());
        QCOMPARE(int(executeEntries.size()), runs);

        int checked = 0;
        for (std::size_t b = 0; b < session.blocks.size(); ++b) {
            const EventBlock &block = session.blocks[b];
            const RunAttribution &a = session.runMethods[b];
            if (block.name != "Execute") {
                QCOMPARE(a.kind, RunAttribution::Kind::NoEvents);
                continue;
            }
            QVERIFY2(a.kind == RunAttribution::Kind::Matched, a.label().c_str());
            QVERIFY(a.checkedEvents > 0);
            for (std::size_t entry : block.runIndices) {
                const auto n = std::size_t(
                    std::lower_bound(executeEntries.begin(), executeEntries.end(), entry) - executeEntries.begin());
                QCOMPARE(a.method->name(), truth[n]);
                ++checked;
            }
        }
        QCOMPARE(checked, runs);
    }
};

QTEST_GUILESS_MAIN(TstLlmFixture)
#include "tst_llmfixture.moc"
