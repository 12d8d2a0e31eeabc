// The History table over the generated series of tests/data/history/steps (real-shaped
// recordings written by tests/tools/gen_history_series.py from the real cnn_mlp_50runs recording,
// steps planted at known recordings). Expected values: history_model_expected.json, written by
// tests/tools/gen_history_model_expected.py with numpy from the committed truth (the series' p50
// per recording from the events' times, the change points of the independent numpy twin
// edivisive_reference.py): names and order, recordings, the newest p50, the number of changes, the
// largest change's means and 95 % intervals, percent, label and p. No etscope code made them.
#include "analysis/history.h"
#include "export/recordings.h"
#include "historymodel.h"
#include "modelroles.h"
#include "testpaths.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>

using namespace etscope;

namespace {

std::shared_ptr<const History> load(HistoryBy by, const std::string &set, bool labels)
{
    HistoryInputs in;
    in.recordings = { test::testData("history/" + set) };
    if (labels)
        in.labelsCsv = test::testData("history/" + set + "/labels.csv");
    in.by = by;
    auto h = loadHistory(in);
    if (!h)
        qFatal("%s", h.error().message().c_str());
    return std::make_shared<const History>(std::move(*h));
}

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b));
}

} // namespace

class TstHistoryModel : public QObject
{
    Q_OBJECT
private slots:
    void rowsAreTheSeriesWithTheirLargestChange()
    {
        HistoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setHistories({ load(HistoryBy::Operator, "steps", true), load(HistoryBy::Method, "steps", true),
            load(HistoryBy::Total, "steps", true) });

        QFile f(QString::fromStdString(test::testData("history/history_model_expected.json")));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonArray rows = QJsonDocument::fromJson(f.readAll()).object().value(u"series"_qs).toArray();
        QCOMPARE(model.rowCount(), int(rows.size()));
        QCOMPARE(model.columnCount(), int(HistoryModel::NUM_COLUMNS));
        int withChange = 0;
        for (int i = 0; i < rows.size(); ++i) {
            const QJsonObject t = rows.at(i).toObject();
            const QString name = t.value(u"name"_qs).toString();
            QCOMPARE(model.index(i, HistoryModel::NameColumn).data().toString(), name);
            QCOMPARE(model.index(i, HistoryModel::RecordingsColumn).data().toString(),
                QString::number(t.value(u"recordings"_qs).toInt()));
            const double latest = model.index(i, HistoryModel::LatestColumn).data(SortRole).toDouble();
            QVERIFY2(near(latest, t.value(u"latest_p50"_qs).toDouble()), qPrintable(name));
            const QJsonArray changes = t.value(u"changes"_qs).toArray();
            QCOMPARE(model.index(i, HistoryModel::ChangesColumn).data().toString(), QString::number(changes.size()));
            const HistoryChange *c = model.largestChangeOf(i);
            if (t.value(u"largest"_qs).isNull()) {
                QVERIFY2(!c, qPrintable(name));
                QVERIFY(model.index(i, HistoryModel::LargestColumn).data().toString().isEmpty());
                continue;
            }
            ++withChange;
            QVERIFY2(c, qPrintable(name));
            const QJsonObject e = changes.at(t.value(u"largest"_qs).toInt()).toObject();
            QCOMPARE(c->index, std::size_t(e.value(u"index"_qs).toInt()));
            QVERIFY(near(c->before, e.value(u"before"_qs).toDouble()));
            QVERIFY(near(c->beforeCi, e.value(u"before_ci95"_qs).toDouble()));
            QVERIFY(near(c->after, e.value(u"after"_qs).toDouble()));
            QVERIFY(near(c->afterCi, e.value(u"after_ci95"_qs).toDouble()));
            QVERIFY(std::abs(c->changePercent - e.value(u"change_percent"_qs).toDouble()) < 1e-9);
            QCOMPARE(c->test.pValue, e.value(u"p"_qs).toDouble());
            // What the cell says: the numpy figures to 4 significant digits, the label, p.
            const QString text = model.index(i, HistoryModel::LargestColumn).data().toString();
            QCOMPARE(text, t.value(u"largest_text"_qs).toString());
            QCOMPARE(model.index(i, HistoryModel::LargestColumn).data(SortRole).toDouble(), std::abs(c->changePercent));
        }
        QCOMPARE(withChange, 4); // three planted steps and the total they move
        QCOMPARE(model.headerData(HistoryModel::LatestColumn, Qt::Horizontal).toString(), u"latest p50 (ms)"_qs);
    }

    // Step-free series: every row without a change, no largest change shown.
    void flatSeriesHaveNoChange()
    {
        HistoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setHistories({ load(HistoryBy::Operator, "flat", false) });
        QVERIFY(model.rowCount() > 20);
        for (int i = 0; i < model.rowCount(); ++i) {
            QCOMPARE(model.index(i, HistoryModel::ChangesColumn).data().toString(), u"0"_qs);
            QVERIFY(!model.largestChangeOf(i));
            QCOMPARE(model.index(i, HistoryModel::RecordingsColumn).data().toString(), u"12"_qs);
        }
        model.setHistories({});
        QCOMPARE(model.rowCount(), 0);
    }

    // Two programs: each its own series, named by program.
    void programsAreNamed()
    {
        HistoryInputs in;
        in.recordings = { test::sharedFixture("runtime/cnn_mlp_50runs/etdump.etdp"),
            test::sharedFixture("runtime/add_pte_50runs/etdump.etdp") };
        in.by = HistoryBy::Total;
        auto h = loadHistory(in);
        QVERIFY2(h, h ? "" : h.error().message().c_str());
        HistoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setHistories({ std::make_shared<const History>(std::move(*h)) });
        QCOMPARE(model.rowCount(), 2);
        QVERIFY(model.index(0, 0).data().toString().startsWith(u"[program 1] "_qs));
        QVERIFY(model.index(1, 0).data().toString().startsWith(u"[program 2] "_qs));
        QCOMPARE(model.index(1, HistoryModel::RecordingsColumn).data().toString(), u"1"_qs);
    }
};

QTEST_GUILESS_MAIN(TstHistoryModel)
#include "tst_historymodel.moc"
