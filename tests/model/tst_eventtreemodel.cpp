// EventTreeModel + EventFilterProxy on real runtime fixtures.
// Expected values: row counts and durations from inspector-semantics.md §12 (docs_tutorial,
// worked by hand from the flatc --json decode) and the fixture READMEs (event counts per name).
#include "eventfilterproxy.h"
#include "eventtreemodel.h"
#include "modelroles.h"

#include <QAbstractItemModelTester>
#include <QtTest>

using namespace etscope;

namespace {
QString fixture(const char *rel)
{
    return QStringLiteral(ETSCOPE_SHARED_DIR "/fixtures/") + QString::fromUtf8(rel);
}

std::shared_ptr<const Session> load(const QString &etdump, const QString &buffer = {}, TimeScale target = TimeScale::MS)
{
    SessionInputs in;
    in.etdump = etdump.toStdString();
    in.debugBuffer = buffer.toStdString();
    in.time.target = target;
    auto r = loadSession(in);
    if (!r)
        qFatal("%s", r.error().message().c_str());
    return r.value();
}

QModelIndex childNamed(const QAbstractItemModel &m, const QModelIndex &parent, const QString &name)
{
    for (int r = 0; r < m.rowCount(parent); ++r)
        if (m.index(r, 0, parent).data().toString() == name)
            return m.index(r, 0, parent);
    return {};
}
} // namespace

class TestEventTreeModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void docsTutorialShape()
    {
        EventTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSession(load(fixture("upstream/docs_tutorial.etdp")));
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("Default"));
        QCOMPARE(model.rowCount(model.index(0, 0)), 2);
        QCOMPARE(model.index(1, 0).data().toString(), QStringLiteral("Execute"));
        QCOMPARE(model.rowCount(model.index(1, 0)), 29);
        // §12: Method::execute is last in Execute, 1.898821 ms.
        const QModelIndex exec = model.index(28, EventTreeModel::AvgColumn, model.index(1, 0));
        QCOMPARE(exec.siblingAtColumn(0).data().toString(), QStringLiteral("Method::execute"));
        QCOMPARE(exec.data().toString(), QStringLiteral("1.89882"));
        QVERIFY(qAbs(exec.data(SortRole).toDouble() - 1.898821) < 1e-9);
        QCOMPARE(model.headerData(EventTreeModel::AvgColumn, Qt::Horizontal).toString(), QStringLiteral("avg (ms)"));
    }

    void sortByAvgIsNumeric()
    {
        EventTreeModel model;
        EventFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        // In ns the durations are integers of different lengths (100 … 1898821), so a text
        // sort would put "1031719" before "8394"; only a numeric sort gives the order below.
        model.setSession(load(fixture("upstream/docs_tutorial.etdp"), {}, TimeScale::NS));
        proxy.sort(EventTreeModel::AvgColumn, Qt::AscendingOrder);
        QModelIndex execute = proxy.index(1, 0);
        QCOMPARE(execute.data().toString(), QStringLiteral("Execute"));
        QStringList firstNames;
        double prev = -1;
        for (int r = 0; r < proxy.rowCount(execute); ++r) {
            const double v = proxy.index(r, EventTreeModel::AvgColumn, execute).data(SortRole).toDouble();
            QVERIFY2(v >= prev, qPrintable(QStringLiteral("row %1 out of order").arg(r)));
            prev = v;
            if (r < 3)
                firstNames << proxy.index(r, 0, execute).data().toString();
        }
        // §12: relu 0.0001 ms (100 ns), relu 0.000151 ms, OPERATOR_CALL 0.00026 ms.
        QCOMPARE(firstNames,
            (QStringList { QStringLiteral("native_call_relu.out"), QStringLiteral("native_call_relu.out"),
                QStringLiteral("OPERATOR_CALL") }));
        QCOMPARE(proxy.index(0, EventTreeModel::AvgColumn, execute).data().toString(), QStringLiteral("100"));
        // The source orders its rows itself: what the view holds (persistent indexes) follows.
        const QPersistentModelIndex fastest(proxy.index(0, EventTreeModel::AvgColumn, execute));
        const int rows = proxy.rowCount(execute);
        proxy.sort(EventTreeModel::AvgColumn, Qt::DescendingOrder);
        QCOMPARE(fastest.data().toString(), QStringLiteral("100"));
        QCOMPARE(fastest.row(), rows - 1); // the unique fastest row is last now
        QCOMPARE(proxy.sortColumn(), int(EventTreeModel::AvgColumn));
        QCOMPARE(proxy.sortOrder(), Qt::DescendingOrder);
        execute = proxy.index(1, 0); // a plain QModelIndex does not outlive a layout change
        QCOMPARE(execute.data().toString(), QStringLiteral("Execute"));
        QCOMPARE(proxy.index(0, 0, execute).data().toString(), QStringLiteral("Method::execute"));
        QCOMPARE(proxy.index(1, 0, execute).data().toString(), QStringLiteral("OPERATOR_CALL")); // 1032230 ns
        QCOMPARE(
            proxy.index(2, 0, execute).data().toString(), QStringLiteral("native_call_convolution.out")); // 1031719
    }

    void filterNarrowsRows()
    {
        EventTreeModel model;
        EventFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSession(load(fixture("upstream/docs_tutorial.etdp")));
        proxy.setFilterText(QStringLiteral("ADDMM"), false); // case-insensitive substring
        QCOMPARE(proxy.rowCount(), 1); // Default has no addmm: only Execute survives
        QCOMPARE(proxy.rowCount(proxy.index(0, 0)), 3);
        proxy.setFilterText(QStringLiteral("^native_call_(relu|addmm)"), true);
        QCOMPARE(proxy.rowCount(proxy.index(0, 0)), 7); // 4 relu + 3 addmm
        proxy.setFilterText(QStringLiteral("(unclosed"), true);
        QVERIFY(!proxy.isFilterValid());
        QCOMPARE(proxy.rowCount(), 0);
        proxy.setFilterText({}, false);
        proxy.setHideOperatorCalls(true);
        QCOMPARE(proxy.rowCount(proxy.index(1, 0)), 15); // 29 - 14 OPERATOR_CALL
        proxy.setHideFramework(true);
        QCOMPARE(proxy.rowCount(), 1); // Default holds only framework events
        QCOMPARE(proxy.rowCount(proxy.index(0, 0)), 14);
    }

    void delegateEventsNestUnderDelegateCall()
    {
        EventTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QString dir = fixture("runtime/xnnpack_mlp_intermediates/");
        model.setSession(load(dir + QStringLiteral("etdump.etdp"), dir + QStringLiteral("debug_output.bin")));
        const QModelIndex execute = childNamed(model, {}, QStringLiteral("Execute"));
        QVERIFY(execute.isValid());
        // README: two DELEGATE_CALLs; XNNPACK logs 4 operators in the first partition
        // (GEMM #1, GEMM #2, Add, GELU) and 4 in the second (GEMM #1, TanH, GEMM #2, Softmax).
        QList<int> childCounts;
        int topLevelDelegated = 0;
        for (int r = 0; r < model.rowCount(execute); ++r) {
            const QModelIndex i = model.index(r, 0, execute);
            if (i.data().toString() == QStringLiteral("DELEGATE_CALL")) {
                childCounts << model.rowCount(i);
                for (int c = 0; c < model.rowCount(i); ++c)
                    QVERIFY(model.index(c, 0, i).data(IsDelegatedRole).toBool());
            }
            if (i.data(IsDelegatedRole).toBool())
                ++topLevelDelegated;
        }
        QCOMPARE(childCounts, (QList<int> { 4, 4 }));
        QCOMPARE(topLevelDelegated, 0);

        EventFilterProxy proxy;
        proxy.setSourceModel(&model);
        proxy.setDelegatedOnly(true);
        const QModelIndex pExec = proxy.index(0, 0);
        QCOMPARE(pExec.data().toString(), QStringLiteral("Execute"));
        // The DELEGATE_CALLs stay as parents of the matching delegated events.
        QCOMPARE(proxy.rowCount(pExec), 2);
        QCOMPARE(proxy.rowCount(proxy.index(0, 0, pExec)) + proxy.rowCount(proxy.index(1, 0, pExec)), 8);
    }

    void fiftyRunsPerEvent()
    {
        EventTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSession(load(fixture("runtime/cnn_mlp_50runs/etdump.etdp")));
        const QModelIndex execute = childNamed(model, {}, QStringLiteral("Execute"));
        QVERIFY(execute.isValid());
        // README: 28 instructions → 28 native_call + 28 OPERATOR_CALL + Method::execute.
        QCOMPARE(model.rowCount(execute), 57);
        for (int r = 0; r < model.rowCount(execute); ++r)
            QCOMPARE(model.index(r, EventTreeModel::RunsColumn, execute).data().toString(), QStringLiteral("50"));
        const QModelIndex idx = model.indexForEvent(1, 56);
        QCOMPARE(model.eventAt(idx)->name, std::string("Method::execute"));
    }

    void backendOpColumn()
    {
        // etscope's own column: the operator decoded from the backend's event names. Expected
        // labels from the authored Vulkan ETDump's README (tests/data/backend/vulkan_stem, events
        // transcribed from VulkanBackend.cpp / DispatchNode.cpp) and the real XNNPACK names.
        EventTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSession(load(QStringLiteral(ETSCOPE_TEST_DATA_DIR "/backend/vulkan_stem/etdump.etdp")));
        QCOMPARE(model.columnCount(), int(EventTreeModel::NUM_COLUMNS));
        QCOMPARE(model.headerData(EventTreeModel::BackendOpColumn, Qt::Horizontal).toString(),
            QStringLiteral("Backend op (etscope)"));
        QVERIFY(model.headerData(EventTreeModel::BackendOpColumn, Qt::Horizontal, Qt::ToolTipRole)
                    .toString()
                    .startsWith(QStringLiteral("etscope:")));
        const QModelIndex execute = childNamed(model, {}, QStringLiteral("Execute"));
        const QModelIndex call = childNamed(model, execute, QStringLiteral("DELEGATE_CALL"));
        QVERIFY(call.isValid());
        const QStringList expected { QStringLiteral("phase: copy inputs"),
            QStringLiteral("phase: compute graph execute"),
            QStringLiteral("staging copy (nchw_to_image_texture3d_float_float)"),
            QStringLiteral("aten.convolution.default"), QStringLiteral("aten.relu.default"),
            QStringLiteral("staging copy (image_to_nchw_texture3d_float_float)"), QStringLiteral("phase: copy outputs"),
            QStringLiteral("phase: execute") };
        QCOMPARE(model.rowCount(call), int(expected.size()));
        for (int r = 0; r < model.rowCount(call); ++r)
            QCOMPARE(model.index(r, EventTreeModel::BackendOpColumn, call).data().toString(), expected[r]);
        QVERIFY(call.siblingAtColumn(EventTreeModel::BackendOpColumn).data().toString().isEmpty());
        const QString tip = model.index(3, EventTreeModel::BackendOpColumn, call).data(Qt::ToolTipRole).toString();
        QVERIFY(tip.contains(QStringLiteral("kernel: conv2d_float")));
        QVERIFY(tip.contains(QStringLiteral("arg 0: TENSOR Float [1, 3, 16, 16] TEXTURE_3D packed_dim 2")));
        // The name column keeps the raw name; the filter finds the decoded operator.
        QVERIFY(model.index(3, 0, call).data().toString().startsWith(QStringLiteral("{\"operator\"")));
        QVERIFY(model.filterTextAt(model.index(3, 0, call)).contains(QStringLiteral("aten.convolution.default")));
        QCOMPARE(model.filterKey(model.index(3, 0, call)), -1);

        // Sorting by the column orders the delegate call's children by the decoded text.
        model.sort(EventTreeModel::BackendOpColumn);
        QCOMPARE(model.index(0, EventTreeModel::BackendOpColumn, call).data().toString(),
            QStringLiteral("aten.convolution.default"));
        QCOMPARE(model.index(7, EventTreeModel::BackendOpColumn, call).data().toString(),
            QStringLiteral("staging copy (nchw_to_image_texture3d_float_float)"));
        model.sort(-1);

        // The real XNNPACK fixture: README names, first partition in file order.
        const QString dir = fixture("runtime/xnnpack_mlp_intermediates/");
        model.setSession(load(dir + QStringLiteral("etdump.etdp"), dir + QStringLiteral("debug_output.bin")));
        const QModelIndex xe = childNamed(model, {}, QStringLiteral("Execute"));
        const QModelIndex first = childNamed(model, xe, QStringLiteral("DELEGATE_CALL"));
        const QStringList ops { QStringLiteral("Fully Connected"), QStringLiteral("Fully Connected"),
            QStringLiteral("Add"), QStringLiteral("GELU") };
        for (int r = 0; r < 4; ++r)
            QCOMPARE(model.index(r, EventTreeModel::BackendOpColumn, first).data().toString(), ops[r]);
        // Rows without a backend event stay empty.
        QVERIFY(childNamed(model, xe, QStringLiteral("OPERATOR_CALL"))
                    .siblingAtColumn(EventTreeModel::BackendOpColumn)
                    .data()
                    .toString()
                    .isEmpty());
    }

    // With the program, each XNNPACK operator row names the payload node it ran and its tensors.
    // Expected from the fixture's README and xnn_mlp.xnnpack_graphs.json (flatc): delegate 0 is
    // FullyConnected x[1, 64] -> [1, 128], FullyConnected, Add, Gelu, its events logged in that order.
    void delegateNodeColumn()
    {
        const QString dir = fixture("runtime/xnnpack_mlp_intermediates/");
        SessionInputs in;
        in.etdump = QString(dir + QStringLiteral("etdump.etdp")).toStdString();
        in.program = QString(dir + QStringLiteral("xnn_mlp.pte")).toStdString();
        auto s = loadSession(in);
        QVERIFY(s.ok());
        EventTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSession(*s);
        QCOMPARE(model.headerData(EventTreeModel::DelegateNodeColumn, Qt::Horizontal).toString(),
            QStringLiteral("Delegate node (etscope)"));
        const QModelIndex xe = childNamed(model, {}, QStringLiteral("Execute"));
        const QModelIndex first = childNamed(model, xe, QStringLiteral("DELEGATE_CALL"));
        const QStringList nodes { QStringLiteral("0 FullyConnected fp32[1, 64] -> fp32[1, 128] (by order)"),
            QStringLiteral("1 FullyConnected fp32[1, 128] -> fp32[1, 128] (by order)"),
            QStringLiteral("2 Add fp32[1, 128] -> fp32[1, 128] (by order)"),
            QStringLiteral("3 Gelu fp32[1, 128] -> fp32[1, 128] (by order)") };
        for (int r = 0; r < 4; ++r)
            QCOMPARE(model.index(r, EventTreeModel::DelegateNodeColumn, first).data().toString(), nodes[r]);
        const QString tip = model.index(0, EventTreeModel::DelegateNodeColumn, first).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.startsWith(QStringLiteral("XNNPACK FullyConnected node 0 (of 4)")), qPrintable(tip));
        QVERIFY2(
            tip.contains(QStringLiteral("in  v0: fp32[1, 64] (graph input, argument 0 of the call)")), qPrintable(tip));
        QVERIFY(tip.endsWith(QStringLiteral("the backend logs no node id)")));
        // The filter finds rows by their node.
        QVERIFY(model.filterTextAt(model.index(3, 0, first)).contains(QStringLiteral("Gelu")));
        QVERIFY(first.siblingAtColumn(EventTreeModel::DelegateNodeColumn).data().toString().isEmpty());
        // Without the program the column is empty.
        model.setSession(load(dir + QStringLiteral("etdump.etdp")));
        QVERIFY(model
                    .index(0, EventTreeModel::DelegateNodeColumn,
                        childNamed(
                            model, childNamed(model, {}, QStringLiteral("Execute")), QStringLiteral("DELEGATE_CALL")))
                    .data()
                    .toString()
                    .isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestEventTreeModel)
#include "tst_eventtreemodel.moc"
