// The report's error-decomposition and graph-against-graph sections (core/export/reportdecompose.h,
// reportgraphdiff.h) from the core, without the CLI:
// * a report without them is the report with them less exactly what they add (navigation links,
//   summary lines, sections): nothing else on the page moves (the no-regression check; the CLI
//   test checks the values);
// * the stacked bar's additive scale, by hand: SNR 20 dB is a noise-to-signal power of 10^-2,
//   cosine 0.99 leaves 0.01, MSE is itself;
// * top-N on hand-made rows: 100 ops with total error i (MSE) show ops 60..99, in order;
// * everything from files is escaped and the tags balance;
// * the coverage section's explained fraction equals tests/data/analysis/coverage_expected.json
//   (numpy over `flatc --json` of each recording, tests/tools/gen_coverage_expected.py), and it
//   warns exactly when that fraction is below 90 %.
#include "evalgap/decompose.h"
#include "evalgap/graphdiff.h"
#include "export/htmlreport.h"
#include "export/reportdecompose.h"
#include "export/reportgraphdiff.h"
#include "htmltags.h"
#include "session/session.h"
#include "testpaths.h"

#include <QRegularExpression>
#include <QTest>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

using namespace etscope;

namespace {

std::shared_ptr<const Session> load(const std::string &kind)
{
    SessionInputs in;
    in.etdump = test::testData("eval/qcnn_" + kind + ".etdp");
    in.debugBuffer = test::testData("eval/qcnn_" + kind + ".bin");
    in.etrecord = test::testData("eval/qcnn_etrecord.bin");
    auto s = loadSession(in);
    if (!s)
        qFatal("%s", s.error().message().c_str());
    return *s;
}

std::string eraseAll(std::string s, const std::string &what)
{
    for (auto p = s.find(what); p != std::string::npos; p = s.find(what))
        s.erase(p, what.size());
    return s;
}

// Removes `<tag id="id" ...>…</tag>` (the first `</tag>` after it ends it; the sections hold no
// nested <section>, the summary lines no nested <p>).
std::string eraseElement(std::string s, const std::string &tag, const std::string &id)
{
    const auto start = s.find("<" + tag + " id=\"" + id + "\"");
    if (start == std::string::npos)
        return s;
    const std::string close = "</" + tag + ">";
    auto end = s.find(close, start) + close.size();
    if (tag == "section" && end < s.size() && s[end] == '\n')
        ++end;
    return s.erase(start, end - start);
}

ReportDecompositionRow row(int instruction, double quant, double kernel, double total, const std::string &dominant)
{
    ReportDecompositionRow r;
    r.label = "#" + std::to_string(instruction) + " op";
    r.instructionId = instruction;
    r.quant = ReportErrorPart { quant, 1e-6, 0, quant > 1e-6, true };
    r.kernel = ReportErrorPart { kernel, 1e-6, 0, kernel > 1e-6, true };
    r.total = ReportErrorPart { total, 1e-6, 0, total > 1e-6, true };
    r.dominant = dominant;
    return r;
}

} // namespace

class TstReportSections : public QObject
{
    Q_OBJECT
private slots:
    void withoutSectionsNothingElseChanges()
    {
        auto s = load("kernel");
        ReportInputs plain;
        plain.sessions.push_back(s);
        const std::string before = renderHtmlReport(plain);

        evalgap::DecomposeOptions o;
        o.threads = 2;
        o.referenceGraph = "edge_dialect_exported_program"; // named: no fallback warning
        auto d = evalgap::decomposeGap(*s->etrecord, *s, o);
        QVERIFY(d);
        evalgap::GraphDiffOptions g;
        g.a = g.b = "edge_dialect_exported_program";
        g.threads = 2;
        auto diff = evalgap::diffGraphs(*s->etrecord, g);
        QVERIFY(diff);
        ReportInputs with = plain;
        with.decomposition = reportDecomposition(*d);
        with.graphDiff = reportGraphDiff(*diff);
        QVERIFY(with.decomposition->warnings.empty() && with.graphDiff->warnings.empty()); // else the card moves
        const std::string after = renderHtmlReport(with);
        QVERIFY(after.size() > before.size() + 5000);

        std::string stripped = eraseAll(after, "<a href=\"#decompose\">Error decomposition</a>");
        stripped = eraseAll(stripped, "<a href=\"#graph-diff\">Graph against graph</a>");
        stripped = eraseElement(stripped, "p", "summary-decompose");
        stripped = eraseElement(stripped, "p", "summary-graph-diff");
        stripped = eraseElement(stripped, "section", "decompose");
        stripped = eraseElement(stripped, "section", "graph-diff");
        QVERIFY(stripped == before);
        QCOMPARE(test::tagBalanceError(QString::fromStdString(after)), QString());

        // Their warnings join the page's warning list, named by section.
        with.decomposition->warnings.push_back("w1");
        with.graphDiff->warnings.push_back("w2");
        const std::string warned = renderHtmlReport(with);
        QVERIFY(warned.find("<li>error decomposition: w1</li>") != std::string::npos);
        QVERIFY(warned.find("<li>graph against graph: w2</li>") != std::string::npos);
    }

    void additiveScale()
    {
        ReportDecomposition d;
        d.metric = "SNR";
        QCOMPARE(additiveError(d, ReportErrorPart { 20, 0, 0, false, true }), 0.01);
        QCOMPARE(additiveError(d, ReportErrorPart { INFINITY, 0, 0, false, true }), 0.0); // exact
        d.metric = "COSINE";
        QVERIFY(std::abs(additiveError(d, ReportErrorPart { 0.99, 0, 0, false, true }) - 0.01) < 1e-15);
        d.metric = "MSE";
        QCOMPARE(additiveError(d, ReportErrorPart { 0.25, 0, 0, false, true }), 0.25);
        QCOMPARE(additiveError(d, ReportErrorPart { 0.25, 0, 0, false, false }), 0.0); // not computable
        QCOMPARE(additiveError(d, ReportErrorPart { NAN, 0, 0, false, true }), 0.0);
    }

    void manyOpsShowTheLargest()
    {
        ReportDecomposition d;
        d.metric = "MSE";
        d.judgedBy = "noise level";
        d.summary = "s";
        for (int i = 0; i < 100; ++i)
            d.rows.push_back(row(i, i * 0.75, i * 0.25, i, "quantization"));
        const QString h = QString::fromStdString(decompositionSection(d));
        static const QRegularExpression bar(
            u"<g class=\"decomp-bar\" data-instruction=\"(\\d+)\"[^>]*data-quant-share=\"([0-9.]+)\""_qs);
        std::vector<int> shown;
        for (auto it = bar.globalMatch(h); it.hasNext();) {
            const auto m = it.next();
            shown.push_back(m.captured(1).toInt());
            if (shown.back() > 0)
                QCOMPARE(m.captured(2), u"0.7500"_qs); // 0.75 i / (0.75 i + 0.25 i)
        }
        std::vector<int> want;
        for (int i = 60; i < 100; ++i)
            want.push_back(i);
        QCOMPARE(shown, want);
        QVERIFY(h.contains(u"the 40 ops with the largest total error of 100 (in execution order; the other 60 are in "
                           "the table)"_qs));
        QCOMPARE(h.count(u"<tr data-instruction="_qs), 100); // the table lists all
        QCOMPARE(test::tagBalanceError(h), QString());
    }

    void coverageEqualsNumpy_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("etdump");
        QTest::newRow("cnn_mlp_50runs") << u"cnn_mlp_50runs"_qs
                                        << QString::fromStdString(
                                               test::sharedFixture("runtime/cnn_mlp_50runs/etdump.etdp"));
        QTest::newRow("add_pte_50runs") << u"add_pte_50runs"_qs
                                        << QString::fromStdString(
                                               test::sharedFixture("runtime/add_pte_50runs/etdump.etdp"));
        QTest::newRow("vulkan_stem") << u"vulkan_stem"_qs
                                     << QString::fromStdString(test::testData("backend/vulkan_stem/etdump.etdp"));
    }
    void coverageEqualsNumpy()
    {
        QFETCH(QString, name);
        QFETCH(QString, etdump);
        std::ifstream f(test::testData("analysis/coverage_expected.json"));
        const auto truth = nlohmann::json::parse(f)[name.toStdString()];
        const double expected = truth["explained"].get<double>() / truth["execute"].get<double>();
        SessionInputs in;
        in.etdump = etdump.toStdString();
        auto s = loadSession(in);
        QVERIFY2(s, s ? "" : s.error().message().c_str());
        ReportInputs r;
        r.sessions.push_back(*s);
        const QString h = QString::fromStdString(renderHtmlReport(r));
        const auto m
            = QRegularExpression(u"<p id=\"coverage-headline\"( class=\"warn\")? data-v=\"([^\"]+)\">events explain"_qs)
                  .match(h);
        QVERIFY2(m.hasMatch(), "no coverage headline");
        QVERIFY(std::abs(m.captured(2).toDouble() - expected) <= 1e-12);
        QCOMPARE(!m.captured(1).isEmpty(), expected < 0.9);
        QVERIFY(h.contains(u"<a href=\"#coverage\">"_qs));
        // A wall time given: one more line, against it.
        r.wallMs = 1000;
        const QString withWall = QString::fromStdString(renderHtmlReport(r));
        QVERIFY(withWall.contains(u"wall"_qs) && !h.contains(u"wall"_qs));
        QCOMPARE(test::tagBalanceError(withWall), QString());
    }

    void escaped()
    {
        ReportDecomposition d;
        d.metric = "MSE";
        d.judgedBy = "noise level";
        d.summary = "lost at <script>alert(1)</script>";
        d.rows.push_back(row(0, 1, 0, 1, "quantization"));
        d.rows.back().label = "#0 <img src=x>";
        d.rows.back().note = "a \"note\" & <b>";
        ReportGraphDiff g;
        g.aGraph = "<a>";
        g.bGraph = "b&";
        g.metric = "MSE";
        g.verdict = "<i>v</i>";
        g.rows.push_back(
            ReportGraphDiffRow { "n<1>", "m\"", "op", "op", 1, std::nullopt, "debug_handle", 0.5, 0.1, 0.9, true, "" });
        g.unalignedB.push_back(ReportUnalignedNode { "<u>", "op", std::nullopt });
        for (const std::string &html :
            { decompositionSection(d), decompositionSummaryLine(d), graphDiffSection(g), graphDiffSummaryLine(g) }) {
            const QString h = QString::fromStdString(html);
            QVERIFY2(!h.contains(u"<script"_qs) && !h.contains(u"<img"_qs) && !h.contains(u"<i>"_qs)
                    && !h.contains(u"<u>"_qs) && !h.contains(u"<a>"_qs),
                qPrintable(h));
            QCOMPARE(test::tagBalanceError(h), QString());
        }
    }
};

QTEST_GUILESS_MAIN(TstReportSections)
#include "tst_reportsections.moc"
