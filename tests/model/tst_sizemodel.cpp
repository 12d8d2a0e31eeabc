// The Size tree (model/sizemodel.h) over the real XNNPACK program of the runtime
// (runtime/xnnpack_mlp_intermediates/xnn_mlp.pte), checked with QAbstractItemModelTester. Expected
// values, derived without etscope: the file's size from the file system; its top-level parts
// from the hand count of tests/tools/gen_size_expected.py (extended header and `flatc --json`
// segment table, tests/data/program/expected_size.json — what `etscope-cli size` must print);
// the shares are those numbers divided by the file size. Inside the first XNNPACK payload, the
// constant data is 99,328 bytes of its 100,432 (its XH00 header's constant-data size, as
// tests/program/tst_programsize.cpp reads it).
#include "modelroles.h"
#include "program/flattensor.h"
#include "program/programsize.h"
#include "sizemodel.h"
#include "testpaths.h"

#include <nlohmann/json.hpp>

#include <QAbstractItemModelTester>
#include <QFileInfo>
#include <QTest>

#include <fstream>

using namespace etscope;

class TestSizeModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void xnnpackProgram()
    {
        const std::string path = test::sharedFixture("runtime/xnnpack_mlp_intermediates/xnn_mlp.pte");
        auto program = Program::open(path);
        QVERIFY2(program.ok(), program ? "" : program.error().message().c_str());
        SizeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setReport(programSize(**program));

        std::ifstream in(test::testData("program/expected_size.json"));
        const auto handCount = nlohmann::json::parse(in)
                                   .at("shared:runtime/xnnpack_mlp_intermediates/xnn_mlp.pte")
                                   .get<std::vector<std::uint64_t>>();
        const qulonglong fileBytes = qulonglong(QFileInfo(QString::fromStdString(path)).size());
        QCOMPARE(fileBytes, qulonglong(140344));

        QCOMPARE(model.rowCount(), 1); // the program alone: one file
        const QModelIndex file = model.index(0, 0);
        QCOMPARE(file.data().toString(), QStringLiteral("xnn_mlp.pte"));
        QCOMPARE(model.index(0, SizeModel::Bytes).data(SortRole).toULongLong(), fileBytes);
        QCOMPARE(model.index(0, SizeModel::Bytes).data().toString(), QStringLiteral("140,344"));
        QCOMPARE(model.index(0, SizeModel::ShareOfParent).data().toString(), QString());
        QCOMPARE(model.rowCount(file), int(handCount.size()));
        for (int r = 0; r < model.rowCount(file); ++r) {
            const qulonglong bytes = model.index(r, SizeModel::Bytes, file).data(SortRole).toULongLong();
            QCOMPARE(bytes, qulonglong(handCount[std::size_t(r)]));
            const double share = 100.0 * double(handCount[std::size_t(r)]) / double(fileBytes);
            QCOMPARE(model.index(r, SizeModel::ShareOfFile, file).data(SortRole).toDouble(), share);
            QCOMPARE(model.index(r, SizeModel::ShareOfParent, file).data(SortRole).toDouble(), share);
        }
        // The first payload (100,432 bytes, 71.56 % of the file as `size --depth 1` prints it).
        const QModelIndex delegate = model.index(3, 0, file);
        QVERIFY2(delegate.data().toString().startsWith(QStringLiteral("delegate 0 of method forward (XnnpackBackend")),
            qPrintable(delegate.data().toString()));
        QCOMPARE(model.index(3, SizeModel::ShareOfFile, file).data().toString(), QStringLiteral("71.56 %"));
        QCOMPARE(model.rowCount(delegate), 4);
        const QModelIndex constants = model.index(3, 0, delegate);
        QCOMPARE(constants.data().toString(), QStringLiteral("constant data"));
        QCOMPARE(model.index(3, SizeModel::Bytes, delegate).data(SortRole).toULongLong(), qulonglong(99328));
        QCOMPARE(model.index(3, SizeModel::ShareOfParent, delegate).data(SortRole).toDouble(), 100.0 * 99328 / 100432);
        QCOMPARE(model.index(3, SizeModel::ShareOfFile, delegate).data(SortRole).toDouble(), 100.0 * 99328 / 140344);
        QCOMPARE(model.parent(constants), delegate);
        QVERIFY(model.index(3, SizeModel::Bytes, delegate).data(Qt::ToolTipRole).toString().contains(u"99,328 bytes"));

        // Cleared: no rows.
        model.setReport({});
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_MAIN(TestSizeModel)
#include "tst_sizemodel.moc"
