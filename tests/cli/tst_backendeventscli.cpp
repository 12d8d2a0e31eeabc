// `etscope-cli backend-events` and the trace export's backend args, run as a user runs them, on
// the authored Vulkan ETDump (tests/data/backend/vulkan_stem, README) linked to the ETRecord
// whose `encode` method it lowers, and the real XNNPACK fixture. Expected values by hand from the
// fixture READMEs (which transcribe the upstream logging code), never from etscope.
#include "clirun.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using etscope::test::runCli;

namespace {
const QString kData = QStringLiteral(ETSCOPE_TEST_DATA_DIR "/");
const QString kVulkan = kData + QStringLiteral("backend/vulkan_stem/etdump.etdp");
const QString kRecord = kData + QStringLiteral("etrecord/cnn_mlp_etrecord.bin");
} // namespace

class TestBackendEventsCli : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void jsonLinksDispatchesToNodes()
    {
        const auto r = runCli(
            { QStringLiteral("backend-events"), QStringLiteral("--etdump"), kVulkan, QStringLiteral("--etrecord"),
                kRecord, QStringLiteral("--method"), QStringLiteral("encode"), QStringLiteral("--json") });
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        const QJsonArray events = doc.value(QStringLiteral("events")).toArray();
        QCOMPARE(events.size(), 8); // README: 4 ETVK_ phases + 4 dispatches per run (runs merged)
        QJsonObject conv, relu;
        for (const auto &v : events) {
            const QJsonObject o = v.toObject();
            if (o.value(QStringLiteral("kernel")).toString() == QStringLiteral("conv2d_float"))
                conv = o;
            if (o.value(QStringLiteral("kernel")).toString() == QStringLiteral("relu_float_texture3d"))
                relu = o;
        }
        QCOMPARE(conv.value(QStringLiteral("backend")).toString(), QStringLiteral("Vulkan"));
        QCOMPARE(conv.value(QStringLiteral("backend_op")).toString(), QStringLiteral("aten.convolution.default"));
        QCOMPARE(conv.value(QStringLiteral("delegate_node_id")).toInt(), 0);
        QCOMPARE(conv.value(QStringLiteral("dispatch_id")).toInt(), 1);
        QCOMPARE(conv.value(QStringLiteral("runs")).toInt(), 3);
        // GPU ns 41600, 40560, 42120: p50 41600 ns.
        QVERIFY(qAbs(conv.value(QStringLiteral("p50")).toDouble() - 0.0416) < 1e-12);
        const QJsonObject node = conv.value(QStringLiteral("node")).toObject();
        QCOMPARE(node.value(QStringLiteral("nodes")).toArray().at(0).toString(),
            QStringLiteral("aten_convolution_default_"));
        QVERIFY(node.value(QStringLiteral("exact")).toBool());
        QCOMPARE(relu.value(QStringLiteral("node"))
                     .toObject()
                     .value(QStringLiteral("debug_handles"))
                     .toArray()
                     .at(0)
                     .toInt(),
            2);
        const QJsonArray calls = doc.value(QStringLiteral("delegate_calls")).toArray();
        QCOMPARE(calls.size(), 1);
        QCOMPARE(calls.at(0).toObject().value(QStringLiteral("backend")).toString(), QStringLiteral("Vulkan"));
    }

    void tableShowsPhases()
    {
        const auto r = runCli({ QStringLiteral("backend-events"), QStringLiteral("--etdump"),
            kData + QStringLiteral("backend/vgf_conv/etdump.etdp") });
        QVERIFY2(r.code == 0, r.err.constData());
        const QString out = QString::fromUtf8(r.out);
        QVERIFY(out.contains(QStringLiteral("phase: dispatch and wait")));
        QVERIFY(out.contains(QStringLiteral("Host phases of each delegate call")));
        QVERIFY(out.contains(QStringLiteral("VGF_QUEUE_SUBMIT_AND_WAIT_FENCE")));
        // A recording without backend events says so and succeeds.
        const auto none = runCli({ QStringLiteral("backend-events"), QStringLiteral("--etdump"),
            QStringLiteral(ETSCOPE_SHARED_DIR "/fixtures/runtime/cnn_mlp_50runs/etdump.etdp") });
        QCOMPARE(none.code, 0);
        QVERIFY(none.out.contains("No backend event"));
        // A missing file is bad input (exit 1, one line).
        const auto bad = runCli(
            { QStringLiteral("backend-events"), QStringLiteral("--etdump"), QStringLiteral("/nonexistent.etdp") });
        QCOMPARE(bad.code, 1);
    }

    // With the program, each event's payload node (tests/data/runtime/xnnpack_int8, README: the
    // events of each call in the order of the XNNGraph's nodes, delegate 1's Convert run inside
    // its QD8 fully connected) in a column and in the JSON, said to be placed by order.
    void programPlacesEventsOnPayloadNodes()
    {
        const QString dir = kData + QStringLiteral("runtime/xnnpack_int8/");
        const auto r = runCli({ QStringLiteral("backend-events"), dir + QStringLiteral("int8/profile/etdump.etdp"),
            dir + QStringLiteral("xnn_int8.pte") });
        QVERIFY2(r.code == 0, r.err.constData());
        const QString out = QString::fromUtf8(r.out);
        QVERIFY(out.contains(QStringLiteral("payload node")));
        QVERIFY2(out.contains(QStringLiteral("2 Softmax fp32[8, 10] -> fp32[8, 10] (by order)")), r.out.constData());
        QVERIFY(out.contains(QStringLiteral("6 events placed on payload nodes by the runtime's operator order")));
        const auto j = runCli({ QStringLiteral("backend-events"), QStringLiteral("--json"),
            dir + QStringLiteral("int8/profile/etdump.etdp"), dir + QStringLiteral("xnn_int8.pte") });
        QVERIFY2(j.code == 0, j.err.constData());
        const QJsonArray events = QJsonDocument::fromJson(j.out).object().value(QStringLiteral("events")).toArray();
        QCOMPARE(events.size(), 6);
        QStringList placed;
        for (const auto &e : events) {
            const QJsonObject n = e.toObject().value(QStringLiteral("payload_node")).toObject();
            placed << QStringLiteral("%1.%2 %3")
                          .arg(n.value(QStringLiteral("delegate")).toInt())
                          .arg(n.value(QStringLiteral("node")).toInt())
                          .arg(n.value(QStringLiteral("op")).toString());
            QCOMPARE(n.value(QStringLiteral("placed_by")).toString(), QStringLiteral("runtime order and kind"));
        }
        QCOMPARE(placed,
            (QStringList { QStringLiteral("0.0 Convert"), QStringLiteral("0.1 FullyConnected"),
                QStringLiteral("0.2 FullyConnected"), QStringLiteral("0.3 Convert"),
                QStringLiteral("1.1 FullyConnected"), QStringLiteral("1.2 Softmax") }));
        // Without the program: no column.
        const auto bare
            = runCli({ QStringLiteral("backend-events"), dir + QStringLiteral("int8/profile/etdump.etdp") });
        QVERIFY(!QString::fromUtf8(bare.out).contains(QStringLiteral("payload node")));
    }

    void traceCarriesBackendArgs()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("t.json"));
        const auto r = runCli({ QStringLiteral("trace"), QStringLiteral("--etdump"),
            QStringLiteral(ETSCOPE_SHARED_DIR "/fixtures/runtime/xnnpack_mlp_intermediates/etdump.etdp"),
            QStringLiteral("-o"), out });
        QVERIFY2(r.code == 0, r.err.constData());
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonArray events
            = QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("traceEvents")).toArray();
        int decoded = 0;
        for (const auto &v : events) {
            const QJsonObject e = v.toObject();
            if (e.value(QStringLiteral("name")).toString() != QStringLiteral("Softmax (NC, F32) #1"))
                continue;
            const QJsonObject a = e.value(QStringLiteral("args")).toObject();
            QCOMPARE(a.value(QStringLiteral("backend_op")).toString(), QStringLiteral("Softmax"));
            QCOMPARE(a.value(QStringLiteral("layout")).toString(), QStringLiteral("NC"));
            QCOMPARE(a.value(QStringLiteral("dtype")).toString(), QStringLiteral("F32"));
            QCOMPARE(a.value(QStringLiteral("instance")).toInt(), 1);
            QVERIFY(!a.contains(QStringLiteral("payload_node"))); // no program
            ++decoded;
        }
        QCOMPARE(decoded, 1); // one run, one Softmax

        // With the program the Softmax carries its payload node (delegate 1's node 3, xnn_mlp's
        // XNNGraph JSON: Softmax [1, 10] -> [1, 10]) and how it was placed.
        const QString pout = dir.filePath(QStringLiteral("p.json"));
        const auto p = runCli({ QStringLiteral("trace"),
            QStringLiteral(ETSCOPE_SHARED_DIR "/fixtures/runtime/xnnpack_mlp_intermediates/etdump.etdp"),
            QStringLiteral(ETSCOPE_SHARED_DIR "/fixtures/runtime/xnnpack_mlp_intermediates/xnn_mlp.pte"),
            QStringLiteral("-o"), pout });
        QVERIFY2(p.code == 0, p.err.constData());
        QFile pf(pout);
        QVERIFY(pf.open(QIODevice::ReadOnly));
        int placed = 0;
        for (const auto &v :
            QJsonDocument::fromJson(pf.readAll()).object().value(QStringLiteral("traceEvents")).toArray()) {
            const QJsonObject a = v.toObject().value(QStringLiteral("args")).toObject();
            if (!a.contains(QStringLiteral("payload_node")))
                continue;
            ++placed;
            QCOMPARE(
                a.value(QStringLiteral("payload_node_placed_by")).toString(), QStringLiteral("runtime order and kind"));
            if (v.toObject().value(QStringLiteral("name")).toString() == QStringLiteral("Softmax (NC, F32) #1"))
                QCOMPARE(a.value(QStringLiteral("payload_node")).toString(),
                    QStringLiteral("3 Softmax fp32[1, 10] -> fp32[1, 10]"));
        }
        QCOMPARE(placed, 8); // README: 8 delegate profile events

        // Vulkan: every run's conv dispatch carries the decoded operator, ids and arguments.
        const QString vout = dir.filePath(QStringLiteral("v.json"));
        const auto v
            = runCli({ QStringLiteral("trace"), QStringLiteral("--etdump"), kVulkan, QStringLiteral("-o"), vout });
        QVERIFY2(v.code == 0, v.err.constData());
        QFile vf(vout);
        QVERIFY(vf.open(QIODevice::ReadOnly));
        int convs = 0;
        for (const auto &e :
            QJsonDocument::fromJson(vf.readAll()).object().value(QStringLiteral("traceEvents")).toArray()) {
            const QJsonObject a = e.toObject().value(QStringLiteral("args")).toObject();
            if (a.value(QStringLiteral("backend_kernel")).toString() != QStringLiteral("conv2d_float"))
                continue;
            QCOMPARE(a.value(QStringLiteral("backend_op")).toString(), QStringLiteral("aten.convolution.default"));
            QCOMPARE(a.value(QStringLiteral("backend_event")).toString(), QStringLiteral("dispatch"));
            QCOMPARE(a.value(QStringLiteral("delegate_node_id")).toInt(), 0);
            QCOMPARE(a.value(QStringLiteral("operator_id")).toInt(), 1);
            QCOMPARE(a.value(QStringLiteral("dispatch_id")).toInt(), 1);
            QCOMPARE(a.value(QStringLiteral("backend_args")).toArray().size(), 10);
            QCOMPARE(a.value(QStringLiteral("backend_args")).toArray().at(9).toString(),
                QStringLiteral("TENSOR Float [1, 8, 16, 16] TEXTURE_3D packed_dim 2"));
            ++convs;
        }
        QCOMPARE(convs, 3); // README: 3 runs
    }
};

QTEST_GUILESS_MAIN(TestBackendEventsCli)
#include "tst_backendeventscli.moc"
