// N recordings side by side in the window (issue 38 item 4): the open recording and another of
// the same model as grouped bars and one table. Truth, independent of etscope:
//  - medians: tests/data/analysis/runs_expected/{cnn_mlp_50runs,xnnpack_mlp}.json (numpy over the
//    raw events, tests/tools/gen_runs_expected.py): 1.0183265 ms and 0.105205 ms;
//  - coverage: tests/data/analysis/coverage_expected.json (numpy over `flatc --json`,
//    tests/tools/gen_coverage_expected.py): 98.74 % and 98.12 %;
//  - runs: the fixtures' READMEs (50 executions; 1 execution);
//  - the CNN's convolution share: runs_expected/cnn_mlp_50runs.json (73.01 %); the XNNPACK MLP
//    has no convolution, its share there is 0.
#include "groupedbarschart.h"
#include "mainwindow.h"
#include "modelroles.h"
#include "recordingspanel.h"
#include "sessioncontroller.h"
#include "sidebysidemodel.h"
#include "windowtest.h"

#include <QAbstractItemModelTester>
#include <QBarSeries>
#include <QBarSet>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>

using namespace etscope;

namespace {
QJsonObject readJson(const char *relative)
{
    QFile f(test::testDataPath(relative));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

bool close(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

int rowOf(const SideBySideModel &m, const QString &label)
{
    for (int r = 0; r < m.rowCount(); ++r)
        if (m.index(r, 0).data().toString() == label)
            return r;
    return -1;
}
} // namespace

class TstRecordingsPanel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void cnnBesideXnnpack()
    {
        MainWindow w(test::quietWindow());
        w.resize(1280, 720);
        w.show();
        auto *panel = test::part<RecordingsPanel>(w);
        new QAbstractItemModelTester(panel->model(), QAbstractItemModelTester::FailureReportingMode::QtTest, this);
        QVERIFY(w.controller()->openFilesSync({ test::fixturePath("runtime/cnn_mlp_50runs/etdump.etdp") }));
        QString error;
        QVERIFY2(panel->compareSync({ test::fixturePath("runtime/xnnpack_mlp_intermediates/etdump.etdp") }, &error),
            qPrintable(error));
        const SideBySideModel &m = *panel->model();
        QCOMPARE(m.columnCount(), 3);
        QVERIFY(m.headerData(1, Qt::Horizontal).toString().contains(u"cnn_mlp_50runs"_qs));
        QVERIFY(m.headerData(2, Qt::Horizontal).toString().contains(u"xnnpack_mlp_intermediates"_qs));

        const QJsonObject cnn = readJson("analysis/runs_expected/cnn_mlp_50runs.json");
        const QJsonObject xnn = readJson("analysis/runs_expected/xnnpack_mlp.json");
        const QJsonObject coverage = readJson("analysis/coverage_expected.json");
        auto value = [&](const QString &label, int recording) {
            const int r = rowOf(m, label);
            return r < 0 ? QVariant() : m.index(r, recording + 1).data(SortRole);
        };
        QCOMPARE(value(u"runs"_qs, 0).toDouble(), 50.0);
        QCOMPARE(value(u"runs"_qs, 1).toDouble(), 1.0);
        const double cnnMedian = cnn[u"phases"_qs][u"all"_qs][u"median_ms"_qs].toDouble();
        const double xnnMedian = xnn[u"phases"_qs][u"all"_qs][u"median_ms"_qs].toDouble();
        QVERIFY(close(value(u"all: median run (ms)"_qs, 0).toDouble(), cnnMedian));
        QVERIFY(close(value(u"all: median run (ms)"_qs, 1).toDouble(), xnnMedian));
        for (int i = 0; i < 2; ++i) {
            const QJsonObject c = coverage[i == 0 ? u"cnn_mlp_50runs"_qs : u"xnnpack_mlp_intermediates"_qs].toObject();
            const double pct = 100 * c[u"explained"_qs].toDouble() / c[u"execute"_qs].toDouble();
            QVERIFY(close(value(u"coverage: events / Method::execute"_qs, i).toDouble(), pct));
        }
        const double conv = cnn[u"shares"_qs][u"all"_qs].toArray()[0].toObject()[u"share"_qs].toDouble();
        QCOMPARE(cnn[u"shares"_qs][u"all"_qs].toArray()[0].toObject()[u"name"_qs].toString(), u"convolution.out"_qs);
        QVERIFY(close(value(u"all share: convolution.out"_qs, 0).toDouble(), 100 * conv));
        QCOMPARE(value(u"all share: convolution.out"_qs, 1).toDouble(), 0.0);
        // The cell reads as `runs -e A -e B` prints it (tst_determinismcli: "98.7 %", "98.1 %").
        QCOMPARE(m.index(rowOf(m, u"coverage: events / Method::execute"_qs), 1).data().toString(), u"98.7 %"_qs);

        // The chart opens on the medians: one bar set per recording, the category "all".
        QCOMPARE(panel->figureBox()->currentText(), u"Median run per phase"_qs);
        QBarSeries *series = panel->chart()->series();
        QVERIFY(series);
        QCOMPARE(series->count(), 2);
        QCOMPARE(panel->chart()->categories(), QStringList { u"all"_qs });
        QVERIFY(close(series->barSets()[0]->at(0), cnnMedian));
        QVERIFY(close(series->barSets()[1]->at(0), xnnMedian));
        QVERIFY(panel->chart()->footnote().isEmpty());
        // The shares: the operators leading in either recording, one group each.
        const int shares = panel->figureBox()->findText(u"Operator shares of all"_qs);
        QVERIFY(shares >= 0);
        panel->figureBox()->setCurrentIndex(shares);
        QVERIFY(panel->chart()->categories().contains(u"convolution.out"_qs));
        QVERIFY(w.findChild<QDockWidget *>(u"RecordingsDock"_qs)->isVisible());
        if (const QByteArray shot = qgetenv("ETSCOPE_RECORDINGS_SHOT"); !shot.isEmpty()) {
            panel->figureBox()->setCurrentIndex(panel->figureBox()->findText(u"Median run per phase"_qs));
            QTest::qWait(100);
            w.grab().save(QString::fromLocal8Bit(shot));
        }

        // Another scope makes the figures stale: cleared and said, never kept for other runs.
        w.controller()->openFilesSync({ test::fixturePath("runtime/add_pte_50runs/etdump.etdp") });
        QCOMPARE(m.rowCount(), 0);
        QVERIFY(!panel->chart()->series());
    }

    // A recording that cannot be read is named and left out; with fewer than two left, nothing is
    // drawn and the window says why.
    void unreadableRecordingIsNamed()
    {
        MainWindow w(test::quietWindow());
        auto *panel = test::part<RecordingsPanel>(w);
        QVERIFY(w.controller()->openFilesSync({ test::fixturePath("runtime/cnn_mlp_50runs/etdump.etdp") }));
        const QString bogus = test::fixturePath("runtime/cnn_mlp_50runs/README.txt");
        QString error;
        QVERIFY(!panel->compareSync({ bogus }, &error));
        QVERIFY(!error.isEmpty());
        QVERIFY2(panel->notesText().contains(u"README.txt"_qs), qPrintable(panel->notesText()));
        QCOMPARE(panel->model()->rowCount(), 0);
    }
};

QTEST_MAIN(TstRecordingsPanel)
#include "tst_recordingspanel.moc"
