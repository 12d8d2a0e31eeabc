// Reader on real files (counts from each fixture's README.txt, written by the runtime's
// producer) and on broken input (every case must give a typed, one-line error naming the file).
#include "etdump/etdumpfile.h"
#include "etdumpwriter.h"
#include "testpaths.h"

#include <QFile>
#include <QTest>
#include <random>

using namespace etscope;

namespace {
std::string readBytes(const std::string &path)
{
    QFile f(QString::fromStdString(path));
    f.open(QIODevice::ReadOnly);
    return f.readAll().toStdString();
}

struct Kinds {
    std::size_t profile = 0, debug = 0, allocation = 0;
};
Kinds countKinds(const ETDumpFile &f)
{
    Kinds k;
    for (const auto &r : f.runs) {
        k.profile += r.profileEvents.size();
        k.debug += r.debugEvents.size();
        k.allocation += r.allocationEvents.size();
    }
    return k;
}
} // namespace

class TstETDumpReader : public QObject
{
    Q_OBJECT
private slots:
    void realFixtures_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<int>("runs");
        QTest::addColumn<int>("profile");
        QTest::addColumn<int>("debug");
        QTest::addColumn<int>("allocation");
        // From shared/fixtures/runtime/README.txt (table "run_data events kinds") and
        // formats.md §1.7 for the tutorial file.
        QTest::newRow("docs_tutorial") << u"upstream/docs_tutorial.etdp"_qs << 2 << 31 << 0 << 0;
        QTest::newRow("add_pte_50runs") << u"runtime/add_pte_50runs/etdump.etdp"_qs << 51 << 152 << 0 << 0;
        QTest::newRow("add_pte_intermediates") << u"runtime/add_pte_intermediates/etdump.etdp"_qs << 2 << 5 << 2 << 0;
        QTest::newRow("bundled_program_50runs")
            << u"runtime/bundled_program_50runs/etdump.etdp"_qs << 51 << 352 << 0 << 0;
        QTest::newRow("bundled_program_intermediates")
            << u"runtime/bundled_program_intermediates/etdump.etdp"_qs << 2 << 9 << 4 << 0;
        QTest::newRow("bundled_program_outputs_only")
            << u"runtime/bundled_program_outputs_only/etdump.etdp"_qs << 2 << 9 << 1 << 0;
        QTest::newRow("cnn_mlp_50runs") << u"runtime/cnn_mlp_50runs/etdump.etdp"_qs << 51 << 2852 << 0 << 0;
        QTest::newRow("cnn_mlp_alloc_events") << u"runtime/cnn_mlp_alloc_events/etdump.etdp"_qs << 5 << 173 << 6 << 301;
        QTest::newRow("cnn_mlp_intermediates") << u"runtime/cnn_mlp_intermediates/etdump.etdp"_qs << 2 << 59 << 33 << 0;
        QTest::newRow("xnnpack_mlp_intermediates")
            << u"runtime/xnnpack_mlp_intermediates/etdump.etdp"_qs << 2 << 17 << 10 << 0;
    }

    void realFixtures()
    {
        QFETCH(QString, fixture);
        QFETCH(int, runs);
        QFETCH(int, profile);
        QFETCH(int, debug);
        QFETCH(int, allocation);
        auto f = readETDump(test::sharedFixture(fixture.toStdString()));
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().message().c_str());
        QCOMPARE(int((*f)->runs.size()), runs);
        const Kinds k = countKinds(**f);
        QCOMPARE(int(k.profile), profile);
        QCOMPARE(int(k.debug), debug);
        QCOMPARE(int(k.allocation), allocation);
        QCOMPARE((*f)->version, 0u);
    }

    void tutorialDetails()
    {
        // formats.md §1.7: Default = Method::init then Program::load_method (chain -1, instr 0);
        // Execute ends with Method::execute. Times from inspector-semantics.md §12.
        auto f = readETDump(test::sharedFixture("upstream/docs_tutorial.etdp"));
        QVERIFY(f.ok());
        const auto &def = (*f)->runs[0];
        QCOMPARE(def.name, std::string("Default"));
        QCOMPARE(def.bundledInputIndex, -1);
        QCOMPARE((*f)->strings.str(def.profileEvents[0].name), std::string("Method::init"));
        QCOMPARE(def.profileEvents[0].chainIndex, -1);
        QCOMPARE(def.profileEvents[0].instructionId, 0);
        QCOMPARE(def.profileEvents[0].startTime, std::uint64_t(399054));
        const auto &exe = (*f)->runs[1];
        QCOMPARE(exe.profileEvents.size(), std::size_t(29));
        QCOMPARE((*f)->strings.str(exe.profileEvents.back().name), std::string("Method::execute"));
        QCOMPARE(exe.profileEvents[0].chainIndex, 0); // absent in the file: schema default
        QCOMPARE(exe.profileEvents[0].delegateDebugIdInt, -1);
    }

    void allocators()
    {
        // README: allocators method_allocator, planned_memory in block MethodLoadAllocations.
        auto f = readETDump(test::sharedFixture("runtime/cnn_mlp_alloc_events/etdump.etdp"));
        QVERIFY(f.ok());
        const auto &r = (*f)->runs[1];
        QCOMPARE(r.name, std::string("MethodLoadAllocations"));
        QCOMPARE(r.allocators, (std::vector<std::string> { "method_allocator", "planned_memory" }));
        QVERIFY(!r.allocationEvents.empty());
        QVERIFY(r.allocationEvents[0].allocatorId >= 1);
    }

    void badInput_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("code");
        const std::string real = readBytes(test::sharedFixture("upstream/docs_tutorial.etdp"));
        QTest::newRow("zero bytes") << QByteArray() << int(ErrorCode::Empty);
        QTest::newRow("3 bytes") << QByteArray("\x0c\x09\x00", 3) << int(ErrorCode::Truncated);
        for (std::size_t cut : { 11ul, 12ul, 100ul, 1000ul, real.size() - 1 })
            QTest::newRow(qPrintable(QStringLiteral("truncated at %1").arg(cut)))
                << QByteArray(real.data(), qsizetype(cut)) << int(ErrorCode::Truncated);
        std::string wrongId = real;
        wrongId.replace(8, 4, "BP08");
        QTest::newRow("wrong identifier") << QByteArray::fromStdString(wrongId) << int(ErrorCode::BadIdentifier);
        std::mt19937 rng(7);
        std::string random(4096, '\0');
        for (auto &c : random)
            c = static_cast<char>(rng());
        QTest::newRow("random bytes") << QByteArray::fromStdString(random) << int(ErrorCode::BadIdentifier);
        std::string garbage = real; // right header, garbage tables
        for (std::size_t i = 16; i < garbage.size(); i += 3)
            garbage[i] = static_cast<char>(0xff);
        QTest::newRow("corrupt body") << QByteArray::fromStdString(garbage) << int(ErrorCode::Corrupt);
        std::string smallPrefix = real;
        smallPrefix[0] = 4;
        smallPrefix[1] = smallPrefix[2] = smallPrefix[3] = 0;
        QTest::newRow("tiny size prefix") << QByteArray::fromStdString(smallPrefix) << int(ErrorCode::Corrupt);
    }

    void badInput()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(int, code);
        auto f = readETDump(*MappedFile::fromBytes("broken.etdp", bytes.toStdString()));
        QVERIFY(!f.ok());
        QCOMPARE(int(f.error().code), code);
        const std::string msg = f.error().message();
        QVERIFY2(msg.rfind("broken.etdp: ", 0) == 0, msg.c_str());
        QVERIFY(msg.find('\n') == std::string::npos);
    }

    void missingFile()
    {
        auto f = readETDump("/nonexistent/dir/x.etdp");
        QVERIFY(!f.ok());
        QCOMPARE(f.error().code, ErrorCode::Io);
        QVERIFY(f.error().message().find("/nonexistent/dir/x.etdp") != std::string::npos);
    }

    void eventLimit()
    {
        test::ETDumpWriter w;
        w.beginRun("Execute");
        for (int i = 0; i < 10; ++i)
            w.addKernel("relu.out", i, 100 * i, 10, 2);
        ETDumpReadOptions opt;
        opt.maxEvents = 5;
        auto f = readETDump(*MappedFile::fromBytes("many.etdp", w.finish()), opt);
        QVERIFY(!f.ok());
        QCOMPARE(f.error().code, ErrorCode::LimitExceeded);
    }
};

QTEST_GUILESS_MAIN(TstETDumpReader)
#include "tst_etdumpreader.moc"
