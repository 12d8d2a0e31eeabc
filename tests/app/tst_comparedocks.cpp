// The compare view on real recordings: A = cnn_mlp_50runs with its ETRecord, B = the same
// recording re-encoded with conv #3 x2, addmm #13 x3 and mean #21 x0.5 (tests/common/etdumprescale.h),
// so which rows change, by which ratio, and the waterfall's first bar (conv: +0.36666 ms, the
// largest change; p50 0.36666 ms in the fixture's TSV) are known without the diff code.
#include "comparedocks.h"
#include "compareview.h"
#include "dialoganswers.h"
#include "diffcharts.h"
#include "difftreemodel.h"
#include "etdumprescale.h"
#include "etdumpwriter.h"
#include "eventfilterproxy.h"
#include "eventtableview.h"
#include "eventtreemodel.h"
#include "mainwindow.h"
#include "modelroles.h"
#include "testpaths.h"
#include "timecontrols.h"

#include <QAbstractItemModelTester>
#include <QDockWidget>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

using namespace etscope;
using namespace etscope::test;

namespace {

QString writeSlowed(const QTemporaryDir &dir)
{
    auto bytes = rescaleETDump(sharedFixture("runtime/cnn_mlp_50runs/etdump.etdp"),
        { { "native_call_convolution.out", 3, 2.0 }, { "native_call_addmm.out", 13, 3.0 },
            { "native_call_mean.out", 21, 0.5 } });
    if (!bytes)
        qFatal("%s", bytes.error().message().c_str());
    return QString::fromStdString(writeFile(dir.filePath(QStringLiteral("slow.etdp")).toStdString(), *bytes));
}

QStringList filesA()
{
    return { QString::fromStdString(sharedFixture("runtime/cnn_mlp_50runs/etdump.etdp")),
        QString::fromStdString(testData("etrecord/cnn_mlp_etrecord.bin")) };
}

int rowOf(const LatencyDiff &d, const char *name, int instr)
{
    for (int i = 0; i < int(d.rows.size()); ++i)
        if (d.rows[size_t(i)].eventName == name && d.rows[size_t(i)].instructionId == instr)
            return i;
    return -1;
}

} // namespace

class TestCompareDocks : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // exports remember their size and folder
        QVERIFY(m_dir.isValid());
        m_b = writeSlowed(m_dir);
    }

    // Readable as it opens (issue 23): at 1500×920 the compare view takes the bottom area's full
    // width and most of the height, so its table shows rows, not a 470×180 sliver.
    void compareOpensWithRoom()
    {
        MainWindow::Options o;
        o.persistSettings = false;
        MainWindow w(o);
        w.resize(1500, 920);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QString error;
        QVERIFY2(w.controller()->openFilesSync(filesA(), &error), qPrintable(error));
        QVERIFY2(w.compareDocks()->compareWithSync({ m_b }, &error), qPrintable(error));
        QCoreApplication::processEvents();
        const QRect g = w.compareDocks()->dock()->geometry();
        QVERIFY2(g.width() >= w.width() * 9 / 10 && g.height() >= w.height() * 2 / 5,
            qPrintable(QStringLiteral("%1x%2 in %3x%4").arg(g.width()).arg(g.height()).arg(w.width()).arg(w.height())));
    }

    void compareViewEndToEnd()
    {
        MainWindow::Options o;
        o.persistSettings = false;
        MainWindow w(o);
        auto *docks = w.compareDocks();
        QString error;
        QVERIFY2(w.controller()->openFilesSync(filesA(), &error), qPrintable(error));

        // The menu entry exists.
        bool found = false;
        for (QAction *a : w.menuBar()->actions())
            if (a->menu())
                for (QAction *x : a->menu()->actions())
                    found = found || x->text().contains(QStringLiteral("Compare"));
        QVERIFY(found);

        QVERIFY2(
            docks->compareWithSync({ m_b, QString::fromStdString(testData("etrecord/cnn_mlp_etrecord.bin")) }, &error),
            qPrintable(error));
        CompareView *v = docks->view();
        QVERIFY(!docks->dock()->isHidden());
        const LatencyDiff &d = *v->diff();
        QCOMPARE(d.count(Verdict::Slower), std::size_t(3)); // conv, addmm, Method::execute
        QCOMPARE(d.count(Verdict::Faster), std::size_t(1)); // mean

        // The model under the tester, then numeric sorting and filtering through the proxy.
        QAbstractItemModelTester tester(v->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(v->proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSortFilterProxyModel *proxy = v->proxy();
        proxy->sort(DiffTreeModel::Ratio, Qt::DescendingOrder);
        auto executeItem = [proxy] {
            for (int r = 0; r < proxy->rowCount(); ++r)
                if (proxy->index(r, 0).data().toString().startsWith(QStringLiteral("Execute")))
                    return proxy->index(r, 0);
            return QModelIndex();
        };
        QModelIndex execute = executeItem();
        QVERIFY(execute.isValid());
        QCOMPARE(
            proxy->index(0, DiffTreeModel::Event, execute).data().toString(), QStringLiteral("native_call_addmm.out"));
        QCOMPARE(proxy->index(0, DiffTreeModel::Ratio, execute).data(SortRole).toDouble(), 3.0);
        QCOMPARE(proxy->index(1, DiffTreeModel::Event, execute).data().toString(),
            QStringLiteral("native_call_convolution.out"));
        // Numbers sort as numbers: the last row has the smallest ratio (mean, 0.5).
        const int last = proxy->rowCount(execute) - 1;
        QCOMPARE(proxy->index(last, DiffTreeModel::Event, execute).data().toString(),
            QStringLiteral("native_call_mean.out"));
        // Verdict colours.
        QCOMPARE(proxy->index(0, DiffTreeModel::Verdict, execute).data(Qt::BackgroundRole).value<QBrush>().color(),
            DiffTreeModel::verdictColor(Verdict::Slower));
        QVERIFY(!proxy->index(3, DiffTreeModel::Verdict, execute)
                     .data(Qt::BackgroundRole)
                     .isValid()); // after Method::execute (1.40)
        v->filterEdit()->setText(QStringLiteral("addmm"));
        QCOMPARE(proxy->rowCount(), 1); // the Default block has no addmm
        QCOMPARE(proxy->rowCount(executeItem()), 2); // instructions 13 and 25
        v->filterEdit()->clear();

        // Waterfall: starts at A's total, first bar = the conv row (largest |delta|), ends at B's total.
        DiffWaterfallChart *wf = v->waterfall();
        QVERIFY(!wf->barRows().empty());
        QCOMPARE(wf->barRows().front(), rowOf(d, "native_call_convolution.out", 3));
        QCOMPARE(wf->barRows().size(), std::size_t(3)); // only rows that changed
        QCOMPARE(wf->levels().front(), d.total.a);
        QCOMPARE(wf->levels().back(), d.total.b);
        QVERIFY(std::abs(wf->levels()[1] - wf->levels()[0] - 0.36666) < 1e-12);

        // Selecting a row selects the event in A (main window) and in both timelines; the
        // histogram overlays both 50-run samples; details show both ETRecords' modules.
        const int addmm = rowOf(d, "native_call_addmm.out", 13);
        QSignalSpy selected(v, &CompareView::rowSelected);
        QVERIFY(v->selectRow(addmm));
        QCOMPARE(selected.count(), 1);
        const Event *ea
            = w.table()->model()->eventAt(w.table()->proxy()->mapToSource(w.table()->tree()->currentIndex()));
        QVERIFY(ea);
        QCOMPARE(ea->name, std::string("native_call_addmm.out"));
        QCOMPARE(ea->instructionId, 13);
        QCOMPARE(v->histogram()->countA(), 50);
        QCOMPARE(v->histogram()->countB(), 50);
        const auto &tl = *v->timelines();
        QVERIFY(tl.axisSpan() >= tl.layoutB().span && tl.layoutB().span > tl.layoutA().span); // B is longer
        const QString details = v->details()->toPlainText();
        QVERIFY(details.contains(QStringLiteral("A: native_call_addmm.out")));
        QVERIFY(details.contains(QStringLiteral("B: native_call_addmm.out")));
        QVERIFY(details.count(QStringLiteral("module:")) >= 2); // from A's and B's ETRecord
        // Clicking a waterfall bar selects that row.
        Q_EMIT wf->rowClicked(rowOf(d, "native_call_convolution.out", 3));
        QCOMPARE(v->selectedRow(), rowOf(d, "native_call_convolution.out", 3));

        // Export: the same columns as `etscope-cli diff --tsv`.
        const QString tsv = m_dir.filePath(QStringLiteral("diff.tsv"));
        QCOMPARE(v->exportTable(tsv), QString());
        QFile f(tsv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.readLine().startsWith("event_block_name\tevent_name\tinstruction_id"));

        // A chart export asks the size, then the file: the waterfall is drawn at 1600×700.
        QAction *waterfall = test::controlNamed<QAction>(v, QStringLiteral("Waterfall…"));
        QVERIFY(waterfall);
        QCOMPARE(test::exportedImageSize(
                     [&] { waterfall->trigger(); }, QSize(1600, 700), m_dir.filePath(QStringLiteral("waterfall.png"))),
            QSize(1600, 700));
    }

    void waterfallFitsItsWidth()
    {
        // cnn_mlp's 50-run recording against its 1-run intermediates recording: 31 operator rows
        // changed. Narrow, the waterfall shows fewer (but at least 3) of the largest |Δ| with
        // readable labels; the levels still run from A's total to B's.
        auto load = [](const std::string &path) {
            SessionInputs in;
            in.etdump = path;
            auto s = loadSession(in);
            if (!s)
                qFatal("%s", s.error().message().c_str());
            return s.value();
        };
        const auto a = load(test::sharedFixture("runtime/cnn_mlp_50runs/etdump.etdp"));
        const auto b = load(test::sharedFixture("runtime/cnn_mlp_intermediates/etdump.etdp"));
        auto diff = std::make_shared<const LatencyDiff>(diffLatency(a->blocks, b->blocks));
        DiffWaterfallChart chart;
        chart.resize(1400, 400);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setDiff(diff);
        const std::size_t wide = chart.barRows().size();
        QCOMPARE(wide, std::size_t(12)); // the default maximum
        chart.resize(520, 400);
        QTRY_VERIFY(chart.barRows().size() < wide);
        QVERIFY(chart.barRows().size() >= 3);
        QCOMPARE(chart.levels().front(), diff->total.a);
        QCOMPARE(chart.levels().back(), diff->total.b);
        // The largest contributor (|Δ| 0.124 ms, convolution #3) leads at every width.
        QCOMPARE(diff->rows[std::size_t(chart.barRows().front())].instructionId, 3);
    }

    void backgroundCompare()
    {
        MainWindow::Options o;
        o.persistSettings = false;
        MainWindow w(o);
        auto *docks = w.compareDocks();
        QSignalSpy ready(docks, &CompareDocks::comparisonReady);
        // A and B load at the same time: B is requested while A is still loading.
        w.controller()->openFiles(filesA());
        docks->compareWith({ m_b });
        QVERIFY(ready.wait(30000));
        QCOMPARE(ready.first().at(0).toBool(), true);
        QVERIFY(docks->view()->diff());
        QCOMPARE(docks->view()->diff()->count(Verdict::Slower), std::size_t(3));
        QVERIFY(docks->lastCompareMs() >= 0);

        // A bad B: reported, no crash, the previous comparison stays.
        ready.clear();
        docks->compareWith({ QString::fromStdString(testData("etrecord/cnn_mlp_etrecord.bin")) });
        QVERIFY(ready.count() == 1 || ready.wait(10000));
        QCOMPARE(ready.first().at(0).toBool(), false);
        QVERIFY(ready.first().at(1).toString().contains(QStringLiteral("no ETDump")));
    }

private:
    QTemporaryDir m_dir;
    QString m_b;
};

QTEST_MAIN(TestCompareDocks)
#include "tst_comparedocks.moc"
