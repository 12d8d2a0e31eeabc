// The window's loose ends (issue 35 item 6), tried as a new user would on real fixtures: tabs
// with nothing to show say why, the stack trace lists its frames in one order, the memory plan's
// axes, chart exports the session cannot fill, Reset Layout, Open Recent, a mistyped path.
// Expected values: the fixture READMEs (profiling only, no delegate in cnn_mlp, XNNPACK events
// in xnnpack_mlp, add.pte's one instruction), the ETRecord's own stack_trace strings (read here
// with a regular expression, not with the parser under test), and numbers worked by hand in the
// comments.
#include "detailspanel.h"
#include "eventpanels.h"
#include "eventtableview.h"
#include "gapdocks.h"
#include "histogramwidget.h"
#include "mainwindow.h"
#include "memorypanel.h"
#include "memoryview.h"
#include "sessioncontroller.h"
#include "windowtest.h"

#include <QAction>
#include <QChart>
#include <QChartView>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QTest>
#include <QTreeWidget>

using namespace etscope;

namespace {
QString sample(const char *rel)
{
    return QStringLiteral(ETSCOPE_SOURCE_DIR "/resources/samples/") + QString::fromUtf8(rel);
}

enum Tab { Statistics, StackTrace, Modules, DebugData, DelegateMetadata };

QMenu *exportChartMenu(MainWindow &w)
{
    for (QAction *a : w.menuBar()->actions())
        if (a->menu())
            for (QAction *b : a->menu()->actions())
                if (b->menu() && b->text().remove(QLatin1Char('&')) == QStringLiteral("Export Chart"))
                    return b->menu();
    return nullptr;
}
} // namespace

class TestLooseEnds : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // Without an ETRecord and with profiling only (cnn_mlp_50runs/README.txt: "No debug buffer
    // (profiling only)", portable kernels, no delegate), every tab but Statistics says why it is
    // empty, and says the right reason.
    void emptyTabsSayWhy()
    {
        MainWindow w(test::quietWindow());
        DetailsPanel *details = test::part<EventDetailsDocks>(w)->details();
        // Nothing selected yet.
        QVERIFY(details->tabExplanation(StackTrace).startsWith(QStringLiteral("Select an event")));
        QVERIFY(w.controller()->openFilesSync({ test::fixturePath("runtime/cnn_mlp_50runs/etdump.etdp") }));
        QVERIFY(w.table()->selectEventByName(QStringLiteral("native_call_convolution.out")));
        QCOMPARE(details->tabExplanation(Statistics), QString());
        QVERIFY2(details->tabExplanation(StackTrace).startsWith(QStringLiteral("No ETRecord is open")),
            qPrintable(details->tabExplanation(StackTrace)));
        QVERIFY(details->tabExplanation(Modules).contains(QStringLiteral("modules come from the ETRecord")));
        QVERIFY2(details->tabExplanation(DebugData).contains(QStringLiteral("profiling only")),
            qPrintable(details->tabExplanation(DebugData)));
        QVERIFY(details->tabExplanation(DelegateMetadata).startsWith(QStringLiteral("Not a delegated event")));
    }

    // With the ETRecord (resources/samples/cnn_mlp_50runs): a kernel shows its frames; the
    // framework event Method::execute says it stands for no graph node.
    void linkedAndFrameworkEvents()
    {
        MainWindow w(test::quietWindow());
        QVERIFY(w.controller()->openFilesSync(
            { sample("cnn_mlp_50runs/etdump.etdp"), sample("cnn_mlp_50runs/etrecord.bin") }));
        DetailsPanel *details = test::part<EventDetailsDocks>(w)->details();
        QVERIFY(w.table()->selectEventByName(QStringLiteral("native_call_convolution.out")));
        QCOMPARE(details->tabExplanation(StackTrace), QString());
        QCOMPARE(details->tabExplanation(Modules), QString());
        QVERIFY(details->frameCount() > 0);
        QVERIFY(w.table()->selectEventByName(QStringLiteral("Method::execute")));
        QVERIFY2(details->tabExplanation(StackTrace).contains(QStringLiteral("framework event")),
            qPrintable(details->tabExplanation(StackTrace)));
    }

    // A delegated XNNPACK event (xnnpack_mlp_intermediates/README.txt) that carries no metadata
    // says the backend logged none; a block row says to pick an event.
    void delegatedWithoutMetadata()
    {
        MainWindow w(test::quietWindow());
        QVERIFY(w.controller()->openFilesSync({ sample("xnnpack_mlp/etdump.etdp"), sample("xnnpack_mlp/etrecord.bin"),
            sample("xnnpack_mlp/debug_output.bin") }));
        const Session &s = *w.controller()->session();
        int block = -1, event = -1;
        for (std::size_t b = 0; b < s.blocks.size() && block < 0; ++b)
            for (std::size_t e = 0; e < s.blocks[b].events.size(); ++e)
                if (s.blocks[b].events[e].isDelegatedOp && s.blocks[b].events[e].delegateDebugMetadatas().empty()) {
                    block = int(b);
                    event = int(e);
                    break;
                }
        QVERIFY(block >= 0);
        test::selection(w)->selectEvent(block, event);
        QVERIFY2(test::part<EventDetailsDocks>(w)
                     ->details()
                     ->tabExplanation(DelegateMetadata)
                     .contains(QStringLiteral("logged no debug metadata")),
            qPrintable(test::part<EventDetailsDocks>(w)->details()->tabExplanation(DelegateMetadata)));
        test::selection(w)->setCurrentEvent(block, -1); // the table's block row became current
        QVERIFY(test::part<EventDetailsDocks>(w)
                    ->details()
                    ->tabExplanation(StackTrace)
                    .startsWith(QStringLiteral("A block row")));
    }

    // One order: the tree's frames and the text's "File" lines name the same frames in the same
    // order, innermost first (the last frame of the recorded traceback, which Python prints last).
    void stackTraceOneOrder()
    {
        MainWindow w(test::quietWindow());
        QVERIFY(w.controller()->openFilesSync(
            { sample("cnn_mlp_50runs/etdump.etdp"), sample("cnn_mlp_50runs/etrecord.bin") }));
        QVERIFY(w.table()->selectEventByName(QStringLiteral("native_call_convolution.out")));
        QTreeWidget *tree = test::part<EventDetailsDocks>(w)->details()->framesTree();
        QVERIFY(tree->topLevelItemCount() > 0);
        QTreeWidgetItem *node = tree->topLevelItem(0);
        QStringList treeFrames;
        for (int i = 0; i < node->childCount(); ++i)
            treeFrames << node->child(i)->data(0, Qt::UserRole).toString() + QLatin1Char(':')
                    + node->child(i)->data(0, Qt::UserRole + 1).toString();
        QVERIFY(treeFrames.size() >= 2);
        static const QRegularExpression header(QStringLiteral("File \"([^\"]+)\", line (\\d+)"));
        auto framesOf = [](const QString &text) {
            QStringList out;
            auto it = header.globalMatch(text);
            while (it.hasNext()) {
                const auto m = it.next();
                out << m.captured(1) + QLatin1Char(':') + m.captured(2);
            }
            return out;
        };
        const QString text = test::part<EventDetailsDocks>(w)
                                 ->details()
                                 ->findChild<QPlainTextEdit *>(QStringLiteral("StackTraceText"))
                                 ->toPlainText();
        QCOMPARE(framesOf(text).mid(0, treeFrames.size()), treeFrames);
        // The recorded traceback, outermost first as Python writes it: the tree starts at its end.
        const Session &s = *w.controller()->session();
        std::string recorded;
        for (const EventBlock &b : s.blocks)
            for (const Event &e : b.events)
                if (e.name == "native_call_convolution.out" && recorded.empty() && !e.linkedNodes().empty())
                    recorded = e.linkedNodes().front().stackTrace.value_or("");
        const QStringList python = framesOf(QString::fromStdString(recorded));
        QCOMPARE(treeFrames.front(), python.back());
        QCOMPARE(treeFrames.back(), python.front());
    }

    // Instruction ticks are whole numbers, each once; byte ticks run from 0 in the unit of the
    // arena's size. By hand: 2,159,664 bytes with ~4 ticks: 539,916 a tick, rounded up to the next
    // 1, 2, 5 × 10^k: 1,000,000; the size is in MB, a step of 1 MB needs no decimal. 900 bytes
    // with ~4 ticks: 225 → 500 B.
    void memoryPlanAxes()
    {
        QCOMPARE(instructionTicks(1, 10), std::vector<int> { 0 });
        QCOMPARE(instructionTicks(3, 10), (std::vector<int> { 0, 1, 2 }));
        const std::vector<int> many = instructionTicks(141, 6);
        QCOMPARE(many.front(), 0);
        for (std::size_t i = 1; i < many.size(); ++i)
            QVERIFY(many[i] > many[i - 1]);
        QVERIFY(many.back() <= 140);
        QStringList labels;
        for (const auto &[v, label] : byteTicks(2159664, 4))
            labels << label;
        QCOMPARE(labels, QStringList({ QStringLiteral("0"), QStringLiteral("1 MB"), QStringLiteral("2 MB") }));
        labels.clear();
        for (const auto &[v, label] : byteTicks(900, 4))
            labels << label;
        QCOMPARE(labels, QStringList({ QStringLiteral("0"), QStringLiteral("500 B") }));
        labels.clear();
        for (const auto &[v, label] : byteTicks(133840, 6)) // 22,307 → 50,000; kB, no decimal
            labels << label;
        QCOMPARE(labels, QStringList({ QStringLiteral("0"), QStringLiteral("50 kB"), QStringLiteral("100 kB") }));

        MainWindow w(test::quietWindow());
        w.resize(1280, 720);
        w.show();
        QVERIFY(w.controller()->openFilesSync({ test::fixturePath("runtime/add_pte_50runs/add.pte"),
            test::fixturePath("runtime/add_pte_50runs/etdump.etdp") }));
        const QStringList ticks = test::part<MemoryPanel>(w)->view()->canvas()->instructionTickLabels();
        QCOMPARE(ticks, QStringList { QStringLiteral("0") }); // add.pte: one instruction (README)
        QVERIFY(!test::part<MemoryPanel>(w)->view()->canvas()->byteTickLabels(0).isEmpty());
    }

    // File ▸ Export Chart offers only what the session can fill; the others say why.
    void chartExportsSayWhy()
    {
        MainWindow w(test::quietWindow());
        QVERIFY(!test::charts(w)->unavailableReason(QStringLiteral("histogram")).isEmpty());
        QVERIFY(!test::charts(w)->unavailableReason(QStringLiteral("top-events")).isEmpty());
        QVERIFY(w.controller()->openFilesSync({ test::fixturePath("runtime/cnn_mlp_50runs/etdump.etdp") }));
        QCOMPARE(test::charts(w)->unavailableReason(QStringLiteral("top-events")), QString());
        QCOMPARE(test::charts(w)->unavailableReason(QStringLiteral("timeline")), QString());
        QVERIFY(w.table()->selectEventByName(QStringLiteral("native_call_convolution.out")));
        QCOMPARE(test::charts(w)->unavailableReason(QStringLiteral("histogram")), QString());
        QVERIFY(test::charts(w)
                    ->unavailableReason(QStringLiteral("decomposition"))
                    .contains(QStringLiteral("Quantization")));
        QMenu *menu = exportChartMenu(w);
        QVERIFY(menu);
        Q_EMIT menu->aboutToShow();
        bool sawDisabled = false;
        for (QAction *a : menu->actions())
            if (a->text().startsWith(QStringLiteral("Quantization or kernel"))) {
                QVERIFY(!a->isEnabled());
                QVERIFY(a->text().contains(QStringLiteral("first")));
                sawDisabled = true;
            } else if (a->text().startsWith(QStringLiteral("Top events"))) {
                QVERIFY(a->isEnabled());
            }
        QVERIFY(sawDisabled);
    }

    // View ▸ Reset Layout keeps the tab the user had in front.
    void resetKeepsFrontTab()
    {
        MainWindow w(test::quietWindow());
        w.resize(1280, 720);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto *topEvents = w.findChild<QDockWidget *>(QStringLiteral("TopEventsDock"));
        auto *timeline = w.findChild<QDockWidget *>(QStringLiteral("TimelineDock"));
        topEvents->raise();
        QTRY_VERIFY(!topEvents->visibleRegion().isEmpty());
        test::resetLayout(w);
        QTRY_VERIFY(!topEvents->visibleRegion().isEmpty());
        QVERIFY(timeline->visibleRegion().isEmpty());
    }

    // The tensor inspector opens with a numeric gap in a dock of its own beside the heatmap it
    // follows (the bottom area, split across), never as a tab sharing Details' room.
    void tensorInspectorHasRoom()
    {
        MainWindow w(test::quietWindow());
        w.resize(1280, 720);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const QString run = test::fixturePath("runtime/cnn_mlp_intermediates/");
        QString error;
        QVERIFY(w.controller()->openFilesSync(
            { run + QStringLiteral("etdump.etdp"), test::testDataPath("analysis/cnn_mlp_perturbed.bin") }));
        QVERIFY2(w.gapDocks()->compareWith(
                     { run + QStringLiteral("etdump.etdp"), run + QStringLiteral("debug_output.bin") }, &error),
            qPrintable(error));
        auto *tensor = w.findChild<QDockWidget *>(QStringLiteral("TensorInspectorDock"));
        auto *heatmap = w.findChild<QDockWidget *>(QStringLiteral("GapHeatmapDock"));
        QTRY_VERIFY(tensor->isVisible() && heatmap->isVisible());
        QVERIFY(w.tabifiedDockWidgets(tensor).isEmpty());
        QCOMPARE(w.dockWidgetArea(tensor), Qt::BottomDockWidgetArea);
        // Both in view at once, and Details keeps its place on the right.
        QTRY_VERIFY(!tensor->visibleRegion().isEmpty() && !heatmap->visibleRegion().isEmpty());
        QVERIFY(!w.findChild<QDockWidget *>(QStringLiteral("DetailsDock"))->visibleRegion().isEmpty());
    }

    // At 1280×720 with the bottom area tall (the Program panel of the LLM fixture asks for room),
    // the latency histogram is short: its tick labels stay inside the chart, above the marker
    // legend, never under it.
    void histogramTicksClearOfLegend()
    {
        MainWindow w(test::quietWindow());
        w.resize(1280, 720);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const QString llm = test::testDataPath("runtime/llm_decoder/");
        QVERIFY(w.controller()->openFilesSync({ llm + QStringLiteral("profile/etdump.etdp"),
            llm + QStringLiteral("llm_decoder.pte"), llm + QStringLiteral("llm_decoder.ptd") }));
        const Session &s = *w.controller()->session();
        // A decode kernel: 64 runs, a histogram of several bars.
        for (std::size_t b = 0; b < s.blocks.size(); ++b)
            if (s.blocks[b].runIndices.size() == 64)
                for (std::size_t e = 0; e < s.blocks[b].events.size(); ++e)
                    if (s.blocks[b].events[e].name == "native_call_permute_copy.out") {
                        test::selection(w)->setCurrentEvent(int(b), int(e));
                        b = s.blocks.size() - 1;
                        break;
                    }
        QCOMPARE(test::part<EventDetailsDocks>(w)->histogram()->totalCount(), 64);
        QCoreApplication::processEvents();
        QWidget *view = test::part<EventDetailsDocks>(w)->histogram()->chartView();
        auto *legend = test::part<EventDetailsDocks>(w)->histogram()->findChild<QWidget *>(
            QStringLiteral("HistogramMarkerLegend"));
        QVERIFY(view->isVisible());
        if (legend->isVisible()) // compact: the legend is a line of its own under the chart
            QVERIFY2(view->geometry().bottom() < legend->geometry().top(),
                qPrintable(QStringLiteral("chart %1–%2, legend from %3")
                               .arg(view->geometry().top())
                               .arg(view->geometry().bottom())
                               .arg(legend->geometry().top())));
        auto *chart = static_cast<QChartView *>(view)->chart();
        QVERIFY2(chart->plotArea().bottom() + view->fontMetrics().height() <= view->height(),
            qPrintable(QStringLiteral("plot bottom %1, view %2").arg(chart->plotArea().bottom()).arg(view->height())));
    }

    // A mistyped path says so, in the one error place, and nothing else changes.
    void mistypedPath()
    {
        MainWindow w(test::quietWindow());
        const QString missing = test::fixturePath("runtime/cnn_mlp_50runs/etdmup.etdp");
        QString error;
        QVERIFY(!w.controller()->openFilesSync({ missing }, &error));
        QCOMPARE(error, missing + QStringLiteral(": no such file"));
        QCOMPARE(test::lastError(w), missing + QStringLiteral(": no such file"));
        QVERIFY(w.controller()->recentFiles().isEmpty());
    }

    // A file of a recent set reopened alone: the set, with its companions, stays right under it.
    void recentKeepsCompanions()
    {
        MainWindow w(test::quietWindow());
        const QString dir = test::fixturePath("runtime/cnn_mlp_intermediates/");
        const QString etdump = dir + QStringLiteral("etdump.etdp");
        QVERIFY(w.controller()->openFilesSync(
            { etdump, dir + QStringLiteral("debug_output.bin"), dir + QStringLiteral("cnn_mlp.pte") }));
        const QString set = w.controller()->recentFiles().front();
        QCOMPARE(set.split(QLatin1Char('\n')).size(), 3);
        QVERIFY(w.controller()->openFilesSync({ test::fixturePath("runtime/add_pte_50runs/etdump.etdp") }));
        QVERIFY(w.controller()->openFilesSync({ etdump }));
        const QStringList recent = w.controller()->recentFiles();
        QCOMPARE(recent.value(0), QFileInfo(etdump).absoluteFilePath());
        QCOMPARE(recent.value(1), set);
        QCOMPARE(recent.size(), 3);
    }
};

QTEST_MAIN(TestLooseEnds)
#include "tst_looseends.moc"
