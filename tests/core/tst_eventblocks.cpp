// EventBlock construction (inspector-semantics.md §1-§2) on real files and on synthetic files
// written with the test writer for what the real files lack. Expected numbers are worked out
// by hand from the timestamps written, following the formulas of the semantics document.
#include "etdumpwriter.h"
#include "events/eventblockbuilder.h"
#include "testpaths.h"

#include <QTest>
#include <cmath>

using namespace etscope;

namespace {
template <typename T> std::vector<std::remove_const_t<T>> toVector(std::span<T> s)
{
    return { s.begin(), s.end() };
}
std::vector<EventBlock> build(const std::string &bytes, InspectorOptions opt = {})
{
    auto f = readETDump(*MappedFile::fromBytes("synthetic.etdp", bytes));
    if (!f.ok())
        qFatal("%s", f.error().message().c_str());
    auto blocks = buildEventBlocks(**f, opt);
    if (!blocks.ok())
        qFatal("%s", blocks.error().message().c_str());
    return std::move(blocks.value());
}

test::ProfileSpec profile(const char *name, int instr, std::uint64_t s, std::uint64_t e, int chain = 0)
{
    test::ProfileSpec p;
    if (name)
        p.name = name;
    p.instructionId = instr;
    p.chainIndex = chain;
    p.startTime = s;
    p.endTime = e;
    return p;
}
} // namespace

class TstEventBlocks : public QObject
{
    Q_OBJECT
private slots:
    void tutorial()
    {
        // §12: two blocks; Default 2 events, Execute 29 with Method::execute last.
        auto f = readETDump(test::sharedFixture("upstream/docs_tutorial.etdp"));
        QVERIFY(f.ok());
        auto blocks = buildEventBlocks(**f);
        QVERIFY(blocks.ok());
        QCOMPARE(blocks->size(), std::size_t(2));
        const auto &def = (*blocks)[0];
        QCOMPARE(def.events.size(), std::size_t(2));
        QCOMPARE(def.events[0].name, std::string("Method::init"));
        QCOMPARE(def.events[0].perfData->avg, (421538.0 - 399054.0) / 1e6); // 0.022484
        const auto &exe = (*blocks)[1];
        QCOMPARE(exe.events.size(), std::size_t(29));
        QCOMPARE(exe.events.back().name, std::string("Method::execute"));
        QCOMPARE(exe.events.back().chainIndex, std::int64_t(-1));
        QCOMPARE(exe.events[0].name, std::string("native_call_convolution.out"));
        QCOMPARE(exe.events[1].name, std::string("OPERATOR_CALL"));
        QCOMPARE(exe.events[1].perfData->raw.size(), std::size_t(1));
        QCOMPARE(exe.events[1].perfData->avg, (972440.0 - 425624.0) / 1e6); // 0.546816, §12
        QVERIFY(!exe.events[0].isDelegatedOp);
        QVERIFY(exe.events[0].opTypes().empty());
    }

    void fiftyRunsMerge()
    {
        // 51 RunData (1 Default + 50 Execute with the same signature) -> 2 blocks.
        auto f = readETDump(test::sharedFixture("runtime/cnn_mlp_50runs/etdump.etdp"));
        QVERIFY(f.ok());
        auto blocks = buildEventBlocks(**f);
        QVERIFY(blocks.ok());
        QCOMPARE(blocks->size(), std::size_t(2));
        const auto &exe = (*blocks)[1];
        QCOMPARE(exe.runIndices.size(), std::size_t(50));
        // 28 instructions x (native_call + OPERATOR_CALL) + Method::execute.
        QCOMPARE(exe.events.size(), std::size_t(57));
        for (const Event &e : exe.events) {
            QCOMPARE(e.perfData->raw.size(), std::size_t(50));
            QCOMPARE(e.startTimes().size(), std::size_t(50));
        }
    }

    void delegates()
    {
        test::ETDumpWriter w;
        w.beginRun("Execute");
        test::ProfileSpec d1 = profile(nullptr, 2, 33050132, 33051132);
        d1.name.reset();
        d1.delegateDebugIdInt = 3;
        d1.delegateDebugMetadata = std::string("\x01\x02\x03", 3);
        w.addProfile(d1);
        test::ProfileSpec d2 = profile(nullptr, 2, 100, 400);
        d2.name.reset();
        d2.delegateDebugIdStr = "Conv2d #1";
        d2.delegateDebugMetadata = std::string();
        w.addProfile(d2);
        w.addProfile(profile("DELEGATE_CALL", 2, 50, 33051200));
        auto blocks = build(w.finish());
        const auto &ev = blocks.at(0).events;
        QCOMPARE(ev.size(), std::size_t(3));
        QCOMPARE(ev[0].name, std::string("3"));
        QVERIFY(ev[0].isDelegatedOp);
        QCOMPARE(std::get<std::int64_t>(ev[0].delegateDebugIdentifier()), std::int64_t(3));
        QCOMPARE(ev[0].delegateDebugMetadatas(), std::vector<std::string> { std::string("\x01\x02\x03", 3) });
        // Delegated durations are converted before subtracting: e/1e6 - s/1e6 (Python gives
        // 0.0010000000000047748 here, not 0.001).
        QCOMPARE(ev[0].perfData->avg, 33051132.0 / 1e6 - 33050132.0 / 1e6);
        QCOMPARE(ev[0].perfData->avg, 0.0010000000000047748);
        QCOMPARE(ev[1].name, std::string("Conv2d #1"));
        QVERIFY(ev[1].delegateDebugMetadatas().empty()); // all empty: not kept
        QCOMPARE(ev[2].name, std::string("DELEGATE_CALL"));
        QVERIFY(!ev[2].isDelegatedOp);
    }

    void wrapAround()
    {
        test::ETDumpWriter w;
        w.beginRun("Execute");
        w.addProfile(profile("native_call_relu.out", 0, 0xFFFFFF00u, 0x100));
        w.addProfile(profile("native_call_add.out", 1, 0x100000000ull + 5, 3));
        auto blocks = build(w.finish());
        const auto &ev = blocks.at(0).events;
        // (2^32 - 1 - 0xFFFFFF00) + 0x100 = 255 + 256 ticks (the Inspector's formula).
        QCOMPARE(ev[0].perfData->avg, 511.0 / 1e6);
        QVERIFY(std::isnan(ev[1].perfData->avg)); // the Inspector raises; we flag it
        QCOMPARE(blocks[0].warnings.size(), std::size_t(1));
    }

    void loopKeepsLastAtFirstPosition()
    {
        test::ETDumpWriter w;
        w.beginRun("Execute");
        w.addProfile(profile("native_call_mul.out", 4, 0, 10));
        w.addProfile(profile("native_call_add.out", 5, 20, 25));
        w.addProfile(profile("native_call_mul.out", 4, 30, 70));
        auto blocks = build(w.finish());
        const auto &ev = blocks.at(0).events;
        QCOMPARE(ev.size(), std::size_t(2));
        QCOMPARE(ev[0].name, std::string("native_call_mul.out"));
        QCOMPARE(toVector(ev[0].perfData->raw), std::vector<double> { 40.0 / 1e6 });
        QCOMPARE(toVector(ev[0].startTimes()), std::vector<std::uint64_t> { 30 });
    }

    void differentSignaturesMakeBlocks()
    {
        test::ETDumpWriter w;
        for (int run = 0; run < 3; ++run) {
            w.beginRun("Execute");
            w.addProfile(profile("native_call_relu.out", 0, 100 * run, 100 * run + 10 + run));
            if (run == 1)
                w.addProfile(profile("native_call_add.out", 1, 0, 1)); // other control-flow path
        }
        auto blocks = build(w.finish());
        QCOMPARE(blocks.size(), std::size_t(2));
        QCOMPARE(blocks[0].name, std::string("Execute"));
        QCOMPARE(blocks[1].name, std::string("Execute"));
        QCOMPARE(blocks[0].runIndices, (std::vector<std::size_t> { 0, 2 }));
        QCOMPARE(toVector(blocks[0].events[0].perfData->raw), (std::vector<double> { 10 / 1e6, 12 / 1e6 }));
        QCOMPARE(blocks[1].events.size(), std::size_t(2));
    }

    void outputsAndScalarOutputs()
    {
        test::ETDumpWriter w;
        w.beginRun("Execute");
        w.addProfile(profile("native_call_relu.out", 0, 0, 10));
        test::DebugSpec inter;
        inter.instructionId = 0;
        inter.tensors = { { ScalarType::Float, { 2 }, {}, 48 } };
        w.addDebug(inter);
        w.addProfile(profile("Method::execute", 0, 0, 20, -1));
        test::DebugSpec out;
        out.chainIndex = ~0ull;
        out.instructionId = 0;
        out.output = true;
        out.tensors = { { ScalarType::Float, { 2 }, {}, 112 } };
        w.addDebug(out);
        test::DebugSpec scalar; // scalar outputs carry no output flag (formats.md §1.5)
        scalar.chainIndex = ~0ull;
        scalar.instructionId = 0;
        scalar.kind = test::DebugSpec::Kind::Int;
        scalar.intValue = 42;
        w.addDebug(scalar);
        auto blocks = build(w.finish());
        const auto &b = blocks.at(0);
        QCOMPARE(b.runOutput.size(), std::size_t(1));
        QCOMPARE(b.runOutput[0].tensors[0].offset, std::int64_t(112));
        QCOMPARE(b.events.size(), std::size_t(3));
        QCOMPARE(b.events[0].debugData().size(), std::size_t(1)); // relu shares the key with its output
        QCOMPARE(b.events[2].name, std::string()); // unnamed scalar-output event
        QVERIFY(!b.events[2].perfData);
        QCOMPARE(b.events[2].debugData().at(0).intValue, std::int64_t(42));
    }

    void debugDataDifferingAcrossRuns()
    {
        test::DebugBufferWriter buf;
        const std::vector<float> a { 1, 2 }, c { 1, 3 };
        const auto oa = buf.appendValues(a), ob = buf.appendValues(a), oc = buf.appendValues(c);
        test::ETDumpWriter w;
        for (auto off : { oa, ob, oc }) {
            w.beginRun("Execute");
            w.addProfile(profile("native_call_relu.out", 0, 0, 10));
            test::DebugSpec d;
            d.instructionId = 0;
            d.tensors = { { ScalarType::Float, { 2 }, {}, off } };
            w.addDebug(d);
        }
        const std::string etdump = w.finish();
        auto buffer = DebugBuffer::fromFile(MappedFile::fromBytes("buf.bin", buf.finish(1024)));
        InspectorOptions opt;
        opt.debugBuffer = buffer.get();
        auto blocks = build(etdump, opt);
        QCOMPARE(blocks.size(), std::size_t(1));
        QVERIFY(blocks[0].events[0].debugDataDiffersAcrossRuns); // third run differs
        QCOMPARE(blocks[0].events[0].debugData()[0].tensors[0].offset, oa);
        // Without the third run nothing differs.
        test::ETDumpWriter w2;
        for (auto off : { oa, ob }) {
            w2.beginRun("Execute");
            w2.addProfile(profile("native_call_relu.out", 0, 0, 10));
            test::DebugSpec d;
            d.instructionId = 0;
            d.tensors = { { ScalarType::Float, { 2 }, {}, off } };
            w2.addDebug(d);
        }
        auto same = build(w2.finish(), opt);
        QVERIFY(!same[0].events[0].debugDataDiffersAcrossRuns);
    }

    void allocationSummary()
    {
        test::ETDumpWriter w;
        w.beginRun("Allocations");
        w.addAllocator("method_allocator");
        w.addAllocator("planned_memory");
        w.addAllocation(1, 100);
        w.addAllocation(1, 300);
        w.addAllocation(2, 4096);
        w.addAllocation(3, 1); // names no registered allocator
        auto blocks = build(w.finish());
        const auto &b = blocks.at(0);
        QCOMPARE(b.events.size(), std::size_t(0));
        QCOMPARE(b.allocationEventCount, std::uint64_t(4));
        QCOMPARE(b.allocators.size(), std::size_t(2));
        QCOMPARE(b.allocators[0].name, std::string("method_allocator"));
        QCOMPARE(b.allocators[0].allocationCount, std::uint64_t(2));
        QCOMPARE(b.allocators[0].totalBytes, std::uint64_t(400));
        QCOMPARE(b.allocators[0].maxBytes, std::uint64_t(300));
        QCOMPARE(b.allocators[1].totalBytes, std::uint64_t(4096));
        QCOMPARE(b.warnings.size(), std::size_t(1));
    }

    void realAllocationFixture()
    {
        // The Inspector fails on this file; we keep its 301 allocation events (README).
        auto f = readETDump(test::sharedFixture("runtime/cnn_mlp_alloc_events/etdump.etdp"));
        QVERIFY(f.ok());
        auto blocks = buildEventBlocks(**f);
        QVERIFY(blocks.ok());
        std::uint64_t total = 0;
        for (const auto &b : *blocks)
            total += b.allocationEventCount;
        QCOMPARE(total, std::uint64_t(301));
    }

    void timeScales()
    {
        test::ETDumpWriter w;
        w.beginRun("Execute");
        w.addProfile(profile("native_call_relu.out", 0, 1000, 4000));
        const std::string bytes = w.finish();
        InspectorOptions opt;
        opt.time = { TimeScale::NS, TimeScale::US, std::nullopt };
        QCOMPARE(build(bytes, opt)[0].events[0].perfData->avg, 3000.0 / 1000.0);
        opt.time = { TimeScale::MS, TimeScale::NS, std::nullopt }; // scale 1e3/1e9, a division
        QCOMPARE(build(bytes, opt)[0].events[0].perfData->avg, 3000.0 / (1e3 / 1e9));
        opt.time = { TimeScale::Cycles, TimeScale::Cycles, std::nullopt };
        QCOMPARE(build(bytes, opt)[0].events[0].perfData->avg, 3000.0);
        opt.time = { TimeScale::Cycles, TimeScale::US, 2e9 }; // 2 GHz: 3000 cycles = 1.5 us
        QCOMPARE(build(bytes, opt)[0].events[0].perfData->avg, 1.5);
        opt.time = { TimeScale::Cycles, TimeScale::MS, std::nullopt };
        auto f = readETDump(*MappedFile::fromBytes("c.etdp", bytes));
        auto res = buildEventBlocks(**f, opt);
        QVERIFY(!res.ok());
        QCOMPARE(res.error().code, ErrorCode::InvalidArgument);
    }

    void blockWithoutEventsVectorIsSkipped()
    {
        test::ETDumpWriter w;
        w.beginRun("Empty", -1, false);
        w.beginRun("Execute");
        w.addProfile(profile("native_call_relu.out", 0, 0, 1));
        auto blocks = build(w.finish());
        QCOMPARE(blocks.size(), std::size_t(1));
        QCOMPARE(blocks[0].name, std::string("Execute"));
    }
};

QTEST_GUILESS_MAIN(TstEventBlocks)
#include "tst_eventblocks.moc"
