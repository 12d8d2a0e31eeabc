// The Memory panel in the window: a .pte opened with its ETDump is sniffed by content and paired
// (or refused with the reason), the ETDump's allocations appear beside the plan, and a click on a
// tensor selects its instruction's event. Expected values: tests/data/program/expected_memory.json
// (cnn_mlp: 32 planned tensors; %47 made by instruction 9, aten::gelu.out) and the fixture READMEs.
#include "graph/programgraph.h"
#include "graphdock.h"
#include "graphview.h"
#include "mainwindow.h"
#include "memorypanel.h"
#include "memoryplanmodel.h"
#include "memoryview.h"
#include "panel.h"
#include "sessioncontroller.h"
#include "testpaths.h"

#include <QSignalSpy>
#include <QTest>

using namespace etscope;

namespace {
QString fixture(const char *relative)
{
    return QString::fromStdString(test::sharedFixture(relative));
}

MainWindow::Options quietOptions()
{
    MainWindow::Options o;
    o.interactive = false;
    o.persistSettings = false;
    return o;
}
} // namespace

class TestMemoryPanel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void pairsAndSelects()
    {
        MainWindow w(quietOptions());
        w.resize(1500, 920);
        w.show();
        const QString pte = fixture("runtime/cnn_mlp_alloc_events/cnn_mlp.pte");
        const QString etdump = fixture("runtime/cnn_mlp_alloc_events/etdump.etdp");
        const QStringList rest = w.openPrograms({ pte, etdump });
        QCOMPARE(rest, QStringList { etdump });
        QVERIFY(w.controller()->openFilesSync(rest));
        MemoryView *view = w.memoryPanel()->view();
        QCOMPARE(view->model()->rowCount(), 32);
        QVERIFY2(view->figuresText().contains(QStringLiteral("ETDump planned_memory: 1 allocations, 133840 B")),
            qPrintable(view->figuresText()));

        QSignalSpy spy(w.selection(), &EventSelection::selectionRequested);
        const QRectF r = view->canvas()->tensorRect(view->model()->rowOfValue(47));
        QTest::mouseClick(view->canvas(), Qt::LeftButton, {}, r.center().toPoint());
        QCOMPARE(spy.count(), 1);
        const auto positions = spy.at(0).at(0).value<std::vector<EventPosition>>();
        const Event &ev = w.controller()->session()->blocks[std::size_t(positions.at(0).block)].events[std::size_t(
            positions.at(0).event)];
        QCOMPARE(ev.instructionId, 9);
        QCOMPARE(QString::fromUtf8(ev.name.data(), qsizetype(ev.name.size())), QStringLiteral("native_call_gelu.out"));
        // Details of that event: the program's view of instruction 9 (gelu.out: input %45, the
        // approximate %46, the out tensor %47 at arena 1 offset 50176 per `etscope-cli memory`).
        const auto rows = w.memoryPanel()->programRows(positions.at(0).block, positions.at(0).event);
        QVERIFY(rows.contains(qMakePair(QStringLiteral("operator"), QStringLiteral("aten::gelu"))));
        QVERIFY(rows.contains(qMakePair(QStringLiteral("overload"), QStringLiteral("out"))));
        QVERIFY(rows.contains(
            qMakePair(QStringLiteral("argument 2"), QStringLiteral("%47 float32[1, 16, 8, 8] @1:50176"))));
        if (const QByteArray shot = qgetenv("ETSCOPE_MEMORY_WINDOW_SHOT"); !shot.isEmpty())
            w.grab().save(QString::fromLocal8Bit(shot));
    }

    void refusesAnotherProgram()
    {
        MainWindow w(quietOptions());
        w.show();
        const QString etdump = fixture("runtime/cnn_mlp_50runs/etdump.etdp");
        QVERIFY(w.controller()->openFilesSync({ etdump }));
        const QString pte = fixture("runtime/add_pte_50runs/add.pte");
        QVERIFY(w.openPrograms({ pte }).isEmpty());
        QCOMPARE(w.lastError(),
            pte + QStringLiteral(": program does not match ") + etdump
                + QStringLiteral(
                    ": kernel 'native_call_convolution.out' at instruction 0 but the program calls add.out "
                    "there"));
        QCOMPARE(w.memoryPanel()->view()->model()->rowCount(), 0);
    }

    // No ETRecord: the Graph dock draws the paired .pte's instruction graph (4 instructions of
    // xnn_mlp: two XNNPACK calls, native_layer_norm, argmax; fixture README), events on their
    // instruction's node.
    void graphOfThePteWithoutETRecord()
    {
        MainWindow w(quietOptions());
        w.resize(1500, 920);
        w.show();
        const QString dir = fixture("runtime/xnnpack_mlp_intermediates/");
        const QStringList rest = w.openPrograms({ dir + u"xnn_mlp.pte"_qs, dir + u"etdump.etdp"_qs });
        QVERIFY(w.controller()->openFilesSync(rest));
        QVERIFY(!w.controller()->session()->etrecord);
        GraphView *view = w.graphDock()->view();
        QVERIFY(view->waitForLayout());
        const graph::ProgramGraph *g = view->programGraph();
        QVERIFY(g && g->drawnFromProgram());
        QCOMPARE(g->nodes().size(), std::size_t(4));
        QCOMPARE(g->partitions().size(), std::size_t(2));
        QVERIFY(view->overlayData().hasLatency());
    }
};

QTEST_MAIN(TestMemoryPanel)
#include "tst_memorypanel.moc"
