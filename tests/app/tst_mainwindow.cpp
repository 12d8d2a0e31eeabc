// The main window driven like a user: drops of real fixtures, sorting, filtering, selection,
// export, a corrupt file and the --screenshot mode of the executable.
// Expected values: inspector-semantics.md §12 (docs_tutorial, decoded by hand with flatc --json)
// and the fixture READMEs (run counts, instruction lists, output shapes).
#include "detailspanel.h"
#include "eventfilterproxy.h"
#include "eventpanels.h"
#include "eventtableview.h"
#include "eventtreemodel.h"
#include "graphdock.h"
#include "graphview/graphview.h"
#include "histogramwidget.h"
#include "mainwindow.h"
#include "messagebar.h"
#include "modelroles.h"
#include "modulerollupmodel.h"
#include "modulerollupview.h"
#include "timecontrols.h"
#include "timelinewidget.h"
#include "topeventschart.h"
#include "windowtest.h"

#include "events/inspectortable.h"

#include <QApplication>
#include <QChart>
#include <QDockWidget>
#include <QFrame>
#include <QHeaderView>
#include <QImage>
#include <QLineEdit>
#include <QMimeData>
#include <QProcess>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeView>
#include <QTreeWidget>
#include <QtTest>

using namespace etscope;

namespace {
QString fixture(const char *rel)
{
    return QStringLiteral(ETSCOPE_SHARED_DIR "/fixtures/") + QString::fromUtf8(rel);
}

MainWindow::Options quietOptions()
{
    MainWindow::Options o;
    o.persistSettings = false;
    return o;
}

// A drop as the window receives it from the desktop: drag enter, then the drop itself.
void dropFiles(QWidget *target, const QStringList &paths)
{
    QMimeData mime;
    QList<QUrl> urls;
    for (const QString &p : paths)
        urls << QUrl::fromLocalFile(p);
    mime.setUrls(urls);
    QDragEnterEvent enter(QPoint(20, 20), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(20, 20), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &drop);
}

bool waitLoaded(MainWindow &w)
{
    QSignalSpy spy(w.controller(), &SessionController::loadFinished);
    if (!spy.wait(10000))
        return false;
    return spy.first().first().toBool();
}

QModelIndex childNamed(const QAbstractItemModel *m, const QModelIndex &parent, const QString &name)
{
    for (int r = 0; r < m->rowCount(parent); ++r)
        if (m->index(r, 0, parent).data().toString() == name)
            return m->index(r, 0, parent);
    return {};
}
} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QApplication::setOrganizationName(QStringLiteral("etscope-tests"));
        QApplication::setApplicationName(QStringLiteral("tst_mainwindow"));
    }

    void dropFillsTree()
    {
        MainWindow w(quietOptions());
        w.show();
        QSignalSpy changed(w.controller(), &SessionController::sessionChanged);
        dropFiles(&w, { fixture("upstream/docs_tutorial.etdp") });
        QVERIFY(waitLoaded(w));
        QCOMPARE(changed.size(), 1);
        const QAbstractItemModel *m = w.table()->tree()->model();
        QCOMPARE(m->rowCount(), 2);
        QCOMPARE(m->rowCount(m->index(0, 0)), 2); // Default: Method::init, Program::load_method
        QCOMPARE(m->rowCount(m->index(1, 0)), 29); // Execute: 14 kernels + 14 OPERATOR_CALL + execute
        QCOMPARE(m->index(0, 0, m->index(1, 0)).data().toString(), QStringLiteral("native_call_convolution.out"));
        QCOMPARE(m->index(0, EventTreeModel::AvgColumn, m->index(1, 0)).data().toString(), QStringLiteral("0.544783"));
        QVERIFY(w.windowTitle().contains(QStringLiteral("docs_tutorial.etdp")));
        // The slowest kernel is selected on open: convolution #2, 1.031719 ms (§12 row 5).
        QVERIFY(test::part<EventDetailsDocks>(w)->details()->title().contains(
            QStringLiteral("native_call_convolution.out")));
        QCOMPARE(w.table()->tree()->currentIndex().siblingAtColumn(EventTreeModel::AvgColumn).data().toString(),
            QStringLiteral("1.03172"));
    }

    void sortAndFilter()
    {
        MainWindow w(quietOptions());
        QVERIFY(w.controller()->openFilesSync({ fixture("upstream/docs_tutorial.etdp") }));
        QTreeView *tree = w.table()->tree();
        tree->sortByColumn(EventTreeModel::AvgColumn, Qt::DescendingOrder);
        const QAbstractItemModel *m = tree->model();
        const QModelIndex execute = m->index(1, 0);
        QCOMPARE(execute.data().toString(), QStringLiteral("Execute"));
        QCOMPARE(m->index(0, 0, execute).data().toString(), QStringLiteral("Method::execute")); // 1.898821
        QCOMPARE(m->index(1, 0, execute).data().toString(), QStringLiteral("OPERATOR_CALL")); // 1.03223
        tree->sortByColumn(EventTreeModel::AvgColumn, Qt::AscendingOrder);
        QCOMPARE(m->index(0, EventTreeModel::AvgColumn, m->index(1, 0)).data().toString(), QStringLiteral("0.0001"));

        // Typing goes through the 300 ms debounce.
        QTest::keyClicks(w.table()->filterEdit(), QStringLiteral("permute"));
        QCOMPARE(m->rowCount(m->index(1, 0)), 29);
        QTRY_COMPARE(m->rowCount(), 1);
        QCOMPARE(m->rowCount(m->index(0, 0)), 3); // three permute_copy kernels in §12
        w.table()->filterEdit()->clear();
        QTRY_COMPARE(m->rowCount(), 2);
    }

    void selectionFillsDetailsAndHistogram()
    {
        MainWindow w(quietOptions());
        QVERIFY(w.controller()->openFilesSync({ fixture("runtime/cnn_mlp_50runs/etdump.etdp") }));
        QVERIFY(w.table()->selectEventByName(QStringLiteral("native_call_mm.out")));
        // README: 50 executions → 50 raw values for every event of the Execute block.
        QCOMPARE(test::part<EventDetailsDocks>(w)->histogram()->totalCount(), 50);
        QCOMPARE(test::part<EventDetailsDocks>(w)->details()->rawValueCount(), 50);
        QVERIFY(test::part<EventDetailsDocks>(w)->details()->title().contains(QStringLiteral("native_call_mm.out")));
        QVERIFY(
            test::part<EventDetailsDocks>(w)->histogram()->chart()->series().size() >= 2); // bars + percentile markers

        // The public slot selects everywhere (Execute is block 1; event 0 is the first conv).
        w.table()->selectEvent(1, 0);
        QCOMPARE(w.table()->tree()->currentIndex().data().toString(), QStringLiteral("native_call_convolution.out"));
        QVERIFY(test::part<EventDetailsDocks>(w)->details()->title().contains(
            QStringLiteral("native_call_convolution.out")));
        QCOMPARE(test::part<TimelineDock>(w)->timeline()->currentBlock(), 1);
        // 28 kernels + 28 OPERATOR_CALL + Method::execute in run 0.
        QCOMPARE(int(test::part<TimelineDock>(w)->timeline()->layout().bars.size()), 57);
        // Top events exclude framework and OPERATOR_CALL rows; 28 kernels > default top 12.
        QCOMPARE(test::part<TopEventsDock>(w)->chart()->barCount(), 12);
    }

    void timelineInFrontAtFirstStart()
    {
        // The panels' hidden tabs used to leave Graph in front, blank without an ETRecord.
        MainWindow w(quietOptions());
        w.resize(1500, 920);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.controller()->openFilesSync({ fixture("runtime/cnn_mlp_50runs/etdump.etdp") }));
        QVERIFY(test::part<TimelineDock>(w)->timeline()->isVisible());
        // Qt keeps a tab behind another "visible" but moves it off the window.
        QVERIFY(w.graphDock()->view()->visibleRegion().isEmpty());
        QVERIFY(!test::part<TimelineDock>(w)->timeline()->visibleRegion().isEmpty());
        QTRY_VERIFY(!test::part<TimelineDock>(w)->timeline()->layoutPending()); // painted, so laid out
    }

    void graphGetsRoomWhenFirstShown()
    {
        // At 1280×720 the bottom tabs share the lower part of the window; the graph's first
        // showing grows the area so the view is more than a strip of two-pixel boxes.
        MainWindow w(quietOptions());
        w.resize(1280, 720);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const QString sample = QStringLiteral(ETSCOPE_SOURCE_DIR "/resources/samples/xnnpack_mlp/");
        QVERIFY(w.controller()->openFilesSync({ sample + u"etdump.etdp"_qs, sample + u"etrecord.bin"_qs }));
        QDockWidget *graph = w.graphDock()->dock();
        const int before = test::part<TimelineDock>(w)->timeline()->parentWidget()->height(); // the tabs' area
        // The bottom tabs start with about 300 px at 1500×920 (38 % of the height at 1280×720:
        // issue 28 asked for room at that size), the table keeps the rest.
        QVERIFY2(before < w.height() * 2 / 5, qPrintable(QString::number(before)));
        graph->raise();
        // 3/5 asked; the table and details above keep their minimum heights.
        // (The right column's Details and histogram keep their minimum heights, so at 720 the
        // default ~280 px is already close to what the area can get.)
        QTRY_VERIFY2(graph->height() >= w.height() / 3 && graph->height() >= before,
            qPrintable(QStringLiteral("%1 of %2").arg(graph->height()).arg(w.height())));
    }

    void debugBufferWaitsForItsETDump()
    {
        MainWindow w(quietOptions());
        w.show();
        const QString dir = fixture("runtime/xnnpack_mlp_intermediates/");
        dropFiles(&w, { dir + QStringLiteral("debug_output.bin") });
        QVERIFY(!w.controller()->session());
        QCOMPARE(w.controller()->pendingDebugBuffer(), dir + QStringLiteral("debug_output.bin"));
        QVERIFY(test::statusText(w).contains(QStringLiteral("waiting for its ETDump")));
        dropFiles(&w, { dir + QStringLiteral("etdump.etdp") });
        QVERIFY(waitLoaded(w));
        QVERIFY(w.controller()->session()->debugBuffer);
        QVERIFY(w.controller()->pendingDebugBuffer().isEmpty());

        // README: native_layer_norm has 3 outputs; h is [1, 128].
        QVERIFY(w.table()->selectEventByName(QStringLiteral("native_call_native_layer_norm.out")));
        QTreeWidget *debug = test::part<EventDetailsDocks>(w)->details()->debugTree();
        QCOMPARE(debug->topLevelItemCount(), 3);
        QCOMPARE(debug->topLevelItem(0)->text(1), QStringLiteral("float32[1, 128]"));
        QVERIFY(!debug->topLevelItem(0)->text(2).isEmpty()); // min computed from the buffer
        auto *tabs = test::part<EventDetailsDocks>(w)->details()->findChild<QTabWidget *>();
        tabs->setCurrentIndex(3);
        test::part<EventDetailsDocks>(w)->details()->resize(700, 360);
        QApplication::processEvents();
        QVERIFY(test::part<EventDetailsDocks>(w)->details()->grab().save(
            QStringLiteral(ETSCOPE_BINARY_DIR "/tests/app/details-debugdata.png")));
        // Delegated operators live under their DELEGATE_CALL in the tree.
        const QAbstractItemModel *m = w.table()->tree()->model();
        const QModelIndex execute = childNamed(m, {}, QStringLiteral("Execute"));
        const QModelIndex call = childNamed(m, execute, QStringLiteral("DELEGATE_CALL"));
        QVERIFY(call.isValid());
        QCOMPARE(m->rowCount(call), 4);
    }

    // Issue 28, problem 4: a stray file waiting as the "debug buffer" must not refuse the valid
    // ETDump opened next: the ETDump loads, the stray file is left out and named with the reason
    // (random bytes: Mismatch in tests/data/core/buffer_provenance_expected.json).
    void strayBufferNeverBlocksTheETDump()
    {
        MainWindow w(quietOptions());
        w.show();
        const QString stray = QStringLiteral(ETSCOPE_TEST_DATA_DIR "/core/random_262144.bin");
        const QString etdump = fixture("runtime/cnn_mlp_intermediates/etdump.etdp");
        QVERIFY(!w.controller()->openFilesSync({ stray }));
        QCOMPARE(w.controller()->pendingDebugBuffer(), stray);
        QString error;
        QVERIFY2(w.controller()->openFilesSync({ etdump }, &error), qPrintable(error));
        QCOMPARE(QString::fromStdString(w.controller()->session()->inputs.etdump), etdump);
        QVERIFY(!w.controller()->session()->debugBuffer);
        QVERIFY(test::lastError(w).isEmpty());
        QVERIFY2(test::messageText(w).contains(u"left out "_qs + stray + u": not the debug buffer of "_qs + etdump),
            qPrintable(test::messageText(w)));
        // The stray file is not part of the recent set.
        QVERIFY(!w.controller()->recentFiles().value(0).contains(stray));
    }

    void exportWritesInspectorTsv()
    {
        MainWindow w(quietOptions());
        QVERIFY(w.controller()->openFilesSync({ fixture("upstream/docs_tutorial.etdp") }));
        QTemporaryDir dir;
        const QString tsv = dir.filePath(QStringLiteral("table.tsv"));
        QString error;
        QVERIFY2(w.table()->exportVisibleRows(tsv, &error), qPrintable(error));
        QFile f(tsv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        QCOMPARE(bytes, QByteArray::fromStdString(formatDelimited(w.controller()->session()->blocks, '\t')));
        // Independently (§12): 17 rows after dropping OPERATOR_CALL, plus the header.
        const QList<QByteArray> lines = bytes.trimmed().split('\n');
        QCOMPARE(lines.size(), 18);
        QVERIFY(lines[0].contains("avg (ms)"));
        QVERIFY(lines[6].startsWith("5\tExecute\tnative_call_convolution.out\t1.031719"));
        QVERIFY(lines[17].startsWith("16\tExecute\tMethod::execute\t1.898821"));

        const QString csv = dir.filePath(QStringLiteral("table.csv"));
        QVERIFY(w.table()->exportVisibleRows(csv));
        QFile c(csv);
        QVERIFY(c.open(QIODevice::ReadOnly));
        QCOMPARE(c.readAll(), QByteArray::fromStdString(formatDelimited(w.controller()->session()->blocks, ',')));
    }

    void corruptFileShowsErrorAndStaysUsable()
    {
        QTemporaryDir dir;
        QFile src(fixture("upstream/docs_tutorial.etdp"));
        QVERIFY(src.open(QIODevice::ReadOnly));
        const QString broken = dir.filePath(QStringLiteral("truncated.etdp"));
        QFile dst(broken);
        QVERIFY(dst.open(QIODevice::WriteOnly));
        dst.write(src.read(300)); // keeps the size prefix and ED00, cuts the body
        dst.close();

        MainWindow w(quietOptions());
        w.show();
        dropFiles(&w, { broken });
        QVERIFY(!waitLoaded(w));
        QVERIFY(test::lastError(w).startsWith(broken + QStringLiteral(": ")));
        QVERIFY(!test::lastError(w).contains(QLatin1Char('\n')));
        QVERIFY(test::part<MessageBar>(w)->isVisible());
        QVERIFY(!w.controller()->session());

        dropFiles(&w, { fixture("upstream/docs_tutorial.etdp") });
        QVERIFY(waitLoaded(w));
        QCOMPARE(w.table()->tree()->model()->rowCount(), 2);
        QVERIFY(test::lastError(w).isEmpty());
    }

    void unitChangeRederives()
    {
        MainWindow w(quietOptions());
        QVERIFY(w.controller()->openFilesSync({ fixture("upstream/docs_tutorial.etdp") }));
        QSignalSpy spy(w.controller(), &SessionController::loadFinished);
        w.timeControls()->setTargetUnit(TimeScale::US);
        QVERIFY(spy.wait(10000));
        const QAbstractItemModel *m = w.table()->tree()->model();
        QCOMPARE(m->headerData(EventTreeModel::AvgColumn, Qt::Horizontal).toString(), QStringLiteral("avg (us)"));
        const QModelIndex execute = m->index(1, 0);
        const QModelIndex last = m->index(28, EventTreeModel::AvgColumn, execute);
        QCOMPARE(last.siblingAtColumn(0).data().toString(), QStringLiteral("Method::execute"));
        QCOMPARE(last.data().toString(), QStringLiteral("1898.82")); // 1898821 ns
    }

    void etrecordFillsTracesAndModules()
    {
        MainWindow w(quietOptions());
        w.resize(1600, 1000);
        w.show();
        // Content sniffing: the ETRecord is recognised as a zip with ETRECORD_V0 whatever its name.
        QVERIFY(w.controller()->openFilesSync({ QStringLiteral(ETSCOPE_TEST_DATA_DIR "/etrecord/cnn_mlp_etrecord.bin"),
            fixture("runtime/cnn_mlp_50runs/etdump.etdp") }));
        QVERIFY(w.table()->selectEventByName(QStringLiteral("native_call_addmm.out")));
        const Event *e
            = w.table()->model()->eventAt(w.table()->proxy()->mapToSource(w.table()->tree()->currentIndex()));
        QVERIFY(e);
        QVERIFY(!e->linkedNodes().empty());
        QVERIFY(test::part<EventDetailsDocks>(w)->details()->frameCount() > 0);
        auto *tabs = test::part<EventDetailsDocks>(w)->details()->findChild<QTabWidget *>();
        QVERIFY(tabs);
        tabs->setCurrentIndex(1);
        QApplication::processEvents();
        QVERIFY(test::part<EventDetailsDocks>(w)->details()->grab().save(
            QStringLiteral(ETSCOPE_BINARY_DIR "/tests/app/details-stacktrace.png")));
        tabs->setCurrentIndex(2);
        QApplication::processEvents();
        QVERIFY(test::part<EventDetailsDocks>(w)->details()->grab().save(
            QStringLiteral(ETSCOPE_BINARY_DIR "/tests/app/details-modules.png")));
        // Module roll-up: top-level modules of the CNN+MLP sorted by total latency.
        QVERIFY(test::part<ModulesDock>(w)->view()->model()->rowCount() > 0);
        test::part<ModulesDock>(w)->view()->resize(800, 300);
        test::part<TopEventsDock>(w)->chart()->resize(800, 400);
        QVERIFY(test::part<ModulesDock>(w)->view()->grab().save(
            QStringLiteral(ETSCOPE_BINARY_DIR "/tests/app/module-rollup.png")));
        QVERIFY(test::part<TopEventsDock>(w)->chart()->grab().save(
            QStringLiteral(ETSCOPE_BINARY_DIR "/tests/app/top-events.png")));
    }

    void supersededLoadIsDropped()
    {
        MainWindow w(quietOptions());
        QSignalSpy finished(w.controller(), &SessionController::loadFinished);
        QSignalSpy changed(w.controller(), &SessionController::sessionChanged);
        w.controller()->openFiles({ fixture("runtime/cnn_mlp_50runs/etdump.etdp") });
        QVERIFY(w.controller()->isLoading());
        w.controller()->openFiles({ fixture("upstream/docs_tutorial.etdp") }); // supersedes the first load
        QTRY_VERIFY(!w.controller()->isLoading());
        QTRY_COMPARE(changed.size(), 1);
        QTest::qWait(200); // a late result of the first load would arrive here
        QCOMPARE(changed.size(), 1);
        QVERIFY(QString::fromStdString(w.controller()->session()->inputs.etdump)
                    .endsWith(QStringLiteral("docs_tutorial.etdp")));
        // The first load reports as cancelled (false), the second as loaded (true).
        QCOMPARE(finished.size(), 2);
        QCOMPARE(finished[0].first().toBool(), false);
        QCOMPARE(finished[1].first().toBool(), true);
    }

    void cancelThenDropSeveralFiles()
    {
        MainWindow w(quietOptions());
        w.show();
        QSignalSpy finished(w.controller(), &SessionController::loadFinished);
        w.controller()->openFiles({ fixture("runtime/cnn_mlp_50runs/etdump.etdp") });
        QVERIFY(w.controller()->isLoading());
        // The status bar's Cancel (the graph dock has a Cancel of its own).
        QList<QToolButton *> buttons = w.statusBar()->findChildren<QToolButton *>();
        QToolButton *cancelButton = nullptr;
        for (QToolButton *b : buttons)
            if (b->text() == QStringLiteral("Cancel"))
                cancelButton = b;
        QVERIFY(cancelButton);
        cancelButton->click();
        QCOMPARE(finished.size(), 1);
        QCOMPARE(finished.first().first().toBool(), false);
        QVERIFY(!w.controller()->isLoading());
        QVERIFY(!w.controller()->session());

        // One drop with both files, in "wrong" order: content decides which is which.
        const QString dir = fixture("runtime/xnnpack_mlp_intermediates/");
        dropFiles(&w, { dir + QStringLiteral("debug_output.bin"), dir + QStringLiteral("etdump.etdp") });
        QVERIFY(waitLoaded(w));
        QVERIFY(w.controller()->session()->debugBuffer);
        QCOMPARE(QString::fromStdString(w.controller()->session()->debugBuffer->path()),
            dir + QStringLiteral("debug_output.bin"));
    }

    void settingsPersist()
    {
        QSettings().clear();
        {
            MainWindow w; // interactive defaults, settings on (test-mode config location)
            QVERIFY(w.controller()->openFilesSync({ fixture("upstream/docs_tutorial.etdp") }));
            QSignalSpy spy(w.controller(), &SessionController::loadFinished);
            w.timeControls()->setTargetUnit(TimeScale::NS);
            QVERIFY(spy.wait(10000));
            w.table()->tree()->header()->resizeSection(EventTreeModel::NameColumn, 411);
            w.close();
        }
        MainWindow again;
        QCOMPARE(again.table()->tree()->header()->sectionSize(EventTreeModel::NameColumn), 411);
        QVERIFY(again.controller()->openFilesSync({ fixture("upstream/docs_tutorial.etdp") }));
        QCOMPARE(again.table()->model()->headerData(EventTreeModel::AvgColumn, Qt::Horizontal).toString(),
            QStringLiteral("avg (ns)"));
        const QStringList recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
        QVERIFY(!recent.isEmpty());
        QVERIFY(recent.first().endsWith(QStringLiteral("docs_tutorial.etdp")));
        QSettings().clear();
    }

    // Issue 28 item 5: the window's size and its docks come back as they were left, and View ▸
    // Reset Layout puts the docks back without resizing the window off a 1280×720 screen.
    void layoutPersistsAndResetKeepsSize()
    {
        QSettings().clear();
        // Qt 6.8 fits a restored window into its screen's available area (Debian 13: the
        // offscreen screen gave 798×720 back for a saved 1280×720), Qt 6.4 does not: a size that
        // fits the screen, and the size the window really got, so that what is checked is the
        // layout's persistence and Reset Layout, not the screen.
        QSize size;
        {
            MainWindow w;
            const QSize room = w.screen()->availableGeometry().size() - QSize(40, 40);
            w.resize(QSize(1280, 720).boundedTo(room));
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            size = w.size();
            w.findChild<QDockWidget *>(QStringLiteral("ModulesDock"))->raise();
            w.findChild<QDockWidget *>(QStringLiteral("HistogramDock"))->hide();
            w.close();
        }
        MainWindow again;
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QCOMPARE(again.size(), size);
        auto *histogram = again.findChild<QDockWidget *>(QStringLiteral("HistogramDock"));
        QVERIFY(histogram->isHidden());
        // The Modules tab is in front again, not the timeline of a first start.
        auto *modules = again.findChild<QDockWidget *>(QStringLiteral("ModulesDock"));
        QVERIFY(!modules->visibleRegion().isEmpty());
        test::resetLayout(again);
        QCOMPARE(again.size(), size);
        QVERIFY(!histogram->isHidden());
        again.close();
        QSettings().clear();
    }

    void cyclesSource()
    {
        MainWindow w(quietOptions());
        QVERIFY(w.controller()->openFilesSync({ fixture("upstream/docs_tutorial.etdp") }));
        const QAbstractItemModel *m = w.table()->tree()->model();
        auto executeAvg = [&] { return m->index(28, EventTreeModel::AvgColumn, m->index(1, 0)).data().toString(); };
        // Ticks read as cycles at 1 GHz are nanoseconds again: 1898821 ticks → 1.898821 ms.
        QSignalSpy spy(w.controller(), &SessionController::loadFinished);
        w.timeControls()->setSourceUnit(TimeScale::Cycles, 1e9);
        QVERIFY(spy.wait(10000));
        QCOMPARE(executeAvg(), QStringLiteral("1.89882"));
        // At 2 GHz the same ticks take half as long: 0.9494105 ms.
        w.timeControls()->setSourceUnit(TimeScale::Cycles, 2e9);
        QVERIFY(spy.wait(10000));
        QCOMPARE(executeAvg(), QStringLiteral("0.949411"));
        // cycles → cycles: the raw tick difference.
        w.timeControls()->setTargetUnit(TimeScale::Cycles);
        QVERIFY(spy.wait(10000));
        QCOMPARE(executeAvg(), QStringLiteral("1898821"));
        QCOMPARE(m->headerData(EventTreeModel::AvgColumn, Qt::Horizontal).toString(), QStringLiteral("avg (cycles)"));
    }

    void screenshotMode()
    {
        const QString exe = QStringLiteral(ETSCOPE_BINARY_DIR "/app/etscope");
        const QString out = QStringLiteral(ETSCOPE_BINARY_DIR "/tests/app/screenshot-cnn_mlp.png");
        QFile::remove(out);
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        p.setProcessEnvironment(env);
        p.start(exe,
            { QStringLiteral("--screenshot"), out, QStringLiteral("--select"), QStringLiteral("native_call_addmm.out"),
                fixture("runtime/cnn_mlp_50runs/etdump.etdp") });
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 0);
        QImage image(out);
        QVERIFY(!image.isNull());
        QCOMPARE(image.size(), QSize(1500, 920)); // the default window size (issue 15)

        QTemporaryDir dir;
        const QString empty = dir.filePath(QStringLiteral("empty.etdp"));
        QFile e(empty);
        QVERIFY(e.open(QIODevice::WriteOnly));
        e.close();
        p.start(exe, { QStringLiteral("--screenshot"), dir.filePath(QStringLiteral("x.png")), empty });
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 1);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(err.contains(empty + QStringLiteral(": file is empty")), qPrintable(err));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("x.png"))));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
