// Graph against graph (core/evalgap/graphdiff.h).
//
// Alignment rules on small hand-written programs: the expected pairs follow from the metadata
// written into each test by hand (debug handles, from_node chains, operator counts).
//
// Whole diffs on real ETRecords:
// * tests/data/analysis/graphdiff_etrecord.bin and graphdiff_expected.json
//   (tests/tools/gen_graphdiff_fixtures.py): a float model, its Edge twin, a fake-quantized
//   transform (4 inserted nodes) and a graph with gelu swapped for silu. The expected pairs are
//   the generator's construction, the per-layer MSE / SNR / MAXABS PyTorch's (float64 over the
//   torch.fx.Interpreter values of each graph), the flags the noise rule of §9.4 applied by the
//   generator.
// * tests/data/analysis/cnn_mlp_runtime_etrecord.bin (gen_etrecord_fixtures.py): the ATen
//   program and the Edge program (view_copy / permute_copy / mul.Scalar spellings) whose node
//   i names ATen node i in from_node: equivalent graphs.
#include "analysis/comparator.h"
#include "evalgap/graphdiff.h"
#include "evalgap/graphdiffoverlay.h"
#include "testpaths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>

using namespace etscope;
using evalgap::AlignedBy;

namespace {

// One node of a hand-written program: relu-like op on x with optional handle and from_node.
struct N {
    std::string name, op;
    std::optional<int> handle;
    std::string fromNode; // JSON list text, "" for none
};

std::string jsonText(const std::string &s)
{
    std::string out = "\"";
    for (char c : s)
        out += c == '"' ? std::string("\\\"") : std::string(1, c);
    return out + "\"";
}

ExportedProgram program(const std::vector<N> &nodes)
{
    std::string ns;
    for (const N &n : nodes) {
        std::string md = R"("stack_trace": "x")";
        if (n.handle)
            md += R"(, "debug_handle": ")" + std::to_string(*n.handle) + "\"";
        if (!n.fromNode.empty())
            md += R"(, "from_node": )" + jsonText(n.fromNode);
        ns += (ns.empty() ? "" : ",") + std::string(R"({"name": ")") + n.name
            + R"(", "target": "executorch.exir.dialects.edge.ops.)" + n.op
            + R"(", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}}], "outputs": [{"as_tensor": {"name": ")"
            + n.name + R"("}}], "metadata": {)" + md + "}}";
    }
    const std::string json = R"({"graph_module": {"graph": {"inputs": [{"as_tensor": {"name": "x"}}], "outputs": [],
        "nodes": [)"
        + ns + R"(], "tensor_values": {}}, "signature": {"input_specs": [{"user_input": {"arg": {"as_tensor":
        {"name": "x"}}}}], "output_specs": []}}, "schema_version": {"major": 5, "minor": 3}})";
    auto p = parseExportedProgram(json, "test.json");
    if (!p)
        qFatal("%s", p.error().message().c_str());
    return *p;
}

std::string from(
    const std::string &name, std::optional<std::int64_t> graphId = std::nullopt, const std::string &inner = "[]")
{
    return R"([{"name": ")" + name + "\"" + (graphId ? R"(, "graph_id": )" + std::to_string(*graphId) : std::string())
        + R"(, "from_node": )" + inner + "}]";
}

using Pairs = std::vector<std::tuple<int, int, AlignedBy>>;
Pairs pairsOf(const evalgap::GraphAlignment &al)
{
    Pairs out;
    for (const auto &p : al.pairs)
        out.emplace_back(p.a, p.b, p.by);
    return out;
}

QJsonObject expected()
{
    QFile f(QString::fromStdString(test::testData("analysis/graphdiff_expected.json")));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read graphdiff_expected.json");
    return QJsonDocument::fromJson(f.readAll()).object();
}

// The generator writes non-finite values as Python's repr ("inf", "nan").
double number(const QJsonValue &v)
{
    if (v.isString())
        return v.toString() == u"inf"_qs ? INFINITY : v.toString() == u"-inf"_qs ? -INFINITY : NAN;
    return v.toDouble();
}

bool close(double got, double want)
{
    if (std::isnan(want))
        return std::isnan(got);
    if (std::isinf(want))
        return got == want;
    return std::abs(got - want) <= 1e-12 + 1e-4 * std::abs(want);
}

evalgap::GraphDiff diff(
    const std::string &etrecord, const std::string &a, const std::string &b, analysis::Metric m = analysis::Metric::MSE)
{
    auto rec = readETRecord(test::testData(etrecord));
    if (!rec)
        qFatal("%s", rec.error().message().c_str());
    evalgap::GraphDiffOptions o;
    o.a = a;
    o.b = b;
    o.metric = m;
    auto d = evalgap::diffGraphs(**rec, o);
    if (!d)
        qFatal("%s", d.error().message().c_str());
    return *d;
}

} // namespace

class TstGraphDiff : public QObject
{
    Q_OBJECT
private slots:
    // Handle 7 holds permute + addmm in a and one linear in b: no operator in common, so the
    // handle's last nodes pair (addmm ↔ linear) and the permute stays unaligned. Handle 8 holds
    // relu in both: paired by operator.
    void debugHandleGroups()
    {
        auto a = program({ { "p", "aten.permute_copy.default", 7, "" }, { "m", "aten.addmm.default", 7, "" },
            { "r", "aten.relu.default", 8, "" } });
        auto b = program({ { "l", "aten.linear.default", 7, "" }, { "r2", "aten.relu.default", 8, "" } });
        auto al = evalgap::alignGraphs(a, b);
        QCOMPARE(pairsOf(al), (Pairs { { 1, 0, AlignedBy::DebugHandle }, { 2, 1, AlignedBy::DebugHandle } }));
        QCOMPARE(al.unalignedA, std::vector<int> { 0 });
        QVERIFY(al.unalignedB.empty());
    }

    // gelu decomposed into mul, tanh, mul, all descending from it: the last descendant carries
    // gelu's output and pairs; the two inner nodes are listed. b's node whose nearest ancestor
    // in a is the already-paired node does not climb further.
    void fromNodeDecomposition()
    {
        auto a = program({ { "gelu", "aten.gelu.default", std::nullopt, "" } });
        auto b = program({ { "m1", "aten.mul.Tensor", std::nullopt, from("gelu") },
            { "th", "aten.tanh.default", std::nullopt, from("gelu") },
            { "m2", "aten.mul.Tensor", std::nullopt, from("gelu") } });
        auto al = evalgap::alignGraphs(a, b);
        QCOMPARE(pairsOf(al), (Pairs { { 0, 2, AlignedBy::FromNode } }));
        QCOMPARE(al.unalignedB, (std::vector<int> { 0, 1 }));
        // The same seen from the other side (a descends from b).
        auto back = evalgap::alignGraphs(b, a);
        QCOMPARE(pairsOf(back), (Pairs { { 2, 0, AlignedBy::FromNode } }));
    }

    // from_node entries carry the graph id of the graph they name: an entry naming "r" in
    // graph 5 does not name a's "r" when a's id is 6 (and does when it is 5 or unknown).
    // A chain two deep reaches a through its inner entry.
    void fromNodeGraphIdAndChains()
    {
        auto a = program(
            { { "r", "aten.relu.default", std::nullopt, "" }, { "s", "aten.sigmoid.default", std::nullopt, "" } });
        auto b = program({ { "x", "aten.relu.default", std::nullopt, from("r", 5) },
            { "y", "aten.abs.default", std::nullopt, from("mid", 9, from("s", 5)) } });
        QCOMPARE(pairsOf(evalgap::alignGraphs(a, b, 6)), (Pairs { { 0, 0, AlignedBy::Position } }));
        QCOMPARE(pairsOf(evalgap::alignGraphs(a, b, 5)),
            (Pairs { { 0, 0, AlignedBy::FromNode }, { 1, 1, AlignedBy::FromNode } }));
        QCOMPARE(pairsOf(evalgap::alignGraphs(a, b)),
            (Pairs { { 0, 0, AlignedBy::FromNode }, { 1, 1, AlignedBy::FromNode } }));
    }

    // Two graphs made from the same origin node by different passes: their nearest from_node
    // entries name the same node.
    void fromNodeCommonOrigin()
    {
        auto a = program({ { "u", "aten.relu.default", std::nullopt, from("orig", 3) } });
        auto b = program({ { "v", "aten.hardtanh.default", std::nullopt, from("orig", 3) },
            { "w", "aten.abs.default", std::nullopt, from("orig", 4) } });
        auto al = evalgap::alignGraphs(a, b);
        QCOMPARE(pairsOf(al), (Pairs { { 0, 0, AlignedBy::FromNode } }));
        QCOMPARE(al.unalignedB, std::vector<int> { 1 });
    }

    // Position pairs the k-th with the k-th only when both graphs have as many unpaired nodes of
    // the operator: 2 relus against 2 pair, 1 abs against 2 abs is ambiguous and none pairs.
    // Malformed from_node text is no provenance (and no crash).
    void positionOnlyWhenUnambiguous()
    {
        auto a = program({ { "r1", "aten.relu.default", std::nullopt, "not json" },
            { "a1", "aten.abs.default", std::nullopt, "" }, { "r2", "aten.relu.default", std::nullopt, "[{]" } });
        auto b
            = program({ { "s1", "aten.relu.default", std::nullopt, "" }, { "b1", "aten.abs.default", std::nullopt, "" },
                { "b2", "aten.abs.default", std::nullopt, "" }, { "s2", "aten.relu.default", std::nullopt, "" } });
        auto al = evalgap::alignGraphs(a, b);
        QCOMPARE(pairsOf(al), (Pairs { { 0, 0, AlignedBy::Position }, { 2, 3, AlignedBy::Position } }));
        QCOMPARE(al.unalignedA, std::vector<int> { 1 });
        QCOMPARE(al.unalignedB, (std::vector<int> { 1, 2 }));
    }

    // A graph against itself: every node pairs with itself (by handle, or by position in the
    // ATen program that has no handles), every metric exactly 0 (SNR +inf, NaN where both
    // outputs are all zeros, which is "identical"), nothing flagged.
    void selfDiffIsExact_data()
    {
        QTest::addColumn<QString>("etrecord");
        QTest::addColumn<QString>("graph");
        QTest::addColumn<int>("how");
        QTest::newRow("fake-quant graph")
            << u"analysis/graphdiff_etrecord.bin"_qs << u"edge_after_transform"_qs << int(AlignedBy::DebugHandle);
        QTest::newRow("cnn_mlp ATen") << u"analysis/cnn_mlp_runtime_etrecord.bin"_qs << u"exported_program"_qs
                                      << int(AlignedBy::Position);
        QTest::newRow("cnn_mlp Edge") << u"analysis/cnn_mlp_runtime_etrecord.bin"_qs
                                      << u"edge_dialect_exported_program"_qs << int(AlignedBy::DebugHandle);
    }
    void selfDiffIsExact()
    {
        QFETCH(QString, etrecord);
        QFETCH(QString, graph);
        QFETCH(int, how);
        for (auto m : { analysis::Metric::MSE, analysis::Metric::SNR, analysis::Metric::MaxAbs }) {
            auto d = diff(etrecord.toStdString(), graph.toStdString(), graph.toStdString(), m);
            QVERIFY(d.rows.size() >= 12);
            QVERIFY(d.unalignedA.empty());
            QVERIFY(d.unalignedB.empty());
            for (const auto &r : d.rows) {
                QCOMPARE(r.aNode, r.bNode);
                QCOMPARE(int(r.by), how);
                QVERIFY2(r.error.empty(), r.error.c_str());
                QVERIFY(!r.flagged);
                for (double g : r.gap) {
                    if (m == analysis::Metric::SNR)
                        QVERIFY2(std::isnan(g) || g == INFINITY, qPrintable(QString::number(g)));
                    else
                        QCOMPARE(g, 0.0);
                }
            }
            QCOMPARE(d.firstParting(), -1);
            QCOMPARE(d.verdict(), std::string("the graphs agree within noise at every aligned layer"));
        }
    }

    // The ATen program against its Edge twin: every Edge node names its ATen node in from_node,
    // so node i pairs with node i by from_node although three operators are spelled differently;
    // the values agree within noise.
    void equivalentGraphs()
    {
        auto d = diff("analysis/cnn_mlp_runtime_etrecord.bin", "exported_program", "edge_dialect_exported_program");
        QCOMPARE(d.aGraph, std::string("exported_program"));
        QCOMPARE(d.bGraph, std::string("edge_dialect_exported_program/forward"));
        QCOMPARE(d.rows.size(), std::size_t(28));
        int spelled = 0;
        for (std::size_t i = 0; i < d.rows.size(); ++i) {
            const auto &r = d.rows[i];
            QCOMPARE(r.aNode, int(i));
            QCOMPARE(r.bNode, int(i));
            QCOMPARE(r.by, AlignedBy::FromNode);
            QVERIFY2(r.error.empty(), r.error.c_str());
            QVERIFY(!r.flagged);
            spelled += r.aOp != r.bOp;
        }
        QCOMPARE(spelled, 5); // view→view_copy, t→permute_copy ×3, mul.Tensor→mul.Scalar
        QVERIFY(d.unalignedA.empty() && d.unalignedB.empty());
        QCOMPARE(d.verdict(), std::string("the graphs agree within noise at every aligned layer"));
        // The other way round (a descends from b): the same 28 pairs.
        auto back = diff("analysis/cnn_mlp_runtime_etrecord.bin", "edge_dialect_exported_program", "exported_program");
        QCOMPARE(back.rows.size(), std::size_t(28));
        for (std::size_t i = 0; i < back.rows.size(); ++i) {
            QCOMPARE(back.rows[i].bNode, int(i));
            QCOMPARE(back.rows[i].by, AlignedBy::FromNode);
            QVERIFY(!back.rows[i].flagged);
        }
    }

    // Every comparison of graphdiff_expected.json: pairs, how, MSE / SNR / MAXABS per output
    // against PyTorch's, flags and the first parting layer as the generator judged them, and the
    // four inserted fake-quant nodes listed as unaligned.
    void againstPyTorch_data()
    {
        QTest::addColumn<QString>("key");
        for (const auto &k : expected().value(u"comparisons"_qs).toObject().keys())
            QTest::newRow(qPrintable(k)) << k;
    }
    void againstPyTorch()
    {
        QFETCH(QString, key);
        const QJsonObject c = expected().value(u"comparisons"_qs).toObject().value(key).toObject();
        const std::string a = c.value(u"a"_qs).toString().toStdString(), b = c.value(u"b"_qs).toString().toStdString();
        const QJsonArray rows = c.value(u"rows"_qs).toArray();
        for (auto [m, name] : { std::pair { analysis::Metric::MSE, "MSE" }, { analysis::Metric::SNR, "SNR" },
                 { analysis::Metric::MaxAbs, "MAXABS" } }) {
            auto d = diff("analysis/graphdiff_etrecord.bin", a, b, m);
            QCOMPARE(d.rows.size(), std::size_t(rows.size()));
            for (int i = 0; i < rows.size(); ++i) {
                const QJsonObject w = rows[i].toObject();
                const auto &r = d.rows[std::size_t(i)];
                QCOMPARE(QString::fromStdString(r.aName), w.value(u"a_node"_qs).toString());
                QCOMPARE(QString::fromStdString(r.bName), w.value(u"b_node"_qs).toString());
                QCOMPARE(QString::fromLatin1(evalgap::alignedByName(r.by)), w.value(u"aligned_by"_qs).toString());
                QVERIFY2(r.error.empty(), r.error.c_str());
                const QJsonArray want = w.value(QLatin1String(name)).toArray();
                QCOMPARE(r.gap.size(), std::size_t(want.size()));
                for (int k = 0; k < want.size(); ++k)
                    QVERIFY2(close(r.gap[std::size_t(k)], number(want[k])),
                        qPrintable(QStringLiteral("%1 %2[%3]: %4 vs PyTorch %5")
                                       .arg(QString::fromStdString(r.aName), QLatin1String(name))
                                       .arg(k)
                                       .arg(r.gap[std::size_t(k)], 0, 'g', 10)
                                       .arg(number(want[k]), 0, 'g', 10)));
                if (m == analysis::Metric::MSE)
                    QCOMPARE(r.flagged, w.value(u"flagged"_qs).toBool());
            }
            const QJsonValue first = c.value(u"first_parting"_qs);
            if (first.isNull()) {
                QCOMPARE(d.firstParting(), -1);
            } else {
                QVERIFY(d.firstParting() >= 0);
                QCOMPARE(QString::fromStdString(d.rows[std::size_t(d.firstParting())].aName), first.toString());
                QVERIFY(d.verdict().starts_with("the graphs part at layer"));
            }
            QStringList unalignedB;
            for (const auto &u : d.unalignedB)
                unalignedB << QString::fromStdString(u.name);
            QStringList wantB;
            for (const auto &v : c.value(u"unaligned_b"_qs).toArray())
                wantB << v.toString();
            QCOMPARE(unalignedB, wantB);
            QVERIFY(d.unalignedA.empty());
        }
    }

    // The fake-quantized transform parts from the float model at the layer norm right after the
    // inserted round/clamp (layer 5 of 12): the sentence names it; JSON and TSV carry the same.
    void firstPartingSentenceAndOutputs()
    {
        auto d = diff("analysis/graphdiff_etrecord.bin", "exported_program", "edge_after_transform");
        QCOMPARE(d.firstParting(), 4);
        const std::string v = d.verdict();
        QVERIFY2(v.starts_with("the graphs part at layer 5 a:native_layer_norm / b:aten_native_layer_norm "
                               "(aten.native_layer_norm.default): MSE "),
            v.c_str());
        QVERIFY2(v.find("beyond the noise level") != std::string::npos, v.c_str());
        const QJsonObject j = QJsonDocument::fromJson(QByteArray::fromStdString(evalgap::graphDiffJson(d))).object();
        QCOMPARE(j.value(u"first_parting"_qs).toObject().value(u"a_node"_qs).toString(), u"native_layer_norm"_qs);
        QCOMPARE(j.value(u"rows"_qs).toArray().size(), 12);
        QCOMPARE(j.value(u"unaligned_b"_qs).toArray().size(), 4);
        QCOMPARE(j.value(u"verdict"_qs).toString().toStdString(), v);
        const std::string tsv = evalgap::graphDiffTsv(d);
        QCOMPARE(std::count(tsv.begin(), tsv.end(), '\n'), 13L);
        QVERIFY(tsv.starts_with(
            "layer\ta_node\ta_op\ta_debug_handle\tb_node\tb_op\tb_debug_handle\taligned_by\tgap_MSE\t"));
        // A user threshold replaces the noise rule: above every gap, nothing parts.
        evalgap::applyThreshold(d, 1.0);
        QCOMPARE(d.firstParting(), -1);
        QCOMPARE(d.verdict(), std::string("the graphs agree within the threshold 1 at every aligned layer"));
    }

    // Side by side: each side's graph carries the per-layer gap on its aligned node. Expected
    // values are PyTorch's per-layer MSE and flags (graphdiff_expected.json, see againstPyTorch);
    // the nodes only in b (the inserted quantization) carry none.
    void overlayOnBothSides()
    {
        auto rec = readETRecord(test::testData("analysis/graphdiff_etrecord.bin"));
        QVERIFY(rec);
        std::shared_ptr<const ETRecord> record = *rec;
        const QJsonObject c = [] {
            for (const auto &v : expected().value(u"comparisons"_qs).toObject())
                if (v.toObject().value(u"a"_qs).toString() == u"exported_program"_qs
                    && v.toObject().value(u"b"_qs).toString() == u"edge_after_transform/forward"_qs)
                    return v.toObject();
            return QJsonObject();
        }();
        QVERIFY(!c.isEmpty());
        auto d = diff("analysis/graphdiff_etrecord.bin", "exported_program", "edge_after_transform");
        auto ga = evalgap::diffSideGraph(record, "exported_program");
        auto gb = evalgap::diffSideGraph(record, "edge_after_transform");
        QVERIFY2(ga && gb, ga ? "" : ga.error().message().c_str());
        const graph::OverlayData oa = evalgap::graphDiffOverlay(d, *ga, evalgap::DiffSide::A);
        const graph::OverlayData ob = evalgap::graphDiffOverlay(d, *gb, evalgap::DiffSide::B);
        QVERIFY(oa.hasGap && ob.hasGap);
        QCOMPARE(oa.gapMetric, std::string("MSE"));
        const QJsonArray rows = c.value(u"rows"_qs).toArray();
        for (const auto &v : rows) {
            const QJsonObject w = v.toObject();
            const int na = ga->findNode(w.value(u"a_node"_qs).toString().toStdString());
            const int nb = gb->findNode(w.value(u"b_node"_qs).toString().toStdString());
            QVERIFY(na >= 0 && nb >= 0);
            double want = -INFINITY;
            for (const auto &g : w.value(u"MSE"_qs).toArray())
                want = std::max(want, number(g));
            QVERIFY(close(oa.nodeGap[std::size_t(na)], want));
            QVERIFY(close(ob.nodeGap[std::size_t(nb)], want));
            QCOMPARE(bool(oa.nodeGapFlagged[std::size_t(na)]), w.value(u"flagged"_qs).toBool());
            QCOMPARE(bool(ob.nodeGapFlagged[std::size_t(nb)]), w.value(u"flagged"_qs).toBool());
            QCOMPARE(
                evalgap::graphDiffRowOfNode(d, w.value(u"b_node"_qs).toString().toStdString(), evalgap::DiffSide::B),
                evalgap::graphDiffRowOfNode(d, w.value(u"a_node"_qs).toString().toStdString(), evalgap::DiffSide::A));
        }
        for (const auto &u : c.value(u"unaligned_b"_qs).toArray()) {
            const int n = gb->findNode(u.toString().toStdString());
            QVERIFY(n >= 0);
            QVERIFY(std::isnan(ob.nodeGap[std::size_t(n)]));
            QCOMPARE(evalgap::graphDiffRowOfNode(d, u.toString().toStdString(), evalgap::DiffSide::B), -1);
        }
    }

    // Progress runs 0..1000 over both evaluations (a in the first half); returning false cancels
    // with ErrorCode::Cancelled, which a GUI job reports as cancelled rather than as a failure.
    void progressAndCancel()
    {
        auto rec = readETRecord(test::testData("analysis/graphdiff_etrecord.bin"));
        QVERIFY(rec);
        evalgap::GraphDiffOptions o;
        o.b = "edge_after_transform";
        std::vector<int> seen;
        o.progress = [&seen](int permille) {
            seen.push_back(permille);
            return true;
        };
        QVERIFY(evalgap::diffGraphs(**rec, o));
        QVERIFY(!seen.empty());
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));
        QCOMPARE(seen.back(), 1000);
        QVERIFY(std::find(seen.begin(), seen.end(), 500) != seen.end());
        o.progress = [](int permille) { return permille < 500; };
        auto cancelled = evalgap::diffGraphs(**rec, o);
        QVERIFY(!cancelled);
        QCOMPARE(cancelled.error().code, ErrorCode::Cancelled);
    }

    // Unknown graph names and graphs with nothing to align fail with one line naming the file.
    void errors()
    {
        auto rec = readETRecord(test::testData("analysis/graphdiff_etrecord.bin"));
        QVERIFY(rec);
        evalgap::GraphDiffOptions o;
        o.a = "exported_program";
        o.b = "nope";
        auto bad = evalgap::diffGraphs(**rec, o);
        QVERIFY(!bad);
        const std::string msg = bad.error().message();
        QVERIFY2(msg.find("graphdiff_etrecord.bin") != std::string::npos, msg.c_str());
        QVERIFY2(
            msg.find("no graph named 'nope'; the ETRecord has: exported_program, ") != std::string::npos, msg.c_str());
        QVERIFY(msg.find('\n') == std::string::npos);
        o.b = "edge_unrelated";
        auto none = evalgap::diffGraphs(**rec, o);
        QVERIFY(!none);
        QVERIFY2(none.error().message().find("no node of 'exported_program' aligns with a node of "
                                             "'edge_unrelated/forward'")
                != std::string::npos,
            none.error().message().c_str());
    }
};

QTEST_GUILESS_MAIN(TstGraphDiff)
#include "tst_graphdiff.moc"
