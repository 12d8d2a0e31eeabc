// Numeric gap widgets. Heatmap on the real cnn_mlp run vs the numpy-perturbed buffer (rows 3,
// 14 and 25 perturbed: see tests/tools/gen_gap_perturbed.py); tensor statistics by hand.
// Renders each widget to PNG under the build directory (looked at while developing).

#include "analysis/numericgap.h"
#include "compareresultschart.h"
#include "delegatetriageview.h"
#include "gapheatmapwidget.h"
#include "gaptrendchart.h"
#include "tensorinspectorwidget.h"
#include "testsession.h"

#include <QSignalSpy>
#include <QTreeWidget>
#include <QtTest>

#include <cmath>

using namespace etscope;
using namespace etscope::analysis;
using namespace etscope::gapui;

namespace {

const std::string kCnn = ETSCOPE_SHARED_DIR "/fixtures/runtime/cnn_mlp_intermediates/";

std::shared_ptr<const Session> load(const std::string &etdump, const std::string &buffer)
{
    return test::loadSessionOrDie(etdump, buffer);
}

GapTable perturbedTable(Metric m, std::shared_ptr<const Session> &runtime, bool noiseLevel = false)
{
    runtime = load(kCnn + "etdump.etdp", ETSCOPE_TEST_DATA_DIR "/analysis/cnn_mlp_perturbed.bin");
    auto refSession = load(kCnn + "etdump.etdp", kCnn + "debug_output.bin");
    auto ref = referenceFromSession(*refSession);
    GapOptions o;
    o.metric = m;
    if (!noiseLevel)
        o.threshold = m == Metric::SNR ? 1000.0 : 0.0;
    auto t = computeNumericGap(*runtime, *ref, o);
    if (!t)
        qFatal("%s", t.error().message().c_str());
    return *t;
}

void savePng(QWidget &w, const char *name)
{
    w.resize(w.sizeHint().expandedTo(QSize(640, 400)));
    const QString path = QStringLiteral(ETSCOPE_BINARY_DIR "/%1").arg(QLatin1String(name));
    QVERIFY(w.grab().save(path));
}

} // namespace

class TestGapUi : public QObject
{
    Q_OBJECT
private slots:
    // Gap along execution: accumulated = the real perturbed table (numpy MSEs, rows 3, 14, 25);
    // isolated = the same rows with hand-set gaps (0 except 2e-3 on instruction 3 and 1e-6 on
    // 4), so the error "enters" at instruction 3. A click on that point emits its event.
    void trendChart()
    {
        std::shared_ptr<const Session> runtime;
        GapTable acc = perturbedTable(Metric::MSE, runtime);
        GapTable iso = acc;
        for (auto &r : iso.rows)
            for (double &g : r.gap)
                g = r.instructionId == 3 ? 2e-3 : r.instructionId == 4 ? 1e-6 : 0.0;
        GapTrendChart chart;
        chart.setTables(acc, iso);
        QCOMPARE(chart.pointCount(), int(acc.rows.size()));
        int row3 = -1;
        for (int i = 0; i < int(acc.rows.size()); ++i)
            if (acc.rows[std::size_t(i)].instructionId == 3)
                row3 = i;
        QVERIFY(row3 >= 0);
        QCOMPARE(chart.entryPoint(), row3);
        QCOMPARE(chart.value(row3, true), 2e-3);
        QCOMPARE(chart.value(row3, false), acc.rows[std::size_t(row3)].worst(Direction::HigherIsWorse));
        QVERIFY(chart.label(row3).startsWith(u"#3 "_qs));
        chart.resize(900, 300);
        // Worse is higher: the isolated point of row 3 sits above the exact (zero) points.
        QVERIFY(chart.pointPosition(row3, true).y() < chart.pointPosition(0, true).y());
        QSignalSpy spy(&chart, &GapTrendChart::eventSelected);
        QTest::mouseClick(&chart, Qt::LeftButton, {}, chart.pointPosition(row3, true).toPoint());
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toInt(), acc.rows[std::size_t(row3)].blockIndex);
        QCOMPARE(spy.at(0).at(1).toInt(), acc.rows[std::size_t(row3)].eventIndex);
        QVERIFY(chart.grab().save(QStringLiteral(ETSCOPE_BINARY_DIR "/gap_trend_chart.png")));
        // No isolated table: one curve, no entry point.
        chart.setTables(acc, GapTable {});
        QCOMPARE(chart.entryPoint(), -1);
        QVERIFY(std::isnan(chart.value(row3, true)));
    }

    void heatmapMarksPerturbedRows()
    {
        std::shared_ptr<const Session> s;
        GapTable mse = perturbedTable(Metric::MSE, s, true);
        GapTable snr = perturbedTable(Metric::SNR, s, true);
        GapHeatmapWidget w;
        w.setTables({ mse, snr });
        QCOMPARE(w.rowCount(), 28);
        QCOMPARE(w.columnCount(), 6); // up to 3 outputs (native_layer_norm) x 2 metrics
        // One scale for every column, judged by the noise level: the perturbed rows (3, 14, 25;
        // shifts of 1e-2 and more) are flagged and warm (severity >= 0.5), exact copies are 0.
        for (int row : { 3, 14, 25 }) {
            QVERIFY(w.flagged(row, 0));
            QVERIFY(w.severity(row, 0) >= 0.5);
            QVERIFY(w.flagged(row, 3));
        }
        for (int row : { 0, 1, 2, 26, 27 }) {
            QVERIFY(!w.flagged(row, 0) && !w.flagged(row, 3));
            QCOMPARE(w.severity(row, 0), 0.0);
        }
        // The 0.025 MSE spike of row 25 lies more than four decades above float32 noise.
        QCOMPARE(w.severity(25, 0), 1.0);
        QVERIFY(std::isnan(w.value(0, 1))); // convolution has one output
        QVERIFY(w.legend().startsWith(u"MSE · SNR, accumulated, flagged above the noise level"_qs));
        QSignalSpy spy(&w, &GapHeatmapWidget::eventSelected);
        w.resize(w.sizeHint());
        QTest::mouseClick(&w, Qt::LeftButton, {}, w.cellRect(25, 0).center());
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toInt(), mse.rows[25].blockIndex);
        QCOMPARE(spy.at(0).at(1).toInt(), mse.rows[25].eventIndex);
        QCOMPARE(
            s->blocks[std::size_t(mse.rows[25].blockIndex)].events[std::size_t(mse.rows[25].eventIndex)].instructionId,
            25);
        savePng(w, "gap_heatmap.png");

        const QString svg = QStringLiteral(ETSCOPE_BINARY_DIR "/gap_heatmap_export.svg");
        QVERIFY(w.saveImage(svg));
        QFile f(svg);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        QVERIFY(text.contains("<svg"));
        QVERIFY(text.contains("native_call_addmm.out")); // row labels are text in the SVG
        const QString png = QStringLiteral(ETSCOPE_BINARY_DIR "/gap_heatmap_export.png");
        QVERIFY(w.saveImage(png));
        // An export carries the legend under the rows (on screen it stays above the scroll area).
        const QImage image(png);
        QVERIFY(image.width() >= w.sizeHint().width() && image.height() > w.sizeHint().height());
        QVERIFY(text.contains("flagged above the noise level"));
    }

    void triageWorstFirst()
    {
        std::shared_ptr<const Session> s;
        GapTable t = perturbedTable(Metric::MSE, s);
        // cnn_mlp is not delegated: mark two rows as delegate calls to exercise the view.
        t.rows[3].delegated = true;
        t.rows[3].backend = "XnnpackBackend";
        t.rows[25].delegated = true;
        t.rows[25].backend = "VulkanBackend";
        DelegateTriageView v;
        v.setData(*s, t);
        QCOMPARE(v.tree()->topLevelItemCount(), 2);
        QCOMPARE(v.tree()->topLevelItem(0)->text(0), QStringLiteral("VulkanBackend")); // 0.025 > 1e-4
        QCOMPARE(v.tree()->topLevelItem(0)->text(1), QStringLiteral("25"));
        QVERIFY(!v.tree()->topLevelItem(0)->text(3).isEmpty()); // latency from the real ETDump
        QSignalSpy spy(&v, &DelegateTriageView::eventSelected);
        v.tree()->setCurrentItem(v.tree()->topLevelItem(1));
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(1).toInt(), t.rows[3].eventIndex);
        savePng(v, "gap_triage.png");
    }

    // Real XNNPACK delegate calls vs the AOT file of tests/tools/gen_gap_aot_xnnpack.py
    // (delegate 2: MSE 2.5e-4 > delegate 0: 2.3e-5).
    void triageOnRealDelegates()
    {
        const std::string dir = ETSCOPE_SHARED_DIR "/fixtures/runtime/xnnpack_mlp_intermediates/";
        SessionInputs in;
        in.etdump = dir + "etdump.etdp";
        in.debugBuffer = dir + "debug_output.bin";
        in.etrecord = ETSCOPE_TEST_DATA_DIR "/etrecord/xnn_mlp_etrecord.bin";
        auto s = loadSession(in);
        QVERIFY(s.ok());
        auto ref = referenceFromAotOutputs(ETSCOPE_TEST_DATA_DIR "/analysis/xnn_mlp_aot_outputs.pt");
        QVERIFY(ref.ok());
        GapOptions o;
        o.threshold = 0.0;
        auto t = computeNumericGap(**s, *ref, o);
        QVERIFY(t.ok());
        DelegateTriageView v;
        v.setData(**s, *t);
        QCOMPARE(v.tree()->topLevelItemCount(), 2);
        QCOMPARE(v.tree()->topLevelItem(0)->text(0), QStringLiteral("XnnpackBackend"));
        QCOMPARE(v.tree()->topLevelItem(0)->text(1), QStringLiteral("2"));
        QCOMPARE(v.tree()->topLevelItem(1)->text(1), QStringLiteral("0"));
        // Replaced ops are the linked graph nodes; the source column names the user's line.
        QVERIFY(v.tree()->topLevelItem(0)->text(2).contains(QStringLiteral("aten_")));
        QCOMPARE(v.tree()->topLevelItem(0)->text(5), QStringLiteral("cnn_mlp.py:258"));
        savePng(v, "gap_triage_xnnpack.png");

        GapHeatmapWidget w;
        w.setTables({ *t });
        QCOMPARE(w.rowCount(), 4);
        QCOMPARE(w.severity(2, 0), 1.0);
        savePng(w, "gap_heatmap_xnnpack.png");
    }

    void compareResultsChart()
    {
        // r = [1,2,3] vs o = [1,2,4] (snr 11.46, mse 0.33, cosine 0.99 by hand, see
        // tst_numericgap) and an identical pair (snr inf).
        std::vector<NumValue> r { NumValue::tensor(NumTensor::fromDoubles(ScalarType::Double, { 3 }, { 1, 2, 3 })),
            NumValue::tensor(NumTensor::fromFloats({ 2 }, { 1, 5 })) };
        std::vector<NumValue> o { NumValue::tensor(NumTensor::fromFloats({ 3 }, { 1, 2, 4 })),
            NumValue::tensor(NumTensor::fromFloats({ 2 }, { 1, 5 })) };
        CompareResultsChart c;
        c.setResults(compareResults(r, o));
        QCOMPARE(c.results().size(), std::size_t(2));
        QCOMPARE(roundTo2(c.results()[0].snr), 11.46);
        QVERIFY(std::isinf(c.results()[1].snr));
        savePng(c, "compare_results_chart.png");
    }

    void tensorStatsByHand()
    {
        // ref [[1,2],[3,4]], run [[1,2],[3.5,4]]: diff [0,0,0.5,0] → min 0, max 0.5, mean 0.125,
        // unbiased std sqrt((3·0.125² + 0.375²)/3) = 0.25; worst element [1,0]; 3 exact zeros.
        auto ref = NumTensor::fromDoubles(ScalarType::Float, { 2, 2 }, { 1, 2, 3, 4 });
        auto run = NumTensor::fromFloats({ 2, 2 }, { 1, 2, 3.5f, 4 });
        auto st = computePairStats(ref, run);
        QVERIFY(st.comparable);
        QCOMPARE(st.difference.min, 0.0);
        QCOMPARE(st.difference.max, 0.5);
        QCOMPARE(st.difference.mean, 0.125);
        QCOMPARE(st.difference.stddev, 0.25);
        QCOMPARE(st.reference.mean, 2.5);
        QCOMPARE(st.exactZeros, std::int64_t(3));
        QCOMPARE(st.worst.front().index, (std::vector<std::int64_t> { 1, 0 }));
        QCOMPARE(st.worst.front().absDiff, 0.5);
        QVERIFY(!computePairStats(ref, NumTensor::fromFloats({ 4 }, { 1, 2, 3, 4 })).comparable);

        std::shared_ptr<const Session> s;
        GapTable t = perturbedTable(Metric::MSE, s);
        TensorInspectorWidget w;
        w.setRow(t.rows[25]);
        QVERIFY(w.stats().comparable);
        // The spike: element 7 of the [1, 10] addmm output got +0.5 (gen_gap_perturbed.py).
        QCOMPARE(w.stats().worst.front().index, (std::vector<std::int64_t> { 0, 7 }));
        QVERIFY(std::abs(w.stats().worst.front().absDiff - 0.5) < 1e-6);
        QCOMPARE(w.stats().exactZeros, std::int64_t(9));
        savePng(w, "gap_tensor_inspector.png");
    }
};

QTEST_MAIN(TestGapUi)
#include "tst_gapui.moc"
