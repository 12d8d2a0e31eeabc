// The History panel (issue 38 item 1) on the generated series of tests/data/history/steps
// (tests/tools/gen_history_series.py: real-shaped recordings from the real cnn_mlp_50runs
// recording, steps planted at known recordings; truth by numpy in history_expected.json, change
// points of the independent numpy twin). The panel alone (test::PanelHost) for what it shows;
// the whole window for what its clicks do: a point opens that recording as the session, a change
// compares the recordings on either side in the Compare A/B dock.
#include "comparedocks.h"
#include "compareview.h"
#include "historychart.h"
#include "historymodel.h"
#include "historypage.h"
#include "historypanel.h"
#include "panelhost.h"
#include "windowtest.h"

#include <QChartView>
#include <QDockWidget>
#include <QFileInfo>
#include <QFontMetrics>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTableView>
#include <QtTest>

using namespace etscope;

namespace {

const QString kSteps = test::testDataPath("history/steps");
const QString kLabels = test::testDataPath("history/steps/labels.csv");

QJsonObject truth()
{
    QFile f(test::testDataPath("history/history_expected.json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("history_expected.json");
    return QJsonDocument::fromJson(f.readAll()).object().value(u"steps"_qs).toObject();
}

QString recordingFile(int i)
{
    return truth().value(u"recordings"_qs).toArray().at(i).toObject().value(u"file"_qs).toString();
}

// The twin's change point of a series (index of the first recording after it).
int twinChange(const QString &series)
{
    for (const auto &s : truth().value(u"series"_qs).toArray())
        if (s.toObject().value(u"name"_qs).toString() == series)
            return s.toObject().value(u"change_points"_qs).toArray().at(0).toObject().value(u"index"_qs).toInt();
    return -1;
}

} // namespace

class TstHistoryPanel : public QObject
{
    Q_OBJECT
private slots:
    void showsTheSeriesAndTheirChanges()
    {
        test::PanelHost<HistoryPanel> host;
        host.host.resize(1280, 720);
        host.host.show();
        QVERIFY(QTest::qWaitForWindowExposed(&host.host));
        QString error;
        QVERIFY2(host.panel->analyzeSync({ kSteps }, kLabels, &error), qPrintable(error));
        HistoryPage *page = host.panel->page();
        QVERIFY(host.panel->dock()->isVisible());
        // Operators, then Method::execute, then the total (the model test checks every figure).
        QCOMPARE(page->model()->rowCount(), 30);
        QCOMPARE(page->model()->histories().size(), std::size_t(3));
        QVERIFY2(page->figuresText().contains(u"<b>24 recordings</b>, 1 program"_qs), qPrintable(page->figuresText()));
        QVERIFY2(page->figuresText().contains(u"<b>4 change points</b>"_qs), qPrintable(page->figuresText()));
        QVERIFY(!page->figuresText().contains(u"different programs"_qs));
        // First shown: the largest change, the +5 % step planted on the second convolution.
        const int row = page->selectedRow();
        QCOMPARE(page->model()->seriesOf(row)->name, std::string("native_call_convolution.out #2"));
        QCOMPARE(page->chart()->changeMarkerCount(), std::size_t(1));
        const int at = twinChange(u"native_call_convolution.out #2"_qs);
        QVERIFY2(page->changesText().contains(u"at commit-%1-"_qs.arg(at, 2, 10, QLatin1Char('0'))),
            qPrintable(page->changesText()));
        // The x axis names the recordings by label, thinned so that none overlaps.
        QTest::qWait(50);
        const QStringList labels = page->chart()->shownLabels();
        QVERIFY2(labels.size() > 1 && labels.size() < 24, qPrintable(labels.join(u", "_qs)));
        QCOMPARE(labels.first(), u"commit-00-d19b450"_qs);
        const QFontMetrics fm(page->chart()->font());
        const int gap = page->chart()->pointPosition(24 / labels.size()).x() - page->chart()->pointPosition(0).x();
        QVERIFY2(gap > fm.horizontalAdvance(labels.first()), qPrintable(QString::number(gap)));
        // Step-free series: no marker, and the panel says so.
        for (int r = 0; r < page->model()->rowCount(); ++r)
            if (page->model()->seriesOf(r)->name == "native_call_relu.out #1") {
                page->selectRow(r);
                break;
            }
        QCOMPARE(page->chart()->changeMarkerCount(), std::size_t(0));
        QCOMPARE(page->changesText(), u"No significant change in this series."_qs);
    }

    void analysesInTheBackground()
    {
        test::PanelHost<HistoryPanel> host;
        QSignalSpy ready(host.panel, &HistoryPanel::historyReady);
        host.panel->analyze({ kSteps }, kLabels);
        QVERIFY(ready.wait(60000));
        QCOMPARE(ready.at(0).at(0).toBool(), true);
        QCOMPARE(host.panel->page()->model()->rowCount(), 30);
        // A folder without recordings: the reason, in the panel and the message bar.
        QTemporaryDir empty;
        QSignalSpy messages(&host.controller, &SessionController::message);
        host.panel->analyze({ empty.path() }, {});
        QVERIFY(ready.wait(60000));
        QCOMPARE(ready.at(1).at(0).toBool(), false);
        QVERIFY(host.panel->page()->figuresText().startsWith(u"History: "_qs));
        QCOMPARE(host.panel->page()->model()->rowCount(), 0);
        QVERIFY(!messages.isEmpty());
    }

    // The series are in the window's unit: choosing µs reads the recordings again, and the first
    // convolution's first p50 is history_expected.json's (ms, numpy) × 1000.
    void followsTheUnit()
    {
        test::PanelHost<HistoryPanel> host;
        QString error;
        QVERIFY2(host.panel->analyzeSync({ kSteps }, kLabels, &error), qPrintable(error));
        QSignalSpy ready(host.panel, &HistoryPanel::historyReady);
        TimeConversion us = host.controller.timeConversion();
        us.target = TimeScale::US;
        host.controller.reload(us);
        QVERIFY(ready.wait(60000));
        const auto &histories = host.panel->page()->model()->histories();
        QVERIFY(!histories.empty());
        QCOMPARE(histories[0]->unit, TimeScale::US);
        const double ms
            = truth().value(u"series"_qs).toArray().at(0).toObject().value(u"p50"_qs).toArray().at(0).toDouble();
        const auto &series = histories[0]->series;
        const auto conv = std::find_if(series.begin(), series.end(),
            [](const HistorySeries &s) { return s.name == "native_call_convolution.out #1"; });
        QVERIFY(conv != series.end());
        QVERIFY2(std::abs(conv->p50[0] - 1000 * ms) <= 1e-9 * 1000 * ms, qPrintable(QString::number(conv->p50[0])));
    }

    void differentProgramsAreSaidSo()
    {
        test::PanelHost<HistoryPanel> host;
        QString error;
        QVERIFY2(host.panel->analyzeSync({ test::fixturePath("runtime/cnn_mlp_50runs/etdump.etdp"),
                                             test::fixturePath("runtime/add_pte_50runs/etdump.etdp") },
                     {}, &error),
            qPrintable(error));
        HistoryPage *page = host.panel->page();
        QVERIFY2(page->figuresText().contains(u"2 different programs"_qs), qPrintable(page->figuresText()));
        bool second = false;
        for (int r = 0; r < page->model()->rowCount(); ++r)
            second |= page->model()->index(r, 0).data().toString().startsWith(u"[program 2] "_qs);
        QVERIFY(second);
    }

    // In the window: a click on a point opens that recording; a click on a change compares the
    // recording before it (A) with the one after (B).
    void clicksOpenAndCompare()
    {
        MainWindow window(test::quietWindow());
        window.resize(1280, 720);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto *panel = test::part<HistoryPanel>(window);
        QString error;
        QVERIFY2(panel->analyzeSync({ kSteps }, kLabels, &error), qPrintable(error));
        HistoryChart *chart = panel->page()->chart();
        QTest::qWait(100);

        QSignalSpy loaded(window.controller(), &SessionController::loadFinished);
        QSignalSpy opened(chart, &HistoryChart::recordingClicked);
        QTest::mouseClick(chart->chartView()->viewport(), Qt::LeftButton, {}, chart->pointPosition(3));
        QCOMPARE(opened.count(), 1);
        QVERIFY(loaded.wait(30000));
        QCOMPARE(QFileInfo(QString::fromStdString(window.controller()->session()->inputs.etdump)).fileName(),
            recordingFile(3));

        const int at = twinChange(u"native_call_convolution.out #2"_qs);
        // The recording's own docks came to the front: back to the History tab.
        panel->dock()->raise();
        QTest::qWait(100);
        QVERIFY(chart->isVisible());
        // The change of the series shown (the largest: the second convolution's +5 %).
        const std::size_t change = panel->page()->model()->rowAt(panel->page()->selectedRow())->changes.at(0);
        auto *compare = test::part<CompareDocks>(window);
        QSignalSpy compared(compare, &CompareDocks::comparisonReady);
        QSignalSpy changed(chart, &HistoryChart::changeClicked);
        QTest::mouseClick(chart->chartView()->viewport(), Qt::LeftButton, {}, chart->changePosition(change));
        QCOMPARE(changed.count(), 1);
        QVERIFY(compared.wait(30000));
        QVERIFY2(compared.at(0).at(0).toBool(), qPrintable(compared.at(0).at(1).toString()));
        QCOMPARE(QFileInfo(QString::fromStdString(compare->view()->sessionA()->inputs.etdump)).fileName(),
            recordingFile(at - 1));
        QCOMPARE(QFileInfo(QString::fromStdString(compare->view()->sessionB()->inputs.etdump)).fileName(),
            recordingFile(at));
        QVERIFY(compare->dock()->isVisible());
        if (qEnvironmentVariableIsSet("ETSCOPE_HISTORY_SCREENSHOT"))
            window.grab().save(qEnvironmentVariable("ETSCOPE_HISTORY_SCREENSHOT"));
    }
};

QTEST_MAIN(TstHistoryPanel)
#include "tst_historypanel.moc"
