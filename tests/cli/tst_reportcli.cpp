// `etscope-cli report` against `etscope-cli gap` on the real cnn_mlp and xnnpack_mlp runs
// (issue 28): the report's heatmap is the gap table `gap` computes from the same arguments,
// coloured by the one rule of every gap view (cool within the noise level, warm above), with the
// window's legend, verdict line and number format.
//
// Where the expected values come from:
// * flagged instructions: tests/tools/gen_gap_evaluator.py (torch + numpy; evaluator_gap_expected.json
//   "accumulated_flagged" = 3, 14, 25 for the perturbed buffer) and gen_gap_perturbed.py (numpy;
//   cnn_mlp_perturbed_expected.json: instructions 3, 14, 25 perturbed);
// * gap numbers: those files' MSEs rounded by hand to six significant digits, positional;
// * table numbers: tests/data/core/expected/*.tsv (the Inspector's own values) rounded by hand;
// * "warm": the test's own reading of the fill colour — red channel above green (the cool ramp
//   is green, the warm one orange to dark red, the neutral grey has equal channels).
#include "clirun.h"
#include "testpaths.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <set>

namespace {

using Run = etscope::test::CliRun;

QString fixture(const char *rel)
{
    return QString::fromStdString(etscope::test::sharedFixture(rel));
}
QString data(const char *rel)
{
    return QString::fromStdString(etscope::test::testData(rel));
}

const QString kCnn = fixture("runtime/cnn_mlp_intermediates/");
const QString kXnn = fixture("runtime/xnnpack_mlp_intermediates/");

struct Cell {
    int instruction = -1;
    bool flagged = false;
    bool warm = false;
};

struct Report {
    Run run;
    QString html;
    std::vector<Cell> cells;

    std::set<int> warm() const
    {
        std::set<int> out;
        for (const Cell &c : cells)
            if (c.warm)
                out.insert(c.instruction);
        return out;
    }
    std::set<int> outlined() const
    {
        std::set<int> out;
        for (const Cell &c : cells)
            if (c.flagged)
                out.insert(c.instruction);
        return out;
    }
    // The "gap" column of the worst-rows table for an instruction.
    QString worstGap(int instruction) const
    {
        static const QRegularExpression row(
            u"<tr><td>[^<]*</td><td class=\"n\">(\\d+)</td><td class=\"n\" title=\"[^\"]*\">([^<]*)</td>"_qs);
        for (auto it = row.globalMatch(html); it.hasNext();) {
            const auto m = it.next();
            if (m.captured(1).toInt() == instruction)
                return m.captured(2);
        }
        return {};
    }
};

Report report(QTemporaryDir &dir, const QStringList &args)
{
    Report r;
    const QString out = dir.filePath(u"report.html"_qs);
    QFile::remove(out);
    r.run = etscope::test::runCli(QStringList { u"report"_qs } + args + QStringList { u"-o"_qs, out });
    QFile f(out);
    if (f.open(QIODevice::ReadOnly))
        r.html = QString::fromUtf8(f.readAll());
    static const QRegularExpression cell(
        u"<rect class=\"gapcell\" data-instruction=\"(-?\\d+)\" data-flagged=\"([01])\"[^>]* fill=\"#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})\""_qs);
    for (auto it = cell.globalMatch(r.html); it.hasNext();) {
        const auto m = it.next();
        Cell c;
        c.instruction = m.captured(1).toInt();
        c.flagged = m.captured(2) == u"1"_qs;
        c.warm = m.captured(3).toInt(nullptr, 16) > m.captured(4).toInt(nullptr, 16);
        r.cells.push_back(c);
    }
    return r;
}

// Rows of `etscope-cli gap`'s text table ("    3  !!   native_call_… 0.0001 …"): instruction → flagged.
std::vector<std::pair<int, bool>> gapRows(const QStringList &args)
{
    const Run r = etscope::test::runCli(QStringList { u"gap"_qs } + args);
    std::vector<std::pair<int, bool>> rows;
    static const QRegularExpression line(u"^\\s*(\\d+)  (!!|  ) "_qs);
    for (const QString &l : QString::fromUtf8(r.out).split(u'\n')) {
        const auto m = line.match(l);
        if (m.hasMatch())
            rows.emplace_back(m.captured(1).toInt(), m.captured(2) == u"!!"_qs);
    }
    return rows;
}

std::set<int> flaggedOf(const std::vector<std::pair<int, bool>> &rows)
{
    std::set<int> out;
    for (const auto &[instruction, flagged] : rows)
        if (flagged)
            out.insert(instruction);
    return out;
}

} // namespace

class TstReportCli : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    // The healthy run against its ETRecord's graph (the evaluator, as `gap --etrecord` and the
    // window's Ctrl+G): no warm cell, the window's verdict and legend, "1 run".
    void healthyRunAgainstItsETRecord()
    {
        const QStringList args { u"--etdump"_qs, kCnn + u"etdump.etdp"_qs, u"--debug-buffer"_qs,
            kCnn + u"debug_output.bin"_qs, u"--etrecord"_qs, data("analysis/cnn_mlp_runtime_etrecord.bin") };
        const Report r = report(m_dir, args);
        QCOMPARE(r.run.code, 0);
        QVERIFY2(!r.run.err.contains("probably not"), r.run.err.constData()); // the right buffer: silent
        QVERIFY(r.html.contains(u"id=\"gap-heatmap\""_qs));
        const auto rows = gapRows(args);
        QCOMPARE(rows.size(), std::size_t(26)); // gen_gap_evaluator.py: instructions 0–27 less 12 and 24
        QCOMPARE(r.cells.size(), rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i)
            QCOMPARE(r.cells[i].instruction, rows[i].first);
        QVERIFY(flaggedOf(rows).empty());
        QVERIFY(r.warm().empty());
        QVERIFY(r.outlined().empty());
        QVERIFY(r.html.contains(u"<p id=\"gap-verdict\"><b>no op exceeds the noise level</b></p>"_qs));
        QVERIFY(r.html.contains(u"id=\"gap-legend\">MSE, accumulated, flagged above the noise level (relative error "
                                "√ε of the dtype: float32 3.45e-4)</text>"_qs));
        QVERIFY(!r.html.contains(u"e-300"_qs));
        // One Execute block: "1 run", never "1 runs".
        QVERIFY(r.html.contains(u"<div class=\"card\"><b>1</b>run</div>"_qs));
        QVERIFY(!QRegularExpression(u"(?<![0-9.])1 runs"_qs).match(r.html).hasMatch());
        QVERIFY(!r.html.contains(u"<b>1</b>runs"_qs));
    }

    // The perturbed buffer of the gap tests (instructions 3, 14 and 25 changed): exactly the rows
    // `gap` flags are warm and outlined, with the gaps in the window's format.
    void perturbedRunAgainstItsETRecord()
    {
        const QStringList args { u"--etdump"_qs, kCnn + u"etdump.etdp"_qs, u"--debug-buffer"_qs,
            data("analysis/cnn_mlp_perturbed.bin"), u"--etrecord"_qs, data("analysis/cnn_mlp_runtime_etrecord.bin") };
        const Report r = report(m_dir, args);
        QCOMPARE(r.run.code, 0);
        const std::set<int> expected { 3, 14, 25 };
        QCOMPARE(flaggedOf(gapRows(args)), expected);
        QCOMPARE(r.warm(), expected);
        QCOMPARE(r.outlined(), expected);
        QVERIFY(r.html.contains(u"<p id=\"gap-verdict\"><b>error enters: instruction 3 "_qs));
        // torch: 0.024999997019768218, 0.001185600909824641, 9.99999704926425e-05.
        QCOMPARE(r.worstGap(25), u"0.025"_qs);
        QCOMPARE(r.worstGap(14), u"0.0011856"_qs);
        QCOMPARE(r.worstGap(3), u"0.0001"_qs);
    }

    // A second ETDump as reference (the perturbed buffer): the same three rows, numpy's MSEs.
    void perturbedRunAgainstAnETDump()
    {
        const QStringList args { u"--etdump"_qs, kCnn + u"etdump.etdp"_qs, u"--debug-buffer"_qs,
            kCnn + u"debug_output.bin"_qs, u"--reference-etdump"_qs, kCnn + u"etdump.etdp"_qs,
            u"--reference-debug-buffer"_qs, data("analysis/cnn_mlp_perturbed.bin") };
        const Report r = report(m_dir, args);
        QCOMPARE(r.run.code, 0);
        const std::set<int> expected { 3, 14, 25 };
        QCOMPARE(flaggedOf(gapRows(args)), expected);
        QCOMPARE(r.warm(), expected);
        // numpy: 0.024999999254941944, 0.0011856017476269542, 9.999997683047166e-05.
        QCOMPARE(r.worstGap(25), u"0.025"_qs);
        QCOMPARE(r.worstGap(14), u"0.0011856"_qs);
        QCOMPARE(r.worstGap(3), u"0.0001"_qs);
        // A user threshold replaces the noise level, in the legend and the verdict too.
        const Report t = report(m_dir, args + QStringList { u"--threshold"_qs, u"0.01"_qs });
        QCOMPARE(t.run.code, 0);
        QCOMPARE(t.warm(), std::set<int> { 25 });
        QVERIFY(t.html.contains(u"id=\"gap-legend\">MSE, accumulated, flagged above the threshold MSE 0.01</text>"_qs));
        QVERIFY(t.html.contains(u"<p id=\"gap-verdict\"><b>error enters: instruction 25 "_qs));
    }

    // The XNNPACK run (two delegated partitions, two portable ops) against its own recording and
    // against its ETRecord's graph: nothing warm; labels name the op once; numbers as the window
    // shows them.
    void xnnpackRun()
    {
        const QStringList self { u"--etdump"_qs, kXnn + u"etdump.etdp"_qs, u"--debug-buffer"_qs,
            kXnn + u"debug_output.bin"_qs, u"--reference"_qs, kXnn + u"etdump.etdp"_qs };
        const Report r = report(m_dir, self);
        QCOMPARE(r.run.code, 0);
        QVERIFY(!r.cells.empty());
        QVERIFY(r.warm().empty());
        QVERIFY(r.html.contains(u"<b>no op exceeds the noise level</b>"_qs));
        // No label repeats itself ("event [event]").
        static const QRegularExpression twice(u"<title>instruction \\d+ ([^ <]+) \\[\\1\\]"_qs);
        QVERIFY(!twice.match(r.html).hasMatch());
        // Four cells, all exact (the run against itself): the "3 of 4 healthy cells red".
        QCOMPARE(r.cells.size(), std::size_t(4));
        QVERIFY(r.html.contains(
            u"<title>instruction 0 DELEGATE_CALL [delegated] — MSE 0 (within the noise level)</title>"_qs));
        // Inspector table: xnnpack_mlp_intermediates.tsv row 2 is 0.01099999999999568 ms, shown
        // as 0.011 with every digit kept to sort by and in the tooltip.
        QVERIFY(r.html.contains(
            u"<td class=\"n\" data-v=\"0.01099999999999568\" title=\"0.01099999999999568\">0.011</td>"_qs));
        QVERIFY(!r.html.contains(u">0.01099999999999568<"_qs));

        const QStringList evaluator { u"--etdump"_qs, kXnn + u"etdump.etdp"_qs, u"--debug-buffer"_qs,
            kXnn + u"debug_output.bin"_qs, u"--etrecord"_qs, data("analysis/xnn_mlp_runtime_etrecord.bin"),
            u"--inputs"_qs, data("analysis/xnn_mlp_inputs.pt") };
        const Report e = report(m_dir, evaluator);
        QCOMPARE(e.run.code, 0);
        const auto rows = gapRows(evaluator);
        QVERIFY(!rows.empty());
        QCOMPARE(e.cells.size(), rows.size());
        QVERIFY(flaggedOf(rows).empty());
        QVERIFY(e.warm().empty());
    }

    // The module roll-up shows the model itself first, named "(model)" as `modules` and the window
    // name it: in the XNNPACK run it holds the two partitions that span fc1+fc2 and fc3+fc4.
    void rootModuleIsNamed()
    {
        const Report r = report(m_dir,
            { u"--etdump"_qs, kXnn + u"etdump.etdp"_qs, u"--etrecord"_qs, data("etrecord/xnn_mlp_etrecord.bin") });
        QCOMPARE(r.run.code, 0);
        const auto start = r.html.indexOf(u"id=\"module-rollup\""_qs);
        QVERIFY(start > 0);
        const QString rollup = r.html.mid(start, r.html.indexOf(u"</svg>"_qs, start) - start);
        // Total: the Inspector's averages (xnnpack_mlp_intermediates.tsv) of the events counted in
        // modules, both DELEGATE_CALLs and native_layer_norm: 0.043306 + 0.032013 + 0.010668 ms.
        QVERIFY(rollup.contains(u"<title>(model) — 0.085987 ms over 3 events; counted here, spanning fc1, fc2, "
                                "(model): DELEGATE_CALL (XnnpackBackend, instruction 0) 0.043306 ms"_qs));
        QVERIFY(rollup.contains(u"text-anchor=\"end\">(model)</text>"_qs));
        QVERIFY(!rollup.contains(u"text-anchor=\"end\"></text>"_qs)); // no blank label
        const Report many = report(m_dir, { u"--etdump"_qs, fixture("runtime/cnn_mlp_50runs/etdump.etdp") });
        QVERIFY(many.html.contains(u"<div class=\"card\"><b>50</b>runs</div>"_qs));
    }
};

QTEST_GUILESS_MAIN(TstReportCli)
#include "tst_reportcli.moc"
