// The decomposition table over a real decomposition of the authored qcnn run with a kernel error
// injected (tests/tools/gen_quant_runs.py). Expected values come from the generator's truth file
// (tests/data/eval/quant_runs_expected.json: the dominant part of every op by construction and
// numpy's quantization MSE on PyTorch's values), never from the model.

#include "decompositionmodel.h"
#include "modelroles.h"
#include "quanttruth.h"
#include "session/session.h"
#include "testpaths.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QJsonObject>
#include <QtTest>

#include <cmath>

using namespace etscope;

class TstDecompositionModel : public QObject
{
    Q_OBJECT
private slots:
    void rowsFollowTheTruth()
    {
        SessionInputs in;
        in.etdump = test::testData("eval/qcnn_kernel.etdp");
        in.debugBuffer = test::testData("eval/qcnn_kernel.bin");
        in.etrecord = test::testData("eval/qcnn_etrecord.bin");
        auto s = loadSession(in);
        QVERIFY2(s, s ? "" : s.error().message().c_str());
        evalgap::DecomposeOptions o;
        o.threads = 2;
        o.referenceGraph = "edge_dialect_exported_program";
        auto d = evalgap::decomposeGap(*(*s)->etrecord, **s, o);
        QVERIFY2(d, d ? "" : d.error().message().c_str());

        DecompositionModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        model.setDecomposition(std::make_shared<const evalgap::Decomposition>(std::move(*d)));

        const QJsonArray truth = test::quantRunTruth(u"qcnn"_qs, u"kernel"_qs);
        QCOMPARE(model.rowCount(), truth.size());
        QCOMPARE(model.columnCount(), int(DecompositionModel::NUM_COLUMNS));
        QCOMPARE(
            model.headerData(DecompositionModel::QuantColumn, Qt::Horizontal).toString(), u"quantization (MSE)"_qs);
        int kernelRows = 0;
        for (int r = 0; r < truth.size(); ++r) {
            const QJsonObject t = truth.at(r).toObject();
            QCOMPARE(model.index(r, DecompositionModel::DominantColumn).data().toString(),
                t.value(u"dominant"_qs).toString());
            kernelRows += t.value(u"dominant"_qs).toString() == u"kernel"_qs;
            // The quantization column shows numpy's MSE to 6 significant digits (1 % for a
            // requantization that rounds the other way, as in tst_decompose).
            if (!t.value(u"quant_mse"_qs).isNull()) {
                QString text = model.index(r, DecompositionModel::QuantColumn).data().toString();
                text.remove(u" ▲"_qs);
                const double qm = t.value(u"quant_mse"_qs).toDouble();
                QVERIFY2(std::abs(text.toDouble() - qm) <= 1e-9 + 1e-2 * qm,
                    qPrintable(QStringLiteral("row %1: %2 vs numpy %3").arg(r).arg(text).arg(qm)));
            }
            // Each row leads to its runtime event.
            QVERIFY(model.index(r, 0).data(BlockIndexRole).toInt() >= 0);
            QVERIFY(model.index(r, 0).data(EventIndexRole).toInt() >= 0);
        }
        QCOMPARE(kernelRows, 2); // gen_quant_runs.py injects two kernel errors
        // An op whose kernel error dominates shows under half of its error as quantization's.
        for (int r = 0; r < truth.size(); ++r)
            if (truth.at(r).toObject().value(u"dominant"_qs).toString() == u"kernel"_qs) {
                const double share = model.index(r, DecompositionModel::QuantShareColumn).data(SortRole).toDouble();
                QVERIFY2(share >= 0 && share < 0.5, qPrintable(QString::number(share)));
            }
        model.setDecomposition(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TstDecompositionModel)
#include "tst_decompositionmodel.moc"
