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

#include <QBuffer>
#include <QPainter>
#include <QScrollArea>
#include <QSignalSpy>
#include <QSvgGenerator>
#include <QTableWidget>
#include <QTreeWidget>
#include <QtTest>

#include <cmath>
#include <map>

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

    // Issue 28: the gap chart draws the threshold each row is judged by (the float32 noise
    // level of its reference, GapRow::noise, for the element with the worst gap) and the axis
    // floor where exact matches sit reads "0", not a tiny decade. Perturbed rows 3, 14, 25 lie
    // above their threshold line, exact rows (MSE 0) on the floor below it.
    void trendChartThresholdAndExactZero()
    {
        std::shared_ptr<const Session> runtime;
        GapTable acc = perturbedTable(Metric::MSE, runtime, true);
        GapTrendChart chart;
        chart.setTables(acc, GapTable {});
        chart.resize(900, 320);
        int exact = -1;
        for (int i = 0; i < int(acc.rows.size()); ++i) {
            const GapRow &r = acc.rows[std::size_t(i)];
            std::size_t k = 0;
            for (std::size_t j = 0; j < r.gap.size(); ++j)
                if (r.gap[j] > r.gap[k])
                    k = j;
            QCOMPARE(chart.threshold(i), r.noise[k]);
            const double pointY = chart.pointPosition(i, false).y(), lineY = chart.thresholdPosition(i).y();
            if (r.instructionId == 3 || r.instructionId == 14 || r.instructionId == 25)
                QVERIFY2(pointY < lineY, qPrintable(chart.label(i))); // above the line (y grows down)
            if (r.worst(Direction::HigherIsWorse) == 0.0) {
                exact = i;
                QVERIFY(pointY > lineY);
            }
        }
        QVERIFY(exact >= 0);
        const QStringList ticks = chart.yTickLabels();
        QCOMPARE(ticks.first(), QStringLiteral("0"));
        for (int i = 1; i < ticks.size(); ++i)
            QVERIFY(ticks[i].startsWith(QStringLiteral("1e")));
        // The dashed red line is drawn where thresholdPosition says.
        const QImage image = chart.grab().toImage();
        const QPointF at = chart.thresholdPosition(exact);
        bool red = false;
        for (int dx = -6; dx <= 6 && !red; ++dx)
            for (int dy = -1; dy <= 1 && !red; ++dy) {
                const QColor c = image.pixelColor(int(at.x()) + dx, int(at.y()) + dy);
                red = c.red() > 150 && c.green() < 120 && c.blue() < 120;
            }
        QVERIFY(red);
        chart.grab().save(QStringLiteral(ETSCOPE_BINARY_DIR "/gap_trend_threshold.png"));
        // SNR: exact matches are infinite dB.
        GapTable snr = perturbedTable(Metric::SNR, runtime, true);
        chart.setTables(snr, GapTable {});
        QCOMPARE(chart.yTickLabels().first(), QStringLiteral("∞ dB"));
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

    // Issue 28: delegate triage named the replaced ops by raw node name only. Each now reads
    // "operator · handle N · node name". Expected: the partitions' nodes of
    // graph_expected.json and the debug handles in the nodes' "debug_handle" metadata of the
    // ETRecord's JSON (read with Python's zipfile + json: 1 1 2 3 3 4 5 | 7 7 8 9 9 10).
    void triageNamesReplacedOpsReadably()
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
        auto t = computeNumericGap(**s, *ref, GapOptions {});
        QVERIFY(t.ok());
        DelegateTriageView v;
        v.setData(**s, *t);
        QCOMPARE(v.tree()->topLevelItemCount(), 2);
        const std::map<QString, QStringList> expected {
            { u"0"_qs,
                { u"permute_copy · handle 1 · aten_permute_copy_default"_qs,
                    u"addmm · handle 1 · aten_addmm_default"_qs, u"relu · handle 2 · aten_relu_default"_qs,
                    u"permute_copy · handle 3 · aten_permute_copy_default_1"_qs,
                    u"addmm · handle 3 · aten_addmm_default_1"_qs, u"add · handle 4 · aten_add_tensor"_qs,
                    u"gelu · handle 5 · aten_gelu_default"_qs } },
            { u"2"_qs,
                { u"permute_copy · handle 7 · aten_permute_copy_default_2"_qs,
                    u"addmm · handle 7 · aten_addmm_default_2"_qs, u"tanh · handle 8 · aten_tanh_default"_qs,
                    u"permute_copy · handle 9 · aten_permute_copy_default_3"_qs,
                    u"addmm · handle 9 · aten_addmm_default_3"_qs,
                    u"_softmax · handle 10 · aten__softmax_default"_qs } },
        };
        for (int i = 0; i < 2; ++i) {
            const QTreeWidgetItem *item = v.tree()->topLevelItem(i);
            QCOMPARE(item->text(2).split(u", "_qs), expected.at(item->text(1)));
            // The tooltip: one line per op with its full target and the Inspector's node name.
            const QStringList tip = item->toolTip(2).split(u'\n');
            QCOMPARE(tip.size(), expected.at(item->text(1)).size());
            QVERIFY(tip.first().contains(u"executorch.exir.dialects.edge.ops.aten.permute_copy.default"_qs));
        }
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
        // Issue 28: the x axis is labelled. The SVG of the widget holds, under each of the three
        // panels, the indices 0 and 1 and the axis title.
        QByteArray svg;
        {
            QBuffer buffer(&svg);
            buffer.open(QIODevice::WriteOnly);
            QSvgGenerator gen;
            gen.setOutputDevice(&buffer);
            gen.setSize(c.size());
            QPainter painter(&gen);
            c.render(&painter);
        }
        QCOMPARE(QString::fromUtf8(svg).count(CompareResultsChart::xAxisTitle().toHtmlEscaped()), 3);
        QVERIFY(CompareResultsChart::xAxisTitle().startsWith(u"output"_qs));
    }

    // Issue 28: in a 150 px dock the tensor inspector showed its header and part of the
    // statistics (stacked, it needs 350 px). In a wide, short dock (in the window's scroll area)
    // the statistics (all three rows), the error histogram and the worst elements sit side by
    // side, each whole inside the dock; in a narrow, tall one they are stacked.
    void tensorInspectorFitsAShortDock()
    {
        std::shared_ptr<const Session> s;
        GapTable t = perturbedTable(Metric::MSE, s, true);
        QScrollArea area;
        area.setWidgetResizable(true);
        area.setFrameShape(QFrame::NoFrame);
        auto *w = new TensorInspectorWidget;
        area.setWidget(w);
        w->setRow(t.rows[3]); // a perturbed convolution: a histogram and ten worst elements
        area.resize(1000, 170);
        area.show();
        QVERIFY(QTest::qWaitForWindowExposed(&area));
        QTRY_VERIFY(w->sideBySide());
        QTRY_COMPARE(w->height(), area.viewport()->height()); // no scrolling
        const QRect room = area.viewport()->rect();
        for (QWidget *part :
            { static_cast<QWidget *>(w->statsTable()), w->histogram(), static_cast<QWidget *>(w->worstTable()) }) {
            const QRect at(part->mapTo(area.viewport(), QPoint(0, 0)), part->size());
            QVERIFY2(room.contains(at),
                qPrintable(QStringLiteral("%1,%2 %3x%4").arg(at.x()).arg(at.y()).arg(at.width()).arg(at.height())));
        }
        QTableWidget *stats = w->statsTable();
        QVERIFY2(stats->rowViewportPosition(2) + stats->rowHeight(2) <= stats->viewport()->height(),
            qPrintable(QStringLiteral("%1+%2 > %3 (table %4)")
                           .arg(stats->rowViewportPosition(2))
                           .arg(stats->rowHeight(2))
                           .arg(stats->viewport()->height())
                           .arg(stats->height())));
        QVERIFY(w->histogram()->height() >= 80);
        QVERIFY(w->worstTable()->height() >= 80);
        area.grab().save(QStringLiteral(ETSCOPE_BINARY_DIR "/tensor_inspector_short.png"));
        area.resize(480, 700);
        QCoreApplication::processEvents();
        QVERIFY(!w->sideBySide());
        QVERIFY(stats->rowViewportPosition(2) + stats->rowHeight(2) <= stats->viewport()->height());
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
