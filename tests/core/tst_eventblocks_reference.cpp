// The EventBlock builder against a naive reference written straight from inspector-semantics.md
// §1.1-§1.4 and §2 (ordered lists and linear searches, no hashing, no record codes), on random
// synthetic ETDumps built to hit what the fast paths special-case: keys whose records are not
// adjacent, equal signatures under different chains, loops repeating a signature, more entries
// of one instruction id than the builder compares one by one, output debug events opening a
// key, delegate ids, runs that merge and runs that do not. The reference works on the specs the
// test wrote, not on the decoded file.
#include "etdumpwriter.h"
#include "events/eventblockbuilder.h"

#include <QTest>

#include <map>
#include <optional>
#include <random>
#include <tuple>

using namespace etscope;

namespace {

// One event as written, in file order.
struct Written {
    bool isProfile = true;
    test::ProfileSpec p;
    test::DebugSpec d;
};

struct WrittenRun {
    std::string name;
    std::vector<Written> events;
};

// (negative, bits): profile chains are signed, debug chains unsigned (§1.1 keys on the raw ints).
using Chain = std::pair<bool, std::uint64_t>;
using Key = std::tuple<std::int32_t, Chain, std::int32_t, std::string>;
// (present, name, instr or none, delegate int or none, delegate str or none); none = nullopt.
using Part = std::tuple<bool, std::string, std::optional<std::int32_t>, std::optional<std::int32_t>,
    std::optional<std::string>>;
using Signature = std::tuple<std::int32_t, Part, Part>;

Part partOf(const std::optional<std::string> &name, std::int32_t instr, std::int32_t delegateInt,
    const std::optional<std::string> &delegateStr)
{
    return { true, name.value_or(""), instr == -1 ? std::nullopt : std::optional(instr),
        delegateInt == -1 ? std::nullopt : std::optional(delegateInt),
        delegateStr && !delegateStr->empty() ? delegateStr : std::nullopt };
}

struct RefEvent {
    std::string name;
    bool delegated = false;
    std::int32_t instructionId = 0;
    std::int64_t chain = 0;
    std::vector<double> raw;
    std::vector<std::uint64_t> starts;
    std::vector<std::int64_t> debugValues; // first run's debug ints
};

struct RefBlock {
    std::string name;
    std::vector<Signature> signature;
    std::vector<std::size_t> runs;
    std::vector<RefEvent> events;
};

std::vector<RefBlock> reference(const std::vector<WrittenRun> &runs)
{
    std::vector<RefBlock> blocks;
    for (std::size_t r = 0; r < runs.size(); ++r) {
        // §1.1: InstructionEvents in order of first appearance of their key.
        struct InstructionEvent {
            Key key;
            std::vector<const test::ProfileSpec *> profiles;
            std::vector<const test::DebugSpec *> debugs;
        };
        std::vector<InstructionEvent> ies;
        for (const Written &w : runs[r].events) {
            const Key key = w.isProfile
                ? Key { w.p.instructionId, Chain { w.p.chainIndex < 0, std::uint64_t(std::int64_t(w.p.chainIndex)) },
                      w.p.delegateDebugIdInt, w.p.delegateDebugIdStr.value_or("") }
                : Key { w.d.instructionId, Chain { false, w.d.chainIndex }, w.d.delegateDebugIdInt,
                      w.d.delegateDebugIdStr.value_or("") };
            auto it = std::find_if(ies.begin(), ies.end(), [&](const InstructionEvent &ie) { return ie.key == key; });
            if (it == ies.end())
                it = ies.insert(ies.end(), InstructionEvent { key, {}, {} });
            if (w.isProfile)
                it->profiles.push_back(&w.p);
            else if (!w.d.output)
                it->debugs.push_back(&w.d);
        }
        // §1.2: signatures, the last occurrence kept at the first position.
        struct Entry {
            Signature sig;
            const test::ProfileSpec *profile;
            const InstructionEvent *ie;
        };
        std::vector<Entry> entries;
        for (const InstructionEvent &ie : ies) {
            if (ie.profiles.empty() && ie.debugs.empty())
                continue;
            Part debugPart {};
            if (!ie.debugs.empty()) {
                const auto *d = ie.debugs.front();
                debugPart = partOf(d->name, d->instructionId, d->delegateDebugIdInt, d->delegateDebugIdStr);
            }
            auto add = [&](const test::ProfileSpec *p) {
                Part profilePart {};
                if (p)
                    profilePart = partOf(p->name, p->instructionId, p->delegateDebugIdInt, p->delegateDebugIdStr);
                const Signature sig { std::get<0>(ie.key), profilePart, debugPart };
                auto it = std::find_if(entries.begin(), entries.end(), [&](const Entry &e) { return e.sig == sig; });
                if (it == entries.end())
                    entries.push_back({ sig, p, &ie });
                else
                    *it = { sig, p, &ie };
            };
            if (ie.profiles.empty())
                add(nullptr);
            for (const auto *p : ie.profiles)
                add(p);
        }
        // §1.3: merge runs with equal run signatures.
        std::vector<Signature> runSig;
        for (const Entry &e : entries)
            runSig.push_back(e.sig);
        auto b = std::find_if(blocks.begin(), blocks.end(),
            [&](const RefBlock &x) { return x.name == runs[r].name && x.signature == runSig; });
        const bool fresh = b == blocks.end();
        if (fresh) {
            b = blocks.insert(blocks.end(), RefBlock { runs[r].name, runSig, {}, {} });
            b->events.resize(entries.size());
        }
        b->runs.push_back(r);
        // §1.4 and §2 (default ns -> ms, the default converter for delegated events).
        for (std::size_t k = 0; k < entries.size(); ++k) {
            RefEvent &ev = b->events[k];
            const Entry &e = entries[k];
            if (fresh) {
                ev.instructionId = std::get<0>(e.sig);
                for (const Part *part : { &std::get<1>(e.sig), &std::get<2>(e.sig) }) {
                    const auto &[present, name, instr, dInt, dStr] = *part;
                    if (!present)
                        continue;
                    const std::string text = dInt ? std::to_string(*dInt) : dStr ? *dStr : name;
                    if (!text.empty())
                        ev.name = text;
                    ev.delegated = dInt || dStr;
                }
                if (e.profile)
                    ev.chain = e.profile->chainIndex;
                else
                    ev.chain = std::int64_t(e.ie->debugs.front()->chainIndex);
                for (const auto *d : e.ie->debugs)
                    ev.debugValues.push_back(d->intValue);
            }
            if (e.profile) {
                const double s = double(e.profile->startTime), end = double(e.profile->endTime);
                ev.raw.push_back(ev.delegated ? end / 1e6 - s / 1e6 : (end - s) / 1e6);
                ev.starts.push_back(e.profile->startTime);
            }
        }
    }
    return blocks;
}

// Random runs over a small alphabet so that keys and signatures collide often.
std::vector<WrittenRun> randomRuns(std::mt19937 &rng, bool crowded)
{
    auto pick = [&rng](int n) { return int(std::uniform_int_distribution<int>(0, n - 1)(rng)); };
    const char *names[] = { "native_call_add.out", "native_call_mul.out", "OPERATOR_CALL", "Method::execute" };
    std::vector<WrittenRun> runs;
    const int runCount = 1 + pick(6);
    for (int r = 0; r < runCount; ++r) {
        if (!runs.empty() && pick(3) == 0) { // a repeat of an earlier run: merges, with new times
            WrittenRun copy = runs[std::size_t(pick(int(runs.size())))];
            for (Written &w : copy.events) {
                w.p.startTime += 1000 + std::uint64_t(pick(500));
                w.p.endTime = w.p.startTime + 1 + std::uint64_t(pick(3000)); // no wrap-around (§2)
            }
            runs.push_back(std::move(copy));
            continue;
        }
        WrittenRun run;
        run.name = pick(4) == 0 ? "Warmup" : "Execute";
        const int n = crowded ? 60 + pick(40) : 1 + pick(30);
        for (int i = 0; i < n; ++i) {
            Written w;
            const int instr = crowded ? 7 : pick(5) - (pick(8) == 0 ? 1 : 0);
            if (pick(4) != 0) {
                w.p.name = crowded ? "op" + std::to_string(pick(24)) : names[pick(4)];
                if (pick(10) == 0)
                    w.p.name.reset();
                w.p.instructionId = instr;
                w.p.chainIndex = pick(6) == 0 ? pick(3) - 1 : 0;
                if (pick(6) == 0)
                    w.p.delegateDebugIdInt = pick(3);
                else if (pick(8) == 0)
                    w.p.delegateDebugIdStr = pick(2) ? "gemm" : "conv";
                w.p.startTime = 100 * std::uint64_t(i) + std::uint64_t(pick(50));
                w.p.endTime = w.p.startTime + 1 + std::uint64_t(pick(3000));
            } else {
                w.isProfile = false;
                w.d.kind = test::DebugSpec::Kind::Int;
                w.d.intValue = pick(1000);
                w.d.instructionId = instr;
                w.d.chainIndex = pick(6) == 0 ? 1 : 0;
                w.d.output = pick(5) == 0;
                if (pick(8) == 0)
                    w.d.delegateDebugIdInt = pick(3);
                if (pick(3) == 0)
                    w.d.name = names[pick(4)];
            }
            run.events.push_back(std::move(w));
        }
        runs.push_back(std::move(run));
    }
    return runs;
}

std::string write(const std::vector<WrittenRun> &runs)
{
    test::ETDumpWriter w;
    for (const WrittenRun &run : runs) {
        w.beginRun(run.name);
        for (const Written &e : run.events)
            e.isProfile ? w.addProfile(e.p) : w.addDebug(e.d);
    }
    return w.finish();
}

} // namespace

class TstEventBlocksReference : public QObject
{
    Q_OBJECT
private slots:
    void matchesReference_data()
    {
        QTest::addColumn<bool>("crowded");
        QTest::newRow("mixed keys") << false;
        QTest::newRow("one instruction id, many signatures") << true;
    }

    void matchesReference()
    {
        QFETCH(bool, crowded);
        std::mt19937 rng(crowded ? 7 : 3);
        std::size_t merged = 0, events = 0;
        for (int iteration = 0; iteration < 300; ++iteration) {
            const auto runs = randomRuns(rng, crowded);
            auto file = readETDump(*MappedFile::fromBytes("random.etdp", write(runs)));
            QVERIFY2(file.ok(), file.ok() ? "" : file.error().message().c_str());
            auto blocks = buildEventBlocks(**file);
            QVERIFY(blocks.ok());
            const auto expected = reference(runs);
            QCOMPARE(blocks->size(), expected.size());
            for (std::size_t b = 0; b < expected.size(); ++b) {
                const EventBlock &got = (*blocks)[b];
                const RefBlock &want = expected[b];
                QCOMPARE(got.name, want.name);
                QCOMPARE(got.runIndices, want.runs);
                QCOMPARE(got.events.size(), want.events.size());
                merged += want.runs.size() > 1;
                for (std::size_t k = 0; k < want.events.size(); ++k) {
                    const Event &e = got.events[k];
                    const RefEvent &x = want.events[k];
                    const QByteArray where = QByteArray::number(iteration) + " block "
                        + QByteArray::number(qulonglong(b)) + " event " + QByteArray::number(qulonglong(k));
                    QVERIFY2(std::string(e.name) == x.name, where);
                    QVERIFY2(e.isDelegatedOp == x.delegated, where);
                    QVERIFY2(e.instructionId == x.instructionId, where);
                    QVERIFY2(e.chainIndex == x.chain, where);
                    const auto raw = e.perfData ? std::vector<double>(e.perfData->raw.begin(), e.perfData->raw.end())
                                                : std::vector<double> {};
                    QVERIFY2(raw == x.raw, where);
                    const auto starts = e.startTimes();
                    QVERIFY2(std::vector<std::uint64_t>(starts.begin(), starts.end()) == x.starts, where);
                    std::vector<std::int64_t> debugValues;
                    for (const RuntimeValue &v : e.debugData())
                        debugValues.push_back(v.intValue);
                    QVERIFY2(debugValues == x.debugValues, where);
                    ++events;
                }
            }
        }
        // The generator must have produced what the comparison is about.
        QVERIFY(merged > 20);
        QVERIFY(events > 3000);
    }
};

QTEST_GUILESS_MAIN(TstEventBlocksReference)
#include "tst_eventblocks_reference.moc"
