// etscope-cli trace / many-recording tsv, jsonl and diff end to end on real fixtures (formats
// and numbers are checked in tests/export; here: the command lines, files and exit codes).
#include "clirun.h"
#include "testpaths.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

using Run = etscope::test::CliRun;
Run run(const QStringList &args)
{
    return etscope::test::runCli(args);
}

QString fixture(const char *rel)
{
    return QString::fromStdString(etscope::test::sharedFixture(rel));
}
QByteArray readFile(const QString &path)
{
    QFile f(path);
    f.open(QIODevice::ReadOnly);
    return f.readAll();
}
} // namespace

class TstExportCli : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    QString farm(const QString &name, int copies, const char *fixtureRel)
    {
        for (int i = 0; i < copies; ++i) {
            const QString d = m_dir.filePath(QStringLiteral("%1/dev%2").arg(name).arg(i));
            QDir().mkpath(d);
            QFile::copy(fixture(fixtureRel), d + u"/etdump.etdp"_qs);
        }
        return m_dir.filePath(name);
    }

private slots:
    void trace()
    {
        const QString out = m_dir.filePath(u"t.json"_qs);
        const Run r = run({ u"trace"_qs, u"--etdump"_qs, fixture("runtime/xnnpack_mlp_intermediates/etdump.etdp"),
            u"--runs"_qs, u"0"_qs, u"-o"_qs, out });
        QCOMPARE(r.code, 0);
        const auto doc = QJsonDocument::fromJson(readFile(out));
        QVERIFY(doc.isObject());
        QVERIFY(doc.object().contains(u"traceEvents"_qs));
        QVERIFY(!QFile::exists(out + u".tmp-etscope"_qs));
    }

    void traceRefusesCyclesWithoutClock()
    {
        const Run r = run({ u"trace"_qs, u"--etdump"_qs, fixture("runtime/add_pte_intermediates/etdump.etdp"),
            u"--source-time-scale"_qs, u"cycles"_qs, u"--target-time-scale"_qs, u"cycles"_qs });
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("--cycles-per-second"));
        QVERIFY(r.err.contains("etdump.etdp"));
        QCOMPARE(r.err.count('\n'), 1); // one line
    }

    void manyTsvAndJsonl()
    {
        const QString dir = farm(u"a"_qs, 3, "runtime/add_pte_50runs/etdump.etdp");
        const Run tsv = run({ u"tsv"_qs, dir, u"-j"_qs, u"2"_qs });
        QCOMPARE(tsv.code, 0);
        const QList<QByteArray> lines = tsv.out.trimmed().split('\n');
        QVERIFY(lines.first().startsWith("file\t\tevent_block_name"));
        // 4 rows per file (tests/data/core/expected/add_pte_50runs.tsv) + 4 pooled rows.
        QCOMPARE(lines.size(), 1 + 3 * 4 + 4);
        QVERIFY(lines.last().startsWith("(all 3 files)\t3\t"));

        const Run jsonl = run({ u"tsv"_qs, u"--format"_qs, u"jsonl"_qs, dir + u"/*/etdump.etdp"_qs });
        QCOMPARE(jsonl.code, 0);
        const auto rows = jsonl.out.trimmed().split('\n');
        QCOMPARE(rows.size(), 3 * 4);
        for (const auto &row : rows)
            QVERIFY(QJsonDocument::fromJson(row).isObject());
    }

    void manyDiff()
    {
        const QString a = farm(u"da"_qs, 2, "runtime/cnn_mlp_50runs/etdump.etdp");
        const QString b = farm(u"db"_qs, 2, "runtime/cnn_mlp_intermediates/etdump.etdp");
        const Run r = run({ u"diff"_qs, u"--etdump"_qs, a, u"--etdump-b"_qs, b, u"--tsv"_qs, u"-"_qs });
        QCOMPARE(r.code, 0);
        QVERIFY(r.err.contains("2 recordings pooled"));
        QVERIFY(r.out.contains("native_call_convolution.out"));
    }

    void badRecordingNamed()
    {
        const Run r = run({ u"tsv"_qs, m_dir.filePath(u"nothing-here/*.etdp"_qs) });
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("no file matches"));
    }
};

QTEST_GUILESS_MAIN(TstExportCli)
#include "tst_exportcli.moc"
