// The "Graph against graph" panel (issue 30 item 4) in the window, built from the controller and
// the selection like every panel. Expected values are those tests/analysis/tst_graphdiff.cpp
// checks against PyTorch (tests/tools/gen_graphdiff_fixtures.py): the cnn_mlp ATen program and
// its Edge twin agree at all 28 layers; in graphdiff_etrecord.bin the fake-quantized
// edge_after_transform parts from the float exported_program at layer 5 (native_layer_norm),
// with the 4 inserted quantization nodes listed as only in B.
#include "graphdiffpanel.h"
#include "graphview.h"
#include "mainwindow.h"
#include "sessioncontroller.h"
#include "windowtest.h"

#include <QAction>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>

using namespace etscope;

class TstGraphDiffPanel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void equivalentGraphsAgree()
    {
        MainWindow w(test::quietWindow());
        w.resize(1280, 720);
        w.show();
        QVERIFY(w.controller()->openFilesSync({ test::fixturePath("runtime/cnn_mlp_intermediates/etdump.etdp"),
            test::fixturePath("runtime/cnn_mlp_intermediates/debug_output.bin"),
            test::testDataPath("analysis/cnn_mlp_runtime_etrecord.bin") }));
        GraphDiffPanel *panel = test::part<GraphDiffPanel>(w);
        QVERIFY(panel->graphChoices().contains(u"exported_program"_qs));
        QVERIFY(panel->graphChoices().contains(u"edge_dialect_exported_program"_qs));
        QSignalSpy done(panel, &GraphDiffPanel::finished);
        panel->compare(u"exported_program"_qs, u"edge_dialect_exported_program"_qs);
        QVERIFY(done.wait(60000));
        QVERIFY2(done.at(0).at(0).toBool(), qPrintable(done.at(0).at(1).toString()));
        QCOMPARE(panel->table()->topLevelItemCount(), 28);
        QVERIFY2(panel->verdictText().contains(u"the graphs agree within noise at every aligned layer"_qs),
            qPrintable(panel->verdictText()));
        for (int i = 0; i < panel->table()->topLevelItemCount(); ++i)
            QVERIFY(panel->table()->topLevelItem(i)->text(6).isEmpty()); // nothing flagged
        if (const QByteArray shot = qgetenv("ETSCOPE_GRAPHDIFF_SHOT"); !shot.isEmpty())
            w.grab().save(QString::fromLocal8Bit(shot));
    }

    void quantizedGraphPartsAtTheLayerNorm()
    {
        MainWindow w(test::quietWindow());
        w.resize(1920, 1080);
        w.show();
        // The ETRecord's own graphs are compared: any recording carries it into the session.
        QVERIFY(w.controller()->openFilesSync({ test::fixturePath("runtime/add_pte_50runs/etdump.etdp"),
            test::testDataPath("analysis/graphdiff_etrecord.bin") }));
        GraphDiffPanel *panel = test::part<GraphDiffPanel>(w);
        QVERIFY(panel->graphChoices().contains(u"edge_after_transform"_qs)
            || panel->graphChoices().contains(u"edge_after_transform/forward"_qs));
        QSignalSpy done(panel, &GraphDiffPanel::finished);
        panel->compare(u"exported_program"_qs, u"edge_after_transform"_qs);
        QVERIFY(done.wait(60000));
        QVERIFY2(done.at(0).at(0).toBool(), qPrintable(done.at(0).at(1).toString()));
        QCOMPARE(panel->table()->topLevelItemCount(), 12);
        QVERIFY2(panel->verdictText().contains(u"the graphs part at layer 5 a:native_layer_norm"_qs),
            qPrintable(panel->verdictText()));
        QTreeWidgetItem *parting = panel->table()->topLevelItem(4);
        QCOMPARE(parting->text(6), u"yes"_qs);
        QVERIFY(parting->font(1).bold());
        for (int i = 0; i < 4; ++i) // layers 1-4 are exactly equal
            QVERIFY(panel->table()->topLevelItem(i)->text(6).isEmpty());
        QLabel *unaligned = nullptr;
        for (QLabel *l : panel->table()->parentWidget()->findChildren<QLabel *>())
            if (l->text().startsWith(u"Only in B"_qs))
                unaligned = l;
        QVERIFY(unaligned);
        QCOMPARE(unaligned->text().count(u','), 3); // the 4 inserted quantization nodes

        // Side by side: both graphs drawn with the per-layer gap; the parting layer is flagged on
        // both sides, the layers before it are not.
        GraphView *a = panel->graphView(evalgap::DiffSide::A), *b = panel->graphView(evalgap::DiffSide::B);
        QVERIFY(a->programGraph() && b->programGraph());
        QVERIFY(a->waitForLayout() && b->waitForLayout());
        QCOMPARE(a->overlay(), graph::Overlay::Gap);
        const int normA = a->programGraph()->findNode("native_layer_norm");
        const int normB = b->programGraph()->findNode("aten_native_layer_norm");
        QVERIFY(normA >= 0 && normB >= 0);
        QVERIFY(a->overlayData().nodeGapFlagged[std::size_t(normA)]);
        QVERIFY(b->overlayData().nodeGapFlagged[std::size_t(normB)]);
        // A click on the layer norm in A selects layer 5 in the table and its twin in B.
        a->expandAll();
        QVERIFY(a->waitForLayout());
        const int item = a->visible().itemOfNode[std::size_t(normA)];
        QVERIFY(item >= 0);
        a->activateItem(item);
        QCOMPARE(panel->table()->currentItem(), parting);
        QVERIFY(b->waitForLayout());
        QCOMPARE(b->selectedItem(), b->visible().itemOfNode[std::size_t(normB)]);
        // And a table row selects both nodes.
        panel->selectLayer(0);
        const auto &row0 = panel->result()->rows[0];
        QCOMPARE(a->selectedItem(), a->visible().itemOfNode[std::size_t(a->programGraph()->findNode(row0.aName))]);
        QCOMPARE(b->selectedItem(), b->visible().itemOfNode[std::size_t(b->programGraph()->findNode(row0.bName))]);
        if (const QByteArray dir = qgetenv("ETSCOPE_SHOT_DIR"); !dir.isEmpty()) {
            panel->selectLayer(4);
            QTest::qWait(200);
            w.grab().save(QString::fromLocal8Bit(dir) + u"/graphdiff-1920x1080.png"_qs);
            w.resize(1280, 720);
            QTest::qWait(300);
            panel->menuActions(Panel::Menu::Analysis).first()->trigger(); // gives the dock its room again
            QTest::qWait(300);
            a->fit();
            b->fit();
            QTest::qWait(200);
            w.grab().save(QString::fromLocal8Bit(dir) + u"/graphdiff-1280x720.png"_qs);
        }
    }
};

QTEST_MAIN(TstGraphDiffPanel)
#include "tst_graphdiffpanel.moc"
