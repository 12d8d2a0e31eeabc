// `etscope-cli report --decompose` and `--graph-diff A B` (issue 30) against `gap --decompose
// --json` and `graph-diff --json` run with the same arguments, and against the fixtures' own truth.
//
// Where the expected values come from:
// * dominant per op: tests/data/eval/quant_runs_expected.json, written by
//   tests/tools/gen_quant_runs.py when it authored the runtime runs — kernel where it injected the
//   kernel error, quantization where numpy's MSE of PyTorch's fake-quantized value against PyTorch's
//   float-twin value exceeds the √ε noise level, noise otherwise (independent of etscope);
// * quant_error: the same file's "quant_mse" (numpy on PyTorch's values), within 1% as in
//   tests/analysis/tst_decompose.cpp (a requantization can round one element the other way);
// * per-layer graph-diff values, first parting layer and unaligned nodes:
//   tests/data/analysis/graphdiff_expected.json (tests/tools/gen_graphdiff_fixtures.py, PyTorch);
// * the report's numbers equal the CLI's JSON exactly (every digit behind the rounded cell), and
//   the rounded cell is that number to six significant digits (the rule of common/numberformat.h,
//   checked here by relative difference, not by calling it);
// * the stacked bar's quantization share: q / (q + k) of the JSON's MSEs, computed here.
#include "clirun.h"
#include "htmltags.h"
#include "quanttruth.h"
#include "testpaths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace {

using etscope::test::CliRun;

QString data(const std::string &rel)
{
    return QString::fromStdString(etscope::test::testData(rel));
}

QJsonObject readJson(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return QJsonDocument::fromJson(f.readAll()).object();
}

QStringList quantRun(const QString &stem, const QString &kind)
{
    const std::string s = stem.toStdString(), k = kind.toStdString();
    return { u"--etdump"_qs, data("eval/" + s + "_" + k + ".etdp"), u"--debug-buffer"_qs,
        data("eval/" + s + "_" + k + ".bin"), u"--etrecord"_qs, data("eval/" + s + "_etrecord.bin") };
}

struct Html {
    CliRun run;
    QString text;
};

Html report(QTemporaryDir &dir, const QStringList &args)
{
    const QString out = dir.filePath(u"report.html"_qs);
    QFile::remove(out);
    Html h;
    h.run = etscope::test::runCli(QStringList { u"report"_qs } + args + QStringList { u"-o"_qs, out });
    QFile f(out);
    if (f.open(QIODevice::ReadOnly))
        h.text = QString::fromUtf8(f.readAll());
    return h;
}

// A JSON number, or the strings "inf" / "-inf" (strict JSON); NaN for null.
double jsonNumber(const QJsonValue &v)
{
    if (v.isDouble())
        return v.toDouble();
    if (v.toString() == u"inf"_qs)
        return std::numeric_limits<double>::infinity();
    if (v.toString() == u"-inf"_qs)
        return -std::numeric_limits<double>::infinity();
    return std::nan("");
}

// A cell's data-v ("Infinity" as the page's sort script reads it).
double cellNumber(const QString &v)
{
    if (v == u"Infinity"_qs)
        return std::numeric_limits<double>::infinity();
    if (v == u"-Infinity"_qs)
        return -std::numeric_limits<double>::infinity();
    bool ok = false;
    const double d = v.toDouble(&ok);
    return ok ? d : std::nan("");
}

bool sameNumber(double a, double b)
{
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

// The rounded cell shows `full` to six significant digits.
bool roundedOf(const QString &shown, double full)
{
    if (std::isnan(full))
        return shown == u"–"_qs;
    if (std::isinf(full))
        return shown == (full > 0 ? u"inf"_qs : u"-inf"_qs);
    bool ok = false;
    const double v = shown.toDouble(&ok);
    return ok && std::abs(v - full) <= 5e-6 * std::abs(full) + 1e-300;
}

struct Cell {
    double full = std::nan("");
    QString shown;
};

struct DecompRow {
    int instruction = -1;
    QString dominant;
    Cell quant, kernel, total;
};

QString section(const QString &html, const QString &id)
{
    const auto start = html.indexOf(QStringLiteral("<section id=\"%1\">").arg(id));
    if (start < 0)
        return {};
    return html.mid(start, html.indexOf(u"</section>"_qs, start) - start);
}

std::vector<DecompRow> decompositionRows(const QString &html)
{
    std::vector<DecompRow> rows;
    const QString s = section(html, u"decompose"_qs);
    static const QRegularExpression row(u"<tr data-instruction=\"(-?\\d+)\" data-dominant=\"(\\w+)\">(.*?)</tr>"_qs);
    static const QRegularExpression cell(
        u"<td class=\"n(?: above)?\" (?:data-v=\"([^\"]*)\" title=\"[^\"]*\"|title=\"not computable\")>(?:<b>)?([^<]*)"_qs);
    for (auto it = row.globalMatch(s); it.hasNext();) {
        const auto m = it.next();
        DecompRow r;
        r.instruction = m.captured(1).toInt();
        r.dominant = m.captured(2);
        std::vector<Cell> cells;
        for (auto c = cell.globalMatch(m.captured(3)); c.hasNext();) {
            const auto cm = c.next();
            if (!cm.captured(1).isNull() || cm.captured(2) == u"–"_qs)
                cells.push_back(
                    Cell { cm.captured(1).isNull() ? std::nan("") : cellNumber(cm.captured(1)), cm.captured(2) });
        }
        // The three error cells ("#" and instruction have no tooltip).
        if (cells.size() == 3) {
            r.quant = cells[0];
            r.kernel = cells[1];
            r.total = cells[2];
        }
        rows.push_back(r);
    }
    return rows;
}

// Lines of stderr that are not warnings.
int errorLines(const QByteArray &err)
{
    int n = 0;
    for (const QByteArray &l : err.split('\n'))
        n += !l.isEmpty() && !l.startsWith("etscope-cli: warning:");
    return n;
}

} // namespace

class TstReportQuantCli : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void decompositionEqualsGapDecompose_data()
    {
        QTest::addColumn<QString>("stem");
        QTest::addColumn<QString>("kind");
        for (const char *stem : { "qcnn", "qlinear", "qdecoder" })
            for (const char *kind : { "healthy", "kernel" })
                QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(QLatin1String(stem), QLatin1String(kind))))
                    << QString::fromLatin1(stem) << QString::fromLatin1(kind);
    }
    void decompositionEqualsGapDecompose()
    {
        QFETCH(QString, stem);
        QFETCH(QString, kind);
        // The graph tst_decompose checks against the truth; both commands get it the same way.
        const QStringList args
            = quantRun(stem, kind) + QStringList { u"--reference-graph"_qs, u"edge_dialect_exported_program"_qs };
        const Html h = report(m_dir, args + QStringList { u"--decompose"_qs });
        QVERIFY2(h.run.code == 0, h.run.err.constData());
        const CliRun g = etscope::test::runCli(
            QStringList { u"gap"_qs } + args + QStringList { u"--decompose"_qs, u"--json"_qs, u"-"_qs });
        QVERIFY2(g.code == 0, g.err.constData());
        const QJsonObject j = QJsonDocument::fromJson(g.out).object();
        const QJsonArray ops = j.value(u"ops"_qs).toArray();
        const QJsonArray truth = etscope::test::quantRunTruth(stem, kind);

        // The sentence, at the top of the section and in the page's summary.
        const QString summary = j.value(u"summary"_qs).toString();
        QVERIFY(!summary.isEmpty());
        QVERIFY2(
            h.text.contains(u"<p id=\"decompose-summary\"><b>"_qs + summary + u"</b></p>"_qs), qPrintable(summary));
        QVERIFY(h.text.contains(u"<p id=\"summary-decompose\"><b>Error decomposition:</b> "_qs + summary));
        QVERIFY(h.text.indexOf(u"id=\"summary-decompose\""_qs) < h.text.indexOf(u"<section id=\"charts\">"_qs));
        // The metric named in the headers, the noise rule stated.
        QVERIFY(h.text.contains(u"<th>quant_error (MSE)</th><th>kernel_error (MSE)</th><th>total_error (MSE)</th>"_qs));
        QVERIFY(h.text.contains(u"flagged (bold) above the noise level (relative error √ε of the dtype"_qs));

        const auto rows = decompositionRows(h.text);
        QCOMPARE(int(rows.size()), ops.size());
        QCOMPARE(int(rows.size()), truth.size());
        for (int i = 0; i < ops.size(); ++i) {
            const QJsonObject o = ops.at(i).toObject(), t = truth.at(i).toObject();
            const DecompRow &r = rows[std::size_t(i)];
            QCOMPARE(r.instruction, o.value(u"instruction"_qs).toInt());
            QCOMPARE(r.instruction, t.value(u"instruction"_qs).toInt());
            QCOMPARE(r.dominant, o.value(u"dominant"_qs).toString());
            QCOMPARE(r.dominant, t.value(u"dominant"_qs).toString()); // the injected truth
            const std::pair<const Cell *, const char *> parts[]
                = { { &r.quant, "quant_error" }, { &r.kernel, "kernel_error" }, { &r.total, "total_error" } };
            for (const auto &[cell, key] : parts) {
                const double want = jsonNumber(o.value(QLatin1String(key)));
                QVERIFY2(sameNumber(cell->full, want),
                    qPrintable(QStringLiteral("instruction %1 %2: report %3, gap --json %4")
                                   .arg(r.instruction)
                                   .arg(QLatin1String(key))
                                   .arg(cell->full, 0, 'g', 17)
                                   .arg(want, 0, 'g', 17)));
                QVERIFY2(roundedOf(cell->shown, cell->full), qPrintable(cell->shown));
            }
            if (!t.value(u"quant_mse"_qs).isNull()) {
                const double qm = t.value(u"quant_mse"_qs).toDouble();
                QVERIFY(std::abs(r.quant.full - qm) <= 1e-9 + 1e-2 * qm);
            }
        }

        // The stacked bars: every op when at most 40, else the 40 with the largest total error (MSE
        // as is; ties in execution order), drawn in execution order; each bar's dominant and
        // quantization share q / (q + k).
        std::vector<int> shown;
        for (int i = 0; i < ops.size(); ++i)
            shown.push_back(i);
        if (shown.size() > 40) {
            auto total = [&](int i) {
                const double t = jsonNumber(ops.at(i).toObject().value(u"total_error"_qs));
                return std::isnan(t) ? -1.0 : t;
            };
            std::stable_sort(shown.begin(), shown.end(), [&](int a, int b) { return total(a) > total(b); });
            shown.resize(40);
            std::sort(shown.begin(), shown.end());
            QVERIFY(h.text.contains(QStringLiteral("the 40 ops with the largest total error of %1 (in execution "
                                                   "order; the other %2 are in the table)")
                                        .arg(ops.size())
                                        .arg(ops.size() - 40)));
        } else {
            QVERIFY(h.text.contains(
                QStringLiteral("Quantization against kernel share, %1 ops in execution order").arg(ops.size())));
        }
        static const QRegularExpression bar(
            u"<g class=\"decomp-bar\" data-instruction=\"(-?\\d+)\" data-dominant=\"(\\w+)\" data-quant-share=\"([0-9.]+)\">"_qs);
        std::size_t bars = 0;
        for (auto it = bar.globalMatch(h.text); it.hasNext(); ++bars) {
            const auto m = it.next();
            QVERIFY(bars < shown.size());
            const QJsonObject o = ops.at(shown[bars]).toObject();
            QCOMPARE(m.captured(1).toInt(), o.value(u"instruction"_qs).toInt());
            QCOMPARE(m.captured(2), o.value(u"dominant"_qs).toString());
            const double q = std::max(0.0, jsonNumber(o.value(u"quant_error"_qs)));
            const double k = std::max(0.0, jsonNumber(o.value(u"kernel_error"_qs)));
            const double share = q + k > 0 ? q / (q + k) : 0;
            QVERIFY2(std::abs(m.captured(3).toDouble() - share) <= 5e-5,
                qPrintable(QStringLiteral("%1: %2 vs %3").arg(bars).arg(m.captured(3)).arg(share)));
        }
        QCOMPARE(bars, shown.size());
        // Each bar's total on the gap views' colour scale: warm (red channel above green, as
        // tst_reportcli reads the heatmap) and outlined exactly when `gap --decompose` flags it.
        static const QRegularExpression chip(
            u"<rect class=\"total-chip\" [^>]*fill=\"#([0-9a-f]{2})([0-9a-f]{2})[0-9a-f]{2}\" stroke=\"(#[0-9a-f]+)\""_qs);
        std::size_t chips = 0;
        for (auto it = chip.globalMatch(h.text); it.hasNext(); ++chips) {
            const auto m = it.next();
            QVERIFY(chips < shown.size());
            const bool flagged
                = ops.at(shown[chips]).toObject().value(u"total"_qs).toObject().value(u"flagged"_qs).toBool();
            QCOMPARE(m.captured(1).toInt(nullptr, 16) > m.captured(2).toInt(nullptr, 16), flagged);
            QCOMPARE(m.captured(3) == u"#000"_qs, flagged);
        }
        QCOMPARE(chips, shown.size());
        QCOMPARE(etscope::test::tagBalanceError(h.text), QString());
    }

    // Another metric: SNR (lower is worse) reaches the decomposition as it reaches `gap`.
    void otherMetricAndThreshold()
    {
        const QStringList args = quantRun(u"qlinear"_qs, u"kernel"_qs) + QStringList { u"--metric"_qs, u"SNR"_qs };
        const Html h = report(m_dir, args + QStringList { u"--decompose"_qs });
        QVERIFY2(h.run.code == 0, h.run.err.constData());
        const CliRun g = etscope::test::runCli(
            QStringList { u"gap"_qs } + args + QStringList { u"--decompose"_qs, u"--json"_qs, u"-"_qs });
        QCOMPARE(g.code, 0);
        const QJsonObject j = QJsonDocument::fromJson(g.out).object();
        QVERIFY(h.text.contains(u"<h2>Error decomposition (SNR)</h2>"_qs));
        QVERIFY(h.text.contains(u"<b>"_qs + j.value(u"summary"_qs).toString() + u"</b>"_qs));
        const auto rows = decompositionRows(h.text);
        const QJsonArray ops = j.value(u"ops"_qs).toArray();
        QCOMPARE(int(rows.size()), ops.size());
        for (int i = 0; i < ops.size(); ++i) {
            QVERIFY(
                sameNumber(rows[std::size_t(i)].total.full, jsonNumber(ops.at(i).toObject().value(u"total_error"_qs))));
            QCOMPARE(rows[std::size_t(i)].dominant, ops.at(i).toObject().value(u"dominant"_qs).toString());
        }
        // A threshold nothing exceeds: noise everywhere, and the sentence says no accuracy is lost.
        const Html t = report(m_dir,
            quantRun(u"qcnn"_qs, u"kernel"_qs) + QStringList { u"--decompose"_qs, u"--threshold"_qs, u"1e9"_qs });
        QCOMPARE(t.run.code, 0);
        for (const auto &r : decompositionRows(t.text))
            QCOMPARE(r.dominant, u"noise"_qs);
        QVERIFY(t.text.contains(u"<p id=\"decompose-summary\"><b>no accuracy is lost"_qs));
        QVERIFY(t.text.contains(u"flagged (bold) above the threshold MSE 1e+09"_qs));
    }

    // graph-diff of the float model against its fake-quantized transform: the report's section is
    // `graph-diff --json`, and both are PyTorch's values.
    void graphDiffEqualsGraphDiffJson()
    {
        // Any recording will do: graph-diff reads only the ETRecord.
        const QString rec = data("analysis/graphdiff_etrecord.bin");
        const Html h = report(m_dir,
            { u"--etdump"_qs, data("eval/qcnn_kernel.etdp"), u"--etrecord"_qs, rec, u"--graph-diff"_qs,
                u"exported_program"_qs, u"edge_after_transform"_qs });
        QVERIFY2(h.run.code == 0, h.run.err.constData());
        const CliRun g = etscope::test::runCli({ u"graph-diff"_qs, u"--etrecord"_qs, rec, u"--a"_qs,
            u"exported_program"_qs, u"--b"_qs, u"edge_after_transform"_qs, u"--json"_qs, u"-"_qs });
        QCOMPARE(g.code, 0);
        const QJsonObject j = QJsonDocument::fromJson(g.out).object();
        const QJsonObject truth = readJson(data("analysis/graphdiff_expected.json"))
                                      .value(u"comparisons"_qs)
                                      .toObject()
                                      .value(u"exported_program vs edge_after_transform/forward"_qs)
                                      .toObject();
        const QString s = section(h.text, u"graph-diff"_qs);
        QVERIFY(!s.isEmpty());
        QVERIFY(s.contains(u"<td>a (reference)</td><td>exported_program</td>"_qs));
        QVERIFY(s.contains(u"<td>b</td><td>edge_after_transform/forward</td>"_qs));
        QVERIFY(s.contains(u"<td>metric</td><td>MSE per aligned layer, flagged above the noise level"_qs));
        const QString verdict = j.value(u"verdict"_qs).toString();
        QVERIFY(verdict.startsWith(u"the graphs part at layer 5 "_qs));
        QVERIFY(s.contains(u"<p id=\"graph-diff-verdict\"><b>"_qs + verdict + u"</b></p>"_qs));
        QVERIFY(h.text.contains(u"<p id=\"summary-graph-diff\"><b>Graph against graph</b> (exported_program vs "
                                "edge_after_transform/forward): "_qs
            + verdict));

        static const QRegularExpression row(
            u"<tr data-layer=\"(\\d+)\" data-flagged=\"([01])\"><td class=\"n\" "
            u"data-v=\"\\d+\">\\d+</td><td>([^<]*)</td>"
            "<td>[^<]*</td><td class=\"n\">[^<]*</td><td>([^<]*)</td><td>[^<]*</td><td class=\"n\">[^<]*</td>"
            "<td>([^<]*)</td><td class=\"n\" data-v=\"([^\"]*)\" title=\"[^\"]*\">(?:<b>)?([^<]*)"_qs);
        const QJsonArray rows = j.value(u"rows"_qs).toArray(), want = truth.value(u"rows"_qs).toArray();
        QCOMPARE(rows.size(), want.size());
        int n = 0;
        for (auto it = row.globalMatch(s); it.hasNext(); ++n) {
            const auto m = it.next();
            QVERIFY(n < rows.size());
            const QJsonObject r = rows.at(n).toObject(), w = want.at(n).toObject();
            QCOMPARE(m.captured(1).toInt(), n + 1);
            QCOMPARE(m.captured(2) == u"1"_qs, r.value(u"flagged"_qs).toBool());
            QCOMPARE(m.captured(2) == u"1"_qs, w.value(u"flagged"_qs).toBool());
            QCOMPARE(m.captured(3), r.value(u"a_node"_qs).toString());
            QCOMPARE(m.captured(3), w.value(u"a_node"_qs).toString());
            QCOMPARE(m.captured(4), w.value(u"b_node"_qs).toString());
            QCOMPARE(m.captured(5), w.value(u"aligned_by"_qs).toString());
            const double v = cellNumber(m.captured(6));
            QVERIFY(sameNumber(v, jsonNumber(r.value(u"worst"_qs))));
            // PyTorch's MSE of PyTorch's outputs: the evaluator's float32 kernels round differently
            // (tst_graphdiff's tolerance).
            const double pt = w.value(u"MSE"_qs).toArray().first().toDouble();
            QVERIFY2(std::abs(v - pt) <= 1e-4 * pt + 1e-12,
                qPrintable(
                    QStringLiteral("layer %1: %2 vs PyTorch %3").arg(n + 1).arg(v, 0, 'g', 17).arg(pt, 0, 'g', 17)));
            QVERIFY(roundedOf(m.captured(7), v));
        }
        QCOMPARE(n, rows.size());
        // The chart: one column per layer, the flagged ones flagged, the parting layer marked.
        static const QRegularExpression column(
            u"<rect class=\"layer\" data-layer=\"(\\d+)\" data-flagged=\"([01])\""_qs);
        int cols = 0;
        for (auto it = column.globalMatch(s); it.hasNext(); ++cols) {
            const auto m = it.next();
            QCOMPARE(m.captured(1).toInt(), cols + 1);
            QCOMPARE(m.captured(2) == u"1"_qs, want.at(cols).toObject().value(u"flagged"_qs).toBool());
        }
        QCOMPARE(cols, want.size());
        QVERIFY(s.contains(u">parts at layer 5</text>"_qs));
        // Unaligned: PyTorch's list (the generator's four inserted fake-quant nodes), none in a.
        QVERIFY(s.contains(u"<h3>Unaligned in a (exported_program): 0</h3>"_qs));
        QVERIFY(s.contains(u"<h3>Unaligned in b (edge_after_transform/forward): 4</h3>"_qs));
        const QJsonArray ub = truth.value(u"unaligned_b"_qs).toArray();
        QCOMPARE(ub.size(), 4);
        for (const auto &u : ub) {
            const QString name = u.isObject() ? u.toObject().value(u"node"_qs).toString() : u.toString();
            QVERIFY2(s.contains(u"<li>"_qs + name + u" <span"_qs), qPrintable(name));
        }
        QCOMPARE(etscope::test::tagBalanceError(h.text), QString());
    }

    // A graph against itself: every layer exact, nothing flagged, no parting mark.
    void graphAgainstItself()
    {
        const Html h = report(m_dir,
            quantRun(u"qdecoder"_qs, u"healthy"_qs)
                + QStringList { u"--graph-diff"_qs, u"edge_dialect_exported_program"_qs,
                    u"edge_dialect_exported_program"_qs, u"--decompose"_qs });
        QVERIFY2(h.run.code == 0, h.run.err.constData());
        const QString s = section(h.text, u"graph-diff"_qs);
        QVERIFY(s.contains(u"<b>the graphs agree within noise at every aligned layer</b>"_qs));
        QVERIFY(!s.contains(u"data-flagged=\"1\""_qs));
        QVERIFY(!s.contains(u"graph-diff-parting"_qs));
        QVERIFY(s.count(u"<rect class=\"layer\""_qs) > 10);
        // Both sections, in order, each listed in the navigation.
        QVERIFY(h.text.indexOf(u"<section id=\"decompose\">"_qs) < h.text.indexOf(u"<section id=\"graph-diff\">"_qs));
        QVERIFY(h.text.contains(u"<a href=\"#decompose\">Error decomposition</a><a href=\"#graph-diff\">"_qs));
        QCOMPARE(etscope::test::tagBalanceError(h.text), QString());
    }

    // Without the options nothing of them appears; with bad ones, one line and exit code 1 (2: usage).
    void absentAndErrors()
    {
        const Html plain = report(m_dir, quantRun(u"qcnn"_qs, u"kernel"_qs));
        QCOMPARE(plain.run.code, 0);
        QVERIFY(plain.text.contains(u"<section id=\"gap\">"_qs));
        for (const char *id : { "decompose", "graph-diff", "summary-decompose", "summary-graph-diff" })
            QVERIFY2(!plain.text.contains(QStringLiteral("id=\"%1\"").arg(QLatin1String(id))), id);
        QCOMPARE(etscope::test::tagBalanceError(plain.text), QString());

        const CliRun noBuffer
            = etscope::test::runCli({ u"report"_qs, u"--etdump"_qs, data("eval/qcnn_kernel.etdp"), u"--etrecord"_qs,
                data("eval/qcnn_etrecord.bin"), u"--decompose"_qs, u"-o"_qs, m_dir.filePath(u"x.html"_qs) });
        QCOMPARE(noBuffer.code, 1);
        QVERIFY2(noBuffer.err.contains("--debug-buffer is required"), noBuffer.err.constData());
        const CliRun withRef = etscope::test::runCli(QStringList { u"report"_qs } + quantRun(u"qcnn"_qs, u"kernel"_qs)
            + QStringList { u"--decompose"_qs, u"--reference"_qs, data("eval/qcnn_healthy.etdp"), u"-o"_qs,
                m_dir.filePath(u"x.html"_qs) });
        QCOMPARE(withRef.code, 1);
        QCOMPARE(errorLines(withRef.err), 1);
        const CliRun unknown = etscope::test::runCli(QStringList { u"report"_qs } + quantRun(u"qcnn"_qs, u"kernel"_qs)
            + QStringList {
                u"--graph-diff"_qs, u"exported_program"_qs, u"nosuch"_qs, u"-o"_qs, m_dir.filePath(u"x.html"_qs) });
        QCOMPARE(unknown.code, 1);
        QCOMPARE(errorLines(unknown.err), 1); // the heatmap's evaluator may warn before
        QVERIFY2(unknown.err.contains("edge_dialect_exported_program/forward"), unknown.err.constData());
        const CliRun one = etscope::test::runCli(QStringList { u"report"_qs } + quantRun(u"qcnn"_qs, u"kernel"_qs)
            + QStringList { u"--graph-diff"_qs, u"exported_program"_qs });
        QCOMPARE(one.code, 2);
    }
};

QTEST_GUILESS_MAIN(TstReportQuantCli)
#include "tst_reportquantcli.moc"
