// etscope-cli graph-diff end to end (the rules and values are checked in
// tests/analysis/tst_graphdiff.cpp; here: command lines, what is printed, files, exit codes).
// Expected values: tests/data/analysis/graphdiff_expected.json (tests/tools/gen_graphdiff_fixtures.py,
// PyTorch): the fake-quantized transform parts from the float model at native_layer_norm (layer
// 5), four inserted nodes are unaligned, the float graph agrees with its Edge twin and itself.
#include "clirun.h"
#include "testpaths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

namespace {

using etscope::test::CliRun;

QString data(const char *rel)
{
    return QString::fromStdString(etscope::test::testData(rel));
}

CliRun graphDiff(const QStringList &extra)
{
    return etscope::test::runCli(
        QStringList { u"graph-diff"_qs, u"--etrecord"_qs, data("analysis/graphdiff_etrecord.bin") } + extra);
}

QJsonObject expected()
{
    QFile f(data("analysis/graphdiff_expected.json"));
    f.open(QIODevice::ReadOnly);
    return QJsonDocument::fromJson(f.readAll()).object();
}

} // namespace

class TstGraphDiffCli : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void floatAgainstFakeQuant()
    {
        const CliRun r = graphDiff({ u"--a"_qs, u"exported_program"_qs, u"--b"_qs, u"edge_after_transform"_qs });
        QVERIFY2(r.code == 0, r.err.constData());
        const QString out = QString::fromUtf8(r.out);
        QVERIFY2(out.contains(u"a: exported_program\nb: edge_after_transform/forward\n"_qs), qPrintable(out));
        QVERIFY(out.contains(u"MSE per aligned layer, flagged above the noise level"_qs));
        // Layers 1-4 exact, 5 (the layer norm after the fake-quant) flagged first.
        QVERIFY2(out.contains(QRegularExpression(u"\n +4 +detach +aten_detach +from_node +0 "_qs)), qPrintable(out));
        QVERIFY2(
            out.contains(QRegularExpression(u"\n +5  !!  native_layer_norm +aten_native_layer_norm +from_node "_qs)),
            qPrintable(out));
        QVERIFY(out.contains(u"\nthe graphs part at layer 5 a:native_layer_norm / b:aten_native_layer_norm "
                             "(aten.native_layer_norm.default): MSE "_qs));
        QVERIFY(out.contains(u"unaligned in a (exported_program): 0\n"_qs));
        QVERIFY(out.contains(u"unaligned in b (edge_after_transform/forward): 4\n  aten_mul_fq (aten.mul.Tensor, "
                             "debug handle 13)\n  aten_round_1_fq (aten.round.default, debug handle 14)\n"_qs));
        QVERIFY(r.err.isEmpty());
    }

    void jsonAndTsvFiles()
    {
        const QString json = m_dir.filePath(u"d.json"_qs), tsv = m_dir.filePath(u"d.tsv"_qs);
        const CliRun r = graphDiff({ u"--a"_qs, u"edge_dialect_exported_program"_qs, u"--b"_qs,
            u"edge_after_transform"_qs, u"--metric"_qs, u"snr"_qs, u"--json"_qs, json, u"--tsv"_qs, tsv });
        QVERIFY2(r.code == 0, r.err.constData());
        QFile f(json);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject j = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(j.value(u"metric"_qs).toString(), u"SNR"_qs);
        QCOMPARE(j.value(u"a"_qs).toString(), u"edge_dialect_exported_program/forward"_qs);
        const QJsonArray rows = j.value(u"rows"_qs).toArray();
        const QJsonArray want = expected()
                                    .value(u"comparisons"_qs)
                                    .toObject()
                                    .value(u"edge_dialect_exported_program/forward vs edge_after_transform/forward"_qs)
                                    .toObject()
                                    .value(u"rows"_qs)
                                    .toArray();
        QCOMPARE(rows.size(), want.size());
        for (int i = 0; i < rows.size(); ++i) {
            const QJsonObject row = rows[i].toObject(), w = want[i].toObject();
            QCOMPARE(row.value(u"b_node"_qs).toString(), w.value(u"b_node"_qs).toString());
            QCOMPARE(row.value(u"aligned_by"_qs).toString(), u"debug_handle"_qs);
            // Identical layers: SNR "inf" as a string (strict JSON), as PyTorch's 'inf'.
            if (w.value(u"SNR"_qs).toArray().first().toString() == u"inf"_qs)
                QCOMPARE(row.value(u"gap"_qs).toArray().first().toString(), u"inf"_qs);
            else
                QVERIFY(row.value(u"gap"_qs).toArray().first().isDouble());
        }
        QCOMPARE(j.value(u"first_parting"_qs).toObject().value(u"layer"_qs).toInt(), 5);
        QCOMPARE(j.value(u"unaligned_b"_qs).toArray().size(), 4);
        QFile t(tsv);
        QVERIFY(t.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = t.readAll().split('\n');
        QCOMPARE(lines.size(), 14); // header, 12 layers, trailing newline
        QVERIFY(lines[0].startsWith(
            "layer\ta_node\ta_op\ta_debug_handle\tb_node\tb_op\tb_debug_handle\taligned_by\tgap_SNR"));
        QVERIFY(lines[5].startsWith(
            "5\taten_native_layer_norm\taten.native_layer_norm.default\t5\taten_native_layer_norm\t"));
        // '-' writes only that format to stdout.
        const CliRun only = graphDiff(
            { u"--a"_qs, u"edge_after_transform"_qs, u"--b"_qs, u"edge_after_transform"_qs, u"--json"_qs, u"-"_qs });
        QCOMPARE(only.code, 0);
        const QJsonObject self = QJsonDocument::fromJson(only.out).object();
        QCOMPARE(self.value(u"verdict"_qs).toString(), u"the graphs agree within noise at every aligned layer"_qs);
        QVERIFY(self.value(u"first_parting"_qs).isNull());
    }

    void equivalentAndSelf()
    {
        const CliRun r
            = etscope::test::runCli({ u"graph-diff"_qs, u"--etrecord"_qs, data("analysis/cnn_mlp_runtime_etrecord.bin"),
                u"--a"_qs, u"exported_program"_qs, u"--b"_qs, u"edge_dialect_exported_program"_qs });
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(r.out.contains("\nthe graphs agree within noise at every aligned layer\n"));
        QVERIFY(!r.out.contains("!!"));
        const CliRun s = graphDiff({ u"--a"_qs, u"exported_program"_qs, u"--b"_qs, u"exported_program"_qs,
            u"--metric"_qs, u"MAXABS"_qs, u"--inputs"_qs, data("eval/cnn_inputs.pt") });
        // Another model's input ([1, 3, 16, 16] for a [4, 16] linear): every node from the first
        // addmm on has no value in either graph, and the verdict says so instead of "agree".
        QVERIFY2(s.code == 0, s.err.constData());
        QVERIFY2(s.out.contains("\nthe graphs agree within noise at the 3 compared layers; 9 of 12 aligned layers "
                                "could not be compared (first: a:addmm: a: node addmm (aten.addmm.default) at "),
            s.out.constData());
    }

    // A file written by ExecuTorch itself (2023 ETRecord, all-member unions): the graph_map
    // entry and the Edge program hold one mul each; neither has from_node and only the Edge one
    // a handle, so they pair by position and agree exactly. Without --inputs (the file has no
    // representative_inputs) the one-line error names the three ways to give inputs.
    void realUpstreamEtrecord()
    {
        const QString rec = QString::fromStdString(etscope::test::sharedFixture("upstream/example_etrecord_v0.bin"));
        const QStringList args { u"graph-diff"_qs, u"--etrecord"_qs, rec, u"--a"_qs, u"aten_dialect_output"_qs,
            u"--b"_qs, u"edge_dialect_exported_program"_qs };
        const CliRun r
            = etscope::test::runCli(args + QStringList { u"--inputs"_qs, data("analysis/upstream_v0_inputs.pt") });
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(QString::fromUtf8(r.out).contains(QRegularExpression(u"\n +1 +mul +aten_mul_tensor +position +0 "_qs)),
            r.out.constData());
        QVERIFY(r.out.contains("\nthe graphs agree within noise at every aligned layer\n"));
        const CliRun none = etscope::test::runCli(args);
        QCOMPARE(none.code, 1);
        QCOMPARE(none.err.count('\n'), 1);
        QVERIFY2(none.err.contains("representative_inputs") && none.err.contains("--inputs")
                && none.err.contains("--bundled-program"),
            none.err.constData());
    }

    void missingEtrecord()
    {
        const CliRun r = etscope::test::runCli({ u"graph-diff"_qs, u"--etrecord"_qs, u"/nonexistent/r.bin"_qs });
        QCOMPARE(r.code, 1);
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY2(r.err.startsWith("etscope-cli: /nonexistent/r.bin"), r.err.constData());
    }

    void badInputs_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown graph") << QStringList { u"--b"_qs, u"edge_nope"_qs }
                                       << u"no graph named 'edge_nope'; the ETRecord has: exported_program, "_qs;
        QTest::newRow("nothing aligns") << QStringList {
            u"--b"_qs, u"edge_unrelated"_qs
        } << u"no node of 'exported_program' aligns with a node of 'edge_unrelated/forward'"_qs;
        QTest::newRow("unknown metric") << QStringList { u"--metric"_qs, u"nope"_qs } << u"unknown metric 'nope'"_qs;
        QTest::newRow("missing inputs file")
            << QStringList { u"--inputs"_qs, u"/nonexistent/in.pt"_qs } << u"/nonexistent/in.pt"_qs;
    }
    void badInputs()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const CliRun r = graphDiff(args);
        QCOMPARE(r.code, 1);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY2(QString::fromUtf8(r.err).startsWith(u"etscope-cli: "_qs), r.err.constData());
        QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TstGraphDiffCli)
#include "tst_graphdiffcli.moc"
