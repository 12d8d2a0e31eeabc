// The Runs panel (issue 29 item 3) in the window: every run over time with its method and phase.
// Expected values: tests/data/analysis/runs_expected/llm_program.json, computed with numpy from
// the raw events by tests/tools/gen_runs_expected.py (time to first token 1.956287 ms; decode:
// 49 runs, 1 warm-up, 1 outlier, 2591.74 tokens/s at the median; 52 runs in all), and the
// cnn_mlp_50runs fixture README (50 executions, one phase "all").
#include "eventpanels.h"
#include "mainwindow.h"
#include "runschart.h"
#include "runsmodel.h"
#include "runspanel.h"
#include "sessioncontroller.h"
#include "timelinewidget.h"
#include "windowtest.h"

#include <QCheckBox>
#include <QDockWidget>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>
#include <QTreeWidget>

using namespace etscope;

class TstRunsPanel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void llmPhasesAndFigures()
    {
        MainWindow w(test::quietWindow());
        w.resize(1280, 720);
        w.show();
        RunsPanel *panel = test::part<RunsPanel>(w);
        QSignalSpy ready(panel, &RunsPanel::reportReady);
        QVERIFY(w.controller()->openFilesSync(
            { test::testDataPath("analysis/runs_llm.etdp"), QStringLiteral(ETSCOPE_RUNS_PROGRAM) }));
        QVERIFY(w.controller()->session()->program); // the program pairs: every run fits a method
        QVERIFY(ready.wait(20000));
        QCOMPARE(panel->report()->runs.size(), std::size_t(52));
        const QString f = panel->figuresText();
        QVERIFY2(f.contains(u"time to first token <b>1.95629 ms</b>"_qs), qPrintable(f));
        QVERIFY2(f.contains(u"<b>decode</b>: 49 runs (1 warm-up, 1 outliers)"_qs), qPrintable(f));
        QVERIFY2(f.contains(u"2592 tokens/s (p50)"_qs), qPrintable(f));
        QStringList phases;
        for (int i = 0; i < panel->shareTable()->topLevelItemCount(); ++i)
            phases << panel->shareTable()->topLevelItem(i)->text(0);
        QCOMPARE(phases, (QStringList { u"prefill"_qs, u"decode"_qs, u"other"_qs }));

        // A click on a run: its Method::execute event is selected and the timeline shows that run.
        const std::size_t run = 10;
        const RunRow &row = panel->report()->runs[run];
        const QPointF at = panel->chart()->pointOf(run);
        QCOMPARE(panel->chart()->runAt(at), int(run));
        panel->selectRun(int(run));
        QCOMPARE(test::part<TimelineDock>(w)->timeline()->markedRuns(), QList<int> { int(row.runInBlock) });
        QCOMPARE(test::part<TimelineDock>(w)->timeline()->currentBlock(), int(row.block));
        // The runs table follows, and a row of it selects its run: sorted by duration, the
        // longest run is the prefill (llm_program.json: 1.956287 ms, the longest of the 52).
        auto *proxy = qobject_cast<QSortFilterProxyModel *>(panel->runsTable()->model());
        QVERIFY(proxy);
        QCOMPARE(proxy->mapToSource(panel->runsTable()->currentIndex()).row(), int(run));
        QCOMPARE(proxy->rowCount(), 52);
        panel->runsTable()->sortByColumn(RunsTableModel::DurationColumn, Qt::DescendingOrder);
        QCOMPARE(proxy->index(0, RunsTableModel::DurationColumn).data().toString(), u"1.95629"_qs);
        QCOMPARE(proxy->index(0, RunsTableModel::PhaseColumn).data().toString(), u"prefill"_qs);
        panel->runsTable()->setCurrentIndex(proxy->index(0, 0));
        const int longest = proxy->mapToSource(proxy->index(0, 0)).row();
        QCOMPARE(test::part<TimelineDock>(w)->timeline()->markedRuns(),
            QList<int> { int(panel->report()->runs[std::size_t(longest)].runInBlock) });
        if (const QByteArray shot = qgetenv("ETSCOPE_RUNS_SHOT"); !shot.isEmpty()) {
            w.findChild<QDockWidget *>(u"RunsDock"_qs)->raise();
            QTest::qWait(50);
            w.grab().save(QString::fromLocal8Bit(shot));
        }
    }

    void oneMethodRecordingHasOnePhase()
    {
        MainWindow w(test::quietWindow());
        RunsPanel *panel = test::part<RunsPanel>(w);
        QSignalSpy ready(panel, &RunsPanel::reportReady);
        QVERIFY(w.controller()->openFilesSync({ test::fixturePath("runtime/cnn_mlp_50runs/etdump.etdp") }));
        QVERIFY(ready.wait(20000));
        QCOMPARE(panel->report()->runs.size(), std::size_t(50));
        QCOMPARE(panel->shareTable()->topLevelItemCount(), 1);
        QCOMPARE(panel->shareTable()->topLevelItem(0)->text(0), u"all"_qs);
    }

    // The toggle names the share rows by the decoded backend operator: on the authored Vulkan
    // recording (tests/tools/gen_backend_etdumps.py) the convolution's dispatch is first with
    // 3 × ~41.4 µs = 0.12428 ms and the wrapping ETVK_EXECUTE is in neither table.
    void backendOperatorToggle()
    {
        MainWindow w(test::quietWindow());
        RunsPanel *panel = test::part<RunsPanel>(w);
        QSignalSpy ready(panel, &RunsPanel::reportReady);
        QVERIFY(w.controller()->openFilesSync({ test::testDataPath("backend/vulkan_stem/etdump.etdp") }));
        QVERIFY(ready.wait(20000));
        QTreeWidgetItem *all = panel->shareTable()->topLevelItem(0);
        QCOMPARE(all->childCount(), 6);
        QVERIFY(all->child(0)->text(0).startsWith(u"{\"operator\": {\"name\": \"aten.convolution.default\""_qs));
        QCOMPARE(panel->shareTable()->headerItem()->text(0), u"phase / operator"_qs);
        panel->backendOperatorToggle()->setChecked(true);
        QVERIFY(ready.wait(20000));
        all = panel->shareTable()->topLevelItem(0);
        QCOMPARE(panel->report()->sharesBy, ShareRowsBy::BackendOperator);
        QCOMPARE(panel->shareTable()->headerItem()->text(0), u"phase / backend operator"_qs);
        QCOMPARE(all->childCount(), 6);
        QCOMPARE(all->child(0)->text(0), u"aten.convolution.default"_qs);
        QCOMPARE(all->child(0)->text(1), u"0.12428"_qs);
        QCOMPARE(all->child(0)->text(3), u"3"_qs);
        for (int i = 0; i < all->childCount(); ++i)
            QVERIFY(!all->child(i)->text(0).contains(u"execute"_qs));
    }
};

QTEST_MAIN(TstRunsPanel)
#include "tst_runspanel.moc"
