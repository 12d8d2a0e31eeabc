// Round trip of the test writer through the real reader, so later tests can trust it.
#include "etdump/etdumpfile.h"
#include "etdumpwriter.h"

#include <QTest>

using namespace etscope;

class TstETDumpWriter : public QObject
{
    Q_OBJECT
private slots:
    void roundTrip()
    {
        test::ETDumpWriter w;
        w.beginRun("Execute");
        w.addKernel("relu.out", 3, 1000, 50, 10);
        w.addProfile({ std::nullopt, 0, 4, 7, std::nullopt, std::string("\x01\x02", 2), 2000, 2500 });
        test::DebugSpec dbg;
        dbg.instructionId = 3;
        dbg.tensors = { { ScalarType::Half, { 2, 3 }, {}, 48 } };
        w.addDebug(dbg);
        w.beginRun("Empty", 5, false);
        const auto bytes = w.finish();
        QCOMPARE(bytes.substr(8, 4), std::string("ED00"));

        auto f = readETDump(*MappedFile::fromBytes("mem.etdp", bytes));
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().message().c_str());
        const ETDumpFile &e = **f;
        QCOMPARE(e.runs.size(), std::size_t(2));
        QCOMPARE(e.runs[0].events.size(), std::size_t(4));
        QCOMPARE(e.strings.str(e.runs[0].profileEvents[0].name), std::string("native_call_relu.out"));
        QCOMPARE(e.runs[0].profileEvents[0].startTime, std::uint64_t(1005));
        QCOMPARE(e.runs[0].profileEvents[0].endTime, std::uint64_t(1055));
        QCOMPARE(e.runs[0].profileEvents[2].delegateDebugIdInt, 7);
        QCOMPARE(e.strings.str(e.runs[0].profileEvents[2].delegateDebugMetadata), std::string("\x01\x02", 2));
        const auto &t = e.runs[0].debugEvents[0].value.tensors.at(0);
        QCOMPARE(t.dtype, ScalarType::Half);
        QCOMPARE(t.strides, (std::vector<std::int64_t> { 3, 1 }));
        QCOMPARE(t.offset, std::int64_t(48));
        QVERIFY(!e.runs[1].hasEvents);
        QCOMPARE(e.runs[1].bundledInputIndex, 5);
    }

    void bufferAlignment()
    {
        test::DebugBufferWriter b;
        const float x[3] = { 1, 2, 3 };
        QCOMPARE(b.append(x, sizeof x), std::int64_t(48)); // (16 + 48) % 64 == 0
        QCOMPARE(b.append(x, sizeof x), std::int64_t(112)); // next 64-byte boundary
        QCOMPARE(b.finish(1024).size(), std::size_t(1024));
    }
};

QTEST_GUILESS_MAIN(TstETDumpWriter)
#include "tst_etdumpwriter.moc"
