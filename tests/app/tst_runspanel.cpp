// The Runs panel (issue 29 item 3) in the window: every run over time with its method and phase.
// Expected values: tests/data/analysis/runs_expected/llm_program.json, computed with numpy from
// the raw events by tests/tools/gen_runs_expected.py (time to first token 1.956287 ms; decode:
// 49 runs, 1 warm-up, 1 outlier, 2591.74 tokens/s at the median; 52 runs in all), and the
// cnn_mlp_50runs fixture README (50 executions, one phase "all"). Coverage:
// tests/data/analysis/coverage_expected.json (numpy over `flatc --json` of each recording,
// tests/tools/gen_coverage_expected.py).
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
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
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

    // How much of Method::execute the events explain, beside the shares: in the Runs figures and
    // in the status bar (for the runs in scope), in the warning colour below 90 % — the 50-run
    // add explains 80.7 % (its per-run framework time), the CNN 98.7 %.
    void coverageBesideTheShares_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("cnn_mlp_50runs") << u"cnn_mlp_50runs"_qs;
        QTest::newRow("add_pte_50runs") << u"add_pte_50runs"_qs;
    }
    void coverageBesideTheShares()
    {
        QFETCH(QString, name);
        QFile f(test::testDataPath("analysis/coverage_expected.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject truth = QJsonDocument::fromJson(f.readAll()).object().value(name).toObject();
        const double pct = 100 * truth.value(u"explained"_qs).toDouble() / truth.value(u"execute"_qs).toDouble();
        const QString expected = QString::number(pct, 'f', 1) + u" % of Method::execute"_qs; // 3 digits here
        MainWindow w(test::quietWindow());
        RunsPanel *panel = test::part<RunsPanel>(w);
        QSignalSpy ready(panel, &RunsPanel::reportReady);
        QVERIFY(w.controller()->openFilesSync(
            { test::fixturePath(qPrintable(u"runtime/"_qs + name + u"/etdump.etdp"_qs)) }));
        QVERIFY(ready.wait(20000));
        QVERIFY2(panel->figuresText().contains(u"events explain "_qs + expected), qPrintable(panel->figuresText()));
        auto *label = w.findChild<QLabel *>(u"CoverageLabel"_qs);
        QVERIFY(label);
        // Followed by the runs it is over where the recording offers a choice (the add's warm-up).
        QVERIFY2(label->text().startsWith(u"· events explain "_qs + expected), qPrintable(label->text()));
        QCOMPARE(label->text().endsWith(u"(all runs · 50 runs)"_qs), w.controller()->scopeMatters());
        QCOMPARE(label->styleSheet().contains(u"color"_qs), pct < 90);
        QCOMPARE(panel->figuresText().contains(u"warning: events explain only"_qs), pct < 90);
        QVERIFY(label->toolTip().startsWith(u"events explain "_qs + expected));
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
