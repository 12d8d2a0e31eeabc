// Error decomposition (core/evalgap/decompose.h) on the quantized fixtures of
// tests/tools/gen_quant_fixtures.py with the AUTHORED runtime runs of gen_quant_runs.py: a
// healthy run (logged outputs = PyTorch's fake-quantized values) and a run with a kernel error
// injected at known ops. Expected values: quant_runs_expected.json, where the generator decided
// each op's dominant error by construction (kernel where injected; elsewhere quantization when
// numpy's MSE of fake-quantized against float twin, both from PyTorch, exceeds the √ε noise
// level; noise otherwise).

#include "evalgap/decompose.h"
#include "quanttruth.h"
#include "session/session.h"
#include "testpaths.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>
#include <limits>

using namespace etscope;

namespace {

std::shared_ptr<const Session> load(const std::string &stem, const std::string &kind)
{
    SessionInputs in;
    in.etdump = test::testData("eval/" + stem + "_" + kind + ".etdp");
    in.debugBuffer = test::testData("eval/" + stem + "_" + kind + ".bin");
    in.etrecord = test::testData("eval/" + stem + "_etrecord.bin");
    auto s = loadSession(in);
    if (!s)
        qFatal("%s", s.error().message().c_str());
    return *s;
}

} // namespace

class TstDecompose : public QObject
{
    Q_OBJECT
private slots:
    void dominantMatchesInjectedTruth_data()
    {
        QTest::addColumn<QString>("stem");
        QTest::addColumn<QString>("kind");
        for (const char *stem : { "qcnn", "qlinear", "qdecoder" })
            for (const char *kind : { "healthy", "kernel" })
                QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(stem, kind)))
                    << QString::fromLatin1(stem) << QString::fromLatin1(kind);
    }
    void dominantMatchesInjectedTruth()
    {
        QFETCH(QString, stem);
        QFETCH(QString, kind);
        auto s = load(stem.toStdString(), kind.toStdString());
        evalgap::DecomposeOptions o;
        o.threads = 2;
        o.referenceGraph = "edge_dialect_exported_program";
        auto d = evalgap::decomposeGap(*s->etrecord, *s, o);
        QVERIFY2(d, d ? "" : d.error().message().c_str());
        QVERIFY(d->floatTwinPairs >= 3);
        const QJsonArray rows = test::quantRunTruth(stem, kind);
        QCOMPARE(int(d->ops.size()), rows.size());
        int kernels = 0, quant = 0;
        for (int i = 0; i < rows.size(); ++i) {
            const QJsonObject r = rows.at(i).toObject();
            const auto &op = d->ops[std::size_t(i)];
            QCOMPARE(op.instructionId, r.value(u"instruction"_qs).toInt());
            QVERIFY2(op.quant.valid && op.kernel.valid && op.total.valid, op.note.c_str());
            const QString got = QString::fromLatin1(evalgap::dominantName(op.dominant));
            QVERIFY2(got == r.value(u"dominant"_qs).toString(),
                qPrintable(QStringLiteral("instruction %1 (%2): %3, expected %4; quant %5 (noise %6), kernel %7")
                               .arg(i)
                               .arg(r.value(u"node"_qs).toString(), got, r.value(u"dominant"_qs).toString())
                               .arg(op.quant.gap)
                               .arg(op.quant.noise)
                               .arg(op.kernel.gap)));
            // numpy's quantization MSE (float64, on PyTorch's values) against ours (on the
            // evaluator's, equal to PyTorch's within float32 rounding; a requantization that
            // rounds the other way moves one element by a step, hence 1%).
            const double qm = r.value(u"quant_mse"_qs).toDouble();
            if (!r.value(u"quant_mse"_qs).isNull())
                QVERIFY2(std::abs(op.quant.gap - qm) <= 1e-9 + 1e-2 * qm,
                    qPrintable(
                        QStringLiteral("instruction %1: quant MSE %2, numpy %3").arg(i).arg(op.quant.gap).arg(qm)));
            kernels += op.dominant == evalgap::Dominant::Kernel;
            quant += op.dominant == evalgap::Dominant::Quantization;
        }
        QVERIFY(quant > 0);
        if (kind == u"healthy"_qs) {
            // A healthy run: quantization is the only loss.
            QCOMPARE(kernels, 0);
            QCOMPARE(d->kernelEnters, -1);
            QVERIFY2(QString::fromStdString(d->summary).startsWith(u"accuracy is lost to quantization at #"_qs),
                d->summary.c_str());
            QVERIFY2(d->summary.find("; kernels agree with the fake-quantized model within noise") != std::string::npos,
                d->summary.c_str());
        } else {
            QCOMPARE(kernels, 2);
            QVERIFY(d->kernelEnters >= 0);
            QCOMPARE(d->ops[std::size_t(d->kernelEnters)].dominant, evalgap::Dominant::Kernel);
        }
        // Where the quantization error enters: the first row the generator called quantization.
        int firstQuant = -1;
        for (int i = 0; i < rows.size() && firstQuant < 0; ++i)
            if (rows.at(i).toObject().value(u"quant_mse"_qs).toDouble()
                > rows.at(i).toObject().value(u"quant_noise"_qs).toDouble())
                firstQuant = i;
        QCOMPARE(d->quantEnters, firstQuant);
    }

    // The columns the CLI and the Python package print.
    void tsvAndJsonColumns()
    {
        auto s = load("qcnn", "kernel");
        evalgap::DecomposeOptions o;
        o.threads = 2;
        auto d = evalgap::decomposeGap(*s->etrecord, *s, o);
        QVERIFY(d);
        const std::string tsv = evalgap::decompositionTsv(*d);
        QVERIFY(tsv.rfind("instruction\tdebug_handles\taot_ops\truntime_ops\tquant_error\tkernel_error\ttotal_error\t"
                          "dominant\t",
                    0)
            == 0);
        QCOMPARE(std::count(tsv.begin(), tsv.end(), '\n'), std::ptrdiff_t(d->ops.size() + 1));
        const auto j = QJsonDocument::fromJson(QByteArray::fromStdString(evalgap::decompositionJson(*d))).object();
        QCOMPARE(j.value(u"summary"_qs).toString().toStdString(), d->summary);
        QCOMPARE(j.value(u"ops"_qs).toArray().size(), int(d->ops.size()));
        QVERIFY(j.value(u"ops"_qs).toArray().at(0).toObject().contains(u"kernel_error"_qs));
        // A threshold replaces the noise rule: nothing exceeds 1e9.
        o.threshold = 1e9;
        auto loose = evalgap::decomposeGap(*s->etrecord, *s, o);
        QVERIFY(loose);
        for (const auto &op : loose->ops)
            QCOMPARE(op.dominant, evalgap::Dominant::Noise);
        QVERIFY(loose->summary.rfind("no accuracy is lost", 0) == 0);
    }

    // The stacked bars' split (the window's and the report's), by hand: MSE 0.01 and 0.001 add,
    // so quantization holds 0.01 / 0.011 = 10/11; SNR 20 and 30 dB are noise powers 10^-2 and
    // 10^-3, the same split; an exact part (MSE 0, SNR inf) holds none; a part without a value
    // counts as none; two exact parts have no split.
    void errorSplitByHand()
    {
        evalgap::OpDecomposition op;
        op.quant.valid = op.kernel.valid = true;
        op.quant.gap = 0.01;
        op.kernel.gap = 0.001;
        auto s = evalgap::errorSplit(op, analysis::Metric::MSE);
        QCOMPARE(s.quant, 10.0 / 11.0);
        QCOMPARE(s.kernel, 1.0 / 11.0);
        op.quant.gap = 20;
        op.kernel.gap = 30;
        s = evalgap::errorSplit(op, analysis::Metric::SNR);
        QVERIFY(std::abs(s.quant - 10.0 / 11.0) < 1e-12);
        op.kernel.gap = std::numeric_limits<double>::infinity();
        s = evalgap::errorSplit(op, analysis::Metric::SNR);
        QCOMPARE(s.quant, 1.0);
        QCOMPARE(s.kernel, 0.0);
        op.kernel.gap = 0.001;
        op.quant.valid = false;
        s = evalgap::errorSplit(op, analysis::Metric::MSE);
        QCOMPARE(s.quant, 0.0);
        QCOMPARE(s.kernel, 1.0);
        op.kernel.gap = 0;
        s = evalgap::errorSplit(op, analysis::Metric::MSE);
        QVERIFY(std::isnan(s.quant) && std::isnan(s.kernel));
        QVERIFY(std::abs(evalgap::additiveError(analysis::Metric::Cosine, 0.99) - 0.01) < 1e-15);
    }
};

QTEST_GUILESS_MAIN(TstDecompose)
#include "tst_decompose.moc"
