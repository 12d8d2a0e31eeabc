// calculate_numeric_gap with the built-in evaluator as reference, on the REAL runtime fixtures
// (cnn_mlp_intermediates, xnnpack_mlp_intermediates) and ETRecords carrying those programs'
// weights. Expected values: tests/tools/gen_gap_evaluator.py ran the same graphs in PyTorch
// (Debian python3-torch) and computed every gap with numpy into
// tests/data/analysis/evaluator_gap_expected.json; the perturbed debug buffer and its known
// perturbations (instructions 3, 14, 25) come from tests/tools/gen_gap_perturbed.py.
#include "analysis/numericgap.h"
#include "evalgap/evalgap.h"
#include "session/session.h"
#include "testpaths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>
#include <set>

using namespace etscope;

namespace {

std::shared_ptr<const Session> load(const std::string &fixture, const std::string &buffer, const std::string &etrecord)
{
    SessionInputs in;
    in.etdump = test::sharedFixture("runtime/" + fixture + "/etdump.etdp");
    in.debugBuffer = buffer.empty() ? test::sharedFixture("runtime/" + fixture + "/debug_output.bin") : buffer;
    in.etrecord = test::testData("analysis/" + etrecord);
    auto s = loadSession(in);
    if (!s)
        qFatal("%s", s.error().message().c_str());
    return *s;
}

QJsonObject expected()
{
    QFile f(QString::fromStdString(test::testData("analysis/evaluator_gap_expected.json")));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read evaluator_gap_expected.json");
    return QJsonDocument::fromJson(f.readAll()).object();
}

// instruction → expected gaps of one kind ("gap_mse_original", ...)
std::map<int, std::vector<double>> expectedGaps(const QJsonObject &model, const char *key)
{
    std::map<int, std::vector<double>> out;
    for (const auto &v : model.value(u"rows"_qs).toArray()) {
        const QJsonObject r = v.toObject();
        std::vector<double> g;
        for (const auto &x : r.value(QLatin1String(key)).toArray())
            g.push_back(x.toDouble());
        out[r.value(u"instruction"_qs).toInt()] = g;
    }
    return out;
}

analysis::GapTable gapTable(const Session &s, const analysis::ReferenceSet &ref, double threshold = 1e-9)
{
    analysis::GapOptions o;
    o.metric = analysis::Metric::MSE;
    o.threshold = threshold;
    auto t = analysis::computeNumericGap(s, ref, o);
    if (!t)
        qFatal("%s", t.error().message().c_str());
    return *t;
}

bool close(double got, double want, double rel, double abs)
{
    return std::abs(got - want) <= abs + rel * std::abs(want);
}

std::set<int> flagged(const analysis::GapTable &t)
{
    std::set<int> out;
    for (const auto &r : t.rows)
        if (r.flagged)
            out.insert(r.instructionId);
    return out;
}

} // namespace

class TstEvalGap : public QObject
{
    Q_OBJECT
private slots:
    void referenceGraphChoice()
    {
        auto cnn = readETRecord(test::testData("analysis/cnn_mlp_runtime_etrecord.bin"));
        QVERIFY(cnn);
        // Default: the ATen program, every Edge handle reaching an ATen node through from_node
        // ("<name>.<export_graph_id>"); handles are those of the Edge nodes of the same op.
        auto g = evalgap::resolveReferenceGraph(**cnn, "");
        QVERIFY2(g, g ? "" : g.error().message().c_str());
        QCOMPARE(g->name, std::string("exported_program"));
        auto edge = evalgap::resolveReferenceGraph(**cnn, "edge_dialect_exported_program");
        QVERIFY(edge);
        std::multiset<std::int64_t> a, e;
        for (const auto &h : g->handles)
            a.insert(h.value_or(-1));
        for (const auto &h : edge->handles)
            e.insert(h.value_or(-1));
        QVERIFY(a == e);
        // Graph-map names get "/forward"; unknown names list what exists.
        QVERIFY(evalgap::resolveReferenceGraph(**cnn, "edge_dialect_exported_program/encode"));
        auto bad = evalgap::resolveReferenceGraph(**cnn, "nope");
        QVERIFY(!bad);
        QVERIFY(bad.error().message().find("nope/forward") != std::string::npos);

        // xnn_mlp has no ATen program: default falls back to Edge with a warning, an explicit
        // exported_program is an error.
        auto xnn = readETRecord(test::testData("analysis/xnn_mlp_runtime_etrecord.bin"));
        QVERIFY(xnn);
        auto xg = evalgap::resolveReferenceGraph(**xnn, "");
        QVERIFY(xg);
        QCOMPARE(xg->name, std::string("edge_dialect_exported_program"));
        QCOMPARE(xg->warnings.size(), std::size_t(1));
        QVERIFY(!evalgap::resolveReferenceGraph(**xnn, "exported_program"));
    }

    // Against the unperturbed run every row is ~0 (MSE <= 1e-10), for both reference graphs and
    // both modes; the rows are the runtime instructions numpy paired (26 handle rows).
    void cnnMatchesRuntime_data()
    {
        QTest::addColumn<QString>("graph");
        QTest::newRow("default (ATen)") << QString();
        QTest::newRow("edge") << u"edge_dialect_exported_program"_qs;
    }
    void cnnMatchesRuntime()
    {
        QFETCH(QString, graph);
        auto s = load("cnn_mlp_intermediates", "", "cnn_mlp_runtime_etrecord.bin");
        evalgap::EvalGapOptions o;
        o.referenceGraph = graph.toStdString();
        o.isolated = true;
        auto ref = evalgap::referenceFromEvaluator(*s->etrecord, s.get(), o);
        QVERIFY2(ref, ref ? "" : ref.error().message().c_str());
        const auto want = expectedGaps(expected().value(u"cnn_mlp"_qs).toObject(), "gap_mse_original");
        for (const auto *set : { &ref->accumulated, &*ref->isolated }) {
            auto t = gapTable(*s, *set, 1e-10);
            QCOMPARE(t.rows.size(), want.size());
            for (const auto &r : t.rows) {
                QVERIFY2(r.error.empty(), r.error.c_str());
                QVERIFY(want.count(r.instructionId));
                QCOMPARE(r.gap.size(), want.at(r.instructionId).size());
                for (double g : r.gap)
                    QVERIFY2(g <= 1e-10, qPrintable(QStringLiteral("instruction %1: %2").arg(r.instructionId).arg(g)));
            }
        }
    }

    // The noise level (no threshold given): the healthy run's rounding differences (MSE 1e-15
    // .. 4e-12, relative errors below 1e-6) flag nothing in either mode; the perturbed buffer
    // flags exactly what the 1e-4 .. 1e-2 perturbations of tests/tools/gen_gap_perturbed.py
    // touched: the perturbed instructions, and in isolated mode also their consumers.
    void noiseLevelFlagsOnlyRealErrors()
    {
        for (const bool perturbed : { false, true }) {
            auto s = load("cnn_mlp_intermediates", perturbed ? test::testData("analysis/cnn_mlp_perturbed.bin") : "",
                "cnn_mlp_runtime_etrecord.bin");
            evalgap::EvalGapOptions o;
            o.isolated = true;
            auto ref = evalgap::referenceFromEvaluator(*s->etrecord, s.get(), o);
            QVERIFY2(ref, ref ? "" : ref.error().message().c_str());
            for (const analysis::Metric m :
                { analysis::Metric::MSE, analysis::Metric::SNR, analysis::Metric::MaxAbs }) {
                analysis::GapOptions go;
                go.metric = m;
                auto acc = analysis::computeNumericGap(*s, ref->accumulated, go);
                auto iso = analysis::computeNumericGap(*s, *ref->isolated, go);
                QVERIFY(acc && iso);
                QVERIFY(!acc->isolated && iso->isolated);
                QCOMPARE(flagged(*acc), perturbed ? (std::set<int> { 3, 14, 25 }) : std::set<int> {});
                QCOMPARE(flagged(*iso), perturbed ? (std::set<int> { 3, 4, 14, 15, 25, 26 }) : std::set<int> {});
                const analysis::GapRow *first = analysis::firstFlagged(*acc);
                QCOMPARE(first ? first->instructionId : -1, perturbed ? 3 : -1);
                QVERIFY(analysis::gapLegend(*iso).find("isolated, flagged above the noise level") != std::string::npos);
            }
        }
    }

    // Perturbed debug buffer: accumulated mode flags exactly the perturbed instructions with
    // numpy's MSE; isolated mode flags each perturbed instruction and its consumers only.
    void cnnPerturbed()
    {
        auto s = load(
            "cnn_mlp_intermediates", test::testData("analysis/cnn_mlp_perturbed.bin"), "cnn_mlp_runtime_etrecord.bin");
        evalgap::EvalGapOptions o;
        o.isolated = true;
        auto ref = evalgap::referenceFromEvaluator(*s->etrecord, s.get(), o);
        QVERIFY2(ref, ref ? "" : ref.error().message().c_str());
        const QJsonObject cnn = expected().value(u"cnn_mlp"_qs).toObject();
        auto toSet = [&](const char *key) {
            std::set<int> out;
            for (const auto &v : cnn.value(QLatin1String(key)).toArray())
                out.insert(v.toInt());
            return out;
        };
        QCOMPARE(toSet("accumulated_flagged"), (std::set<int> { 3, 14, 25 }));
        QCOMPARE(toSet("isolated_flagged"), (std::set<int> { 3, 4, 14, 15, 25, 26 }));

        auto acc = gapTable(*s, ref->accumulated);
        QCOMPARE(flagged(acc), toSet("accumulated_flagged"));
        const auto wantAcc = expectedGaps(cnn, "gap_mse_perturbed");
        for (const auto &r : acc.rows)
            for (std::size_t k = 0; k < r.gap.size(); ++k)
                QVERIFY2(close(r.gap[k], wantAcc.at(r.instructionId)[k], 1e-4, 1e-10),
                    qPrintable(QStringLiteral("instruction %1[%2]: %3 vs numpy %4")
                                   .arg(r.instructionId)
                                   .arg(k)
                                   .arg(r.gap[k])
                                   .arg(wantAcc.at(r.instructionId)[k])));

        auto iso = gapTable(*s, *ref->isolated);
        QCOMPARE(flagged(iso), toSet("isolated_flagged"));
        const auto wantIso = expectedGaps(cnn, "gap_mse_isolated_perturbed");
        for (const auto &r : iso.rows)
            for (std::size_t k = 0; k < r.gap.size(); ++k)
                QVERIFY2(close(r.gap[k], wantIso.at(r.instructionId)[k], 1e-4, 1e-10),
                    qPrintable(QStringLiteral("isolated instruction %1[%2]: %3 vs numpy %4")
                                   .arg(r.instructionId)
                                   .arg(k)
                                   .arg(r.gap[k])
                                   .arg(wantIso.at(r.instructionId)[k])));
    }

    // XNNPACK: each DELEGATE_CALL is one row (its last handle), evaluated as one unit in isolated
    // mode from the runtime value of its input; inputs from a torch.save file.
    void xnnDelegates()
    {
        auto s = load("xnnpack_mlp_intermediates", "", "xnn_mlp_runtime_etrecord.bin");
        evalgap::EvalGapOptions o;
        o.isolated = true;
        o.inputs.inputsFile = test::testData("analysis/xnn_mlp_inputs.pt");
        auto ref = evalgap::referenceFromEvaluator(*s->etrecord, s.get(), o);
        QVERIFY2(ref, ref ? "" : ref.error().message().c_str());
        QCOMPARE(ref->graphName, std::string("edge_dialect_exported_program"));
        const auto want = expectedGaps(expected().value(u"xnn_mlp"_qs).toObject(), "gap_mse_original");
        for (const auto *set : { &ref->accumulated, &*ref->isolated }) {
            auto t = gapTable(*s, *set, 1e-10);
            QCOMPARE(t.rows.size(), std::size_t(4));
            for (const auto &r : t.rows) {
                QVERIFY(want.count(r.instructionId));
                QCOMPARE(r.gap.size(), want.at(r.instructionId).size());
                for (double g : r.gap)
                    QVERIFY2(g <= 1e-10, qPrintable(QStringLiteral("instruction %1: %2").arg(r.instructionId).arg(g)));
                QVERIFY2(r.note.empty(), r.note.c_str());
            }
            QVERIFY(t.rows[0].delegated);
            QCOMPARE(t.rows[0].backend, std::string("XnnpackBackend"));
        }
    }

    // No representative_inputs and no other choice: one error naming the three ways.
    void noInputs()
    {
        auto s = load("xnnpack_mlp_intermediates", "", "xnn_mlp_runtime_etrecord.bin");
        auto ref = evalgap::referenceFromEvaluator(*s->etrecord, s.get(), {});
        QVERIFY(!ref);
        const std::string m = ref.error().message();
        QVERIFY2(m.find("representative_inputs") != std::string::npos, m.c_str());
        QVERIFY2(m.find("--inputs") != std::string::npos, m.c_str());
        QVERIFY2(m.find("--bundled-program") != std::string::npos, m.c_str());
    }
};

QTEST_GUILESS_MAIN(TstEvalGap)
#include "tst_evalgap.moc"
