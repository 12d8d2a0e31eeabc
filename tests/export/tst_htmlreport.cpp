// The HTML report in a real browser: etscope-cli writes it, headless Chromium loads it from a
// file:// URL and dumps the DOM after scripts ran; the test checks the charts, that every TSV
// row is in the table (row counts from the committed Inspector expectations, produced by
// tests/tools/inspector_reference.py), and that the console stayed silent (Chromium logs every
// console message and uncaught error as "…:CONSOLE…" with --enable-logging=stderr).
// Skipped, with a message, only when no chromium binary is installed.
#include "clirun.h"
#include "testpaths.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

namespace {
const QString kCli = etscope::test::cliPath();

QString fixture(const std::string &rel)
{
    return QString::fromStdString(etscope::test::sharedFixture(rel));
}
QString data(const std::string &rel)
{
    return QString::fromStdString(etscope::test::testData(rel));
}

QString chromium()
{
    for (const char *name : { "chromium", "chromium-browser", "google-chrome" })
        if (const QString p = QStandardPaths::findExecutable(QString::fromLatin1(name)); !p.isEmpty())
            return p;
    return {};
}

struct Browser {
    QString dom, log;
};

// Loads the file offline in a throw-away profile and returns the DOM after scripts ran.
Browser load(const QString &html)
{
    QTemporaryDir profile;
    QProcess p;
    p.start(chromium(),
        { u"--headless=new"_qs, u"--no-sandbox"_qs, u"--disable-gpu"_qs, u"--no-first-run"_qs,
            u"--user-data-dir="_qs + profile.path(), u"--enable-logging=stderr"_qs, u"--v=0"_qs, u"--dump-dom"_qs,
            QUrl::fromLocalFile(html).toString() });
    p.waitForFinished(180000);
    return { QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError()) };
}

int runCli(const QStringList &args)
{
    QProcess p;
    p.start(kCli, args);
    p.waitForFinished(120000);
    if (p.exitCode() != 0)
        qWarning("%s", p.readAllStandardError().constData());
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

int tsvRows(const QString &tsv)
{
    QFile f(tsv);
    f.open(QIODevice::ReadOnly);
    return f.readAll().count('\n') - 1; // header
}

int count(const QString &text, const QString &needle)
{
    return static_cast<int>(text.count(needle));
}

QString tableBody(const QString &dom)
{
    const auto start = dom.indexOf(u"<table id=\"inspector\""_qs);
    const auto body = dom.indexOf(u"<tbody>"_qs, start);
    const auto end = dom.indexOf(u"</tbody>"_qs, body);
    return start < 0 || body < 0 || end < 0 ? QString() : dom.mid(body, end - body);
}

QStringList consoleLines(const QString &log)
{
    QStringList out;
    for (const QString &l : log.split(u'\n'))
        if (l.contains(u":CONSOLE"_qs))
            out << l;
    return out;
}
} // namespace

class TstHtmlReport : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        if (chromium().isEmpty())
            QSKIP("chromium is not installed (Debian package 'chromium'): the browser test of the HTML report cannot "
                  "run");
    }

    // One recording with its ETRecord: summary, every table row, all charts, no console output.
    void singleRecording()
    {
        QTemporaryDir dir;
        const QString html = dir.filePath(u"report.html"_qs);
        QCOMPARE(runCli({ u"report"_qs, u"--etdump"_qs, fixture("runtime/cnn_mlp_50runs/etdump.etdp"), u"--etrecord"_qs,
                     data("etrecord/cnn_mlp_etrecord.bin"), u"-o"_qs, html }),
            0);
        const Browser b = load(html);
        QVERIFY2(b.dom.contains(u"data-sortable=\"on\""_qs), "the inline script did not run");
        QCOMPARE(count(tableBody(b.dom), u"<tr>"_qs), tsvRows(data("core/expected/cnn_mlp_50runs.tsv")));
        for (const char *id :
            { "summary", "top-events", "histograms", "hist-0", "hist-9", "module-rollup", "timeline" })
            QVERIFY2(b.dom.contains(QStringLiteral("id=\"%1\"").arg(QLatin1String(id))), id);
        QVERIFY(b.dom.contains(u"native_call_convolution.out"_qs));
        QVERIFY2(consoleLines(b.log).isEmpty(), qPrintable(consoleLines(b.log).join(u'\n')));
        // Nothing that could reach the network or another file.
        QFile f(html);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(f.readAll());
        QVERIFY(!text.contains(u"http://"_qs) && !text.contains(u"https://"_qs) && !text.contains(u"src="_qs)
            && !text.contains(u"href=\"/"_qs));
    }

    // With a reference: the numeric-gap heatmap, one cell per compared output.
    void withReference()
    {
        QTemporaryDir dir;
        const QString html = dir.filePath(u"gap.html"_qs);
        QCOMPARE(runCli({ u"report"_qs, u"--etdump"_qs, fixture("runtime/cnn_mlp_intermediates/etdump.etdp"),
                     u"--debug-buffer"_qs, fixture("runtime/cnn_mlp_intermediates/debug_output.bin"),
                     u"--reference-etdump"_qs, fixture("runtime/cnn_mlp_intermediates/etdump.etdp"),
                     u"--reference-debug-buffer"_qs, data("analysis/cnn_mlp_perturbed.bin"), u"-o"_qs, html }),
            0);
        const Browser b = load(html);
        QVERIFY(b.dom.contains(u"id=\"gap-heatmap\""_qs));
        QVERIFY(count(b.dom, u"class=\"gapcell\""_qs) > 0);
        QCOMPARE(count(tableBody(b.dom), u"<tr>"_qs), tsvRows(data("core/expected/cnn_mlp_intermediates.tsv")));
        QVERIFY2(consoleLines(b.log).isEmpty(), qPrintable(consoleLines(b.log).join(u'\n')));
    }

    // With a comparison: the diff waterfall from the baseline's total to this recording's.
    void withCompare()
    {
        QTemporaryDir dir;
        const QString html = dir.filePath(u"diff.html"_qs);
        QCOMPARE(runCli({ u"report"_qs, u"--etdump"_qs, fixture("runtime/cnn_mlp_50runs/etdump.etdp"), u"--compare"_qs,
                     fixture("runtime/cnn_mlp_intermediates/etdump.etdp"), u"-o"_qs, html }),
            0);
        const Browser b = load(html);
        QVERIFY(b.dom.contains(u"id=\"diff-waterfall\""_qs));
        QVERIFY(count(b.dom, u"class=\"step\""_qs) >= 3); // baseline total, steps, this total
        QVERIFY2(consoleLines(b.log).isEmpty(), qPrintable(consoleLines(b.log).join(u'\n')));
    }

    // Quantized model (issue 30): the error decomposition and graph-against-graph sections render,
    // their tables sort, and the console stays silent.
    void decompositionAndGraphDiff()
    {
        QTemporaryDir dir;
        const QString html = dir.filePath(u"quant.html"_qs);
        QCOMPARE(runCli({ u"report"_qs, u"--etdump"_qs, data("eval/qcnn_kernel.etdp"), u"--debug-buffer"_qs,
                     data("eval/qcnn_kernel.bin"), u"--etrecord"_qs, data("eval/qcnn_etrecord.bin"), u"--decompose"_qs,
                     u"--graph-diff"_qs, u"edge_dialect_exported_program"_qs, u"edge_dialect_exported_program"_qs,
                     u"-o"_qs, html }),
            0);
        const Browser b = load(html);
        QVERIFY2(b.dom.contains(u"data-sortable=\"on\""_qs), "the inline script did not run");
        for (const char *id : { "decompose", "decompose-summary", "summary-decompose", "decompose-bars",
                 "decompose-table", "graph-diff", "graph-diff-chart", "graph-diff-table", "graph-diff-verdict" })
            QVERIFY2(b.dom.contains(QStringLiteral("id=\"%1\"").arg(QLatin1String(id))), id);
        QCOMPARE(count(b.dom, u"class=\"decomp-bar\""_qs), 16); // qcnn: 16 logged ops (quant_runs_expected.json)
        QVERIFY2(consoleLines(b.log).isEmpty(), qPrintable(consoleLines(b.log).join(u'\n')));
    }
};

QTEST_GUILESS_MAIN(TstHtmlReport)
#include "tst_htmlreport.moc"
