// The runs table over the real cnn_mlp_50runs recording (50 Execute runs written by the ExecuTorch
// runtime). Expected values: tests/data/analysis/runs_expected/cnn_mlp_50runs.json, written by
// tests/tools/gen_runs_expected.py from flatc's JSON of the ETDump with numpy (no etscope code).
#include "analysis/runs.h"
#include "modelroles.h"
#include "runsmodel.h"
#include "session/session.h"
#include "testpaths.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>

using namespace etscope;

class TstRunsModel : public QObject
{
    Q_OBJECT
private slots:
    void rowsAreTheRuns()
    {
        SessionInputs in;
        in.etdump = test::sharedFixture("runtime/cnn_mlp_50runs/etdump.etdp");
        auto s = loadSession(in);
        QVERIFY2(s, s ? "" : s.error().message().c_str());
        RunsOptions o;
        o.time = (*s)->inputs.time;
        auto report = analyzeRuns((*s)->blocks, nullptr, o, in.etdump);
        QVERIFY2(report, report ? "" : report.error().message().c_str());

        RunsTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setReport(std::make_shared<const RunsReport>(std::move(*report)));

        QFile f(QString::fromStdString(test::testData("analysis/runs_expected/cnn_mlp_50runs.json")));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonArray runs = QJsonDocument::fromJson(f.readAll()).object().value(u"runs"_qs).toArray();
        QCOMPARE(model.rowCount(), 50);
        QCOMPARE(runs.size(), 50);
        const double first = runs.at(0).toObject().value(u"start_ns"_qs).toDouble();
        int outliers = 0;
        for (int i = 0; i < runs.size(); ++i) {
            const QJsonObject r = runs.at(i).toObject();
            QCOMPARE(model.index(i, RunsTableModel::RunColumn).data().toString(), QString::number(i + 1));
            QCOMPARE(model.index(i, RunsTableModel::PhaseColumn).data().toString(), r.value(u"phase"_qs).toString());
            const double ms = model.index(i, RunsTableModel::DurationColumn).data(SortRole).toDouble();
            QVERIFY2(std::abs(ms - r.value(u"duration_ms"_qs).toDouble()) < 1e-9,
                qPrintable(
                    QStringLiteral("run %1: %2 ms vs %3").arg(i).arg(ms).arg(r.value(u"duration_ms"_qs).toDouble())));
            const double start = model.index(i, RunsTableModel::StartColumn).data(SortRole).toDouble();
            QVERIFY(std::abs(start - (r.value(u"start_ns"_qs).toDouble() - first) / 1e6) < 1e-6);
            const bool outlier = r.value(u"outlier"_qs).toBool();
            QCOMPARE(model.index(i, RunsTableModel::NoteColumn).data().toString().contains(u"outlier"_qs), outlier);
            outliers += outlier;
            // No program: no method, and no token count.
            QVERIFY(model.index(i, RunsTableModel::TokensColumn).data().toString().isEmpty());
        }
        QCOMPARE(model.index(0, RunsTableModel::StartColumn).data(SortRole).toDouble(), 0.0);
        qInfo("%d outlier runs", outliers);
        model.setReport(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TstRunsModel)
#include "tst_runsmodel.moc"
