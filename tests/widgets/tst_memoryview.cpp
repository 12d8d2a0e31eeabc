// The memory plan's Qt model under QAbstractItemModelTester, and the Memory panel: rectangles
// where the plan puts tensors, clicks that name the instruction, figures with the allocations.
#include "testpaths.h"

#include "memoryplanmodel.h"
#include "memoryview.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace etscope;
using etscope::test::sharedFixture;

class TestMemoryView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void modelTester()
    {
        MemoryPlanModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        auto prog = Program::open(sharedFixture("runtime/cnn_mlp_50runs/cnn_mlp.pte"));
        QVERIFY(prog.ok());
        model.setPlan(*prog, &(*prog)->methods()[0]);
        // 32 planned tensors (tests/data/program/expected_memory.json, cnn_mlp).
        QCOMPARE(model.rowCount(), 32);
        QCOMPARE(model.index(0, MemoryPlanModel::Shape).data().toString(), QStringLiteral("float32[1, 3, 16, 16]"));
        QCOMPARE(model.index(0, MemoryPlanModel::Producer).data().toString(), QStringLiteral("aten::convolution.out"));
        QCOMPARE(model.rowOfValue(47), 11); // index of value 47 among the expected tensors
        model.setPlan(nullptr, nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void clickSelectsInstruction()
    {
        auto prog = Program::open(ETSCOPE_PROGRAM_BUILD_DIR "/reuse.pte");
        QVERIFY(prog.ok());
        MemoryView view;
        view.resize(900, 600);
        view.setProgram(*prog, &(*prog)->methods()[0], { { 1, "Load", "planned_memory", 1, 1024, 1024 } });
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        MemoryPlanCanvas *canvas = view.canvas();
        // Value 3 = relu(2) over value 1's bytes (offset 256 of 768), instructions 2..3: its
        // rectangle starts at 2/7 of the width and a third of the way down arena 1.
        const int row = view.model()->rowOfValue(3);
        const QRectF r = canvas->tensorRect(row);
        const QRectF r1 = canvas->tensorRect(view.model()->rowOfValue(1));
        QCOMPARE(r.top(), r1.top());
        QVERIFY(qAbs(r.width() - 2 * r1.width() / 2) < 1.0); // both span two instructions
        QCOMPARE(canvas->tensorAt(r.center()), row);
        QSignalSpy spy(&view, &MemoryView::instructionActivated);
        QTest::mouseClick(canvas, Qt::LeftButton, {}, r.center().toPoint());
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toInt(), 2);
        const QString figures = view.figuresText();
        QVERIFY2(figures.contains(QStringLiteral("Peak live <b>768 B</b> at instruction 3 (aten::add.out)")),
            qPrintable(figures));
        QVERIFY(figures.contains(QStringLiteral("ETDump planned_memory: 1 allocations, 1024 B")));
        if (const QByteArray shot = qgetenv("ETSCOPE_MEMORY_SHOT"); !shot.isEmpty()) {
            auto cnn = Program::open(sharedFixture("runtime/cnn_mlp_alloc_events/cnn_mlp.pte"));
            view.setProgram(*cnn, &(*cnn)->methods()[0], {});
            view.resize(1200, 800);
            QTest::qWait(50);
            view.grab().save(QString::fromLocal8Bit(shot));
        }
    }

    // Weights in a .ptd and an arena on the GPU (tests/data/program/external.program.json, by
    // hand: forward's external tensors are linear.weight 3x4, linear.bias 3 and the mutable
    // state.cache 2x3, float32: 48 + 12 + 24 = 84 bytes; arena 2 is listed in
    // non_const_buffer_device as CUDA 0, and state.cache lives in it).
    void externalDataAndDevices()
    {
        auto prog = Program::open(ETSCOPE_PROGRAM_BUILD_DIR "/external.pte");
        QVERIFY(prog.ok());
        MemoryView view;
        view.resize(900, 600);
        view.setProgram(*prog, &(*prog)->methods()[0], {});
        const QString figures = view.figuresText();
        QVERIFY2(figures.contains(u"External: 3 tensors, 84 B in the .ptd"_qs), qPrintable(figures));
        QVERIFY2(figures.contains(u"arena 2: 64 B"_qs), qPrintable(figures));
        QVERIFY2(figures.contains(u"on cuda:0"_qs), qPrintable(figures));
        QCOMPARE(figures.count(u" on cuda:0"_qs), 1); // arena 2 only: arena 1 is on the CPU
    }
};

QTEST_MAIN(TestMemoryView)
#include "tst_memoryview.moc"
