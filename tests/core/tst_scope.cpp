// One recording, many kinds of runs (issue 35): the session's run table and the scoped blocks.
// Truth, derived without etscope:
//  - tests/data/scope/one_method: an AUTHORED single-method generation (three generations, a
//    warm-up call, slow decode steps and a one-operator stall) written by
//    tests/tools/gen_scope_generation.py, whose runs.truth.json is the plan it was built from
//    (each run's phase, generation, outlier) and numpy statistics of every event per scope;
//  - tests/data/scope/llm_decoder_scopes.json: numpy over `flatc --json` of the real fixture
//    (tests/data/runtime/llm_decoder/profile) and the runner's log (tests/tools/gen_scope_expected.py);
//  - the Vulkan placement: the authored vulkan_stem recording's own ETVK_COMPUTE_GRAPH_EXECUTE
//    times (tests/data/backend, gen_backend_etdumps.py).
#include "events/backendevents.h"
#include "session/inputfiles.h"
#include "session/runtable.h"
#include "session/session.h"
#include "testpaths.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <QTest>

#include <cmath>
#include <fstream>
#include <map>

using namespace etscope;
using Json = nlohmann::json;

namespace {

Json readJson(const std::string &path)
{
    std::ifstream f(path);
    return Json::parse(f);
}

bool close(double a, double b)
{
    return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b));
}

std::shared_ptr<const Session> load(const SessionInputs &in)
{
    auto s = loadSession(in);
    if (!s)
        qWarning("%s", s.error().message().c_str());
    return s ? s.value() : nullptr;
}

SessionInputs llmInputs()
{
    SessionInputs in;
    in.etdump = test::testData("runtime/llm_decoder/profile/etdump.etdp");
    in.program = test::testData("runtime/llm_decoder/llm_decoder.pte");
    in.programData = { test::testData("runtime/llm_decoder/llm_decoder.ptd") };
    return in;
}

// Every event of `blocks` keyed by (name, instruction id, occurrence within its block).
using Key = std::tuple<std::string, std::int64_t, int>;
std::map<Key, const Event *> eventsByKey(const std::vector<EventBlock> &blocks)
{
    std::map<Key, const Event *> out;
    for (const EventBlock &b : blocks) {
        std::map<std::pair<std::string, std::int64_t>, int> seen;
        for (const Event &e : b.events) {
            const int k = seen[{ std::string(e.name), e.instructionId }]++;
            out[{ std::string(e.name), e.instructionId, k }] = &e;
        }
    }
    return out;
}

void compareStats(const Event &e, const Json &row)
{
    QVERIFY(e.perfData);
    const PerfStats &p = *e.perfData;
    QVERIFY2(close(p.p10, row["p10"]) && close(p.p50, row["p50"]) && close(p.p90, row["p90"]),
        row["event_name"].get<std::string>().c_str());
    QVERIFY(close(p.avg, row["avg"]) && close(p.min, row["min"]) && close(p.max, row["max"]));
}

} // namespace

class TstScope : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // One method for the prompt and every step: phases by per-operator evidence, generations
    // numbered, the warm-up call and the slow steps never prefill.
    void oneMethodRunTable()
    {
        SessionInputs in;
        in.etdump = test::testData("scope/one_method/etdump.etdp");
        const auto s = load(in);
        QVERIFY(s);
        const Json truth = readJson(test::testData("scope/one_method/runs.truth.json"));
        const RunTable &t = s->runTable;
        QCOMPARE(t.rule, PhaseRule::Operators);
        QVERIFY(t.ruleLine.find("per-operator evidence") != std::string::npos);
        QCOMPARE(t.generations, truth["generations"].get<std::size_t>());
        QCOMPARE(t.runs.size(), truth["runs"].size());
        for (std::size_t i = 0; i < t.runs.size(); ++i) {
            const Json &r = truth["runs"][i];
            const SessionRun &run = t.runs[i];
            QCOMPARE(run.index, i);
            QCOMPARE(std::string(phaseName(run.scopePhase())), r["phase"].get<std::string>());
            QCOMPARE(run.generation, r["generation"].get<std::size_t>());
            QCOMPARE(run.outlier, r["outlier"].get<bool>());
        }
    }

    // The scoped blocks' statistics equal numpy's over the runs of the scope.
    void oneMethodScopedStatistics()
    {
        SessionInputs in;
        in.etdump = test::testData("scope/one_method/etdump.etdp");
        const auto s = load(in);
        QVERIFY(s);
        const Json truth = readJson(test::testData("scope/one_method/runs.truth.json"));
        for (const char *phase : { "decode", "prefill", "warmup" }) {
            Scope scope;
            scope.phase = *parsePhase(phase);
            auto scoped = scopeBlocks(*s, scope);
            QVERIFY2(scoped, scoped ? "" : scoped.error().message().c_str());
            const Json &expected = truth["scopes"][phase];
            QCOMPARE(scoped->runCount, expected["runs"].get<std::size_t>());
            QVERIFY(!scoped->whole);
            QCOMPARE(
                scoped->label, fmt::format("{} · {} run{}", phase, scoped->runCount, scoped->runCount == 1 ? "" : "s"));
            const auto events = eventsByKey(scoped->blocks);
            std::map<std::pair<std::string, std::int64_t>, int> seen;
            for (const Json &row : expected["events"]) {
                const std::string name = row["event_name"];
                const std::int64_t id = row["instruction_id"];
                const auto it = events.find({ name, id, seen[{ name, id }]++ });
                QVERIFY2(it != events.end(), name.c_str());
                compareStats(*it->second, row);
            }
        }
    }

    // The real two-method fixture: a method's scope is its runs, statistics and the per-node
    // (instruction) shares the graph overlay shows equal numpy's; the phase scope is the same runs.
    void llmMethodScopes()
    {
        const auto s = load(llmInputs());
        QVERIFY(s);
        QCOMPARE(s->runTable.rule, PhaseRule::Method);
        QCOMPARE(s->runTable.generations, std::size_t(1));
        const Json truth = readJson(test::testData("scope/llm_decoder_scopes.json"));
        for (const char *method : { "decode_forward", "prefill_forward" }) {
            Scope scope;
            scope.method = method;
            auto scoped = scopeBlocks(*s, scope);
            QVERIFY(scoped);
            const Json &expected = truth["scopes"][method];
            QCOMPARE(scoped->runCount, expected["runs"].get<std::size_t>());
            const auto events = eventsByKey(scoped->blocks);
            for (const Json &row : expected["events"]) {
                const auto it = events.find({ row["event_name"].get<std::string>(),
                    row["instruction_id"].get<std::int64_t>(), row["occurrence"].get<int>() });
                QVERIFY(it != events.end());
                compareStats(*it->second, row);
            }
            // Per instruction: its kernel's mean over the scope's runs, as a share of all kernels.
            double total = 0;
            std::map<std::int64_t, double> kernel;
            for (const EventBlock &b : scoped->blocks)
                for (const Event &e : b.events)
                    if (e.name.starts_with("native_call_")) {
                        kernel[e.instructionId] += e.perfData->avg;
                        total += e.perfData->avg;
                    }
            QCOMPARE(kernel.size(), expected["instruction_shares"].size());
            for (const auto &[id, avg] : kernel)
                QVERIFY(
                    std::abs(avg / total - expected["instruction_shares"][std::to_string(id)].get<double>()) < 1e-12);
            // Top events: the slowest kernels of the scope.
            const Json &top = expected["top_kernels"][0];
            const Event *slowest = nullptr;
            for (const EventBlock &b : scoped->blocks)
                for (const Event &e : b.events)
                    if (e.name.starts_with("native_call_") && (!slowest || e.perfData->avg > slowest->perfData->avg))
                        slowest = &e;
            QCOMPARE(std::string(slowest->name), top[0].get<std::string>());
            QCOMPARE(std::int64_t(slowest->instructionId), top[1].get<std::int64_t>());
        }
        Scope decode;
        decode.phase = Phase::Decode;
        Scope method;
        method.method = "decode_forward";
        QCOMPARE(scopeBlocks(*s, decode)->runs, scopeBlocks(*s, method)->runs);
        QCOMPARE(scopeBlocks(*s, method)->label, std::string("decode_forward · 64 runs"));
        Scope both = method;
        both.phase = Phase::Decode;
        QCOMPARE(scopeBlocks(*s, both)->label, std::string("decode_forward · decode · 64 runs"));
        // The whole scope is the session's blocks.
        auto whole = scopeBlocks(*s, Scope {});
        QVERIFY(whole->whole);
        QCOMPARE(whole->blocks.size(), s->blocks.size());
        QCOMPARE(whole->runCount, std::size_t(65));
    }

    void runRanges()
    {
        const auto s = load(llmInputs());
        QVERIFY(s);
        Scope scope;
        QVERIFY(parseRunRange("1-4", scope));
        auto scoped = scopeBlocks(*s, scope);
        QVERIFY(scoped);
        QCOMPARE(scoped->runCount, std::size_t(4));
        QCOMPARE(scoped->runs.front().front(), std::size_t(1));
        QVERIFY(!parseRunRange("4-1", scope));
        QVERIFY(!parseRunRange("x", scope));
        QVERIFY(parseRunRange("70-", scope));
        QVERIFY(!scopeBlocks(*s, scope)); // beyond the runs: said
        Scope unknown;
        unknown.method = "forward";
        const auto err = scopeBlocks(*s, unknown);
        QVERIFY(!err);
        QVERIFY(err.error().message().find("no method named 'forward'") != std::string::npos);
    }

    // A .ptd (or program) that does not belong is left out with its reason; the recording loads.
    void wrongWeightsLeftOut()
    {
        SessionInputs in = llmInputs();
        in.programData = { test::testData("program/ptd/external.ptd") };
        in.dropUnpairable = true;
        const auto s = load(in);
        QVERIFY(s);
        QVERIFY(s->hasWarning(SessionWarningKind::Dropped));
        QVERIFY(s->inputs.programData.empty());
        QCOMPARE(s->runTable.rule, PhaseRule::Method); // the program still pairs
    }

    // Vulkan dispatches carry the GPU query pool's clock: placed inside their
    // ETVK_COMPUTE_GRAPH_EXECUTE, durations unchanged.
    void vulkanDispatchesInsideTheirPhase()
    {
        SessionInputs in;
        in.etdump = test::testData("backend/vulkan_stem/etdump.etdp");
        const auto s = load(in);
        QVERIFY(s);
        const HostClockOffsets offsets = hostClockOffsets(s->blocks);
        QVERIFY(!offsets.empty());
        QCOMPARE(offsets.notes().size(), std::size_t(1));
        std::size_t checked = 0;
        for (std::size_t b = 0; b < s->blocks.size(); ++b) {
            const EventBlock &block = s->blocks[b];
            const Event *graph = nullptr;
            for (const Event &e : block.events)
                if (e.name == "ETVK_COMPUTE_GRAPH_EXECUTE")
                    graph = &e;
            for (std::size_t i = 0; i < block.events.size(); ++i) {
                const Event &e = block.events[i];
                if (!e.name.starts_with("{\"") || !graph)
                    continue;
                for (std::size_t r = 0; r < e.runCount(); ++r) {
                    const std::int64_t off = offsets.offset(b, i, r);
                    const auto start = std::int64_t(e.startTimes()[r]) + off;
                    const auto end = std::int64_t(e.endTimes()[r]) + off;
                    QVERIFY(start >= std::int64_t(graph->startTimes()[r]));
                    QVERIFY(start <= std::int64_t(graph->endTimes()[r]));
                    QCOMPARE(end - start, std::int64_t(e.endTimes()[r] - e.startTimes()[r]));
                    ++checked;
                }
            }
        }
        QCOMPARE(checked, std::size_t(12)); // 4 dispatches x 3 runs
        // Events on the host clock keep their times.
        SessionInputs llm = llmInputs();
        QVERIFY(hostClockOffsets(load(llm)->blocks).empty());
    }

    // Sniffing by content, once for every front end.
    void sniffing()
    {
        QCOMPARE(sniffInputFile(test::testData("runtime/llm_decoder/profile/etdump.etdp")).kind, FileKind::ETDump);
        QCOMPARE(sniffInputFile(test::testData("runtime/llm_decoder/llm_decoder.pte")).kind, FileKind::Program);
        QCOMPARE(sniffInputFile(test::testData("runtime/llm_decoder/llm_decoder.ptd")).kind, FileKind::ProgramData);
        QCOMPARE(sniffInputFile(test::testData("runtime/llm_decoder/intermediates/debug_output.bin")).kind,
            FileKind::DebugBuffer);
        const FileSniff missing = sniffInputFile("/nonexistent/x.etdp");
        QCOMPARE(missing.kind, FileKind::Unreadable);
        QVERIFY(missing.error.find("no such file") != std::string::npos);
        const InputFiles f = classifyInputFiles({ test::testData("runtime/llm_decoder/llm_decoder.ptd"),
            test::testData("runtime/llm_decoder/intermediates/debug_output.bin"),
            test::testData("runtime/llm_decoder/llm_decoder.pte"),
            test::testData("runtime/llm_decoder/intermediates/etdump.etdp") });
        QVERIFY(f.errors.empty());
        QCOMPARE(f.etdump, test::testData("runtime/llm_decoder/intermediates/etdump.etdp"));
        QCOMPARE(f.program, test::testData("runtime/llm_decoder/llm_decoder.pte"));
        QCOMPARE(f.programData.size(), std::size_t(1));
        QCOMPARE(f.debugBuffer, test::testData("runtime/llm_decoder/intermediates/debug_output.bin"));
    }
};

QTEST_APPLESS_MAIN(TstScope)
#include "tst_scope.moc"
