// The Program (memory) panel in the window: a .pte opened with its ETDump goes through the session,
// is sniffed by content and paired (or refused with the reason), the ETDump's allocations
// appear beside the plan, and a click on a tensor selects its instruction's event. Expected values:
// tests/data/program/expected_memory.json (cnn_mlp: 32 planned tensors; %47 made by instruction 9, aten::gelu.out) and
// the fixture READMEs.
#include "graph/programgraph.h"
#include "graphdock.h"
#include "graphview.h"
#include "mainwindow.h"
#include "memorypanel.h"
#include "memoryplanmodel.h"
#include "memoryview.h"
#include "panel.h"
#include "program/memoryplan.h"
#include "sessioncontroller.h"
#include "windowtest.h"

#include <QComboBox>
#include <QSignalSpy>
#include <QTest>

using namespace etscope;

class TestMemoryPanel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void pairsAndSelects()
    {
        MainWindow w(test::quietWindow());
        w.resize(1500, 920);
        w.show();
        const QString pte = test::fixturePath("runtime/cnn_mlp_alloc_events/cnn_mlp.pte");
        const QString etdump = test::fixturePath("runtime/cnn_mlp_alloc_events/etdump.etdp");
        QVERIFY(w.controller()->openFilesSync({ pte, etdump }));
        QCOMPARE(QString::fromStdString(w.controller()->session()->inputs.program), pte);
        MemoryView *view = test::part<MemoryPanel>(w)->view();
        QCOMPARE(view->model()->rowCount(), 32);
        QVERIFY2(view->figuresText().contains(QStringLiteral("ETDump planned_memory: 1 allocations, 133840 B")),
            qPrintable(view->figuresText()));

        QSignalSpy spy(test::selection(w), &EventSelection::selectionRequested);
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
        const auto instruction
            = w.controller()->session()->instructionOfEvent(positions.at(0).block, positions.at(0).event);
        QCOMPARE(instruction.value_or(0), std::size_t(9));
        QList<QPair<QString, QString>> rows;
        for (const auto &[label, value] : instructionDetails(*w.controller()->session()->method, *instruction))
            rows.append({ QString::fromStdString(label), QString::fromStdString(value) });
        QVERIFY(rows.contains(qMakePair(QStringLiteral("operator"), QStringLiteral("aten::gelu"))));
        QVERIFY(rows.contains(qMakePair(QStringLiteral("overload"), QStringLiteral("out"))));
        QVERIFY(rows.contains(
            qMakePair(QStringLiteral("argument 2"), QStringLiteral("%47 float32[1, 16, 8, 8] @1:50176"))));
        if (const QByteArray shot = qgetenv("ETSCOPE_MEMORY_WINDOW_SHOT"); !shot.isEmpty())
            w.grab().save(QString::fromLocal8Bit(shot));
    }

    void refusesAnotherProgram()
    {
        MainWindow w(test::quietWindow());
        w.show();
        const QString etdump = test::fixturePath("runtime/cnn_mlp_50runs/etdump.etdp");
        QVERIFY(w.controller()->openFilesSync({ etdump }));
        const QString pte = test::fixturePath("runtime/add_pte_50runs/add.pte");
        // Opened onto the recording, it must belong to it: refused with the reason, nothing changes.
        QVERIFY(!w.controller()->openFilesSync({ pte }));
        QCOMPARE(test::lastError(w),
            pte + QStringLiteral(": program does not match ") + etdump
                + QStringLiteral(
                    ": kernel 'native_call_convolution.out' at instruction 0 but the program calls add.out "
                    "there"));
        QCOMPARE(QString::fromStdString(w.controller()->session()->inputs.etdump), etdump);
        QVERIFY(!w.controller()->session()->program);
        QCOMPARE(test::part<MemoryPanel>(w)->view()->model()->rowCount(), 0);
    }

    // Issue 28, problem 6: a .pte opened alone is a window of its own — named in the title and the
    // status bar, the drop hint gone, every method offered and switched, the program's overview,
    // no "peak at instruction -1". two_methods.pte (tests/data/program/two_methods.program.json)
    // has "forward" (7 KernelCall instructions) and "step" (8 instructions), counted in its JSON.
    void programAloneIsAWindow()
    {
        MainWindow w(test::quietWindow());
        w.resize(1280, 720);
        w.show();
        const QString pte = QStringLiteral(ETSCOPE_PROGRAM_BUILD_DIR "/two_methods.pte");
        QVERIFY(w.controller()->openFilesSync({ pte }));
        QCOMPARE(w.windowTitle(), QStringLiteral("two_methods.pte — etscope"));
        QVERIFY2(test::summaryText(w).contains(
                     QStringLiteral("two_methods.pte · program · 2 methods · forward: 7 instructions")),
            qPrintable(test::summaryText(w)));
        QVERIFY2(!test::messageText(w).contains(QStringLiteral("Drop an ETDump")), qPrintable(test::messageText(w)));
        QComboBox *box = test::part<MemoryPanel>(w)->methodBox();
        QCOMPARE(box->count(), 2);
        QVERIFY(box->isEnabled());
        QCOMPARE(box->currentText(), QStringLiteral("forward"));
        QVERIFY(test::part<MemoryPanel>(w)->overviewText().contains(QStringLiteral("step")));
        QVERIFY2(!test::part<MemoryPanel>(w)->view()->figuresText().contains(QStringLiteral("instruction -1")),
            qPrintable(test::part<MemoryPanel>(w)->view()->figuresText()));
        QVERIFY(test::part<MemoryPanel>(w)->pairingText().contains(QStringLiteral("no ETDump")));
        // The instruction graph of the method shown.
        GraphView *graph = w.graphDock()->view();
        QVERIFY(graph->waitForLayout());
        QVERIFY(graph->programGraph() && graph->programGraph()->drawnFromProgram());
        QCOMPARE(graph->programGraph()->nodes().size(), std::size_t(7));

        QSignalSpy loaded(w.controller(), &SessionController::loadFinished);
        w.controller()->selectMethod(QStringLiteral("step"));
        QVERIFY(loaded.wait(10000));
        QCOMPARE(w.controller()->session()->method->name(), std::string("step"));
        QCOMPARE(box->currentText(), QStringLiteral("step"));
        QVERIFY2(
            test::summaryText(w).contains(QStringLiteral("step: 8 instructions")), qPrintable(test::summaryText(w)));
        QVERIFY(graph->waitForLayout());
        // Operator nodes only: 5 of step's 8 instructions are KernelCalls (the others jump, move
        // and free).
        QCOMPARE(graph->programGraph()->nodes().size(), std::size_t(5));
        if (const QByteArray shot = qgetenv("ETSCOPE_PROGRAM_ALONE_SHOT"); !shot.isEmpty())
            w.grab().save(QString::fromLocal8Bit(shot));
    }

    // A program shown alone waits for its ETDump; an ETDump of another program still loads, the
    // program left out with the reason (the same text as the refusal above).
    void waitingProgramNeverBlocksTheETDump()
    {
        MainWindow w(test::quietWindow());
        w.show();
        const QString pte = test::fixturePath("runtime/add_pte_50runs/add.pte");
        const QString etdump = test::fixturePath("runtime/cnn_mlp_50runs/etdump.etdp");
        QVERIFY(w.controller()->openFilesSync({ pte }));
        QVERIFY(!w.controller()->session()->etdump);
        QVERIFY(w.controller()->openFilesSync({ etdump }));
        QCOMPARE(QString::fromStdString(w.controller()->session()->inputs.etdump), etdump);
        QVERIFY(!w.controller()->session()->program);
        QVERIFY2(test::messageText(w).contains(pte + QStringLiteral(": program does not match ") + etdump),
            qPrintable(test::messageText(w)));
        QVERIFY(test::part<MemoryPanel>(w)->pairingText().contains(QStringLiteral("program does not match")));
    }

    // No ETRecord: the Graph dock draws the paired .pte's instruction graph (4 instructions of
    // xnn_mlp: two XNNPACK calls, native_layer_norm, argmax; fixture README), events on their
    // instruction's node.
    void graphOfThePteWithoutETRecord()
    {
        MainWindow w(test::quietWindow());
        w.resize(1500, 920);
        w.show();
        const QString dir = test::fixturePath("runtime/xnnpack_mlp_intermediates/");
        QVERIFY(w.controller()->openFilesSync({ dir + u"xnn_mlp.pte"_qs, dir + u"etdump.etdp"_qs }));
        QVERIFY(!w.controller()->session()->etrecord);
        GraphView *view = w.graphDock()->view();
        QVERIFY(view->waitForLayout());
        const graph::ProgramGraph *g = view->programGraph();
        QVERIFY(g && g->drawnFromProgram());
        // 4 instructions and the 4 + 4 nodes of the two XNNPACK payloads (README), which start
        // collapsed: 4 boxes drawn.
        QCOMPARE(g->nodes().size(), std::size_t(4 + 8));
        QCOMPARE(view->visible().items.size(), std::size_t(4));
        QCOMPARE(g->partitions().size(), std::size_t(2));
        QVERIFY(view->overlayData().hasLatency());
    }
};

QTEST_MAIN(TestMemoryPanel)
#include "tst_memorypanel.moc"
