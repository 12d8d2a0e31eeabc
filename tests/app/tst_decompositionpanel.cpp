// The "Quantization or kernel" panel (issue 30 item 3) in the window, built from the controller
// and the selection like every panel, on the authored quantized runs of
// tests/tools/gen_quant_runs.py. Expected values come from the generator's truth file
// (tests/data/eval/quant_runs_expected.json: the dominant part of every op by construction):
// the qcnn run with kernel errors injected at two ops names the kernels; the healthy run names
// quantization as the only loss.
#include "decompositionchart.h"
#include "decompositionmodel.h"
#include "decompositionpanel.h"
#include "evaluatorcontrols.h"
#include "evaluatorsettings.h"
#include "gapreferencedialog.h"
#include "mainwindow.h"
#include "panelhost.h"
#include "quanttruth.h"
#include "sessioncontroller.h"
#include "windowtest.h"

#include <QAbstractProxyModel>
#include <QAction>
#include <QDockWidget>
#include <QJsonArray>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

using namespace etscope;

namespace {
QJsonArray truth(const char *kind)
{
    return test::quantRunTruth(u"qcnn"_qs, QLatin1String(kind));
}

bool open(MainWindow &w, const char *kind)
{
    const QString stem = QStringLiteral("eval/qcnn_%1").arg(QLatin1String(kind));
    return w.controller()->openFilesSync({ test::testDataPath(qPrintable(stem + u".etdp"_qs)),
        test::testDataPath(qPrintable(stem + u".bin"_qs)), test::testDataPath("eval/qcnn_etrecord.bin") });
}
} // namespace

class TstDecompositionPanel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void kernelErrorsAreNamed_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1280x720") << QSize(1280, 720);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }
    void kernelErrorsAreNamed()
    {
        QFETCH(QSize, size);
        MainWindow w(test::quietWindow());
        w.resize(size);
        w.show();
        DecompositionPanel *panel = test::part<DecompositionPanel>(w);
        QVERIFY(!panel->menuActions(Panel::Menu::Analysis).first()->isEnabled()); // nothing open
        QVERIFY(open(w, "kernel"));
        QAction *action = panel->menuActions(Panel::Menu::Analysis).first();
        QVERIFY(action->isEnabled());
        QSignalSpy done(panel, &DecompositionPanel::finished);
        action->trigger(); // the menu runs it at once
        QVERIFY(done.wait(60000));
        QVERIFY2(done.at(0).at(0).toBool(), qPrintable(done.at(0).at(1).toString()));
        QVERIFY(panel->dock()->isVisible());
        // The sentence names the kernels (two ops with an injected kernel error).
        QVERIFY2(panel->summaryText().contains(u"kernel"_qs), qPrintable(panel->summaryText()));
        const QJsonArray expected = truth("kernel");
        QCOMPARE(panel->chart()->rowCount(), expected.size());
        auto *model = qobject_cast<const QAbstractProxyModel *>(panel->table()->model());
        QVERIFY(model);
        for (int r = 0; r < expected.size(); ++r) {
            const QString dominant = expected.at(r).toObject().value(u"dominant"_qs).toString();
            QCOMPARE(model->sourceModel()->index(r, DecompositionModel::DominantColumn).data().toString(), dominant);
            // A kernel-dominated op's bar is mostly orange; every bar is split in two parts that
            // fill it.
            const QRectF bar = panel->chart()->barRect(r), q = panel->chart()->quantRect(r),
                         k = panel->chart()->kernelRect(r);
            QVERIFY(!bar.isNull());
            if (!q.isNull())
                QVERIFY(std::abs(q.width() + k.width() - bar.width()) < 1e-6);
            if (dominant == u"kernel"_qs)
                QVERIFY(k.width() > q.width());
            // Bars above the noise line are the ones whose total is above it.
            if (dominant != u"noise"_qs)
                QVERIFY(bar.right() > panel->chart()->noiseX() - 1);
        }
        // A click on a bar selects its op in the table and its event in the window.
        const int kernelRow = [&] {
            for (int r = 0; r < expected.size(); ++r)
                if (expected.at(r).toObject().value(u"dominant"_qs).toString() == u"kernel"_qs)
                    return r;
            return -1;
        }();
        QVERIFY(kernelRow >= 0);
        QSignalSpy selected(panel->chart(), &gapui::DecompositionChart::eventSelected);
        const QRectF bar = panel->chart()->barRect(kernelRow);
        QTest::mouseClick(panel->chart(), Qt::LeftButton, {}, bar.center().toPoint());
        QCOMPARE(selected.size(), 1);
        QCOMPARE(panel->table()->currentIndex().row() >= 0, true);
        QCOMPARE(model->mapToSource(panel->table()->currentIndex()).row(), kernelRow);
        QVERIFY(panel->chart()->toolTipText(kernelRow).contains(u"dominant: kernel"_qs));
        if (const QByteArray dir = qgetenv("ETSCOPE_SHOT_DIR"); !dir.isEmpty())
            w.grab().save(QStringLiteral("%1/decomposition-%2x%3.png")
                              .arg(QString::fromLocal8Bit(dir))
                              .arg(size.width())
                              .arg(size.height()));
    }

    void healthyRunBlamesQuantizationOnly()
    {
        // The panel alone: built from a controller and a selection in a plain host window.
        test::PanelHost<DecompositionPanel> host;
        host.host.resize(1280, 720);
        host.host.show();
        const QString stem = u"eval/qcnn_healthy"_qs;
        QVERIFY(host.open({ test::testDataPath(qPrintable(stem + u".etdp"_qs)),
            test::testDataPath(qPrintable(stem + u".bin"_qs)), test::testDataPath("eval/qcnn_etrecord.bin") }));
        DecompositionPanel *panel = host.panel;
        QSignalSpy done(panel, &DecompositionPanel::finished);
        panel->decompose();
        QVERIFY(done.wait(60000));
        QVERIFY2(done.at(0).at(0).toBool(), qPrintable(done.at(0).at(1).toString()));
        QVERIFY2(
            panel->summaryText().startsWith(u"Accuracy is lost to quantization"_qs), qPrintable(panel->summaryText()));
        QVERIFY2(panel->summaryText().contains(u"kernels agree with the fake-quantized model within noise"_qs),
            qPrintable(panel->summaryText()));
        // Reopening other files drops the result.
        QVERIFY(host.open({ test::fixturePath("runtime/add_pte_50runs/etdump.etdp") }));
        QVERIFY(!panel->result());
        QVERIFY(!panel->menuActions(Panel::Menu::Analysis).first()->isEnabled());
    }

    void evaluatorPanelsShareOneSetting()
    {
        // The numeric gap, the decomposition and graph against graph judge by one metric and run
        // on one choice of inputs: choosing SNR in one chooser shows SNR in all three, and the
        // decomposition then runs in SNR (its result says which metric it used).
        MainWindow w(test::quietWindow());
        QVERIFY(open(w, "healthy"));
        const auto boxes = w.findChildren<gapui::MetricBox *>();
        QCOMPARE(boxes.size(), 3);
        boxes.back()->setCurrentIndex(boxes.back()->findText(u"SNR"_qs));
        for (gapui::MetricBox *box : boxes)
            QCOMPARE(box->currentText(), u"SNR"_qs);
        QCOMPARE(w.controller()->evaluatorSettings()->metric(), analysis::Metric::SNR);
        auto *panel = test::part<DecompositionPanel>(w);
        QSignalSpy done(panel, &DecompositionPanel::finished);
        panel->decompose();
        QVERIFY(done.wait(60000));
        QCOMPARE(panel->result()->metric, analysis::Metric::SNR);
        // A threshold belongs to its metric: choosing another one clears it.
        w.controller()->evaluatorSettings()->setThreshold(20.0);
        boxes.front()->setCurrentIndex(boxes.front()->findText(u"MSE"_qs));
        QVERIFY(!w.controller()->evaluatorSettings()->threshold());
        // Inputs chosen in one panel are every panel's: each "Inputs" button names them.
        eval::InputChoice inputs;
        inputs.inputsFile = "/tmp/inputs.pt";
        w.controller()->evaluatorSettings()->setInputs(inputs);
        const auto buttons = w.findChildren<EvaluatorInputsButton *>();
        QCOMPARE(buttons.size(), 2);
        for (EvaluatorInputsButton *b : buttons)
            QCOMPARE(b->text(), u"Inputs: inputs.pt"_qs);
    }
};

QTEST_MAIN(TstDecompositionPanel)
#include "tst_decompositionpanel.moc"
