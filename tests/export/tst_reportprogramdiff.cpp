// The report's program-diff section (core/export/reportprogramdiff.h) on the authored builds of
// tests/tools/gen_delegate_payloads.py (diff_builds: one model x[1,32] -> linear 32->16 -> relu
// -> linear 16->8, fp32 in one XNNPACK delegate of FullyConnected, Clamp, FullyConnected; int8
// adding a Convert before each FullyConnected; fp32 split in two delegates around a portable
// aten::relu.out) and on two unrelated programs. Expected values, derived without etscope:
// the file sizes from the file system; the size per part from the hand count of
// tests/tools/gen_size_expected.py (tests/data/program/expected_size.json: flatbuffer 592 and
// the XNNPACK segment 3,472 bytes in fp32, 1,968 in int8); the operator counts from the
// construction above. A report with the section is the report without it plus exactly the
// section, its summary line and its link; the tags balance.
#include "export/htmlreport.h"
#include "export/reportprogramdiff.h"
#include "htmltags.h"
#include "program/programdiff.h"
#include "testpaths.h"

#include <nlohmann/json.hpp>

#include <QFileInfo>
#include <QTest>

#include <fstream>

using namespace etscope;

namespace {

std::shared_ptr<const Program> open(const std::string &path)
{
    auto p = Program::openAny(path);
    if (!p)
        qFatal("%s", p.error().message().c_str());
    return *p;
}

std::string delegates(const char *name)
{
    return test::testData(std::string("program/delegates/") + name);
}

std::vector<std::uint64_t> handCount(const char *name)
{
    std::ifstream in(test::testData("program/expected_size.json"));
    return nlohmann::json::parse(in)
        .at(std::string("tests/data/program/delegates/") + name)
        .get<std::vector<std::uint64_t>>();
}

std::string row(const char *part, std::uint64_t a, std::uint64_t b)
{
    return std::string("<tr><td>") + part + "</td><td class=\"n\" data-v=\"" + std::to_string(a) + "\">"
        + std::to_string(a) + "</td><td class=\"n\" data-v=\"" + std::to_string(b) + "\">" + std::to_string(b)
        + "</td>";
}

} // namespace

class TestReportProgramDiff : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void fp32AgainstInt8()
    {
        const ProgramDiff d = diffPrograms(*open(delegates("diff_fp32.pte")), *open(delegates("diff_int8.pte")));
        const std::string s = programDiffSection(d);
        QVERIFY2(test::tagBalanceError(QString::fromStdString(s)).isEmpty(), s.c_str());
        const auto fp32 = handCount("diff_fp32.pte"), int8 = handCount("diff_int8.pte");
        const qint64 a = QFileInfo(QString::fromStdString(delegates("diff_fp32.pte"))).size();
        const qint64 b = QFileInfo(QString::fromStdString(delegates("diff_int8.pte"))).size();
        QCOMPARE(std::uint64_t(a), fp32[0] + fp32[1]); // the hand count adds up to the file
        QCOMPARE(std::uint64_t(b), int8[0] + int8[1]);
        const double growth = 100.0 * double(b - a) / double(a);
        const std::string verdict = std::to_string(a) + " → " + std::to_string(b) + " bytes ("
            + QString::number(growth, 'f', 2).toStdString() + " %)";
        QVERIFY2(s.find(verdict) != std::string::npos, (verdict + "\n" + s).c_str());
        QVERIFY2(s.find(row("flatbuffer", fp32[0], int8[0])) != std::string::npos, s.c_str());
        QVERIFY(s.find(row("delegate payloads XnnpackBackend", fp32[1], int8[1])) != std::string::npos);
        // Two Convert nodes more in the int8 delegate; FullyConnected (2 in both) is not listed.
        QVERIFY(s.find("<td>delegated node</td><td>XNNPACK:Convert</td><td class=\"n\" data-v=\"0\">0</td><td "
                       "class=\"n\" data-v=\"2\">2</td>")
            != std::string::npos);
        QVERIFY(s.find("XNNPACK:FullyConnected") == std::string::npos);
        QVERIFY(s.find("<td>inputs</td><td>float32[1, 32]</td><td>float32[1, 32]</td><td></td>") != std::string::npos);
        QVERIFY(s.find("program-diff-refusal") == std::string::npos);
    }

    void twoPartitionings()
    {
        const ProgramDiff d = diffPrograms(*open(delegates("diff_fp32.pte")), *open(delegates("diff_fp32_split.pte")));
        const std::string s = programDiffSection(d);
        QVERIFY(s.find("<td>portable kernel</td><td>aten::relu.out</td><td class=\"n\" data-v=\"0\">0</td><td "
                       "class=\"n\" data-v=\"1\">1</td>")
            != std::string::npos);
        QVERIFY(s.find("<td>delegate calls</td><td>XnnpackBackend</td><td class=\"n\" data-v=\"1\">1</td><td "
                       "class=\"n\" data-v=\"2\">2</td>")
            != std::string::npos);
        QVERIFY2(s.find("<li>XnnpackBackend: 1 -&gt; 2 delegate calls, 3 -&gt; 2 nodes</li>") != std::string::npos,
            s.c_str());
        QVERIFY(s.find("moved out of a delegate") != std::string::npos);
    }

    void unrelatedRefused()
    {
        const ProgramDiff d = diffPrograms(*open(test::sharedFixture("runtime/xnnpack_mlp_intermediates/xnn_mlp.pte")),
            *open(delegates("diff_fp32.pte")));
        const std::string s = programDiffSection(d);
        QVERIFY(s.find("<p class=\"warn\" id=\"program-diff-refusal\"><b>Not comparable:</b> the two programs are not "
                       "builds of one model")
            != std::string::npos);
        for (const char *id : { "program-diff-size", "program-diff-method", "program-diff-verdict" })
            QVERIFY2(s.find(id) == std::string::npos, id);
        QVERIFY(programDiffSummaryLine(d).find("not comparable") != std::string::npos);
    }

    // In the whole report: the section, its link and its summary line, nothing else changes.
    void inTheReport()
    {
        SessionInputs si;
        si.etdump = test::sharedFixture("runtime/xnnpack_mlp_intermediates/etdump.etdp");
        auto session = loadSession(si);
        QVERIFY(session.ok());
        ReportInputs in;
        in.sessions = { *session };
        const std::string plain = renderHtmlReport(in);
        auto d = std::make_shared<ProgramDiff>(
            diffPrograms(*open(delegates("diff_fp32.pte")), *open(delegates("diff_int8.pte"))));
        in.programDiff = d;
        const std::string with = renderHtmlReport(in);
        QVERIFY(test::tagBalanceError(QString::fromStdString(with)).isEmpty());
        std::string stripped = with;
        for (const std::string &piece : { std::string("<a href=\"#program-diff\">Program diff</a>"),
                 programDiffSummaryLine(*d), programDiffSection(*d) }) {
            const auto at = stripped.find(piece);
            QVERIFY(at != std::string::npos);
            stripped.erase(at, piece.size());
        }
        QCOMPARE(stripped, plain);
        const std::string page = renderProgramDiffPage(*d, "test");
        QVERIFY(page.find(programDiffSection(*d)) != std::string::npos);
        QVERIFY(test::tagBalanceError(QString::fromStdString(page)).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestReportProgramDiff)
#include "tst_reportprogramdiff.moc"
