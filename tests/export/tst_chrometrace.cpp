// The Chrome/Perfetto trace of real profiles. Expected values come from flatc's JSON decode of
// each fixture (tests/tools/gen_trace_expected.py → tests/data/export/), not from etscope.
#include "export/chrometrace.h"
#include "testpaths.h"
#include "testsession.h"

#include <QTest>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <tuple>

using namespace etscope;
using nlohmann::json;

namespace {

json readJson(const std::string &path)
{
    std::ifstream f(path);
    return json::parse(f);
}

std::string traceOf(const Session &s, const TraceOptions &opt = {}, std::size_t chunk = 1 << 20)
{
    std::string out;
    TraceOptions o = opt;
    o.chunkSize = chunk;
    auto r = writeChromeTrace(s, o, [&](std::string_view c) {
        out.append(c);
        return true;
    });
    if (!r)
        qFatal("%s", r.error().message().c_str());
    return out;
}

std::vector<json> completeEvents(const json &trace)
{
    std::vector<json> v;
    for (const auto &e : trace.at("traceEvents"))
        if (e.at("ph") == "X")
            v.push_back(e);
    return v;
}

std::int64_t nsOfUs(const json &v)
{
    return std::llround(v.get<double>() * 1000.0);
}

} // namespace

class TstChromeTrace : public QObject
{
    Q_OBJECT
private slots:
    void everyProfileEventOnce_data()
    {
        QTest::addColumn<QString>("fixture");
        const json all = readJson(test::testData("export/trace_expected.json"));
        for (const auto &[k, v] : all.items()) // newRow copies the tag
            QTest::addRow("%s", k.c_str()) << QString::fromStdString(k);
    }

    // Every profile event of the file appears exactly once, at its time, with dur = end − start.
    void everyProfileEventOnce()
    {
        QFETCH(QString, fixture);
        const json expected = readJson(test::testData("export/trace_expected.json")).at(fixture.toStdString());
        auto s = test::loadSessionOrDie(test::sharedFixture("runtime/" + fixture.toStdString() + "/etdump.etdp"));
        // A tiny chunk size exercises the streaming path.
        const json trace = json::parse(traceOf(*s, {}, 4096)); // throws (fails) if invalid JSON
        const auto events = completeEvents(trace);
        QCOMPARE(events.size(), expected.at("events").size());
        const std::int64_t origin = expected.at("origin");
        QCOMPARE(trace.at("otherData").at("origin_ticks").get<std::int64_t>(), origin);

        using Key = std::tuple<std::string, std::int64_t, std::int64_t, int, bool>;
        std::map<Key, int> want, got;
        for (const auto &e : expected.at("events"))
            ++want[{ e[1].get<std::string>(), e[2].get<std::int64_t>(), e[3].get<std::int64_t>(), e[4].get<int>(),
                e[5].get<bool>() }];
        for (const auto &e : events) {
            const auto &a = e.at("args");
            // The end is start + dur; matching (start, end) against the file checks dur = end − start.
            const std::int64_t start = a.at("start_ns"), dur = a.at("dur_ns"), end = start + dur;
            QCOMPARE(nsOfUs(e.at("ts")), start - origin);
            QCOMPARE(nsOfUs(e.at("dur")), dur);
            const bool delegated = a.at("delegated");
            QCOMPARE(e.at("tid").get<int>(), delegated ? 3 : e.at("cat") == "framework" ? 1 : 2);
            ++got[{ e.at("name").get<std::string>(), start, end, a.at("instruction_id").get<int>(), delegated }];
        }
        QVERIFY(want == got);

        // Metadata: every pid named, three named threads each.
        std::map<int, int> threadNames;
        int processNames = 0;
        for (const auto &e : trace.at("traceEvents")) {
            if (e.at("ph") != "M")
                continue;
            processNames += e.at("name") == "process_name";
            threadNames[e.at("pid")] += e.at("name") == "thread_name";
        }
        QCOMPARE(processNames, static_cast<int>(s->blocks.size()));
        for (const auto &[pid, n] : threadNames)
            QCOMPARE(n, 3);
    }

    // Delegate-internal events lie inside the DELEGATE_CALL of the same instruction and run.
    void delegateNesting()
    {
        auto s = test::loadSessionOrDie(test::sharedFixture("runtime/xnnpack_mlp_intermediates/etdump.etdp"));
        const auto events = completeEvents(json::parse(traceOf(*s)));
        int delegated = 0;
        for (const auto &d : events) {
            if (!d.at("args").at("delegated").get<bool>())
                continue;
            ++delegated;
            int parents = 0;
            for (const auto &c : events) {
                if (c.at("name") != "DELEGATE_CALL" || c.at("pid") != d.at("pid")
                    || c.at("args").at("run") != d.at("args").at("run")
                    || c.at("args").at("instruction_id") != d.at("args").at("instruction_id"))
                    continue;
                ++parents;
                QVERIFY(c.at("args").at("start_ns") <= d.at("args").at("start_ns"));
                QVERIFY(d.at("args").at("start_ns").get<std::int64_t>() + d.at("args").at("dur_ns").get<std::int64_t>()
                    <= c.at("args").at("start_ns").get<std::int64_t>() + c.at("args").at("dur_ns").get<std::int64_t>());
            }
            QCOMPARE(parents, 1);
        }
        QCOMPARE(delegated, 8); // 4 + 4 XNNPACK events in the Execute run (fixture README)
    }

    // Golden trace of the smallest real profile, field by field (generator: see the file header).
    void golden()
    {
        auto s = test::loadSessionOrDie(test::sharedFixture("runtime/add_pte_intermediates/etdump.etdp"));
        const std::string text = traceOf(*s);
        const auto events = completeEvents(json::parse(text));
        const json golden = readJson(test::testData("export/add_pte_intermediates.golden.json"));
        QCOMPARE(events.size(), golden.size());
        for (const auto &g : golden) {
            int matches = 0;
            for (const auto &e : events) {
                if (e.at("name") != g.at("name") || e.at("args").at("start_ns") != g.at("start_ns"))
                    continue;
                ++matches;
                QCOMPARE(e.at("pid").get<int>(), g.at("pid").get<int>());
                QCOMPARE(e.at("tid").get<int>(), g.at("tid").get<int>());
                QCOMPARE(nsOfUs(e.at("ts")), g.at("ts_ns").get<std::int64_t>());
                QCOMPARE(nsOfUs(e.at("dur")), g.at("dur_ns").get<std::int64_t>());
                QCOMPARE(
                    e.at("args").at("start_ns").get<std::int64_t>() + e.at("args").at("dur_ns").get<std::int64_t>(),
                    g.at("end_ns").get<std::int64_t>());
                QVERIFY(e.at("args").at("instruction_id") == g.at("instruction_id"));
                QVERIFY(e.at("args").at("delegated") == g.at("delegated"));
                QCOMPARE(e.at("args").at("run").get<int>(), 0);
            }
            QCOMPARE(matches, 1);
        }
        // µs with exactly three decimals, written as such (no float noise).
        QVERIFY(text.find("\"ts\":2.772,\"dur\":13.651") != std::string::npos);
        QVERIFY(text.find("\"name\":\"Execute (block 1, 1 runs)\"") != std::string::npos);
    }

    void selection()
    {
        auto s = test::loadSessionOrDie(test::sharedFixture("runtime/add_pte_50runs/etdump.etdp"));
        TraceOptions o;
        o.block = 1;
        o.firstRun = 10;
        o.lastRun = 12;
        const auto events = completeEvents(json::parse(traceOf(*s, o)));
        QCOMPARE(events.size(), std::size_t(3 * 3)); // 3 runs × (native_call, OPERATOR_CALL, Method::execute)
        for (const auto &e : events) {
            QCOMPARE(e.at("pid").get<int>(), 2);
            const int run = e.at("args").at("run");
            QVERIFY(run >= 10 && run <= 12);
        }
        o.block = 7;
        auto bad = writeChromeTrace(*s, o, [](std::string_view) { return true; });
        QVERIFY(!bad);
        QVERIFY(bad.error().message().find("no block 7") != std::string::npos);
        QVERIFY(!parseRunRange("3-1"));
        QVERIFY(!parseRunRange("x"));
        QCOMPARE(*parseRunRange("4")->first, std::size_t(4));
    }

    void cyclesNeedAClockRate()
    {
        SessionInputs in;
        in.etdump = test::sharedFixture("runtime/add_pte_intermediates/etdump.etdp");
        in.time.source = TimeScale::Cycles;
        in.time.target = TimeScale::Cycles;
        auto s = loadSession(in);
        QVERIFY(s.ok());
        auto r = writeChromeTrace(**s, {}, [](std::string_view) { return true; });
        QVERIFY(!r);
        QVERIFY(r.error().message().find("--cycles-per-second") != std::string::npos);

        in.time.target = TimeScale::MS;
        in.time.cyclesPerSecond = 2e9; // 2 GHz: one cycle is 0.5 ns
        auto s2 = loadSession(in);
        QVERIFY(s2.ok());
        const auto events = completeEvents(json::parse(traceOf(**s2)));
        for (const auto &e : events) {
            const double cycles
                = e.at("args").at("end_cycles").get<double>() - e.at("args").at("start_cycles").get<double>();
            QVERIFY(std::abs(e.at("dur").get<double>() - cycles / 2.0 / 1000.0) < 0.001);
        }
    }

    void writeFailureStops()
    {
        auto s = test::loadSessionOrDie(test::sharedFixture("runtime/cnn_mlp_50runs/etdump.etdp"));
        TraceOptions o;
        o.chunkSize = 4096;
        int calls = 0;
        auto r = writeChromeTrace(*s, o, [&](std::string_view) { return ++calls < 2; });
        QVERIFY(!r);
        QCOMPARE(calls, 2);
    }
};

QTEST_GUILESS_MAIN(TstChromeTrace)
#include "tst_chrometrace.moc"
