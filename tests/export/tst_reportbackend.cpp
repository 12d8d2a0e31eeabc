// The HTML report's "Backend operators" section (export/reportbackend.h). Expected values by hand
// from tests/tools/gen_backend_etdumps.py (the authored Vulkan recording: GPU dispatch times per
// run [9880, 41600, 6240, 12480], [9360, 40560, 6760, 11960], [10400, 42120, 6240, 12220] ns;
// ETVK_COPY_INPUTS 18100 ns, ETVK_COPY_OUTPUTS 18700 ns each run; ETVK_EXECUTE and
// ETVK_COMPUTE_GRAPH_EXECUTE wrap them) and from the XNNPACK fixture's README (two "Fully
// Connected (NC, F32) GEMM" instances in each of its two delegate calls, one run).
#include "export/htmlreport.h"
#include "export/reportbackend.h"
#include "testpaths.h"
#include "testsession.h"

#include <QTest>

#include <cmath>

using namespace etscope;

class TstReportBackend : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void vulkanRowsByHand()
    {
        SessionInputs in;
        in.etdump = test::testData("backend/vulkan_stem/etdump.etdp");
        in.etrecord = test::testData("etrecord/cnn_mlp_etrecord.bin");
        in.link.method = "encode";
        auto s = loadSession(in);
        QVERIFY(s.ok());
        const auto rows = backendReportRows(**s);
        // Counted: 3 × (18100 + 18700) + 29640 + 124280 + 19240 + 36660 = 320220 ns.
        const std::vector<std::pair<std::string, double>> expected { { "aten.convolution.default", 0.12428 },
            { "phase: copy outputs", 0.0561 }, { "phase: copy inputs", 0.0543 },
            { "staging copy (image_to_nchw_texture3d_float_float)", 0.03666 },
            { "staging copy (nchw_to_image_texture3d_float_float)", 0.02964 }, { "aten.relu.default", 0.01924 } };
        QCOMPARE(rows.size(), expected.size());
        for (std::size_t i = 0; i < rows.size(); ++i) {
            QCOMPARE(rows[i].name, expected[i].first);
            QCOMPARE(rows[i].backend, std::string("Vulkan"));
            QVERIFY(std::abs(rows[i].total - expected[i].second) < 1e-12);
            QVERIFY(std::abs(rows[i].share - expected[i].second / 0.32022) < 1e-9);
            QCOMPARE(rows[i].calls, std::uint64_t(3));
        }
        // delegate_node_id 0 / 1 -> the encode method's nodes (cnn_mlp_etrecord.bin delegate_map).
        QCOMPARE(rows[0].nodes, std::vector<std::string> { "aten_convolution_default_" });
        QCOMPARE(rows[5].nodes, std::vector<std::string> { "aten_relu_default_" });
        QVERIFY(rows[1].nodes.empty());

        ReportInputs ri;
        ri.sessions = { *s };
        const std::string html = renderHtmlReport(ri);
        const auto at = html.find("<section id=\"backend\">");
        QVERIFY(at != std::string::npos);
        QVERIFY(at < html.find("<section id=\"table\">"));
        const auto conv = html.find("<td>aten.convolution.default</td><td>Vulkan</td>");
        QVERIFY(conv != std::string::npos);
        QCOMPARE(html.substr(html.find("\">", conv + 50) + 2, 12), std::string("0.12428</td>"));
        QVERIFY(html.find("38.8 %") != std::string::npos); // 124280 / 320220
        QVERIFY(html.find("<td>aten_convolution_default_</td>") != std::string::npos);
    }

    void inexactLinkNotAttributed()
    {
        SessionInputs in;
        in.etdump = test::testData("backend/vulkan_stem/etdump.etdp");
        in.etrecord = test::testData("backend/vulkan_stem/etrecord_inexact.bin"); // "1": [2, 7]
        in.link.method = "encode";
        auto s = loadSession(in);
        QVERIFY(s.ok());
        const auto rows = backendReportRows(**s);
        const auto relu = std::find_if(
            rows.begin(), rows.end(), [](const BackendReportRow &r) { return r.name == "aten.relu.default"; });
        QVERIFY(relu != rows.end());
        QVERIFY(relu->nodes.empty());
        QCOMPARE(relu->notExact, std::size_t(1)); // one event (merged over the 3 runs)
        QVERIFY(backendReportSection(**s).find("1 not attributed (link not exact)") != std::string::npos);
    }

    void xnnpackInstancesInOneRow()
    {
        auto s = test::loadSessionOrDie(test::sharedFixture("runtime/xnnpack_mlp_intermediates/etdump.etdp"));
        const auto rows = backendReportRows(*s);
        // Fully Connected, Softmax, Add, GELU, TanH (README: 8 delegate events, 5 operators).
        QCOMPARE(rows.size(), std::size_t(5));
        QCOMPARE(rows[0].name, std::string("Fully Connected"));
        QCOMPARE(rows[0].backend, std::string("XNNPACK"));
        QCOMPARE(rows[0].calls, std::uint64_t(4));
        // 26000 ns: the four GEMM events' durations (tests/data/analysis/runs_expected/
        // xnnpack_mlp_backend.json, numpy from flatc's decoding of the file).
        QVERIFY(std::abs(rows[0].total - 0.026) < 1e-12);
        QVERIFY(rows[0].payloadNodes.empty()); // no program
        QVERIFY(backendReportSection(*s).find("payload nodes") == std::string::npos);

        // With the program: the payload nodes each row's events ran, by order (README: the
        // events of a call follow its XNNGraph's nodes; xnn_mlp.xnnpack_graphs.json has delegate 0
        // FC [1, 64] -> [1, 128], FC [1, 128] -> [1, 128], Add, Gelu; delegate 1 FC [1, 128] ->
        // [1, 64], Tanh, FC [1, 64] -> [1, 10], Softmax).
        SessionInputs in;
        in.etdump = test::sharedFixture("runtime/xnnpack_mlp_intermediates/etdump.etdp");
        in.program = test::sharedFixture("runtime/xnnpack_mlp_intermediates/xnn_mlp.pte");
        auto withProgram = loadSession(in);
        QVERIFY(withProgram.ok());
        const auto placed = backendReportRows(**withProgram);
        QCOMPARE(placed[0].name, std::string("Fully Connected"));
        QCOMPARE(placed[0].payloadNodes,
            (std::vector<std::string> { "d0 0 FullyConnected fp32[1, 64] -> fp32[1, 128]",
                "d0 1 FullyConnected fp32[1, 128] -> fp32[1, 128]", "d1 0 FullyConnected fp32[1, 128] -> fp32[1, 64]",
                "d1 2 FullyConnected fp32[1, 64] -> fp32[1, 10]" }));
        QCOMPARE(placed[0].placedByOrder, std::size_t(4));
        const std::string html = backendReportSection(**withProgram);
        QVERIFY(html.find("<th>payload nodes</th>") != std::string::npos);
        QVERIFY(html.find("d0 3 Gelu fp32[1, 128] -&gt; fp32[1, 128] (by order)") != std::string::npos);

        // No decoded events: no section (the CNN fixture runs portable kernels only).
        auto cnn = test::loadSessionOrDie(test::sharedFixture("runtime/cnn_mlp_50runs/etdump.etdp"));
        QVERIFY(backendReportSection(*cnn).empty());
    }
};

QTEST_MAIN(TstReportBackend)
#include "tst_reportbackend.moc"
