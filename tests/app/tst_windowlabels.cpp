// What the window says must agree with what it shows (first listed in issue 15): one test per
// item, following the steps a user takes with the real fixtures.
// Expected values: fixture READMEs (instruction and event counts), etrecord_expected.json
// (debug_handle_map sizes), tests/data/app/cnn_mlp_alloc_summary.json (flatc decode of the
// ETDump by tests/tools/gen_alloc_summary.py), and the Inspector's unit rules
// (inspector-semantics.md: ns → us multiplies by 1000 what ms shows by 1e6/1e3).
#include "analysis/numericgap.h"
#include "analysis/referenceset.h"
#include "delegatetriageview.h"
#include "detailspanel.h"
#include "dialogs.h"
#include "eventfilterproxy.h"
#include "eventpanels.h"
#include "eventtableview.h"
#include "eventtreemodel.h"
#include "gapdocks.h"
#include "gapheatmapwidget.h"
#include "gapreference.h"
#include "histogramwidget.h"
#include "mainwindow.h"
#include "messagebar.h"
#include "modelroles.h"
#include "numberformat.h"
#include "sourceviewer.h"
#include "tensorinspectorwidget.h"
#include "testpaths.h"
#include "theme.h"
#include "timecontrols.h"
#include "timelinewidget.h"
#include "windowtest.h"

#include <QAbstractSeries>
#include <QAction>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QClipboard>
#include <QComboBox>
#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFrame>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QRandomGenerator>
#include <QScrollArea>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QTreeView>
#include <QTreeWidget>
#include <QtTest>

#include <cmath>

using namespace etscope;

namespace {
QString fixture(const QString &rel)
{
    return QString::fromStdString(test::sharedFixture(rel.toStdString()));
}
QString testData(const QString &rel)
{
    return QString::fromStdString(test::testData(rel.toStdString()));
}
const QString kRun = QStringLiteral("runtime/cnn_mlp_intermediates/");

MainWindow::Options quietOptions()
{
    MainWindow::Options o;
    o.persistSettings = false;
    return o;
}

QStringList goodRun()
{
    return { fixture(kRun + u"etdump.etdp"_qs), fixture(kRun + u"debug_output.bin"_qs),
        testData(u"etrecord/cnn_mlp_etrecord.bin"_qs) };
}

// Waits for the background load a combo change started.
bool waitLoaded(MainWindow &w)
{
    if (!w.controller()->isLoading())
        return false;
    QSignalSpy spy(w.controller(), &SessionController::loadFinished);
    return spy.wait(20000) && spy.first().first().toBool();
}

QString header(const MainWindow &w, int column)
{
    return w.table()->tree()->model()->headerData(column, Qt::Horizontal).toString();
}

QString truncatedCopy(const QTemporaryDir &dir, const QString &source, qint64 bytes, const QString &name)
{
    QFile src(source);
    if (!src.open(QIODevice::ReadOnly))
        return {};
    const QString path = dir.filePath(name);
    QFile dst(path);
    if (!dst.open(QIODevice::WriteOnly))
        return {};
    dst.write(src.read(bytes));
    return path;
}

QString randomFile(const QTemporaryDir &dir, const QString &name, int bytes)
{
    QByteArray data(bytes, Qt::Uninitialized);
    QRandomGenerator gen(15);
    for (char &c : data)
        c = char(gen.bounded(256));
    data[4] = 'X'; // never "ED00" at bytes 4..7
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(data);
    return path;
}

QModelIndex findEvent(const QAbstractItemModel *m, const QString &name, const QModelIndex &parent = {})
{
    for (int r = 0; r < m->rowCount(parent); ++r) {
        const QModelIndex i = m->index(r, 0, parent);
        if (i.data().toString() == name)
            return i;
        if (const QModelIndex c = findEvent(m, name, i); c.isValid())
            return c;
    }
    return {};
}

QAction *actionNamed(QWidget &w, const QString &text)
{
    for (QAction *a : w.findChildren<QAction *>())
        if (a->text().remove(QLatin1Char('&')) == text)
            return a;
    return nullptr;
}

double avgOf(const MainWindow &w, const QString &event)
{
    const QModelIndex i = findEvent(w.table()->model(), event);
    return w.table()->model()->data(i.siblingAtColumn(EventTreeModel::AvgColumn), SortRole).toDouble();
}
} // namespace

class TestWindowLabels : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QApplication::setOrganizationName(QStringLiteral("etscope-tests"));
        QApplication::setApplicationName(QStringLiteral("tst_windowlabels"));
    }

    // 1. A good run, then a truncated ETDump (head -c 4000): the failed open leaves no trace.
    void item01_failedOpenLeavesNoTrace()
    {
        MainWindow w(quietOptions());
        QString error;
        QVERIFY2(w.controller()->openFilesSync(goodRun(), &error), qPrintable(error));
        const double msAvg = avgOf(w, u"native_call_convolution.out"_qs);
        QTemporaryDir dir;
        const QString broken = truncatedCopy(dir, fixture(kRun + u"etdump.etdp"_qs), 4000, u"etdump.etdp"_qs);
        QVERIFY(!w.controller()->openFilesSync({ broken }, &error));
        QVERIFY(error.startsWith(broken + u": "_qs));
        QCOMPARE(QString::fromStdString(w.controller()->session()->inputs.etdump), goodRun()[0]);

        // Changing the unit reloads the session shown, not the file that failed.
        w.timeControls()->unitBox()->setCurrentIndex(w.timeControls()->unitBox()->findText(u"us"_qs));
        QVERIFY(waitLoaded(w));
        QVERIFY(test::lastError(w).isEmpty());
        QCOMPARE(w.timeControls()->unitBox()->currentText(), u"us"_qs);
        QCOMPARE(header(w, EventTreeModel::AvgColumn), u"avg (us)"_qs);
        QCOMPARE(w.controller()->session()->inputs.time.target, TimeScale::US);
        QVERIFY(std::abs(avgOf(w, u"native_call_convolution.out"_qs) - msAvg * 1000) <= 1e-9 * msAvg * 1000);

        // A companion opened later pairs with the good ETDump.
        QVERIFY2(w.controller()->openFilesSync({ fixture(kRun + u"debug_output.bin"_qs) }, &error), qPrintable(error));
        QCOMPARE(QString::fromStdString(w.controller()->session()->inputs.etdump), goodRun()[0]);
        QCOMPARE(header(w, EventTreeModel::AvgColumn), u"avg (us)"_qs);
    }

    // 2. ns timestamps + cycles is impossible: not offered, refused (the combo reverts), and the
    // header always names the unit of the numbers; cycles and back recomputes from ns.
    void item02_impossibleUnitsNotOffered()
    {
        MainWindow w(quietOptions());
        QVERIFY(w.controller()->openFilesSync(goodRun()));
        const double msAvg = avgOf(w, u"native_call_convolution.out"_qs);
        auto *items = qobject_cast<QStandardItemModel *>(w.timeControls()->unitBox()->model());
        QVERIFY(items);
        const int cyclesRow = w.timeControls()->unitBox()->findText(u"cycles"_qs);
        QVERIFY(!items->item(cyclesRow)->isEnabled());

        // Chosen anyway (scripts, old settings): refused, the combo goes back to what is shown.
        w.timeControls()->setTargetUnit(TimeScale::Cycles);
        QVERIFY(!w.controller()->isLoading());
        QVERIFY(test::lastError(w).contains(u"cycles"_qs));
        QCOMPARE(w.timeControls()->unitBox()->currentText(), u"ms"_qs);
        QCOMPARE(header(w, EventTreeModel::AvgColumn), u"avg (ms)"_qs);

        // Source cycles (1 GHz): now cycles is offered and the numbers are cycles.
        w.timeControls()->setSourceUnit(TimeScale::Cycles, 1e9);
        QVERIFY(waitLoaded(w));
        QVERIFY(items->item(cyclesRow)->isEnabled());
        w.timeControls()->setTargetUnit(TimeScale::Cycles);
        QVERIFY(waitLoaded(w));
        QCOMPARE(header(w, EventTreeModel::AvgColumn), u"avg (cycles)"_qs);
        QCOMPARE(w.controller()->session()->inputs.time.target, TimeScale::Cycles);

        // Back to ns timestamps: the unit leaves cycles, the values are ns-derived again.
        w.timeControls()->sourceBox()->setCurrentIndex(w.timeControls()->sourceBox()->findData(int(TimeScale::NS)));
        QVERIFY(waitLoaded(w));
        QCOMPARE(w.timeControls()->unitBox()->currentText(), u"ms"_qs);
        QCOMPARE(header(w, EventTreeModel::AvgColumn), u"avg (ms)"_qs);
        QCOMPARE(w.controller()->session()->inputs.time.source, TimeScale::NS);
        QCOMPARE(avgOf(w, u"native_call_convolution.out"_qs), msAvg);
        QVERIFY(!items->item(cyclesRow)->isEnabled());
    }

    // 3. A reload (unit change) keeps the numeric-gap reference and its docks.
    void item03_reloadKeepsGapReference()
    {
        MainWindow w(quietOptions());
        auto *gaps = w.gapDocks();
        w.show();
        QString error;
        QVERIFY(w.controller()->openFilesSync(
            { fixture(kRun + u"etdump.etdp"_qs), testData(u"analysis/cnn_mlp_perturbed.bin"_qs) }, &error));
        const QStringList reference { fixture(kRun + u"etdump.etdp"_qs), fixture(kRun + u"debug_output.bin"_qs) };
        QVERIFY2(gaps->compareWith(reference, &error), qPrintable(error));
        const int rows = gaps->heatmap()->rowCount();
        QVERIFY(rows > 0);
        const double mse3 = gaps->heatmap()->value(3, 0);
        QVERIFY(mse3 > 0); // instruction 3 was perturbed (tst_gapdocks)
        auto *heatmapDock = w.findChild<QDockWidget *>(u"GapHeatmapDock"_qs);
        QVERIFY(heatmapDock && heatmapDock->isVisible());

        w.timeControls()->setTargetUnit(TimeScale::US);
        QVERIFY(waitLoaded(w));
        QCOMPARE(gaps->reference()->files(), reference);
        QCOMPARE(gaps->heatmap()->rowCount(), rows);
        QCOMPARE(gaps->heatmap()->value(3, 0), mse3);
        QVERIFY(heatmapDock->isVisible());
        // Another run is another comparison: the reference is dropped then.
        QVERIFY(w.controller()->openFilesSync({ fixture(u"runtime/cnn_mlp_50runs/etdump.etdp"_qs) }));
        QVERIFY(gaps->reference()->files().isEmpty());
    }

    // 4. Hide OPERATOR_CALL / Hide framework keep the expansion and the selection.
    void item04_hideFiltersKeepExpansionAndSelection()
    {
        MainWindow w(quietOptions());
        w.show();
        QVERIFY(w.controller()->openFilesSync({ fixture(u"runtime/cnn_mlp_50runs/etdump.etdp"_qs) }));
        QTreeView *tree = w.table()->tree();
        const QAbstractItemModel *m = tree->model();
        QCOMPARE(m->index(0, 0).data().toString(), u"Default"_qs);
        QCOMPARE(m->index(1, 0).data().toString(), u"Execute"_qs);
        tree->collapse(m->index(0, 0)); // the user folded Default, kept Execute open
        QVERIFY(w.table()->selectEventByName(u"native_call_addmm.out"_qs));
        for (const QString &toggle : { u"Hide OPERATOR_CALL"_qs, u"Hide framework"_qs }) {
            QAction *a = actionNamed(w, toggle);
            QVERIFY2(a, qPrintable(toggle));
            a->trigger();
            const QModelIndex execute = findEvent(m, u"Execute"_qs);
            QVERIFY(execute.isValid());
            QVERIFY2(tree->isExpanded(execute), qPrintable(toggle));
            QCOMPARE(tree->currentIndex().data().toString(), u"native_call_addmm.out"_qs);
            QVERIFY(tree->selectionModel()->isRowSelected(tree->currentIndex().row(), tree->currentIndex().parent()));
            QVERIFY(test::part<EventDetailsDocks>(w)->details()->title().contains(u"native_call_addmm.out"_qs));
        }
        // Showing the framework events again: Default comes back folded, as the user left it.
        actionNamed(w, u"Hide framework"_qs)->trigger();
        const QModelIndex def = findEvent(m, u"Default"_qs);
        QVERIFY(def.isValid());
        QVERIFY(!tree->isExpanded(def));
        QVERIFY(tree->isExpanded(findEvent(m, u"Execute"_qs)));
        QCOMPARE(tree->currentIndex().data().toString(), u"native_call_addmm.out"_qs);
    }

    // 5. A reference that does not match (cnn_mlp run against the XNNPACK run): the window
    // shows the warnings `etscope-cli gap` prints.
    void item05_referenceWarningsShown()
    {
        MainWindow w(quietOptions());
        auto *gaps = w.gapDocks();
        w.show();
        QVERIFY(w.controller()->openFilesSync(
            { fixture(kRun + u"etdump.etdp"_qs), fixture(kRun + u"debug_output.bin"_qs) }));
        const QString xnn = u"runtime/xnnpack_mlp_intermediates/"_qs;
        QString error;
        QVERIFY2(gaps->compareWith({ fixture(xnn + u"etdump.etdp"_qs), fixture(xnn + u"debug_output.bin"_qs) }, &error),
            qPrintable(error));
        // The CLI's lines, computed here through the core API it uses.
        analysis::ReferenceInputs ref;
        ref.etdump = fixture(xnn + u"etdump.etdp"_qs).toStdString();
        ref.debugBuffer = fixture(xnn + u"debug_output.bin"_qs).toStdString();
        auto set = analysis::loadReference(ref);
        QVERIFY(set);
        auto table = analysis::computeNumericGap(*w.controller()->session(), *set, {});
        QVERIFY(table);
        QVERIFY(!table->warnings.empty());
        QCOMPARE(gaps->reference()->warnings().size(), qsizetype(table->warnings.size()));
        const QString shown = test::messageText(w);
        QVERIFY(test::part<MessageBar>(w)->isVisible());
        bool noCounterpart = false;
        for (const std::string &line : table->warnings) {
            QVERIFY2(shown.contains(QString::fromStdString(line)), line.c_str());
            noCounterpart = noCounterpart || line.find("have no reference counterpart") != std::string::npos;
        }
        QVERIFY(noCounterpart);
    }

    // 6. cnn_mlp run + the xnn_mlp ETRecord: mismatch detected and shown as a warning.
    void item06_foreignETRecordWarnsLoudly()
    {
        MainWindow w(quietOptions());
        w.show();
        QVERIFY(w.controller()->openFilesSync(
            { fixture(kRun + u"etdump.etdp"_qs), testData(u"etrecord/xnn_mlp_etrecord.bin"_qs) }));
        QVERIFY(test::part<MessageBar>(w)->isVisible());
        // README: 28 instructions; etrecord_expected.json: 4 debug_handle_map entries.
        QVERIFY2(
            test::messageText(w).contains(u"ETRecord does not match this ETDump"_qs), qPrintable(test::messageText(w)));
        QVERIFY(test::messageText(w).contains(u"24 of 28 runtime instructions have no debug_handle_map entry"_qs));
        QVERIFY(test::part<MessageBar>(w)->styleSheet().contains(u"#fff3cd"_qs)); // warning colours, not info
        // Its own ETRecord: no such warning.
        QVERIFY(w.controller()->openFilesSync(goodRun()));
        QVERIFY(!test::messageText(w).contains(u"does not match"_qs));
    }

    // 7. Companions by content: ETRecord first waits for its ETDump; random bytes are refused
    // (named .etdp: not an ETDump; otherwise: offsets out of range); failures never reach Recent.
    void item07_pairingByContent()
    {
        MainWindow w(quietOptions());
        QString error;
        QVERIFY(!w.controller()->openFilesSync({ testData(u"etrecord/cnn_mlp_etrecord.bin"_qs) }, &error));
        QCOMPARE(w.controller()->pendingETRecord(), testData(u"etrecord/cnn_mlp_etrecord.bin"_qs));
        QVERIFY(test::messageText(w).contains(u"waiting for its ETDump"_qs));
        QVERIFY2(w.controller()->openFilesSync({ fixture(kRun + u"etdump.etdp"_qs) }, &error), qPrintable(error));
        QVERIFY(w.controller()->session()->etrecord);
        QVERIFY(w.controller()->pendingETRecord().isEmpty());
        const QModelIndex conv = findEvent(w.table()->model(), u"native_call_convolution.out"_qs);
        QVERIFY(conv.siblingAtColumn(EventTreeModel::OpTypesColumn)
                    .data()
                    .toString()
                    .contains(u"aten.convolution.default"_qs));
        const QStringList recentBefore = w.controller()->recentFiles();

        QTemporaryDir dir;
        const QString corruptEtdp = randomFile(dir, u"corrupt.etdp"_qs, 4096);
        QVERIFY(!w.controller()->openFilesSync({ corruptEtdp }, &error));
        QVERIFY2(error.startsWith(corruptEtdp + u": "_qs), qPrintable(error));
        QVERIFY(w.controller()->pendingDebugBuffer().isEmpty());
        QVERIFY(!w.controller()->session()->debugBuffer);

        // Random bytes with a neutral name: offered as the debug buffer, refused by content
        // (the README's run logs tensors up to byte 376 of its buffer; 200 bytes cannot hold them).
        const QString corruptBin = randomFile(dir, u"corrupt.bin"_qs, 200);
        QVERIFY(!w.controller()->openFilesSync({ fixture(kRun + u"etdump.etdp"_qs), corruptBin }, &error));
        QVERIFY2(error.startsWith(corruptBin + u": not the debug buffer of "_qs), qPrintable(error));
        QVERIFY(!w.controller()->session()->debugBuffer);
        QCOMPARE(w.controller()->recentFiles(), recentBefore);
        for (const QString &entry : w.controller()->recentFiles())
            QVERIFY(!entry.contains(u"corrupt"_qs));
    }

    // 8. One error, one place (the bar; no dialog, no status-bar copy), gone after a success.
    void item08_oneErrorPlaceClearedOnSuccess()
    {
        MainWindow::Options o;
        o.persistSettings = false; // interactive: a dialog would be a second place
        MainWindow w(o);
        w.show();
        QTemporaryDir dir;
        const QString broken = truncatedCopy(dir, fixture(kRun + u"etdump.etdp"_qs), 4000, u"etdump.etdp"_qs);
        bool sawDialog = false;
        QTimer watchdog;
        connect(&watchdog, &QTimer::timeout, this, [&] {
            if (QWidget *modal = QApplication::activeModalWidget()) {
                sawDialog = true;
                modal->close();
            }
        });
        watchdog.start(20);
        QVERIFY(!w.controller()->openFilesSync({ broken }));
        QTest::qWait(100);
        QVERIFY(!sawDialog);
        QVERIFY(test::part<MessageBar>(w)->isVisible());
        QVERIFY(test::messageText(w).startsWith(broken));
        QVERIFY(w.statusBar()->currentMessage().isEmpty());
        QVERIFY(w.controller()->openFilesSync(goodRun()));
        QVERIFY(test::lastError(w).isEmpty());
        QVERIFY(!test::messageText(w).contains(broken));
        QVERIFY(!sawDialog);
    }

    // 9. cnn_mlp_alloc_events: the allocation block shows its per-allocator summary.
    void item09_allocationSummaryShown()
    {
        QFile f(testData(u"app/cnn_mlp_alloc_summary.json"_qs));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject expected = QJsonDocument::fromJson(f.readAll()).array().first().toObject();
        MainWindow w(quietOptions());
        w.show();
        const QString dir = u"runtime/cnn_mlp_alloc_events/"_qs;
        QVERIFY(
            w.controller()->openFilesSync({ fixture(dir + u"etdump.etdp"_qs), fixture(dir + u"debug_output.bin"_qs) }));
        const QString name = expected.value(u"block"_qs).toString();
        const QModelIndex block = findEvent(w.table()->tree()->model(), name);
        QVERIFY(block.isValid());
        QStringList parts;
        for (const auto &v : expected.value(u"allocators"_qs).toArray()) {
            const QJsonObject a = v.toObject();
            parts << u"%1: %2 × %3 B"_qs.arg(a.value(u"name"_qs).toString())
                         .arg(a.value(u"count"_qs).toInt())
                         .arg(a.value(u"total_bytes"_qs).toInt());
        }
        const QString text = u"%1 allocation events (%2)"_qs.arg(expected.value(u"allocation_events"_qs).toInt())
                                 .arg(parts.join(u", "_qs));
        QCOMPARE(block.siblingAtColumn(EventTreeModel::OpTypesColumn).data().toString(), text);
        QVERIFY(block.data(Qt::ToolTipRole).toString().contains(text));

        w.table()->tree()->setCurrentIndex(block);
        QVERIFY(test::part<EventDetailsDocks>(w)->details()->title().contains(name));
        QTreeWidget *props = test::part<EventDetailsDocks>(w)->details()->propertiesTree();
        QStringList keys;
        QString allocationEvents, maxBytes;
        for (int i = 0; i < props->topLevelItemCount(); ++i) {
            QTreeWidgetItem *it = props->topLevelItem(i);
            keys << it->text(0);
            if (it->text(0) == u"Allocation events"_qs)
                allocationEvents = it->text(1);
            if (it->text(0) == u"Allocator method_allocator"_qs)
                for (int c = 0; c < it->childCount(); ++c)
                    if (it->child(c)->text(0) == u"Largest allocation (bytes)"_qs)
                        maxBytes = it->child(c)->text(1);
        }
        QCOMPARE(allocationEvents, QString::number(expected.value(u"allocation_events"_qs).toInt()));
        QVERIFY(keys.contains(u"Allocator planned_memory"_qs));
        QCOMPARE(maxBytes,
            QString::number(
                expected.value(u"allocators"_qs).toArray().first().toObject().value(u"max_bytes"_qs).toInt()));
    }

    // 10. At 1500×920 every dock is usable: the heatmap scrolls to its last row, panels keep
    // sensible minimum sizes, triage headers are whole, and View ▸ Reset Layout undoes moves.
    void item10_docksUsableAtDefaultSize()
    {
        MainWindow w(quietOptions());
        auto *gaps = w.gapDocks();
        w.resize(1500, 920);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QString error;
        const QString xnn = u"runtime/xnnpack_mlp_intermediates/"_qs;
        QVERIFY(w.controller()->openFilesSync(
            { fixture(kRun + u"etdump.etdp"_qs), testData(u"analysis/cnn_mlp_perturbed.bin"_qs) }, &error));
        QVERIFY2(
            gaps->compareWith({ fixture(kRun + u"etdump.etdp"_qs), fixture(kRun + u"debug_output.bin"_qs) }, &error),
            qPrintable(error));
        QCoreApplication::processEvents();
        auto *dock = w.findChild<QDockWidget *>(u"GapHeatmapDock"_qs);
        auto *scroll = dock->widget()->findChild<QScrollArea *>(); // under the metric/threshold row
        QVERIFY(scroll);
        gapui::GapHeatmapWidget *heatmap = gaps->heatmap();
        const int last = heatmap->rowCount() - 1;
        QCOMPARE(last, 27); // 28 instructions with outputs (README)
        const QRect lastCell = heatmap->cellRect(last, heatmap->columnCount() - 1);
        scroll->ensureVisible(lastCell.center().x(), lastCell.center().y());
        const QRect visible(-heatmap->pos(), scroll->viewport()->size());
        QVERIFY2(visible.contains(lastCell.center()), "the last row and column can be scrolled into view");

        for (QDockWidget *d : w.findChildren<QDockWidget *>()) {
            if (!d->isVisible() || d->visibleRegion().isEmpty())
                continue;
            QVERIFY2(d->widget()->width() >= 200 && d->widget()->height() >= 100, qPrintable(d->objectName()));
        }

        // A row opened in the tensor inspector never has its histogram drawn over its tables
        // (issue 23): a short dock scrolls the inspector, which keeps its minimum size.
        QTest::mouseClick(heatmap, Qt::LeftButton, {}, heatmap->cellRect(3, 0).center());
        QCoreApplication::processEvents();
        QWidget *inspector = gaps->tensorInspector();
        QVERIFY(inspector->isVisible());
        QVERIFY2(inspector->height() >= inspector->minimumSizeHint().height(),
            qPrintable(QStringLiteral("%1 < %2").arg(inspector->height()).arg(inspector->minimumSizeHint().height())));

        // Delegate triage on the XNNPACK run: no header is cut.
        QVERIFY(
            w.controller()->openFilesSync({ fixture(xnn + u"etdump.etdp"_qs), fixture(xnn + u"debug_output.bin"_qs) }));
        QVERIFY(gaps->compareWith({ fixture(xnn + u"etdump.etdp"_qs), fixture(xnn + u"debug_output.bin"_qs) }, &error));
        QCoreApplication::processEvents();
        auto *triageTree = gaps->triage()->findChild<QTreeWidget *>();
        QVERIFY(triageTree && triageTree->topLevelItemCount() > 0);
        QHeaderView *h = triageTree->header();
        for (int c = 0; c < h->count(); ++c) {
            const QString text = triageTree->headerItem()->text(c);
            QVERIFY2(h->sectionSize(c) >= h->fontMetrics().horizontalAdvance(text) + 8, qPrintable(text));
        }

        // Reset layout: a floated panel comes back.
        auto *details = w.findChild<QDockWidget *>(u"DetailsDock"_qs);
        details->setFloating(true);
        QAction *reset = actionNamed(w, u"Reset Layout"_qs);
        QVERIFY(reset);
        reset->trigger();
        QVERIFY(!details->isFloating());
        QCOMPARE(w.dockWidgetArea(details), Qt::RightDockWidgetArea);
    }

    // 11. Chart export draws the chart at the chosen size, without controls or elided labels.
    void item11_chartExportRendersChartItself()
    {
        MainWindow w(quietOptions());
        w.show();
        QVERIFY(w.controller()->openFilesSync({ fixture(u"runtime/cnn_mlp_50runs/etdump.etdp"_qs) }));
        QVERIFY(w.table()->selectEventByName(u"native_call_mm.out"_qs));
        QTemporaryDir dir;
        QString error;
        for (const QString &name : { u"histogram"_qs, u"top-events"_qs, u"timeline"_qs }) {
            const QString png = dir.filePath(name + u".png"_qs);
            QVERIFY2(test::charts(w)->exportTo(name, png, QSize(1600, 900), &error), qPrintable(error));
            const QImage image(png);
            QCOMPARE(image.size(), QSize(1600, 900));
            const QString svg = dir.filePath(name + u".svg"_qs);
            QVERIFY2(test::charts(w)->exportTo(name, svg, QSize(1600, 900), &error), qPrintable(error));
            QFile f(svg);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QString text = QString::fromUtf8(f.readAll());
            QVERIFY2(!text.contains(QChar(0x2026)), qPrintable(name + u": elided label"_qs));
            QVERIFY2(!text.contains(u"&#x2026;"_qs), qPrintable(name + u": elided label"_qs));
            QVERIFY(text.contains(u"width=\"1600"_qs) || text.contains(u"viewBox=\"0 0 1600 900\""_qs));
            // No controls: the spin box / buttons of the docks have these texts.
            QVERIFY2(!text.contains(u">Fit<"_qs) && !text.contains(u">Top<"_qs), qPrintable(name));
        }
    }

    // 12. One number format per column (6 significant digits, never an exponent), the full value
    // in the tooltip, columns wide enough, nice histogram and timeline ticks.
    void item12_numbersAndTicks()
    {
        QCOMPARE(EventTreeModel::formatDuration(9.7e-05), u"0.000097"_qs);
        QCOMPARE(EventTreeModel::formatDuration(0.000967041), u"0.000967041"_qs);
        QCOMPARE(EventTreeModel::formatDuration(1.031719), u"1.03172"_qs);
        QCOMPARE(EventTreeModel::formatDuration(1898821.0), u"1898821"_qs);
        MainWindow w(quietOptions());
        w.resize(1500, 920);
        w.show();
        QVERIFY(w.controller()->openFilesSync({ fixture(u"upstream/docs_tutorial.etdp"_qs) }));
        QTreeView *tree = w.table()->tree();
        const QAbstractItemModel *m = tree->model();
        const QModelIndex execute = m->index(1, 0);
        const QFontMetrics fm(tree->font());
        for (int c = EventTreeModel::P10Column; c <= EventTreeModel::MaxColumn; ++c)
            for (int r = 0; r < m->rowCount(execute); ++r) {
                const QModelIndex i = m->index(r, c, execute);
                const QString text = i.data().toString();
                if (text.isEmpty())
                    continue;
                QVERIFY2(!text.contains(QLatin1Char('e')), qPrintable(text));
                QVERIFY2(tree->columnWidth(c) >= fm.horizontalAdvance(text) + 6, qPrintable(text));
                const double full = i.data(SortRole).toDouble();
                QCOMPARE(i.data(Qt::ToolTipRole).toString(), QString::number(full, 'g', 17) + u" ms"_qs);
            }

        // Histogram ticks: multiples of one 1/2/5×10^k step, printed with the same decimals.
        QVERIFY(w.table()->selectEventByName(u"native_call_convolution.out"_qs));
        std::vector<double> values;
        for (int i = 0; i < 200; ++i)
            values.push_back(0.3313 + 0.0394 * i / 199.0); // the 0.3313 … 0.3707 range
        test::part<EventDetailsDocks>(w)->histogram()->setValues(u"conv"_qs, values, 0.335, 0.351, 0.367, u"ms"_qs);
        const QStringList labels = test::part<EventDetailsDocks>(w)->histogram()->tickLabels();
        QVERIFY(labels.size() >= 3);
        const double step = labels[1].toDouble() - labels[0].toDouble();
        const double mag = std::pow(10.0, std::floor(std::log10(step) + 1e-9));
        const double f = step / mag;
        QVERIFY2(std::abs(f - 1) < 1e-6 || std::abs(f - 2) < 1e-6 || std::abs(f - 5) < 1e-6,
            qPrintable(labels.join(u", "_qs)));
        const int decimals = labels[0].section(QLatin1Char('.'), 1).size();
        for (int i = 1; i < labels.size(); ++i) {
            QVERIFY(std::abs(labels[i].toDouble() - labels[i - 1].toDouble() - step) < step * 1e-6);
            QCOMPARE(labels[i].section(QLatin1Char('.'), 1).size(), decimals);
        }
        // Timeline axis: 0 is exactly "0" (not lost off the left edge; not 1e-17).
        const NiceTicks t = niceTicks(0, 1.9, 10);
        QCOMPARE(t.values.front(), 0.0);
        QCOMPARE(formatTick(t.values.front(), t.decimals), u"0.0"_qs);
        QCOMPARE(formatTick(t.values[3], t.decimals), u"0.6"_qs);
        // One run: its value alone, to six significant digits without trailing zeros.
        const NiceTicks one = niceTicks(0.043306, 0.043306, 5);
        QCOMPARE(formatTick(one.values.front(), one.decimals), u"0.043306"_qs);
        const NiceTicks round = niceTicks(2.5, 2.5, 5);
        QCOMPARE(formatTick(round.values.front(), round.decimals), u"2.5"_qs);
        const NiceTicks many = niceTicks(1.23456789, 1.23456789, 5);
        QCOMPARE(formatTick(many.values.front(), many.decimals), u"1.23457"_qs);
    }

    // 13. 17,600 runs at ~0.33 ms and one at 2 ms: clip at p99 with a "> p99" bar; clicking a
    // bar shows its runs in the timeline.
    void item13_histogramOutliersAndBarClick()
    {
        HistogramWidget histogram;
        std::vector<double> values;
        for (int i = 0; i < 17600; ++i)
            values.push_back(0.33 + 0.01 * double(i % 97) / 96.0);
        values.push_back(2.0);
        histogram.setValues(u"conv"_qs, values, 0.331, 0.335, 0.339, u"ms"_qs);
        QVERIFY(histogram.clipToP99()); // the tail (2 ms) is far longer than the body
        // Nearest-rank p99 of 17,601 values is the 17,425th; everything above goes to "> p99".
        std::vector<double> sorted = values;
        std::sort(sorted.begin(), sorted.end());
        const double p99 = sorted[17424];
        QCOMPARE(histogram.clipValue(), p99);
        const int above = int(std::count_if(values.begin(), values.end(), [&](double v) { return v > p99; }));
        QCOMPARE(histogram.outlierCount(), above);
        QVERIFY(histogram.runsInBar(histogram.bins().counts.size()).contains(17600)); // the 2 ms run
        QCOMPARE(histogram.totalCount(), 17601);
        QVERIFY(histogram.bins().lower + histogram.bins().counts.size() * histogram.bins().binWidth <= p99 + 1e-12);
        QCOMPARE(histogram.tickLabels().last(), u"> p99"_qs);
        histogram.setClipToP99(false);
        QCOMPARE(histogram.outlierCount(), 0);

        // In the window: a click on a bar of native_call_mm.out (50 runs) selects its runs.
        MainWindow w(quietOptions());
        w.resize(1500, 920);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.controller()->openFilesSync({ fixture(u"runtime/cnn_mlp_50runs/etdump.etdp"_qs) }));
        QVERIFY(w.table()->selectEventByName(u"native_call_mm.out"_qs));
        HistogramWidget *h = test::part<EventDetailsDocks>(w)->histogram();
        int bar = 0;
        for (int i = 0; i < h->bins().counts.size(); ++i)
            if (h->bins().counts[i] > h->bins().counts[bar])
                bar = i;
        const QList<int> runs = h->runsInBar(bar);
        QCOMPARE(runs.size(), h->bins().counts[bar]);
        // Click the middle of the bar where the chart draws it.
        auto *view = qobject_cast<QChartView *>(h->chartView());
        QVERIFY(view);
        QAbstractSeries *series = h->chart()->series().first();
        const QPointF scenePos
            = h->chart()->mapToScene(h->chart()->mapToPosition(QPointF(bar, h->bins().counts[bar] / 2.0), series));
        const QPoint viewPos = view->mapFromScene(scenePos);
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, viewPos);
        QTRY_COMPARE(test::part<TimelineDock>(w)->timeline()->markedRuns(), runs);
        QCOMPARE(test::part<TimelineDock>(w)->timeline()->currentRun(), runs.first());
        QVERIFY(test::part<TimelineDock>(w)->timeline()->infoText().startsWith(u"histogram bar "_qs));
        // Jumping to a run outside the bar forgets the bar's text (issue 23).
        int outside = 0;
        while (runs.contains(outside))
            ++outside;
        auto *runBox = test::part<TimelineDock>(w)->timeline()->findChild<QSpinBox *>();
        QVERIFY(runBox);
        runBox->setValue(outside);
        QVERIFY2(!test::part<TimelineDock>(w)->timeline()->infoText().contains(u"histogram bar"_qs),
            qPrintable(test::part<TimelineDock>(w)->timeline()->infoText()));
        QVERIFY(test::part<TimelineDock>(w)->timeline()->markedRuns().isEmpty());
    }

    // What users of hotspot / Perfetto expect (the last list).
    void expected_copyEscColumnsExport()
    {
        MainWindow w(quietOptions());
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QVERIFY(w.controller()->openFilesSync({ fixture(u"upstream/docs_tutorial.etdp"_qs) }));
        QTreeView *tree = w.table()->tree();
        // Ctrl+C: selected rows as TSV with a header line, in view order.
        QVERIFY(w.table()->selectEventByName(u"native_call_convolution.out"_qs));
        QApplication::clipboard()->clear();
        tree->setFocus();
        QTest::keyClick(tree, Qt::Key_C, Qt::ControlModifier);
        const QStringList lines = QApplication::clipboard()->text().split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 2);
        QVERIFY(lines[0].startsWith(u"Event\tp10 (ms)"_qs));
        QVERIFY(lines[1].startsWith(u"native_call_convolution.out\t"_qs));
        QCOMPARE(lines[1].count(u'\t'), lines[0].count(u'\t'));
        // Column chooser: a hidden column is gone from the copy too.
        tree->header()->setSectionHidden(EventTreeModel::OpTypesColumn, true);
        QVERIFY(!w.table()->selectedRowsAsTsv().contains(u"Op types"_qs));
        tree->header()->setSectionHidden(EventTreeModel::OpTypesColumn, false);

        // Esc in the filter clears it.
        w.table()->filterEdit()->setFocus();
        QTest::keyClicks(w.table()->filterEdit(), u"permute"_qs);
        QTRY_COMPARE(tree->model()->rowCount(), 1);
        QTest::keyClick(w.table()->filterEdit(), Qt::Key_Escape);
        QVERIFY(w.table()->filterEdit()->text().isEmpty());
        QCOMPARE(tree->model()->rowCount(), 2);

        // Export honours the filter: three permute_copy kernels (inspector-semantics §12).
        QTemporaryDir dir;
        w.table()->filterEdit()->setText(u"permute"_qs);
        QTest::keyClick(w.table()->filterEdit(), Qt::Key_Return);
        QTRY_COMPARE(tree->model()->rowCount(), 1);
        QString error;
        const QString tsv = dir.filePath(u"filtered.tsv"_qs);
        QVERIFY2(w.table()->exportVisibleRows(tsv, &error), qPrintable(error));
        QFile f(tsv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QStringList rows = QString::fromUtf8(f.readAll()).split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(rows.size(), 1 + 3);
        for (int i = 1; i < rows.size(); ++i)
            QVERIFY(rows[i].contains(u"permute_copy"_qs));
    }

    void expected_recentHelpRunsTheme()
    {
        MainWindow w(quietOptions());
        auto *gaps = w.gapDocks();
        Q_UNUSED(gaps);
        QCoreApplication::processEvents(); // Help moves behind Analysis (queued)
        const auto menus = w.menuBar()->actions();
        QCOMPARE(menus.last()->text(), u"&Help"_qs);
        QVERIFY(menus[menus.size() - 2]->text().contains(u"Analysis"_qs));
        const QString shortcuts = shortcutsText(&w);
        for (const QString &s : { u"Ctrl+O"_qs, u"Ctrl+F"_qs, u"Ctrl+E"_qs, u"Ctrl+C"_qs, u"Ctrl+G"_qs, u"Esc"_qs,
                 u"Graph: F\tFit the graph"_qs })
            QVERIFY2(shortcuts.contains(s), qPrintable(s));
        for (const QString &line : shortcuts.split(u'\n')) // key and action, never run together
            QCOMPARE(line.count(u'\t'), 1);

        // "1 run" for one execution (cnn_mlp_intermediates: a Default block and one Execute).
        QVERIFY(w.controller()->openFilesSync({ fixture(kRun + u"etdump.etdp"_qs) }));
        QVERIFY2(test::summaryText(w).contains(u" · 1 run"_qs), qPrintable(test::summaryText(w)));
        QVERIFY(!test::summaryText(w).contains(u"1 runs"_qs));
        QVERIFY(w.controller()->openFilesSync({ fixture(u"runtime/cnn_mlp_alloc_events/etdump.etdp"_qs) }));
        QVERIFY2(
            test::summaryText(w).contains(u" · 3 runs"_qs), qPrintable(test::summaryText(w))); // --num_executions=3

        // Recent files: the folder distinguishes two etdump.etdp; the tooltip has full paths.
        QMenu *recent = nullptr;
        for (QMenu *m : w.findChildren<QMenu *>())
            if (m->title().contains(u"Recent"_qs))
                recent = m;
        QVERIFY(recent && recent->toolTipsVisible());
        QCOMPARE(recent->actions().size(), 2);
        QCOMPARE(recent->actions()[0]->text(), u"cnn_mlp_alloc_events/etdump.etdp"_qs);
        QCOMPARE(recent->actions()[1]->text(), u"cnn_mlp_intermediates/etdump.etdp"_qs);
        QCOMPARE(recent->actions()[1]->toolTip(), QFileInfo(fixture(kRun + u"etdump.etdp"_qs)).absoluteFilePath());

        // Dark palette: forced through the environment, the same path as a dark desktop.
        qputenv("ETSCOPE_COLOR_SCHEME", "dark");
        QVERIFY(systemPrefersDark());
        qputenv("ETSCOPE_COLOR_SCHEME", "light");
        QVERIFY(!systemPrefersDark());
        qunsetenv("ETSCOPE_COLOR_SCHEME");
        QVERIFY(darkPalette().color(QPalette::Window).lightness() < 128);
        QVERIFY(darkPalette().color(QPalette::Text).lightness() > 200);
    }

    // Issue 28, problem 10: Source Roots names the recorded folder that cannot be found here (the
    // sample ETRecord's frames were recorded in /home/dev/models/cnn_mlp.py, a path that does not
    // exist on a test machine), so the user maps that prefix rather than guessing it.
    void unresolvedSourceFoldersNamed()
    {
        MainWindow w(quietOptions());
        const QString sample = QStringLiteral(ETSCOPE_SOURCE_DIR "/resources/samples/xnnpack_mlp/");
        QVERIFY(w.controller()->openFilesSync({ sample + u"etdump.etdp"_qs, sample + u"etrecord.bin"_qs }));
        QVERIFY(!QFileInfo::exists(u"/home/dev/models/cnn_mlp.py"_qs));
        QCOMPARE(unresolvedSourceFolders(w.controller()->session().get()), QStringList { u"/home/dev/models"_qs });
    }

    void expected_sourceRootsAndViewer()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(u"models/net"_qs));
        const QString local = dir.filePath(u"models/net/block.py"_qs);
        QFile f(local);
        QVERIFY(f.open(QIODevice::WriteOnly));
        for (int i = 1; i <= 300; ++i)
            f.write(QByteArray("x_") + QByteArray::number(i) + " = " + QByteArray::number(i) + "\n");
        f.close();
        const QString recorded = u"/home/dev/models/net/block.py"_qs;
        QVERIFY(SourceViewer::resolve(recorded).isEmpty());
        SourceViewer::setSourceRoots(
            parseSourceRoots({ u"/home/dev/models = "_qs + dir.filePath(u"models"_qs), u"junk"_qs }));
        QCOMPARE(SourceViewer::sourceRoots().size(), 1);
        QCOMPARE(SourceViewer::resolve(recorded), dir.filePath(u"models/net"_qs) + u"/block.py"_qs);

        SourceViewer viewer;
        QVERIFY(viewer.openFile(SourceViewer::resolve(recorded), 150));
        viewer.show();
        QVERIFY(QTest::qWaitForWindowExposed(&viewer));
        QCoreApplication::processEvents();
        QCOMPARE(viewer.currentLine(), 150);
        QVERIFY(viewer.gutterWidth() >= viewer.editor()->fontMetrics().horizontalAdvance(u"300"_qs));
        const QRect cursor = viewer.editor()->cursorRect();
        const int middle = viewer.editor()->viewport()->height() / 2;
        QVERIFY2(std::abs(cursor.center().y() - middle) <= 2 * cursor.height(),
            qPrintable(u"line at %1, middle %2"_qs.arg(cursor.center().y()).arg(middle)));
        SourceViewer::setSourceRoots({});
    }

    void expected_debugDataPagedAndEmptyWithoutBuffer()
    {
        MainWindow w(quietOptions());
        QVERIFY(w.controller()->openFilesSync(
            { fixture(kRun + u"etdump.etdp"_qs), fixture(kRun + u"debug_output.bin"_qs) }));
        QVERIFY(w.table()->selectEventByName(u"native_call_convolution.out"_qs));
        QTreeWidget *debug = test::part<EventDetailsDocks>(w)->details()->debugTree();
        QVERIFY(debug->topLevelItemCount() >= 1);
        QTreeWidgetItem *item = debug->topLevelItem(0);
        QCOMPARE(item->text(1), u"float32[1, 8, 16, 16]"_qs); // conv3x3(8) on 16×16 (README)
        QDialog *dialog = test::part<EventDetailsDocks>(w)->details()->openTensorValues(item);
        QVERIFY(dialog);
        auto *table = dialog->findChild<QTableWidget *>(u"values"_qs);
        auto *page = dialog->findChild<QSpinBox *>(u"page"_qs);
        QVERIFY(table && page);
        QCOMPARE(page->maximum(), 3); // 2048 values, 1000 a page
        // Every value, across the pages, equals what the core reads from the buffer; float32
        // elements are shown in float32's shortest form ("-0.20194006", not 17 digits), which
        // reads back as the same float.
        const Event &e = w.controller()->session()->blocks[1].events[0];
        QCOMPARE(QString::fromStdString(std::string(e.name)), u"native_call_convolution.out"_qs);
        auto data = w.controller()->session()->debugBuffer->read(e.debugData().front().tensors.front());
        QVERIFY(data);
        QCOMPARE(data->values.size(), std::size_t(2048));
        int seen = 0;
        for (int p = 1; p <= 3; ++p) {
            page->setValue(p);
            for (int r = 0; r < table->rowCount(); ++r, ++seen)
                QCOMPARE(table->item(r, 1)->text().toFloat(), float(data->values[std::size_t(seen)]));
        }
        QCOMPARE(seen, 2048);
        QCOMPARE(table->item(table->rowCount() - 1, 0)->text(), u"[0, 7, 15, 15]"_qs);
        delete dialog;

        // Without a debug buffer: shape only, no zeros passed off as values.
        QVERIFY(w.controller()->openFilesSync({ fixture(u"runtime/cnn_mlp_50runs/etdump.etdp"_qs) }));
        QVERIFY(w.controller()->openFilesSync({ fixture(kRun + u"etdump.etdp"_qs) }));
        QVERIFY(w.table()->selectEventByName(u"native_call_convolution.out"_qs));
        item = debug->topLevelItem(0);
        QVERIFY(item);
        for (int c = 2; c <= 4; ++c)
            QVERIFY(item->text(c).isEmpty());
        QVERIFY(!item->text(5).contains(u'0'));
        QVERIFY(item->text(5).contains(u"no debug buffer"_qs));
        QVERIFY(!test::part<EventDetailsDocks>(w)->details()->openTensorValues(item));
    }

    // Not a check: with ETSCOPE_SCREENSHOT_DIR set, writes the window at 1500×920 with each
    // bottom/right panel raised, for a person to look at.
    void screenshots()
    {
        const QString out = qEnvironmentVariable("ETSCOPE_SCREENSHOT_DIR");
        if (out.isEmpty())
            QSKIP("set ETSCOPE_SCREENSHOT_DIR to write screenshots");
        MainWindow w(quietOptions());
        auto *gaps = w.gapDocks();
        w.resize(1500, 920);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const QString xnn = u"runtime/xnnpack_mlp_intermediates/"_qs;
        QString error;
        QVERIFY(w.controller()->openFilesSync(
            { fixture(kRun + u"etdump.etdp"_qs), testData(u"analysis/cnn_mlp_perturbed.bin"_qs),
                testData(u"etrecord/cnn_mlp_etrecord.bin"_qs) },
            &error));
        QVERIFY(
            gaps->compareWith({ fixture(kRun + u"etdump.etdp"_qs), fixture(kRun + u"debug_output.bin"_qs) }, &error));
        QVERIFY(w.table()->selectEventByName(u"native_call_convolution.out"_qs));
        auto shoot = [&](const QString &name) {
            QCoreApplication::processEvents();
            QTest::qWait(50);
            QVERIFY(w.grab().save(out + u"/"_qs + name + u".png"_qs));
        };
        shoot(u"main"_qs);
        for (QDockWidget *d : w.findChildren<QDockWidget *>()) {
            if (!d->isVisible() && !d->toggleViewAction()->isChecked())
                continue;
            d->raise();
            shoot(d->objectName());
        }
        // Tensor inspector: click the perturbed row.
        QTest::mouseClick(gaps->heatmap(), Qt::LeftButton, {}, gaps->heatmap()->cellRect(3, 0).center());
        if (auto *t = w.findChild<QDockWidget *>(u"TensorInspectorDock"_qs)) {
            t->raise();
            shoot(u"TensorInspector"_qs);
        }
        QVERIFY(
            w.controller()->openFilesSync({ fixture(xnn + u"etdump.etdp"_qs), fixture(xnn + u"debug_output.bin"_qs) }));
        QVERIFY(gaps->compareWith({ fixture(xnn + u"etdump.etdp"_qs), fixture(xnn + u"debug_output.bin"_qs) }, &error));
        if (auto *t = w.findChild<QDockWidget *>(u"DelegateTriageDock"_qs)) {
            t->raise();
            shoot(u"DelegateTriage"_qs);
        }
        QVERIFY(w.controller()->openFilesSync({ fixture(u"runtime/cnn_mlp_50runs/etdump.etdp"_qs) }));
        QVERIFY(w.table()->selectEventByName(u"native_call_mm.out"_qs));
        for (const char *name : { "TopEventsDock", "TimelineDock", "ModulesDock" }) {
            if (auto *t = w.findChild<QDockWidget *>(QString::fromLatin1(name))) {
                t->raise();
                shoot(u"50runs-"_qs + QString::fromLatin1(name));
            }
        }
    }
};

QTEST_MAIN(TestWindowLabels)
#include "tst_windowlabels.moc"
