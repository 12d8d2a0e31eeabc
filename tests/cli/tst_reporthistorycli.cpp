// etscope-cli report --history, run as a user runs it, on the generated series of
// tests/data/history/steps (tests/tools/gen_history_series.py). The History section's figures
// equal `etscope-cli history --json` on the same inputs, cell for cell (every digit, from the
// cells' data-v), and its before/after means equal numpy's (history_model_expected.json, written
// by tests/tools/gen_history_model_expected.py from the committed truth, not by etscope).
#include "clirun.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <fstream>

namespace {

using etscope::test::runCli;

const QString kData = QStringLiteral(ETSCOPE_TEST_DATA_DIR "/history");

QString section(const QString &html)
{
    const int from = html.indexOf(u"<section id=\"history\">"_qs);
    const int to = html.indexOf(u"</section>"_qs, from);
    return from < 0 || to < 0 ? QString() : html.mid(from, to - from);
}

} // namespace

class TstReportHistoryCli : public QObject
{
    Q_OBJECT

private slots:
    void sectionEqualsHistoryJson()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(u"report.html"_qs);
        const QStringList inputs = { kData + u"/steps"_qs, u"--labels"_qs, kData + u"/steps/labels.csv"_qs };
        auto r = runCli(QStringList { u"report"_qs, u"--history"_qs } + inputs + QStringList { u"-o"_qs, out });
        QVERIFY2(r.code == 0, r.err.constData());
        auto j = runCli(QStringList { u"history"_qs } + inputs + QStringList { u"--json"_qs, u"-"_qs });
        QCOMPARE(j.code, 0);
        const auto json = nlohmann::json::parse(j.out.toStdString());
        const auto &changes = json["change_points"];
        QCOMPARE(changes.size(), std::size_t(3));

        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString html = QString::fromUtf8(f.readAll());
        QVERIFY(html.contains(u"<a href=\"#history\">History</a>"_qs));
        const QString s = section(html);
        QVERIFY(s.contains(u"(24 recordings, 1 program, series by operator)"_qs));
        QVERIFY(s.contains(u"3 change points in 28 series."_qs));
        // Without --etdump the report's recording is the history's newest.
        QVERIFY(html.contains(QString::fromStdString(json["recordings"].back()["file"].get<std::string>())));

        static const QRegularExpression rowRe(u"<tr><td>([^<]*)</td>(.*?)</tr>"_qs);
        static const QRegularExpression cellRe(u"<td([^>]*)>([^<]*)</td>"_qs);
        static const QRegularExpression dataV(u"data-v=\"([^\"]*)\""_qs);
        const int tbody = s.indexOf(u"<tbody>"_qs);
        auto rows = rowRe.globalMatch(s, tbody);
        std::size_t n = 0;
        for (; rows.hasNext(); ++n) {
            const auto row = rows.next();
            QVERIFY(n < changes.size());
            const auto &c = changes[n];
            QCOMPARE(row.captured(1).toStdString(), c["name"].get<std::string>());
            QStringList v, text;
            auto cells = cellRe.globalMatch(row.captured(2));
            while (cells.hasNext()) {
                const auto cell = cells.next();
                v << dataV.match(cell.captured(1)).captured(1);
                text << cell.captured(2);
            }
            QCOMPARE(v.size(), 9); // before, ±, after, ±, %, index, at, after, p
            const char *keys[] = { "before", "before_ci95", "after", "after_ci95", "change_percent" };
            for (int k = 0; k < 5; ++k)
                QVERIFY2(v[k].toDouble() == c[keys[k]].get<double>(), keys[k]);
            QCOMPARE(v[5].toULongLong(), c["index"].get<unsigned long long>());
            QCOMPARE(text[6].toStdString(), c["label"].get<std::string>());
            QCOMPARE(text[7].toStdString(), c["label_before"].get<std::string>());
            QCOMPARE(v[8].toDouble(), c["p"].get<double>());
        }
        QCOMPARE(n, changes.size());
        // One trend per series that changed, each with its change marker.
        QCOMPARE(s.count(u"<svg id=\"history-trend-"_qs), 3);
        QCOMPARE(s.count(u"<line class=\"change\""_qs), 3);

        // And numpy's means on either side (history_model_expected.json).
        std::ifstream in(ETSCOPE_TEST_DATA_DIR "/history/history_model_expected.json");
        const auto truth = nlohmann::json::parse(in);
        for (const auto &c : changes)
            for (const auto &t : truth["series"])
                if (t["name"] == c["name"]) {
                    const auto &e = t["changes"][0];
                    QVERIFY(std::abs(c["before"].get<double>() - e["before"].get<double>()) < 1e-12);
                    QVERIFY(std::abs(c["after"].get<double>() - e["after"].get<double>()) < 1e-12);
                    QVERIFY(std::abs(c["after_ci95"].get<double>() - e["after_ci95"].get<double>()) < 1e-12);
                }
    }

    void noChangeIsSaid()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(u"flat.html"_qs);
        auto r = runCli(
            { u"report"_qs, u"--history"_qs, kData + u"/flat"_qs, u"--history-by"_qs, u"total"_qs, u"-o"_qs, out });
        QVERIFY2(r.code == 0, r.err.constData());
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString s = section(QString::fromUtf8(f.readAll()));
        QVERIFY(s.contains(u"series by total"_qs));
        QVERIFY(s.contains(u"No significant change in any of the 1 series."_qs));
        QVERIFY(!s.contains(u"<svg"_qs));
    }

    void badInput()
    {
        auto r = runCli({ u"report"_qs, u"--history"_qs, kData + u"/none"_qs });
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.startsWith("etscope-cli: "));
        r = runCli({ u"report"_qs, u"--labels"_qs, kData + u"/steps/labels.csv"_qs, kData + u"/flat/r00.etdp"_qs });
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("--labels needs --history"));
    }
};

QTEST_GUILESS_MAIN(TstReportHistoryCli)
#include "tst_reporthistorycli.moc"
