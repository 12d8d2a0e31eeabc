// An ETRecord of another program linked to an ETDump (issue 15 item 6): the linker must say so.
// Expected counts: the cnn_mlp fixture README lists 28 instructions (ids 0..27), and
// etrecord_expected.json (written by tests/tools/gen_etrecord_fixtures.py) gives the xnn_mlp
// ETRecord's forward debug_handle_map 4 entries (0..3), so 24 runtime instructions are unmatched.
// The xnn_mlp graph has no convolution, so no convolution kernel can be linked to its own op.
#include "etrecord/etrecord.h"
#include "etrecord/linker.h"
#include "session/session.h"

#include <QTest>

using namespace etscope;

namespace {
const std::string kData = ETSCOPE_TEST_DATA_DIR "/etrecord/";
const std::string kRuntime = ETSCOPE_SHARED_DIR "/fixtures/runtime/";

std::shared_ptr<const Session> load(const std::string &run, const std::string &etrecord)
{
    SessionInputs in;
    in.etdump = kRuntime + run + "/etdump.etdp";
    in.etrecord = kData + etrecord;
    auto s = loadSession(in);
    return s ? s.value() : nullptr;
}

bool anyWarningContains(const Session &s, const std::string &text)
{
    for (const std::string &w : s.warnings)
        if (w.find(text) != std::string::npos)
            return true;
    return false;
}
} // namespace

class TestETRecordMismatch : public QObject
{
    Q_OBJECT
private Q_SLOTS:

    void operatorNames()
    {
        QCOMPARE(kernelOperatorName("native_call_convolution.out"), std::string("convolution"));
        QCOMPARE(kernelOperatorName("native_call__softmax.out"), std::string("_softmax"));
        QCOMPARE(kernelOperatorName("Method::execute"), std::string());
        QCOMPARE(opTypeOperatorName("aten.convolution.default"), std::string("convolution"));
        QCOMPARE(opTypeOperatorName("convolution.default"), std::string("convolution"));
        QCOMPARE(opTypeOperatorName("aten::permute_copy"), std::string("permute_copy"));
    }

    void otherProgramIsReported()
    {
        auto s = load("cnn_mlp_intermediates", "xnn_mlp_etrecord.bin");
        QVERIFY(s);
        QVERIFY(anyWarningContains(*s, "ETRecord does not match this ETDump"));
        QVERIFY(anyWarningContains(*s, "24 of 28 runtime instructions have no debug_handle_map entry (4 entries)"));
        // The warning comes first and names the ETRecord, so the CLI and the window lead with it.
        QVERIFY(s->warnings.front().rfind(kData + "xnn_mlp_etrecord.bin: ETRecord does not match", 0) == 0);
    }

    void linkReportCounts()
    {
        SessionInputs in;
        in.etdump = kRuntime + "cnn_mlp_intermediates/etdump.etdp";
        auto s = loadSession(in);
        QVERIFY(s);
        auto record = readETRecord(kData + "xnn_mlp_etrecord.bin");
        QVERIFY(record);
        std::vector<EventBlock> blocks = (*s)->blocks;
        auto report = linkETRecord(blocks, **record);
        QVERIFY(report);
        QVERIFY(report->mismatch);
        QCOMPARE(report->runtimeInstructions, std::size_t(28));
        QCOMPARE(report->unmatchedInstructions, std::size_t(24));
        // Instructions 0..3 of cnn_mlp are conv, relu, max_pool, conv: linked to MLP ops.
        QVERIFY(report->mismatchedKernels > 0);
        QVERIFY(report->mismatchExample.rfind("native_call_convolution.out -> ", 0) == 0);
    }

    void ownETRecordIsNotReported_data()
    {
        QTest::addColumn<QString>("run");
        QTest::addColumn<QString>("etrecord");
        QTest::newRow("cnn_mlp") << QStringLiteral("cnn_mlp_intermediates") << QStringLiteral("cnn_mlp_etrecord.bin");
        QTest::newRow("xnnpack") << QStringLiteral("xnnpack_mlp_intermediates")
                                 << QStringLiteral("xnn_mlp_etrecord.bin");
    }
    void ownETRecordIsNotReported()
    {
        QFETCH(QString, run);
        QFETCH(QString, etrecord);
        auto s = load(run.toStdString(), etrecord.toStdString());
        QVERIFY(s);
        QVERIFY(!anyWarningContains(*s, "does not match"));
    }
};

QTEST_GUILESS_MAIN(TestETRecordMismatch)
#include "tst_etrecordmismatch.moc"
