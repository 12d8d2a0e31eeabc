// The scope in the window (issue 35 items 3 and 4): one control chooses the method and phase
// every view answers for, each view names them, and the figures are those of the runs chosen.
// Truth:
//  - tests/data/app/llm_scope_expected.json, written by tests/tools/gen_scope_window_expected.py with
//    numpy over `flatc --json` of the real LLM fixture's ETDump (llm_decoder/profile), the method
//    of each run taken from the runner's log (runs.truth.json): per instruction, the kernel's
//    mean over the 64 decode runs; its share of their sum (permute_copy: 85.7 %); the top 12;
//  - tests/data/backend/vulkan_stem/etdump.json, the flatc source of the authored Vulkan
//    recording (read here as JSON): where each dispatch must be drawn once aligned at its
//    ETVK_COMPUTE_GRAPH_EXECUTE's start.
#include "comparedocks.h"
#include "compareview.h"
#include "detailspanel.h"
#include "difftreemodel.h"
#include "eventpanels.h"
#include "eventtableview.h"
#include "eventtreemodel.h"
#include "graph/programgraph.h"
#include "graphdock.h"
#include "graphview.h"
#include "histogramwidget.h"
#include "mainwindow.h"
#include "modelroles.h"
#include "scopecontrols.h"
#include "sessioncontroller.h"
#include "timelinewidget.h"
#include "topeventschart.h"
#include "windowtest.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QTest>
#include <QTreeWidget>

#include <cmath>
#include <map>

using namespace etscope;

namespace {
const QString kLlm = QStringLiteral(ETSCOPE_TEST_DATA_DIR "/runtime/llm_decoder/");

QJsonObject readJson(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

// The numpy truth of one method of the profile recording.
QJsonObject expectedOf(const char *method)
{
    return readJson(QStringLiteral(ETSCOPE_TEST_DATA_DIR "/app/llm_scope_expected.json"))
        .value(QStringLiteral("methods"))
        .toObject()
        .value(QString::fromLatin1(method))
        .toObject();
}

bool close(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

void openLlm(MainWindow &w)
{
    QVERIFY(w.controller()->openFilesSync({ kLlm + QStringLiteral("profile/etdump.etdp"),
        kLlm + QStringLiteral("llm_decoder.pte"), kLlm + QStringLiteral("llm_decoder.ptd") }));
}

void chooseMethod(MainWindow &w, const QString &method)
{
    QComboBox *box = test::part<ScopeControls>(w)->methodBox();
    const int i = box->findData(method);
    QVERIFY2(i >= 0, qPrintable(method));
    box->setCurrentIndex(i);
}
} // namespace

class TestScopeWindow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // The control offers what the recording holds; choosing decode_forward scopes every view
    // to its 64 runs and names them in every scoped panel's title.
    void controlAndTitles()
    {
        MainWindow w(test::quietWindow());
        openLlm(w);
        QComboBox *methods = test::part<ScopeControls>(w)->methodBox();
        QCOMPARE(methods->count(), 3); // every method, prefill_forward, decode_forward
        QCOMPARE(methods->itemData(1).toString(), QStringLiteral("prefill_forward"));
        QCOMPARE(methods->itemData(2).toString(), QStringLiteral("decode_forward"));
        chooseMethod(w, QStringLiteral("decode_forward"));
        const QString label = QStringLiteral("decode_forward · 64 runs");
        QCOMPARE(QString::fromStdString(w.controller()->scoped()->label), label);
        // The phase box now offers decode_forward's phase only.
        QComboBox *phases = test::part<ScopeControls>(w)->phaseBox();
        QCOMPARE(phases->count(), 2);
        phases->setCurrentIndex(phases->findData(int(Phase::Decode)));
        const QString decode = QStringLiteral("decode_forward · decode · 64 runs");
        QCOMPARE(QString::fromStdString(w.controller()->scoped()->label), decode);
        for (const char *dock : { "TopEventsDock", "GraphDock", "DetailsDock", "HistogramDock", "ModulesDock" })
            QVERIFY2(w.findChild<QDockWidget *>(QString::fromLatin1(dock))->windowTitle().endsWith(decode),
                qPrintable(w.findChild<QDockWidget *>(QString::fromLatin1(dock))->windowTitle()));
        QVERIFY(test::part<TopEventsDock>(w)->chart()->caption().contains(decode));
        QVERIFY(w.graphDock()->view()->legendTitle().contains(decode));
        // Every method keeps the phase: the decode runs of every method (the same 64 here).
        methods->setCurrentIndex(0);
        QCOMPARE(QString::fromStdString(w.controller()->scoped()->label), QStringLiteral("decode · 64 runs"));
        // Back to the whole recording, still named (the recording has a choice).
        phases->setCurrentIndex(phases->findData(int(Phase::All)));
        QVERIFY(w.controller()->scope().whole());
        QVERIFY(w.findChild<QDockWidget *>(QStringLiteral("TopEventsDock"))
                    ->windowTitle()
                    .endsWith(QStringLiteral("all runs · 65 runs")));
    }

    // The graph overlay of decode_forward over its decode runs: every node's latency is the
    // kernel's mean over the 64 decode runs (numpy), its share of their sum too; permute_copy
    // is 85.7 % of decode. Prefill's run enters no node (the whole recording added it).
    void graphOverlayOfDecode()
    {
        const QJsonObject expected = expectedOf("decode_forward");
        QVERIFY(!expected.isEmpty());
        std::map<int, double> mean, share;
        for (const QJsonValue &k : expected.value(QStringLiteral("kernels")).toArray()) {
            mean[k[QStringLiteral("instruction_id")].toInt()] = k[QStringLiteral("mean_ms")].toDouble();
            share[k[QStringLiteral("instruction_id")].toInt()] = k[QStringLiteral("share")].toDouble();
        }
        MainWindow w(test::quietWindow());
        w.resize(1280, 720);
        w.show();
        openLlm(w);
        Scope s;
        s.method = "decode_forward";
        s.phase = Phase::Decode;
        QVERIFY(w.controller()->setScope(s));
        const Session &session = *w.controller()->session();
        const graph::OverlayData &d = w.graphDock()->view()->overlayData();
        QVERIFY(d.hasLatency());
        QVERIFY(close(d.totalLatency, expected.value(QStringLiteral("total_ms")).toDouble()));
        double permute = 0;
        std::size_t checked = 0;
        for (std::size_t n = 0; n < d.nodeEvents.size(); ++n) {
            if (d.nodeEvents[n].empty())
                continue;
            const graph::EventRef r = d.nodeEvents[n].front();
            // Every event of the overlay lies in a block of decode runs.
            for (const graph::EventRef &e : d.nodeEvents[n])
                QCOMPARE(session.runTable.run(std::size_t(e.block), 0)->methodName(), std::string("decode_forward"));
            const Event &ev = session.blocks[std::size_t(r.block)].events[std::size_t(r.event)];
            QVERIFY2(mean.count(ev.instructionId), qPrintable(QString::number(ev.instructionId)));
            QVERIFY2(close(d.nodeLatency[n], mean[ev.instructionId]),
                qPrintable(QStringLiteral("instruction %1: %2 vs %3")
                               .arg(ev.instructionId)
                               .arg(d.nodeLatency[n])
                               .arg(mean[ev.instructionId])));
            QVERIFY(close(d.nodeLatency[n] / d.totalLatency, share[ev.instructionId]));
            if (ev.name == "native_call_permute_copy.out")
                permute += d.nodeLatency[n] / d.totalLatency;
            ++checked;
        }
        QCOMPARE(checked, mean.size());
        QVERIFY(close(permute,
            expected.value(QStringLiteral("op_shares"))
                .toObject()[QStringLiteral("native_call_permute_copy.out")]
                .toDouble()));
        QCOMPARE(QString::number(permute * 100, 'f', 1), QStringLiteral("85.7"));
        // A click on a node selects the decode event (a block of decode runs), never prefill's.
        const int node = int(std::find_if(d.nodeEvents.begin(), d.nodeEvents.end(), [](const auto &v) {
            return !v.empty();
        }) - d.nodeEvents.begin());
        QCOMPARE(session.runTable.run(std::size_t(d.nodeEvents[std::size_t(node)].front().block), 0)->methodName(),
            std::string("decode_forward"));
    }

    // Top events over the decode runs: the 12 slowest kernels with their means (numpy), slowest
    // first; the histogram of a decode event has the 64 decode runs, named "run 2" … "run 65"
    // (run 1 is prefill's, runs.truth.json).
    void topEventsOfDecode()
    {
        const QJsonArray top = expectedOf("decode_forward").value(QStringLiteral("top12")).toArray();
        QCOMPARE(top.size(), 12);
        MainWindow w(test::quietWindow());
        openLlm(w);
        Scope s;
        s.method = "decode_forward";
        s.phase = Phase::Decode;
        QVERIFY(w.controller()->setScope(s));
        const Session &session = *w.controller()->session();
        const auto &entries = test::part<TopEventsDock>(w)->chart()->entries();
        QCOMPARE(int(entries.size()), 12);
        for (int i = 0; i < 12; ++i) {
            const Event &ev = session.blocks[std::size_t(entries[std::size_t(i)].block)]
                                  .events[std::size_t(entries[std::size_t(i)].event)];
            QCOMPARE(ev.instructionId, top[i][QStringLiteral("instruction_id")].toInt());
            QCOMPARE(QString::fromUtf8(ev.name.data(), qsizetype(ev.name.size())),
                top[i][QStringLiteral("name")].toString());
            QVERIFY(close(entries[std::size_t(i)].avg, top[i][QStringLiteral("mean_ms")].toDouble()));
        }
        // The slowest decode kernel in Details and the histogram: 64 runs, numbered as every view.
        test::selection(w)->setCurrentEvent(entries.front().block, entries.front().event);
        QCOMPARE(test::part<EventDetailsDocks>(w)->histogram()->totalCount(), 64);
        QVERIFY(test::part<EventDetailsDocks>(w)->details()->title().contains(
            QStringLiteral("native_call_permute_copy.out")));
        QCOMPARE(test::part<EventDetailsDocks>(w)->details()->rawValueCount(), 64);
        QTreeWidget *tree = test::part<EventDetailsDocks>(w)->details()->propertiesTree();
        QTreeWidgetItem *raw = nullptr;
        for (int i = 0; i < tree->topLevelItemCount(); ++i)
            if (tree->topLevelItem(i)->text(0).startsWith(QStringLiteral("Raw values")))
                raw = tree->topLevelItem(i);
        QVERIFY(raw);
        QCOMPARE(raw->child(0)->text(0), QStringLiteral("run 2"));
        QCOMPARE(raw->child(63)->text(0), QStringLiteral("run 65"));
    }

    // The event table keeps upstream's blocks (names unchanged) and labels each with its runs'
    // method and phase beside the name; its model stays a valid model.
    void tableLabelsBlocks()
    {
        MainWindow w(test::quietWindow());
        openLlm(w);
        const QAbstractItemModel *m = w.table()->model();
        QAbstractItemModelTester tester(
            const_cast<QAbstractItemModel *>(m), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QStringList labels;
        for (int r = 0; r < m->rowCount(); ++r) {
            const QModelIndex block = m->index(r, EventTreeModel::NameColumn);
            QVERIFY(block.data().toString() == QStringLiteral("Execute")
                || block.data().toString() == QStringLiteral("Default"));
            labels << block.data(NameDetailRole).toString();
        }
        QVERIFY2(labels.contains(QStringLiteral("prefill_forward · prefill · 1 run")), qPrintable(labels.join(u'|')));
        QVERIFY2(labels.contains(QStringLiteral("decode_forward · decode · 64 runs")), qPrintable(labels.join(u'|')));
    }

    // Two LLM recordings compared (profile: 1 prefill + 64 decode runs; intermediates: 1 + 2):
    // rows pair within each method and phase, their blocks labelled with it, and each part has
    // its own operator total (the sum of the kernels' medians, numpy) — never one sum over both.
    void compareTwoLlmRecordings()
    {
        auto totals = [](const char *file) {
            std::map<std::string, double> out;
            const QJsonObject m = readJson(QStringLiteral(ETSCOPE_TEST_DATA_DIR "/app/") + QString::fromLatin1(file))
                                      .value(QStringLiteral("methods"))
                                      .toObject();
            for (auto it = m.begin(); it != m.end(); ++it)
                out[it.key().toStdString()] = it.value()[QStringLiteral("total_p50_ms")].toDouble();
            return out;
        };
        const auto a = totals("llm_scope_expected.json"), b = totals("llm_scope_intermediates_expected.json");
        MainWindow w(test::quietWindow());
        openLlm(w);
        QString error;
        // B without its program: A's is used, B's runs fitting it.
        QVERIFY2(w.compareDocks()->compareWithSync({ kLlm + QStringLiteral("intermediates/etdump.etdp"),
                                                       kLlm + QStringLiteral("intermediates/debug_output.bin") },
                     &error),
            qPrintable(error));
        CompareView *v = w.compareDocks()->view();
        QAbstractItemModelTester tester(v->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        const LatencyDiff &d = *v->diff();
        std::map<std::string, int> rowsPerBlock;
        for (const DiffRow &r : d.rows)
            ++rowsPerBlock[r.blockName];
        QVERIFY(rowsPerBlock.count("Execute · prefill_forward · prefill"));
        QVERIFY(rowsPerBlock.count("Execute · decode_forward · decode"));
        // Each row's events lie in blocks of its own method, on both sides.
        const Session &sa = *v->sessionA(), &sb = *v->sessionB();
        for (const DiffRow &r : d.rows) {
            const std::string method
                = r.blockName.find("decode_forward") != std::string::npos ? "decode_forward" : "prefill_forward";
            for (const EventPos &p : r.a.events)
                QCOMPARE(sa.runTable.run(p.block, 0)->methodName(), method);
            for (const EventPos &p : r.b.events)
                QCOMPARE(sb.runTable.run(p.block, 0)->methodName(), method);
        }
        const QString summary = v->summary()->text();
        QVERIFY2(summary.contains(QStringLiteral("operator totals: ")), qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("decode_forward · decode ")), qPrintable(summary));
        // The parts' totals against numpy (sum of the kernels' medians per method).
        const auto &parts = v->scopeParts();
        QCOMPARE(int(parts.size()), 2);
        for (const ScopeDiffPart &p : parts) {
            QVERIFY2(close(p.total.a, a.at(p.scope.method)), qPrintable(QString::number(p.total.a)));
            QVERIFY2(close(p.total.b, b.at(p.scope.method)), qPrintable(QString::number(p.total.b)));
        }
        QCOMPARE(parts[0].runsA, std::size_t(1));
        QCOMPARE(parts[1].runsA, std::size_t(64));
        QCOMPARE(parts[1].runsB, std::size_t(2));
    }

    // Vulkan dispatches timed on the GPU query pool's clock (7.35 s) are drawn inside their
    // ETVK_COMPUTE_GRAPH_EXECUTE (2.0195 ms): the earliest dispatch at its start, the others kept
    // apart as recorded, durations unchanged; the info line states the offset.
    void vulkanDispatchesInsideTheirPhase()
    {
        const QJsonObject doc = readJson(QStringLiteral(ETSCOPE_TEST_DATA_DIR "/backend/vulkan_stem/etdump.json"));
        const QJsonArray events
            = doc[QStringLiteral("run_data")].toArray()[1].toObject()[QStringLiteral("events")].toArray();
        double graphStart = 0, graphEnd = 0, executeStart = 0, firstDispatch = 1e300;
        QList<std::pair<double, double>> dispatches; // start, end in ns, as recorded
        for (const QJsonValue &v : events) {
            const QJsonObject p = v[QStringLiteral("profile_event")].toObject();
            const QString name
                = p[QStringLiteral("name")].toString() + p[QStringLiteral("delegate_debug_id_str")].toString();
            const double start = p[QStringLiteral("start_time")].toDouble(),
                         end = p[QStringLiteral("end_time")].toDouble();
            if (name == QStringLiteral("ETVK_COMPUTE_GRAPH_EXECUTE")) {
                graphStart = start;
                graphEnd = end;
            } else if (name == QStringLiteral("Method::execute")) {
                executeStart = start;
            } else if (name.contains(QStringLiteral("dispatch_id"))) {
                dispatches.append({ start, end });
                firstDispatch = std::min(firstDispatch, start);
            }
        }
        QCOMPARE(dispatches.size(), 4);
        MainWindow w(test::quietWindow());
        w.resize(1280, 720);
        w.show();
        QVERIFY(w.controller()->openFilesSync(
            { QStringLiteral(ETSCOPE_TEST_DATA_DIR "/backend/vulkan_stem/etdump.etdp") }));
        TimelineWidget *t = test::part<TimelineDock>(w)->timeline();
        const Session &session = *w.controller()->session();
        const auto &block = session.blocks[std::size_t(t->currentBlock())];
        QList<std::pair<double, double>> drawn;
        for (const TimelineBar &b : t->layout().bars)
            if (b.moved)
                drawn.append({ b.start, b.end });
        QCOMPARE(drawn.size(), 4);
        std::sort(drawn.begin(), drawn.end());
        const double offset = graphStart - firstDispatch; // ns
        for (int i = 0; i < 4; ++i) {
            // The bars are in ms from the run's earliest start (Method::execute).
            const double start = (dispatches[i].first + offset - executeStart) / 1e6;
            const double end = (dispatches[i].second + offset - executeStart) / 1e6;
            QVERIFY2(std::abs(drawn[i].first - start) < 1e-9, qPrintable(QString::number(drawn[i].first)));
            QVERIFY(std::abs((drawn[i].second - drawn[i].first) - (end - start)) < 1e-9);
            QVERIFY(drawn[i].first >= (graphStart - executeStart) / 1e6 - 1e-12);
            QVERIFY(drawn[i].second <= (graphEnd - executeStart) / 1e6 + 1e-12);
        }
        QVERIFY2(t->infoText().contains(QStringLiteral("drawn from their ETVK_COMPUTE_GRAPH_EXECUTE's start")),
            qPrintable(t->infoText()));
        Q_UNUSED(block);
    }
};

QTEST_MAIN(TestScopeWindow)
#include "tst_scopewindow.moc"
