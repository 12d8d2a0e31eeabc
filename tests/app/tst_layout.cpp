// Issue 28 item 5: every panel is usable at 1280×720 and at 1920×1080 — when a panel shows
// something, its figures get room (rows and bars visible, not a strip). Sizes asserted are what a
// reader needs: three table rows (a header and three rows of the default font), a picture of at
// least 150 px (the arenas, the live line and the instruction axis), a graph of a third of the
// window.
#include "gapdocks.h"
#include "gapheatmapwidget.h"
#include "graphdock.h"
#include "graphview.h"
#include "mainwindow.h"
#include "memorypanel.h"
#include "memoryview.h"
#include "sessioncontroller.h"
#include "windowtest.h"

#include <QDockWidget>
#include <QScrollArea>
#include <QTableView>
#include <QTest>

using namespace etscope;

namespace {
int visibleRows(const QTableView *t)
{
    int n = 0;
    for (int r = 0; r < t->model()->rowCount(); ++r)
        n += t->visualRect(t->model()->index(r, 0)).bottom() <= t->viewport()->height();
    return n;
}
} // namespace

class TstLayout : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void sizes_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1280x720") << QSize(1280, 720);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }

    void memoryPlanReadable_data() { sizes_data(); }
    void memoryPlanReadable()
    {
        QFETCH(QSize, size);
        MainWindow w(test::quietWindow());
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.controller()->openFilesSync({ test::fixturePath("runtime/cnn_mlp_alloc_events/cnn_mlp.pte"),
            test::fixturePath("runtime/cnn_mlp_alloc_events/etdump.etdp") }));
        MemoryView *view = test::part<MemoryPanel>(w)->view();
        QTRY_VERIFY(view->isVisible());
        QTRY_VERIFY2(view->canvas()->height() >= 150, qPrintable(QString::number(view->canvas()->height())));
        QTRY_VERIFY2(visibleRows(view->table()) >= 3, qPrintable(QString::number(visibleRows(view->table()))));
    }

    void graphReadable_data() { sizes_data(); }
    void graphReadable()
    {
        QFETCH(QSize, size);
        MainWindow w(test::quietWindow());
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const QString sample = QStringLiteral(ETSCOPE_SOURCE_DIR "/resources/samples/xnnpack_mlp/");
        QVERIFY(w.controller()->openFilesSync({ sample + u"etdump.etdp"_qs, sample + u"etrecord.bin"_qs }));
        QDockWidget *dock = w.graphDock()->dock();
        dock->raise();
        QTRY_VERIFY2(w.graphDock()->view()->height() >= w.height() / 3,
            qPrintable(QStringLiteral("%1 of %2").arg(w.graphDock()->view()->height()).arg(w.height())));
    }

    void gapHeatmapReadable_data() { sizes_data(); }
    void gapHeatmapReadable()
    {
        QFETCH(QSize, size);
        MainWindow w(test::quietWindow());
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const QString run = test::fixturePath("runtime/cnn_mlp_intermediates/");
        QVERIFY(w.controller()->openFilesSync({ run + u"etdump.etdp"_qs, run + u"debug_output.bin"_qs }));
        QString error;
        QVERIFY2(w.gapDocks()->compareWith({ run + u"etdump.etdp"_qs, run + u"debug_output.bin"_qs }, &error),
            qPrintable(error));
        auto *scroll = qobject_cast<QScrollArea *>(w.gapDocks()->heatmap()->parentWidget()->parentWidget());
        QVERIFY(scroll);
        // At least five instruction rows of the heatmap in view under its legend.
        QTRY_VERIFY2(scroll->viewport()->height() >= 5 * 18, qPrintable(QString::number(scroll->viewport()->height())));
    }
};

QTEST_MAIN(TstLayout)
#include "tst_layout.moc"
