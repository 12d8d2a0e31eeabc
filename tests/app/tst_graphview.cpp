// The graph view in the main window on the XNNPACK sample: drawn node/edge counts, shared
// selection (graph -> event tree, event tree / heatmap -> graph), double-click expansion,
// keyboard navigation, search, overlay switching and export. Expected counts come from
// tests/tools/gen_graph_expected.py (15 operators, 6+... edges counted from the JSON).
// Set ETSCOPE_GRAPH_SCREENSHOT=FILE.png to also write the README screenshot.
#include "eventfilterproxy.h"
#include "eventtableview.h"
#include "eventtreemodel.h"
#include "gapdocks.h"
#include "gapheatmapwidget.h"
#include "graphdock.h"
#include "graphview.h"
#include "mainwindow.h"
#include "modelroles.h"
#include "timecontrols.h"

#include "dialoganswers.h"
#include "testpaths.h"
#include "windowtest.h"

#include <QDockWidget>
#include <QFile>
#include <QGraphicsView>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QTreeView>

using namespace etscope;

namespace {
const QString kSample = QStringLiteral(ETSCOPE_SOURCE_DIR "/resources/samples/xnnpack_mlp/");

QJsonObject expectedXnn()
{
    QFile f(QStringLiteral(ETSCOPE_TEST_DATA_DIR "/graph/graph_expected.json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("graph_expected.json missing");
    return QJsonDocument::fromJson(f.readAll())
        .object()[QStringLiteral("xnn_mlp_etrecord.bin")]
        .toObject()[QStringLiteral("edge_dialect_exported_program/forward")]
        .toObject();
}

std::pair<int, int> eventNamed(const Session &s, const std::string &name)
{
    for (int b = 0; b < int(s.blocks.size()); ++b)
        for (int e = 0; e < int(s.blocks[std::size_t(b)].events.size()); ++e)
            if (s.blocks[std::size_t(b)].events[std::size_t(e)].name == name)
                return { b, e };
    return { -1, -1 };
}
} // namespace

class TestGraphView : public QObject
{
    Q_OBJECT
    MainWindow *window = nullptr;
    GapDocks *gap = nullptr;
    GraphDock *graphDock = nullptr;

    GraphView *view() { return graphDock->view(); }
    int itemOf(const char *node)
    {
        const int n = view()->programGraph()->findNode(node);
        return n < 0 ? -1 : view()->visible().itemOfNode[std::size_t(n)];
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // the export remembers its size and folder
        MainWindow::Options o;
        o.persistSettings = false;
        window = new MainWindow(o);
        gap = window->gapDocks();
        graphDock = window->graphDock();
        window->resize(1500, 950);
        window->show();
        QString error;
        QVERIFY2(window->controller()->openFilesSync(
                     { kSample + QStringLiteral("etdump.etdp"), kSample + QStringLiteral("debug_output.bin"),
                         kSample + QStringLiteral("etrecord.bin") },
                     &error),
            qPrintable(error));
        QVERIFY(view()->waitForLayout());
        QVERIFY(view()->programGraph());
    }
    void cleanupTestCase() { delete window; }

    void drawnCountsMatchTheETRecord()
    {
        const QJsonObject exp = expectedXnn();
        QCOMPARE(view()->programGraph()->operatorCount(), std::size_t(exp[QStringLiteral("nodes")].toArray().size()));
        view()->expandAll();
        QVERIFY(view()->waitForLayout());
        QCOMPARE(view()->visible().items.size(), std::size_t(exp[QStringLiteral("nodes")].toArray().size()));
        QCOMPARE(view()->visible().edges.size(), std::size_t(exp[QStringLiteral("edge_count")].toInt()));
        QCOMPARE(view()->layout().edges.size(), std::size_t(exp[QStringLiteral("edge_count")].toInt()));
        // Two partition boxes, both labelled with the backend.
        int partitions = 0;
        for (const graph::ClusterGeometry &c : view()->layout().clusters)
            if (view()->programGraph()->groups()[std::size_t(c.group)].kind == graph::Group::Kind::Partition)
                ++partitions;
        QCOMPARE(partitions, 2);
    }

    // The graph fits its dock again when the dock grows (issue 23: 2-px boxes that never
    // re-fitted), until the user zooms.
    void refitsWhenTheDockGrows()
    {
        QGraphicsView *c = view()->canvas();
        view()->fit();
        const QSize before = view()->size();
        view()->resize(before / 2);
        QCoreApplication::processEvents();
        QVERIFY(view()->waitForLayout()); // a new size may re-arrange the graph in the background
        const double small = c->transform().m11();
        view()->resize(before);
        QCoreApplication::processEvents();
        QVERIFY(view()->waitForLayout());
        QTRY_VERIFY2(c->transform().m11() > small * 1.05, qPrintable(QString::number(c->transform().m11() / small)));
        QTest::keyClick(c, Qt::Key_Plus); // the user zooms: no more automatic fitting
        const double zoomed = c->transform().m11();
        view()->resize(before / 2);
        QCoreApplication::processEvents();
        QCOMPARE(c->transform().m11(), zoomed);
        view()->resize(before);
        view()->fit();
    }

    void clickNodeSelectsItsEvents()
    {
        // aten_native_layer_norm_default runs as the portable kernel of instruction 1.
        const int item = itemOf("aten_native_layer_norm_default");
        QVERIFY(item >= 0);
        const QPoint at = view()->canvas()->mapFromScene(view()->itemCenter(item));
        view()->canvas()->centerOn(view()->itemCenter(item));
        QTest::mouseClick(
            view()->canvas()->viewport(), Qt::LeftButton, {}, view()->canvas()->mapFromScene(view()->itemCenter(item)));
        Q_UNUSED(at)
        QCOMPARE(view()->selectedItem(), item);
        const QModelIndex cur = window->table()->tree()->currentIndex();
        QVERIFY(cur.isValid());
        const auto want = eventNamed(*window->controller()->session(), "native_call_native_layer_norm.out");
        QCOMPARE(cur.data(BlockIndexRole).toInt(), want.first);
        QCOMPARE(cur.data(EventIndexRole).toInt(), want.second);

        // A delegated node selects the DELEGATE_CALL that ran its partition.
        const int gelu = itemOf("aten_gelu_default");
        view()->activateItem(gelu);
        const QModelIndex d = window->table()->tree()->currentIndex();
        QCOMPARE(d.data(Qt::DisplayRole).toString(), QStringLiteral("DELEGATE_CALL"));
    }

    void selectingAnEventCentresTheGraph()
    {
        view()->collapseAll();
        QVERIFY(view()->waitForLayout());
        QVERIFY(itemOf("aten_native_layer_norm_default")
            == view()->visible().itemOfGroup[std::size_t(view()->programGraph()->findGroup("norm"))]);
        const auto ev = eventNamed(*window->controller()->session(), "native_call_native_layer_norm.out");
        window->table()->selectEvent(ev.first, ev.second);
        QVERIFY(view()->waitForLayout()); // the module is expanded to reveal the node
        const int item = itemOf("aten_native_layer_norm_default");
        QCOMPARE(view()->visible().items[std::size_t(item)].kind, graph::VisibleItem::Kind::Op);
        QCOMPARE(view()->selectedItem(), item);
        // Centred (as far as the scroll range allows): in view and not near the viewport's edge.
        const QPoint at = view()->canvas()->mapFromScene(view()->itemCenter(item));
        QVERIFY(view()->canvas()->viewport()->rect().adjusted(30, 30, -30, -30).contains(at));
    }

    void heatmapCellCentresTheGraph()
    {
        QString error;
        QVERIFY2(
            gap->compareWith({ kSample + QStringLiteral("etdump.etdp"), kSample + QStringLiteral("debug_output.bin"),
                                 kSample + QStringLiteral("etrecord.bin") },
                &error),
            qPrintable(error));
        QCOMPARE(view()->overlay(), graph::Overlay::Gap);
        QVERIFY(view()->overlayData().hasGap);
        const auto ev = eventNamed(*window->controller()->session(), "native_call_argmax.out");
        Q_EMIT gap->heatmap()->eventSelected(ev.first, ev.second);
        QVERIFY(view()->waitForLayout());
        QCOMPARE(view()->selectedItem(), itemOf("aten_argmax_default"));
        // Same run as reference: every compared node is below the threshold (cool colours).
        for (const graph::Rgb &c : view()->coloring().fill)
            QVERIFY(!graph::isWarmGapColor(c));
    }

    void doubleClickExpandsAModule()
    {
        view()->collapseAll();
        QVERIFY(view()->waitForLayout());
        const int fc3 = view()->programGraph()->findGroup("fc3");
        const int item = view()->visible().itemOfGroup[std::size_t(fc3)];
        QVERIFY(item >= 0);
        view()->canvas()->centerOn(view()->itemCenter(item));
        QTest::mouseDClick(
            view()->canvas()->viewport(), Qt::LeftButton, {}, view()->canvas()->mapFromScene(view()->itemCenter(item)));
        QVERIFY(view()->isLayoutRunning() || view()->expansion().expanded(fc3));
        QVERIFY(view()->waitForLayout());
        QVERIFY(view()->expansion().expanded(fc3));
        QCOMPARE(
            view()->visible().items[std::size_t(itemOf("aten_addmm_default_2"))].kind, graph::VisibleItem::Kind::Op);
    }

    void keyboardAndSearch()
    {
        view()->expandAll();
        QVERIFY(view()->waitForLayout());
        QVERIFY(view()->jumpTo(QStringLiteral("aten_tanh_default")));
        QCOMPARE(view()->selectedItem(), itemOf("aten_tanh_default"));
        view()->canvas()->setFocus();
        QTest::keyClick(view()->canvas(), Qt::Key_Down); // data flow: tanh -> permute_copy_3 (fc4)
        QCOMPARE(view()->selectedItem(), itemOf("aten_addmm_default_3"));
        QTest::keyClick(view()->canvas(), Qt::Key_Up);
        QCOMPARE(view()->selectedItem(), itemOf("aten_tanh_default"));
        QVERIFY(!view()->jumpTo(QStringLiteral("no such node")));
    }

    void overlaysAndExport()
    {
        view()->setOverlay(graph::Overlay::Latency);
        QVERIFY(!view()->coloring().legend.empty());
        view()->setOverlay(graph::Overlay::Backend);
        QCOMPARE(view()->coloring().legend.size(), std::size_t(2)); // portable + XnnpackBackend
        QTemporaryDir dir;
        QVERIFY(view()->exportImage(dir.filePath(QStringLiteral("g.png"))).isEmpty());
        QVERIFY(view()->exportImage(dir.filePath(QStringLiteral("g.svg"))).isEmpty());
        QVERIFY(QFile(dir.filePath(QStringLiteral("g.png"))).size() > 1000);
        QVERIFY(QFile(dir.filePath(QStringLiteral("g.svg"))).size() > 1000);

        // The Export… button asks the size first, then the file; the PNG has the size asked.
        QToolButton *exportButton = test::controlNamed<QToolButton>(view(), QStringLiteral("Export…"));
        QVERIFY(exportButton);
        QCOMPARE(test::exportedImageSize(
                     [&] { exportButton->click(); }, QSize(1234, 567), dir.filePath(QStringLiteral("asked.png"))),
            QSize(1234, 567));
        // One that cannot be written (its folder does not exist) is reported where every GUI
        // action's error goes, the window's message bar: "Export graph: <reason naming the file>".
        const QString missing = dir.filePath(QStringLiteral("no-such-folder/g.png"));
        QVERIFY(test::exportedImageSize([&] { exportButton->click(); }, QSize(300, 200), missing).isEmpty());
        QVERIFY2(test::lastError(*window).startsWith(QStringLiteral("Export graph: ")),
            qPrintable(test::lastError(*window)));
        QVERIFY2(
            test::lastError(*window).contains(QStringLiteral("no-such-folder")), qPrintable(test::lastError(*window)));
    }

    void inputsOnRequest()
    {
        const std::size_t ops = view()->programGraph()->operatorCount();
        QCOMPARE(view()->programGraph()->nodes().size(), ops); // inputs folded by default
        Q_EMIT view()->programRequested(QString::fromStdString(view()->programGraph()->entryName()), true);
        QVERIFY(view()->waitForLayout());
        QCOMPARE(view()->programGraph()->operatorCount(), ops);
        // x and the 10 weights/biases of the XNNPACK MLP become nodes of their own.
        QCOMPARE(view()->programGraph()->nodes().size(), ops + 11);
        Q_EMIT view()->programRequested(QString::fromStdString(view()->programGraph()->entryName()), false);
        QVERIFY(view()->waitForLayout());
        QCOMPARE(view()->programGraph()->nodes().size(), ops);
    }

    void screenshot()
    {
        const QString out = qEnvironmentVariable("ETSCOPE_GRAPH_SCREENSHOT");
        if (out.isEmpty())
            QSKIP("set ETSCOPE_GRAPH_SCREENSHOT to write the README screenshot");
        view()->setOverlay(graph::Overlay::Latency);
        view()->expandAll();
        QVERIFY(view()->waitForLayout());
        graphDock->dock()->setFloating(true);
        graphDock->dock()->resize(1150, 1000);
        QTest::qWait(100);
        view()->fit();
        view()->jumpTo(QStringLiteral("aten_native_layer_norm_default"));
        view()->fit();
        QTest::qWait(100);
        QVERIFY(view()->grab().save(out));
    }

    // Last (it replaces the session): the authored Vulkan recording with the ETRecord its delegate
    // call lowers (tests/data/backend/vulkan_stem/README.md). Drawing the encode method, the
    // convolution and relu dispatches are given to their nodes by delegate_node_id (exact links),
    // and the legend says so.
    void backendDispatchesGiveNodesTime()
    {
        QString error;
        QVERIFY2(window->controller()->openFilesSync(
                     { QStringLiteral(ETSCOPE_TEST_DATA_DIR "/backend/vulkan_stem/etdump.etdp"),
                         QStringLiteral(ETSCOPE_TEST_DATA_DIR "/etrecord/cnn_mlp_etrecord.bin") },
                     &error),
            qPrintable(error));
        QVERIFY(view()->waitForLayout());
        Q_EMIT view()->programRequested(QStringLiteral("edge_dialect_exported_program/encode"), false);
        QVERIFY(view()->waitForLayout());
        QCOMPARE(view()->programGraph()->entryName(), std::string("edge_dialect_exported_program/encode"));
        view()->setOverlay(graph::Overlay::Latency);
        view()->expandAll();
        QVERIFY(view()->waitForLayout());
        QCOMPARE(view()->overlayData().backendAttributed, std::size_t(2));
        QCOMPARE(view()->coloring().note, std::string("2 backend events given to their nodes (exact link)"));
        const int conv = itemOf("aten_convolution_default");
        QVERIFY(conv >= 0);
        // The window links the ETRecord's forward method, which has no delegate_map entry for
        // this call: the Inspector's fallback gives every delegated event instruction 0's handles,
        // so the shares here are not the encode method's (tst_programgraph checks those values).
        QVERIFY(QString::fromStdString(view()->coloring().value[std::size_t(conv)]).endsWith(u" (backend events)"_qs));
        if (const QString out = qEnvironmentVariable("ETSCOPE_BACKEND_GRAPH_SHOT"); !out.isEmpty())
            QVERIFY(view()->grab().save(out));
    }

    // A .pte with its recording, no ETRecord (xnnpack_mlp_intermediates, README): each XNNPACK
    // delegate is one collapsed box; a double-click shows its 4 payload nodes (xnn_mlp's XNNGraph
    // JSON: FullyConnected, FullyConnected, Add, Gelu), clicking one shows its shapes, and the
    // latency legend says that XNNPACK's 8 operator events are on their nodes by order.
    void delegatePayloadExpands()
    {
        const QString dir = QString::fromStdString(test::sharedFixture("runtime/xnnpack_mlp_intermediates/"));
        QString error;
        QVERIFY2(window->controller()->openFilesSync(
                     { dir + u"etdump.etdp"_qs, dir + u"debug_output.bin"_qs, dir + u"xnn_mlp.pte"_qs }, &error),
            qPrintable(error));
        QVERIFY(view()->waitForLayout());
        const graph::ProgramGraph *g = view()->programGraph();
        QVERIFY(g && g->drawnFromProgram());
        QCOMPARE(view()->visible().items.size(), std::size_t(4));
        const int group = g->partitions()[0].group;
        const int item = view()->visible().itemOfGroup[std::size_t(group)];
        QVERIFY(item >= 0);
        view()->canvas()->centerOn(view()->itemCenter(item));
        QTest::mouseDClick(
            view()->canvas()->viewport(), Qt::LeftButton, {}, view()->canvas()->mapFromScene(view()->itemCenter(item)));
        QVERIFY(view()->waitForLayout());
        QVERIFY(view()->expansion().expanded(group));
        QCOMPARE(view()->visible().items.size(), std::size_t(4 + 3)); // its call's box gives way to 4 nodes
        const int fc = view()->visible().itemOfNode[std::size_t(g->nodeForPayload(0, 0))];
        QVERIFY(fc >= 0);
        QCOMPARE(view()->visible().items[std::size_t(fc)].kind, graph::VisibleItem::Kind::Op);
        view()->activateItem(fc);
        const QString info = view()->findChild<QLabel *>(u"graphInfo"_qs)->text();
        QVERIFY2(info.contains(u"in  v0: fp32[1, 64] (graph input, argument 0 of the call)"_qs), qPrintable(info));
        QVERIFY2(info.contains(u"out v3: fp32[1, 128]"_qs), qPrintable(info));
        view()->setOverlay(graph::Overlay::Latency);
        // The README's 8 operator events, placed by the runtime's order (tst_programgraph checks
        // which node each lands on): the legend says how.
        QCOMPARE(view()->overlayData().backendAttributed, std::size_t(8));
        QCOMPARE(view()->overlayData().backendByOrder, std::size_t(8));
        QCOMPARE(view()->overlayData().backendUnidentified, std::size_t(0));
        QVERIFY2(view()->coloring().note.find("by the runtime's operator order and kind") != std::string::npos,
            view()->coloring().note.c_str());
        if (const QString out = qEnvironmentVariable("ETSCOPE_DELEGATE_GRAPH_SHOT"); !out.isEmpty())
            QVERIFY(view()->grab().save(out));
    }
};

QTEST_MAIN(TestGraphView)
#include "tst_graphview.moc"
