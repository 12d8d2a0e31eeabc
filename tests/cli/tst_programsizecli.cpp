// `size` and `program-diff` as a user runs them. The programs are authored by
// tests/tools/gen_delegate_payloads.py (diff_builds): one model x[1,32] -> linear 32->16 ->
// relu -> linear 16->8 built three ways — fp32 in one XNNPACK delegate (FullyConnected, Clamp,
// FullyConnected; weights 2048 + 64 + 512 bytes), fp32 split into two delegates around a
// portable aten::relu.out, int8 (Convert to qd8, qc8w FullyConnected, Clamp, Convert, qc8w
// FullyConnected; weights 512 + 64 + 128 bytes). The expectations follow from that construction.
#include "clirun.h"
#include "testpaths.h"

#include <nlohmann/json.hpp>

#include <QTest>

using nlohmann::json;

namespace {

QString delegates(const char *name)
{
    return QString::fromStdString(etscope::test::testData(std::string("program/delegates/") + name));
}

const json *findCount(const json &list, const std::string &name)
{
    for (const json &c : list)
        if (c["name"] == name)
            return &c;
    return nullptr;
}

} // namespace

class TstProgramSizeCli : public QObject
{
    Q_OBJECT
private slots:
    void sizeJsonAddsUp()
    {
        const QString xnn
            = QString::fromStdString(etscope::test::sharedFixture("runtime/xnnpack_mlp_intermediates/xnn_mlp.pte"));
        const auto r = etscope::test::runCli({ u"size"_qs, xnn, u"--json"_qs, u"-"_qs });
        QCOMPARE(r.code, 0);
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j["file_bytes"].get<std::uint64_t>(), std::uint64_t(140344));
        std::uint64_t sum = 0;
        for (const json &p : j["parts"])
            sum += p["bytes"].get<std::uint64_t>();
        QCOMPARE(sum, std::uint64_t(140344));
        const auto t = etscope::test::runCli({ u"size"_qs, xnn, u"--depth"_qs, u"1"_qs });
        QCOMPARE(t.code, 0);
        QVERIFY2(
            t.out.contains("      100432   71.56%  delegate 0 of method forward (XnnpackBackend, XNNPACK) (segment 1)"),
            t.out.constData());
    }

    void fp32AgainstInt8()
    {
        const auto r = etscope::test::runCli(
            { u"program-diff"_qs, delegates("diff_fp32.pte"), delegates("diff_int8.pte"), u"--json"_qs, u"-"_qs });
        QCOMPARE(r.code, 0);
        const json j = json::parse(r.out.toStdString());
        QVERIFY(j["comparable"].get<bool>());
        const json &m = j["methods"][0];
        const json *convert = findCount(m["delegated_ops"], "XNNPACK:Convert");
        QVERIFY(convert);
        QCOMPARE((*convert)["a"].get<int>(), 0);
        QCOMPARE((*convert)["b"].get<int>(), 2);
        QVERIFY(!findCount(m["delegated_ops"], "XNNPACK:FullyConnected")); // 2 in both
        QVERIFY(m["portable_ops"].empty());
        QVERIFY(m["delegates"].empty());
        QVERIFY(m["inputs"]["a"] == m["inputs"]["b"]);
        // int8 weights are smaller: B is not larger, the gate passes; the other way it trips.
        QVERIFY(j["file_bytes"]["b"].get<std::uint64_t>() < j["file_bytes"]["a"].get<std::uint64_t>());
        QCOMPARE(etscope::test::runCli({ u"program-diff"_qs, delegates("diff_fp32.pte"), delegates("diff_int8.pte"),
                                           u"--fail-if-larger"_qs, u"0"_qs })
                     .code,
            0);
        QCOMPARE(etscope::test::runCli({ u"program-diff"_qs, delegates("diff_int8.pte"), delegates("diff_fp32.pte"),
                                           u"--fail-if-larger"_qs, u"0"_qs })
                     .code,
            3);
    }

    void twoPartitionings()
    {
        const auto r = etscope::test::runCli(
            { u"program-diff"_qs, delegates("diff_fp32.pte"), delegates("diff_fp32_split.pte") });
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("  portable aten::relu.out"), r.out.constData());
        QVERIFY(r.out.contains("1 portable operator calls more and 1 delegated nodes fewer: moved out of a delegate"));
        QVERIFY(r.out.contains("XnnpackBackend: 1 -> 2 delegate calls, 3 -> 2 nodes"));
        const auto j = etscope::test::runCli({ u"program-diff"_qs, delegates("diff_fp32.pte"),
            delegates("diff_fp32_split.pte"), u"--json"_qs, u"-"_qs });
        const json d = json::parse(j.out.toStdString());
        const json *clamp = findCount(d["methods"][0]["delegated_ops"], "XNNPACK:Clamp");
        QVERIFY(clamp);
        QCOMPARE((*clamp)["a"].get<int>(), 1);
        QCOMPARE((*clamp)["b"].get<int>(), 0);
    }

    // Different models: refused, exit 1, whatever the gate says.
    void unrelatedRefused()
    {
        const QString xnn
            = QString::fromStdString(etscope::test::sharedFixture("runtime/xnnpack_mlp_intermediates/xnn_mlp.pte"));
        const auto r = etscope::test::runCli(
            { u"program-diff"_qs, xnn, delegates("diff_fp32.pte"), u"--fail-if-larger"_qs, u"1000"_qs });
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("not builds of one model"), r.err.constData());
        QVERIFY(r.out.contains("not comparable"));
        // The HTML page says the same and shows no difference.
        const auto h
            = etscope::test::runCli({ u"program-diff"_qs, xnn, delegates("diff_fp32.pte"), u"--html"_qs, u"-"_qs });
        QCOMPARE(h.code, 1);
        QVERIFY(h.out.startsWith("<!DOCTYPE html>"));
        QVERIFY(h.out.contains("id=\"program-diff-refusal\""));
        QVERIFY(!h.out.contains("id=\"program-diff-size\""));
    }

    // The HTML ways in: a page of its own (--html) and a section of the report (--program-diff).
    void html()
    {
        const auto page = etscope::test::runCli(
            { u"program-diff"_qs, delegates("diff_fp32.pte"), delegates("diff_int8.pte"), u"--html"_qs, u"-"_qs });
        QCOMPARE(page.code, 0);
        QVERIFY(page.out.startsWith("<!DOCTYPE html>")); // the listing is not mixed in
        QVERIFY(page.out.contains("<td>delegated node</td><td>XNNPACK:Convert</td>"));
        const QString etdump
            = QString::fromStdString(etscope::test::sharedFixture("runtime/xnnpack_mlp_intermediates/etdump.etdp"));
        const auto report = etscope::test::runCli({ u"report"_qs, u"--etdump"_qs, etdump, u"--program-diff"_qs,
            delegates("diff_fp32.pte"), delegates("diff_fp32_split.pte"), u"-o"_qs, u"-"_qs });
        QCOMPARE(report.code, 0);
        QVERIFY(report.out.contains("<a href=\"#program-diff\">Program diff</a>"));
        QVERIFY(report.out.contains("<td>portable kernel</td><td>aten::relu.out</td>"));
        QVERIFY(report.out.contains("id=\"program-diff-summary\""));
    }
};

QTEST_GUILESS_MAIN(TstProgramSizeCli)
#include "tst_programsizecli.moc"
