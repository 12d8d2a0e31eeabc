// The Determinism table over the real runtime recording tests/data/runtime/determinism_corrupt
// (aten::mm.out perturbed on rows 0..31 × cols 32..63 on Execute runs 3, 7, 19). Expected values:
// its determinism.truth.json, computed with numpy from the flatc-decoded ETDump and the debug
// buffer by tests/tools/gen_determinism_truth.py (per position: distinct results, differing runs,
// max absolute deviation, the tile), and its README for the shapes. No etscope code made them.
#include "determinismmodel.h"
#include "modelroles.h"
#include "testpaths.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>

using namespace etscope;

namespace {

const std::string kDir = ETSCOPE_TEST_DATA_DIR "/runtime/determinism_corrupt/";

std::shared_ptr<const DeterminismReport> report()
{
    auto e = readETDump(kDir + "etdump.etdp");
    auto b = DebugBuffer::open(kDir + "debug_output.bin");
    if (!e || !b)
        qFatal("cannot open the fixture");
    auto r = analyzeDeterminism({ { *e, *b } });
    if (!r)
        qFatal("%s", r.error().message().c_str());
    return std::make_shared<const DeterminismReport>(std::move(*r));
}

} // namespace

class TstDeterminismModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void rowsAgainstTruth()
    {
        DeterminismModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        model.setReport(report());
        std::ifstream in(kDir + "determinism.truth.json");
        const auto truth = nlohmann::json::parse(in)["tensors"];
        QCOMPARE(model.rowCount(), int(truth.size()));
        QCOMPARE(model.columnCount(), int(DeterminismModel::NUM_COLUMNS));
        for (int row = 0; row < model.rowCount(); ++row) {
            const auto &t = truth[std::size_t(row)];
            auto text = [&](int col) { return model.index(row, col).data().toString(); };
            QCOMPARE(text(DeterminismModel::PositionColumn), QString::number(t["event_index"].get<int>()));
            QCOMPARE(text(DeterminismModel::InstructionColumn), QString::number(t["instruction_id"].get<int>()));
            QCOMPARE(text(DeterminismModel::DistinctColumn), QString::number(t["distinct_count"].get<int>()));
            QCOMPARE(text(DeterminismModel::RunsDifferColumn), QString::number(t["differing_runs"].size()));
            QCOMPARE(model.index(row, DeterminismModel::MaxAbsColumn).data(SortRole).toDouble(),
                t["max_abs_deviation"].get<double>());
            if (t["tile"].is_null()) {
                QCOMPARE(text(DeterminismModel::RegionColumn), QString());
                continue;
            }
            const auto rows = t["tile"]["rows"], cols = t["tile"]["cols"];
            QVERIFY2(text(DeterminismModel::RegionColumn)
                         .startsWith(QStringLiteral("rows %1–%2 × cols %3–%4 (")
                                         .arg(rows[0].get<int>())
                                         .arg(rows[1].get<int>())
                                         .arg(cols[0].get<int>())
                                         .arg(cols[1].get<int>())),
                qPrintable(text(DeterminismModel::RegionColumn)));
            QVERIFY(text(DeterminismModel::RegionColumn)
                        .endsWith(QStringLiteral("%1 elements)").arg(t["differing_elements"].get<int>())));
        }
        // The perturbed operator, by its event's name, its runs in the tooltip (README: 3, 7, 19).
        QCOMPARE(model.index(2, DeterminismModel::OperatorColumn).data().toString(), u"native_call_mm.out"_qs);
        QCOMPARE(model.index(2, DeterminismModel::RunsDifferColumn).data(Qt::ToolTipRole).toString(),
            u"runs that differ from the majority (0-based): 3, 7, 19"_qs);
        QCOMPARE(model.index(6, DeterminismModel::OperatorColumn).data().toString(), u"program output 0"_qs);
        QCOMPARE(model.index(2, DeterminismModel::ShapeColumn).data().toString(), u"float32[64, 64]"_qs);

        // Sorted by max |Δ| through SortRole, the largest first: addmm (instr 4), 1.2715021.
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(SortRole);
        proxy.sort(DeterminismModel::MaxAbsColumn, Qt::DescendingOrder);
        QCOMPARE(proxy.index(0, DeterminismModel::InstructionColumn).data().toString(), u"4"_qs);
        model.setReport(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TstDeterminismModel)
#include "tst_determinismmodel.moc"
