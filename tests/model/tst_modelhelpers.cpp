// Pure helpers behind the views: traceback parsing, histogram binning, timeline lanes.
// Expected values are worked out by hand in the comments next to each case.
#include "histogrambins.h"
#include "stacktrace.h"
#include "timelinelayout.h"

#include "session/session.h"

#include <QtTest>

#include <numeric>

using namespace etscope;

class TestModelHelpers : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void traceback()
    {
        const QString text = QStringLiteral("  File \"/home/u/model.py\", line 88, in forward\n"
                                            "    x = self.conv(x)\n"
                                            "  File \"/usr/lib/torch/nn/modules/conv.py\", line 454, in _conv_forward\n"
                                            "    return F.conv2d(input, weight, bias)\n"
                                            "some unrelated line\n");
        const auto frames = parsePythonTraceback(text);
        QCOMPARE(frames.size(), 2);
        QCOMPARE(frames[0].file, QStringLiteral("/home/u/model.py"));
        QCOMPARE(frames[0].line, 88);
        QCOMPARE(frames[0].function, QStringLiteral("forward"));
        QCOMPARE(frames[0].code, QStringLiteral("x = self.conv(x)"));
        QCOMPARE(frames[1].line, 454);
        QCOMPARE(frames[1].function, QStringLiteral("_conv_forward"));
        QVERIFY(parsePythonTraceback(QStringLiteral("no frames here")).isEmpty());
    }

    void histogram()
    {
        // 1..100: IQR = 75.25 - 25.75 = 49.5, FD width = 2*49.5/100^(1/3) = 21.33, range 99 →
        // ceil(4.64) = 5 bins of width 19.8, edges 1, 20.8, 40.6, 60.4, 80.2, 100: 20 values each.
        std::vector<double> v(100);
        std::iota(v.begin(), v.end(), 1.0);
        const auto h = computeHistogram(v);
        QCOMPARE(h.counts.size(), 5);
        QCOMPARE(h.lower, 1.0);
        QCOMPARE(h.binWidth, 19.8);
        QCOMPARE(h.counts, (QList<int> { 20, 20, 20, 20, 20 }));
        // All equal → one bin.
        QCOMPARE(computeHistogram(std::vector<double> { 3, 3, 3 }).counts, QList<int> { 3 });
        // Equal up to a conversion's rounding (xnnpack_int8's 0.002 ms operator, whose runs come out
        // 1e-10 ms apart after ns timestamps are scaled and subtracted) → one bin, no sub-ppm axis.
        QCOMPARE(
            computeHistogram(std::vector<double> { 0.002, 0.002 + 2e-10, 0.002 - 1e-10 }).counts, QList<int> { 3 });
        // One part in 10^5 apart is a real difference: binned.
        QVERIFY(computeHistogram(std::vector<double> { 1.0, 1.00001, 1.00002 }).counts.size() > 1);
        // Zero IQR with an outlier: Sturges, ceil(log2(8)) + 1 = 4 bins.
        const auto s = computeHistogram(std::vector<double> { 1, 1, 1, 1, 1, 1, 1, 9 });
        QCOMPARE(s.counts, (QList<int> { 7, 0, 0, 1 }));
        QVERIFY(computeHistogram({}).counts.isEmpty());
    }

    void timelineNesting()
    {
        // docs_tutorial Execute (§12): Method::execute starts at 425313 and encloses everything;
        // OPERATOR_CALL of instruction 0 encloses native_call_convolution.out (426786).
        SessionInputs in;
        in.etdump = ETSCOPE_SHARED_DIR "/fixtures/upstream/docs_tutorial.etdp";
        in.time.target = TimeScale::NS;
        auto session = loadSession(in);
        QVERIFY(session.ok());
        const EventBlock &execute = session.value()->blocks[1];
        const auto layout = layoutTimeline(execute, 0, 1.0);
        QCOMPARE(int(layout.bars.size()), 29);
        QCOMPARE(layout.laneCount, 3);
        QCOMPARE(execute.events[layout.bars[0].event].name, std::string("Method::execute"));
        QCOMPARE(layout.bars[0].lane, 0);
        QCOMPARE(layout.bars[0].start, 0.0);
        QCOMPARE(layout.bars[0].end, 1898821.0);
        QCOMPARE(execute.events[layout.bars[1].event].name, std::string("OPERATOR_CALL"));
        QCOMPARE(layout.bars[1].lane, 1);
        QCOMPARE(execute.events[layout.bars[2].event].name, std::string("native_call_convolution.out"));
        QCOMPARE(layout.bars[2].lane, 2);
        QCOMPARE(layout.bars[2].start, double(426786 - 425313));
    }
};

QTEST_GUILESS_MAIN(TestModelHelpers)
#include "tst_modelhelpers.moc"
