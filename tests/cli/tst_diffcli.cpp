// `etscope-cli diff` end to end. B files are real 50-run recordings re-encoded with chosen
// operators slowed by a known factor (tests/common/etdumprescale.h), so the expected verdicts
// and ratios are known without running the diff code: the rescaled rows `slower` with ratio =
// factor, Method::execute (which contains them) `slower`, everything else `unchanged`.
// Different programs (issue 28): xnn_mlp runs DELEGATE_CALL, native_layer_norm, DELEGATE_CALL,
// argmax (+ 8 XNNPACK events, its README); cnn_mlp runs 28 portable kernels (cnn_mlp.program.json);
// by hand, only native_layer_norm.out and argmax.out are in both; add.pte's one add.out is in neither.
#include "clirun.h"
#include "etdumprescale.h"
#include "etdumpwriter.h"
#include "testpaths.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace etscope::test;

namespace {

using Run = etscope::test::CliRun;
Run run(const QStringList &args)
{
    return etscope::test::runCli(args);
}

QString fixture(const char *rel)
{
    return QString::fromStdString(sharedFixture(rel));
}

const char *kCnn = "runtime/cnn_mlp_50runs/etdump.etdp";

QString slowedCnn(const QTemporaryDir &dir)
{
    auto bytes = rescaleETDump(
        sharedFixture(kCnn), { { "native_call_convolution.out", 3, 2.0 }, { "native_call_addmm.out", 13, 3.0 } });
    if (!bytes)
        qFatal("%s", bytes.error().message().c_str());
    return QString::fromStdString(writeFile(dir.filePath("slow.etdp").toStdString(), *bytes));
}

// TSV -> rows of column name -> cell.
QList<QMap<QString, QString>> parseTsv(const QByteArray &text)
{
    QList<QMap<QString, QString>> rows;
    const QList<QByteArray> lines = text.split('\n');
    const QList<QByteArray> header = lines.value(0).split('\t');
    for (int i = 1; i < lines.size(); ++i) {
        if (lines[i].isEmpty())
            continue;
        const QList<QByteArray> cells = lines[i].split('\t');
        QMap<QString, QString> row;
        for (int c = 0; c < header.size(); ++c)
            row[QString::fromUtf8(header[c])] = QString::fromUtf8(cells.value(c));
        rows.append(row);
    }
    return rows;
}
} // namespace

class TstDiffCli : public QObject
{
    Q_OBJECT
private slots:
    void selfIsUnchangedExit0()
    {
        const Run r = run({ "diff", "--etdump", fixture(kCnn), "--etdump-b", fixture(kCnn), "--fail-if-slower", "0" });
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("0 slower, 0 faster, 31 unchanged, 0 only in A, 0 only in B"));
    }

    void slowedRowsTsvAndGate()
    {
        QTemporaryDir dir;
        const QString b = slowedCnn(dir);
        const QString out = dir.filePath("diff.tsv");
        const Run r
            = run({ "diff", "--etdump", fixture(kCnn), "--etdump-b", b, "--tsv", out, "--fail-if-slower", "5" });
        QCOMPARE(r.code, 3);
        QVERIFY(r.err.contains("slower than 5%"));
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        const QByteArray header = text.left(text.indexOf('\n'));
        for (const char *col : { "event_block_name", "event_name", "instruction_id", "p50_a (ms)", "p50_b (ms)",
                 "delta_p50 (ms)", "ratio", "p_value", "ci_low (ms)", "ci_high (ms)", "verdict" })
            QVERIFY2(header.split('\t').contains(col), col);
        const auto rows = parseTsv(text);
        QCOMPARE(rows.size(), 31);
        int slower = 0;
        for (const auto &row : rows) {
            const QString key = row["event_name"] + "@" + row["instruction_id"];
            if (key == "native_call_convolution.out@3" || key == "native_call_addmm.out@13") {
                QCOMPARE(row["verdict"], QString("slower"));
                QCOMPARE(row["ratio"].toDouble(), key.contains("conv") ? 2.0 : 3.0);
                QVERIFY(row["p_value"].toDouble() < 1e-10);
                QVERIFY(row["ci_low (ms)"].toDouble() > 0);
                ++slower;
            } else if (row["event_name"] == "Method::execute") {
                QCOMPARE(row["verdict"], QString("slower"));
            } else {
                QCOMPARE(row["verdict"], QString("unchanged"));
            }
        }
        QCOMPARE(slower, 2);
        // The two rescaled rows hold the biggest deltas: ranked first (conv +0.37 ms, addmm +0.04 ms).
        QCOMPARE(rows[0]["event_name"] + rows[0]["instruction_id"], QString("native_call_convolution.out3"));
        QCOMPARE(rows[1]["event_name"] + rows[1]["instruction_id"], QString("native_call_addmm.out13"));

        // A threshold above every slowdown (conv +100%, addmm +200%, execute ~+40%) passes.
        QCOMPARE(run({ "diff", "--etdump", fixture(kCnn), "--etdump-b", b, "--fail-if-slower", "250" }).code, 0);
        // B -> A is faster, never slower.
        QCOMPARE(run({ "diff", "--etdump", b, "--etdump-b", fixture(kCnn), "--fail-if-slower", "0" }).code, 0);
        // Without the gate the exit code is 0 even when rows are slower.
        QCOMPARE(run({ "diff", "--etdump", fixture(kCnn), "--etdump-b", b }).code, 0);
    }

    void jsonAndTimeScale()
    {
        QTemporaryDir dir;
        const QString b = slowedCnn(dir);
        const Run r
            = run({ "diff", "--etdump", fixture(kCnn), "--etdump-b", b, "--json", "--target-time-scale", "us" });
        QCOMPARE(r.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o["match"].toString(), QString("exact"));
        QCOMPARE(o["unit"].toString(), QString("us"));
        QCOMPARE(o["counts"].toObject()["slower"].toInt(), 3);
        const QJsonObject first = o["rows"].toArray()[0].toObject();
        QCOMPARE(first["event_name"].toString(), QString("native_call_convolution.out"));
        // p50 of A's conv #3 is 0.36666 ms (tsv of the fixture) = 366.66 us; B doubles it.
        QCOMPARE(first["a"].toObject()["p50"].toDouble(), 366.66);
        QCOMPARE(first["ratio"].toDouble(), 2.0);

        const Run t
            = run({ "diff", "--etdump", fixture(kCnn), "--etdump-b", b, "--tsv", "-", "--target-time-scale", "us" });
        QVERIFY(t.out.startsWith("event_block_name\tevent_name\tinstruction_id"));
        QVERIFY(t.out.contains("\tp50_a (us)\t"));
    }

    void minChangeAndAlpha()
    {
        QTemporaryDir dir;
        const QString b = slowedCnn(dir);
        // Noise floor above the slowdowns: nothing is slower, the gate passes.
        const Run r = run(
            { "diff", "--etdump", fixture(kCnn), "--etdump-b", b, "--min-change", "300%", "--fail-if-slower", "0" });
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("0 slower"));
        QCOMPARE(run({ "diff", "--etdump", fixture(kCnn), "--etdump-b", b, "--min-change", "lots" }).code, 1);
    }

    void errors()
    {
        const Run r
            = run({ "diff", "--etdump", fixture(kCnn), "--etdump-b", "/nonexistent/b.etdp", "--fail-if-slower", "0" });
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.startsWith("etscope-cli: /nonexistent/b.etdp: "));
        QCOMPARE(r.err.count('\n'), 1);
    }

    void heuristicSaysSo()
    {
        const Run r = run({ "diff", "--etdump", fixture("runtime/add_pte_50runs/etdump.etdp"), "--etdump-b",
            fixture("runtime/bundled_program_50runs/etdump.etdp") });
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("match: heuristic"));
        QVERIFY(r.err.contains("heuristic"));
        QVERIFY(r.out.contains("only_b"));
    }

    void differentProgramsBannerAndRefusedGate()
    {
        const QString a = fixture("runtime/xnnpack_mlp_intermediates/etdump.etdp");
        const QString b = fixture("runtime/cnn_mlp_intermediates/etdump.etdp");
        const QByteArray banner
            = "different programs: rows paired by operator name (2 paired, 10 only in A, 26 only in B)\n";
        const Run r = run({ "diff", "--etdump", a, "--etdump-b", b });
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.startsWith(banner), r.out.left(200).constData());
        QVERIFY(!r.out.contains(" ~ ")); // no row pairs two different names (DELEGATE_CALL ~ convolution)
        QVERIFY(r.err.contains("heuristic"));

        // The gate refuses: one line naming both files, exit 1 (not 0, not 3).
        const Run g = run({ "diff", "--etdump", a, "--etdump-b", b, "--fail-if-slower", "5" });
        QCOMPARE(g.code, 1);
        QCOMPARE(g.err.count('\n'), 1);
        QVERIFY2(g.err.startsWith("etscope-cli: " + a.toUtf8() + " and " + b.toUtf8() + " ran different programs"),
            g.err.constData());

        // With both ETRecords (their graphs number nodes from 1 too): still by operator name.
        const QString ra = QString::fromStdString(testData("etrecord/xnn_mlp_etrecord.bin"));
        const QString rb = QString::fromStdString(testData("etrecord/cnn_mlp_etrecord.bin"));
        const Run j = run({ "diff", "--etdump", a, "--etrecord", ra, "--etdump-b", b, "--etrecord-b", rb, "--json" });
        QCOMPARE(j.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(j.out).object();
        QCOMPARE(o["pairing"].toString(), QString("operator_name"));
        QCOMPARE(o["banner"].toString().toUtf8() + "\n", banner);
        QCOMPARE(o["paired_rows"].toInt(), 2);
        QCOMPARE(o["program_identity"].toObject()["same_graph"].toBool(), false);
        for (const QJsonValue &v : o["rows"].toArray()) {
            const QJsonObject row = v.toObject();
            if (row["a"].toObject()["events"].toInt() && row["b"].toObject()["events"].toInt())
                QCOMPARE(row["b"].toObject()["label"].toString(), row["event_name"].toString());
        }
        QCOMPARE(run({ "diff", "--etdump", a, "--etrecord", ra, "--etdump-b", b, "--etrecord-b", rb, "--fail-if-slower",
                         "5" })
                     .code,
            1);

        const Run t = run({ "diff", "--etdump", a, "--etdump-b", b, "--tsv", "-" });
        const auto rows = parseTsv(t.out);
        QCOMPARE(rows.size(), 41); // 2 + 10 + 26 operator rows, Method::execute, Method::init, load_method
        for (const auto &row : rows)
            QCOMPARE(row["pairing"], QString("operator_name"));
    }

    void differentProgramsTotalsOnly()
    {
        const Run r = run({ "diff", "--etdump", fixture("runtime/add_pte_50runs/etdump.etdp"), "--etdump-b",
            fixture("runtime/xnnpack_mlp_intermediates/etdump.etdp"), "--json" });
        QCOMPARE(r.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o["pairing"].toString(), QString("totals_only"));
        QCOMPARE(o["paired_rows"].toInt(), 0);
        QVERIFY(o["banner"].toString().startsWith("different programs, no operator name in common: totals only"));
        bool execute = false;
        for (const QJsonValue &v : o["block_totals"].toArray())
            execute = execute || v.toObject()["source"].toString() == "Method::execute";
        QVERIFY(execute);
    }

    void sameProgramGatesAsBefore()
    {
        // A real regression of the same program still trips the gate (exit 3), pairing by instruction.
        QTemporaryDir dir;
        const QString b = slowedCnn(dir);
        const Run r = run({ "diff", "--etdump", fixture(kCnn), "--etdump-b", b, "--fail-if-slower", "5" });
        QCOMPARE(r.code, 3);
        QVERIFY(r.out.startsWith("match: exact\n")); // no banner for the same program
        const Run j = run({ "diff", "--etdump", fixture(kCnn), "--etdump-b", b, "--json" });
        QCOMPARE(QJsonDocument::fromJson(j.out).object()["pairing"].toString(), QString("instruction"));
        const Run t = run({ "diff", "--etdump", fixture(kCnn), "--etdump-b", b, "--tsv", "-" });
        for (const auto &row : parseTsv(t.out))
            QCOMPARE(row["pairing"], QString("instruction"));
        // 50 runs against a single run of the same program: the caveat is printed.
        const Run one = run(
            { "diff", "--etdump", fixture(kCnn), "--etdump-b", fixture("runtime/cnn_mlp_intermediates/etdump.etdp") });
        QVERIFY(one.out.contains("caveat: B has 1 run: no spread, verdicts are point comparisons"));
    }
};

QTEST_GUILESS_MAIN(TstDiffCli)
#include "tst_diffcli.moc"
