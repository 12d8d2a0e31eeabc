// EventTreeModel + EventFilterProxy on half a million rows (a profile whose events do not
// merge): sorting by any column and filtering stay correct under QAbstractItemModelTester.
// Not timed (speed is in the benchmarks).
//
// Input: one run of 250,000 kernels written with the test ETDumpWriter: kernel i is
// native_call_<op i % 5> with a duration of kernelNs(i) (a permutation, so every duration is
// distinct) nested in its OPERATOR_CALL, i.e. 500,000 event rows. Expected orders and counts
// follow from those formulas alone, never from the model.
#include "etdumpwriter.h"
#include "eventfilterproxy.h"
#include "eventtreemodel.h"
#include "modelroles.h"

#include <QAbstractItemModelTester>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <fstream>

using namespace etscope;

namespace {
constexpr int kKernels = 250'000;
const char *const kOps[] = { "convolution.out", "Relu.out", "addmm.out", "mean.out", "Add.out" };

// 7919 is prime to kKernels, so i -> i * 7919 % kKernels is a permutation: distinct durations.
std::uint64_t kernelNs(int i)
{
    return 1'000 + std::uint64_t(i) * 7919 % kKernels;
}

std::shared_ptr<const Session> makeSession(const QString &dir)
{
    test::ETDumpWriter w;
    w.beginRun("Execute");
    std::uint64_t t = 1'000'000;
    for (int i = 0; i < kKernels; ++i) {
        w.addKernel(kOps[i % 5], i, t, kernelNs(i), 100);
        t += kernelNs(i) + 200;
    }
    const std::string path = QString(dir + QStringLiteral("/big.etdp")).toStdString();
    std::ofstream(path, std::ios::binary) << w.finish();
    SessionInputs in;
    in.etdump = path;
    in.time.target = TimeScale::NS; // durations in ns: the kernel's avg is kernelNs(i) exactly
    auto s = loadSession(in);
    if (!s)
        qFatal("%s", s.error().message().c_str());
    return *s;
}
} // namespace

class TestEventTreeModelScale : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void sortAndFilterHalfAMillionRows()
    {
        QTemporaryDir dir;
        EventTreeModel model;
        EventFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSession(makeSession(dir.path()));
        QCOMPARE(proxy.rowCount(), 1);
        const auto block = [&] { return proxy.index(0, 0); };
        QCOMPARE(proxy.rowCount(block()), 2 * kKernels);

        // By avg, descending: the kernels' OPERATOR_CALLs (kernel + 100 ns) and kernels interleave;
        // the largest is the OPERATOR_CALL of the slowest kernel, 1000 + 249,999 + 100 ns.
        proxy.sort(EventTreeModel::AvgColumn, Qt::DescendingOrder);
        QCOMPARE(proxy.rowCount(block()), 2 * kKernels);
        double previous = 1e300;
        for (int r = 0; r < proxy.rowCount(block()); ++r) {
            const double v = proxy.index(r, EventTreeModel::AvgColumn, block()).data(SortRole).toDouble();
            QVERIFY2(v <= previous, qPrintable(QStringLiteral("row %1").arg(r)));
            previous = v;
        }
        QCOMPARE(proxy.index(0, EventTreeModel::AvgColumn, block()).data(SortRole).toDouble(), 1000.0 + 249'999 + 100);
        QCOMPARE(proxy.index(0, 0, block()).data().toString(), QStringLiteral("OPERATOR_CALL"));
        // The first kernel row is the slowest kernel (OPERATOR_CALLs of slightly faster kernels,
        // +100 ns of dispatch, rank above it).
        int slowest = 0;
        for (int i = 0; i < kKernels; ++i)
            if (kernelNs(i) > kernelNs(slowest))
                slowest = i;
        int firstKernelRow = 0;
        while (proxy.index(firstKernelRow, 0, block()).data().toString() == QStringLiteral("OPERATOR_CALL"))
            ++firstKernelRow;
        QVERIFY(firstKernelRow >= 100 && firstKernelRow <= 101);
        QCOMPARE(proxy.index(firstKernelRow, 0, block()).data().toString(),
            QStringLiteral("native_call_") + QString::fromLatin1(kOps[slowest % 5]));
        QCOMPARE(proxy.index(firstKernelRow, EventTreeModel::InstructionColumn, block()).data().toInt(), slowest);

        // By name, ascending and case-insensitive (as SortRole compares): five kernel names and
        // OPERATOR_CALL.
        proxy.sort(EventTreeModel::NameColumn, Qt::AscendingOrder);
        QString prevName;
        for (int r = 0; r < proxy.rowCount(block()); r += 997) {
            const QString name = proxy.index(r, 0, block()).data().toString();
            QVERIFY2(QString::compare(prevName, name, Qt::CaseInsensitive) <= 0,
                qPrintable(prevName + QStringLiteral(" > ") + name));
            prevName = name;
        }
        // "native_call_Add.out" < "native_call_addmm.out" case-insensitively: first 50,000 rows.
        QCOMPARE(proxy.index(0, 0, block()).data().toString(), QStringLiteral("native_call_Add.out"));
        QCOMPARE(proxy.index(kKernels / 5, 0, block()).data().toString(), QStringLiteral("native_call_addmm.out"));
        QCOMPARE(proxy.index(2 * kKernels - 1, 0, block()).data().toString(), QStringLiteral("OPERATOR_CALL"));

        // Filtering: substring, case-insensitive; one kernel name in five.
        proxy.setFilterText(QStringLiteral("RELU"), false);
        QCOMPARE(proxy.rowCount(block()), kKernels / 5);
        for (int r = 0; r < proxy.rowCount(block()); r += 1009)
            QCOMPARE(proxy.index(r, 0, block()).data().toString(), QStringLiteral("native_call_Relu.out"));
        proxy.setFilterText(QStringLiteral("_(add|mean)"), true); // addmm, Add and mean
        QCOMPARE(proxy.rowCount(block()), 3 * kKernels / 5);
        proxy.setFilterText(QStringLiteral("("), true); // invalid regex: nothing, no crash
        QCOMPARE(proxy.rowCount(), 0);
        proxy.setFilterText(QString(), false);
        proxy.setHideOperatorCalls(true);
        QCOMPARE(proxy.rowCount(block()), kKernels);
        // Sorted and filtered together, by a column sorted before (keys are reused).
        proxy.sort(EventTreeModel::AvgColumn, Qt::AscendingOrder);
        QCOMPARE(proxy.index(0, EventTreeModel::AvgColumn, block()).data(SortRole).toDouble(), 1000.0);
        QCOMPARE(proxy.index(kKernels - 1, EventTreeModel::AvgColumn, block()).data(SortRole).toDouble(),
            1000.0 + kKernels - 1);
    }
};

QTEST_GUILESS_MAIN(TestEventTreeModelScale)
#include "tst_eventtreemodel_scale.moc"
