// Recording-wide rules shared by the window, the CLI and Python (core/events/blockstats.h).
// Expected values come from outside the code under test: the fixture READMEs (how many
// executions were run, how many instructions the program has), the upstream Inspector's TSV of
// the same ETDump (tests/data/core/expected, for the slowest kernel) and Python's
// statistics.stdev (for the sample standard deviation).
#include "events/blockstats.h"
#include "testpaths.h"
#include "testsession.h"

#include <QFile>
#include <QTest>

#include <cmath>

using namespace etscope;

class TstBlockStats : public QObject
{
    Q_OBJECT
private slots:
    void runsAreExecutions()
    {
        // etdump_runner --num_executions=50: the load-time Default block is not a run.
        auto s = test::loadSessionOrDie(test::sharedFixture("runtime/cnn_mlp_50runs/etdump.etdp"));
        const RecordingCounts c = countRecording(s->blocks);
        QCOMPARE(c.runs, std::size_t(50));
        // Default block: Method::init + Program::load_method. Execute block: Method::execute
        // and, per KernelCall instruction (28 in the README), the kernel and its OPERATOR_CALL.
        QCOMPARE(c.events, std::size_t(2 + 1 + 2 * 28));
        auto alloc = test::loadSessionOrDie(test::sharedFixture("runtime/cnn_mlp_alloc_events/etdump.etdp"));
        QCOMPARE(countRecording(alloc->blocks).runs, std::size_t(3)); // --num_executions=3
    }

    void runsWithoutExecuteBlock()
    {
        // No block executed the method: the largest block's runs.
        EventBlock a, b;
        a.runIndices = { 0, 1 };
        b.runIndices = { 2, 3, 4 };
        QCOMPARE(countRecording({ a, b }).runs, std::size_t(3));
        QCOMPARE(countRecording({}).runs, std::size_t(0));
    }

    void slowestKernelMatchesTheInspectorTable()
    {
        // The largest avg (ms) among the non-framework rows of the Inspector's own TSV.
        QFile tsv(QString::fromStdString(test::testData("core/expected/cnn_mlp_50runs.tsv")));
        QVERIFY(tsv.open(QIODevice::ReadOnly));
        // The first field of every line is the unnamed pandas index (empty in the header).
        auto fields = [&tsv] {
            QByteArray line = tsv.readLine();
            if (line.endsWith('\n'))
                line.chop(1);
            return line.split('\t');
        };
        const QList<QByteArray> header = fields();
        const qsizetype nameCol = header.indexOf("event_name"), avgCol = header.indexOf("avg (ms)");
        QVERIFY(nameCol >= 0 && avgCol >= 0);
        QByteArray expected;
        double best = -1;
        while (!tsv.atEnd()) {
            const QList<QByteArray> f = fields();
            const QByteArray name = f.value(nameCol);
            if (isFrameworkEventName(name.toStdString()))
                continue;
            if (const double avg = f.value(avgCol).toDouble(); avg > best) {
                best = avg;
                expected = name;
            }
        }
        QCOMPARE(expected, QByteArray("native_call_convolution.out"));

        auto s = test::loadSessionOrDie(test::sharedFixture("runtime/cnn_mlp_50runs/etdump.etdp"));
        const auto slowest = slowestKernel(s->blocks);
        QVERIFY(slowest);
        const Event &e = s->blocks[std::size_t(slowest->block)].events[std::size_t(slowest->event)];
        QCOMPARE(QByteArray(e.name.data(), qsizetype(e.name.size())), expected);
        QVERIFY(std::abs(e.perfData->avg - best) < 1e-12);

        const auto byName = findEventByName(s->blocks, "native_call_convolution.out");
        QVERIFY(byName);
        QCOMPARE(s->blocks[std::size_t(byName->block)].events[std::size_t(byName->event)].name,
            std::string_view("native_call_convolution.out"));
        QVERIFY(!findEventByName(s->blocks, "no such event"));
        QVERIFY(!slowestKernel({}));
    }

    void filterEventsDropsEmptyBlocks()
    {
        auto s = test::loadSessionOrDie(test::sharedFixture("runtime/cnn_mlp_50runs/etdump.etdp"));
        QCOMPARE(s->blocks.size(), std::size_t(2));
        // Keep only the Execute block's kernels (not OPERATOR_CALL, not Method::execute): 28.
        const auto kept = filterEvents(s->blocks, [&](int b, int e) {
            const Event &ev = s->blocks[std::size_t(b)].events[std::size_t(e)];
            return !ev.isFramework() && !ev.isOperatorCall();
        });
        QCOMPARE(kept.size(), std::size_t(1));
        QCOMPARE(kept.front().name, s->blocks[1].name);
        QCOMPARE(kept.front().events.size(), std::size_t(28));
        QCOMPARE(kept.front().runIndices, s->blocks[1].runIndices);
        QVERIFY(filterEvents(s->blocks, [](int, int) { return false; }).empty());
    }

    void stddevIsTheSampleOne()
    {
        // statistics.stdev([1, 2, 3, 4]) == 1.2909944487358056
        const double raw[] = { 1, 2, 3, 4 };
        QCOMPARE(sampleStddev(raw, 2.5), 1.2909944487358056);
        const double one[] = { 7 };
        QCOMPARE(sampleStddev(one, 7), 0.0);
        QCOMPARE(sampleStddev({}, 0), 0.0);
    }
};

QTEST_GUILESS_MAIN(TstBlockStats)
#include "tst_blockstats.moc"
