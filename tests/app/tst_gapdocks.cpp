// The numeric-gap docks in the main window: the real cnn_mlp run whose debug buffer was
// perturbed by tests/tools/gen_gap_perturbed.py at instructions 3, 14 and 25 (numpy computed
// the expected MSEs into tests/data/analysis/cnn_mlp_perturbed_expected.json), compared with the
// unperturbed run. The heatmap must show non-zero MSE exactly on those rows, with numpy's values,
// and a click must select the event in the main window.
#include "delegatetriageview.h"
#include "gapdocks.h"
#include "gapheatmapwidget.h"
#include "mainwindow.h"
#include "testpaths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>
#include <cmath>

using namespace etscope;

class TstGapDocks : public QObject
{
    Q_OBJECT
private slots:
    void perturbedRowsAreFlagged()
    {
        MainWindow::Options opt;
        opt.interactive = false;
        opt.persistSettings = false;
        MainWindow window(opt);
        auto *gap = new GapDocks(&window);
        const QString run = QString::fromStdString(test::sharedFixture("runtime/cnn_mlp_intermediates/"));
        const QString perturbed = QString::fromStdString(test::testData("analysis/cnn_mlp_perturbed.bin"));
        QString error;
        QVERIFY2(window.openFilesSync({run + u"etdump.etdp"_qs, perturbed}, &error), qPrintable(error));
        QVERIFY2(gap->compareWith({run + u"etdump.etdp"_qs, run + u"debug_output.bin"_qs}, &error), qPrintable(error));

        QFile f(QString::fromStdString(test::testData("analysis/cnn_mlp_perturbed_expected.json")));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonArray rows = QJsonDocument::fromJson(f.readAll()).object().value(u"rows"_qs).toArray();
        gapui::GapHeatmapWidget *heatmap = gap->heatmap();
        QCOMPARE(heatmap->rowCount(), int(rows.size())); // one row per instruction with outputs
        for (int r = 0; r < heatmap->rowCount(); ++r) {
            const QJsonObject expected = rows[r].toObject();
            const double mse = expected.value(u"gaps"_qs).toArray()[0].toObject().value(u"MSE"_qs).toDouble();
            const double shown = heatmap->value(r, 0);
            QVERIFY2(std::abs(shown - mse) <= 1e-12 * std::max(1.0, std::abs(mse)),
                     qPrintable(QStringLiteral("row %1: %2 vs %3").arg(r).arg(shown).arg(mse)));
            QCOMPARE(shown > 0, expected.value(u"perturbed"_qs).toBool());
        }

        // Clicking the first perturbed row (instruction 3) selects its event in the window.
        QSignalSpy spy(heatmap, &gapui::GapHeatmapWidget::eventSelected);
        heatmap->resize(heatmap->sizeHint());
        const QRect cell = heatmap->cellRect(3, 0);
        QTest::mouseClick(heatmap, Qt::LeftButton, {}, cell.center());
        QCOMPARE(spy.count(), 1);
        const int block = spy.at(0).at(0).toInt(), event = spy.at(0).at(1).toInt();
        QCOMPARE(window.session()->blocks.at(block).events.at(event).instructionId, 3);
    }
};

QTEST_MAIN(TstGapDocks)
#include "tst_gapdocks.moc"
