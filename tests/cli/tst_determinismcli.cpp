// etscope-cli determinism and the coverage lines of `runs` / `table --coverage`, run as a user
// runs them. Truth: tests/data/determinism/determinism_expected.json
// (tests/tools/gen_determinism_fixtures.py, numpy) and tests/data/analysis/coverage_expected.json
// (tests/tools/gen_coverage_expected.py, numpy over flatc JSON).
#include "clirun.h"

#include <QRegularExpression>
#include <QTest>

#include <nlohmann/json.hpp>

#include <fstream>

namespace {

using etscope::test::runCli;

const QString kDir = QStringLiteral(ETSCOPE_TEST_DATA_DIR "/determinism/");
const QString kCnn = QStringLiteral(ETSCOPE_SHARED_DIR "/fixtures/runtime/cnn_mlp_50runs/etdump.etdp");

nlohmann::json expected(const char *file)
{
    std::ifstream in(std::string(ETSCOPE_TEST_DATA_DIR) + file);
    return nlohmann::json::parse(in);
}

} // namespace

class TstDeterminismCli : public QObject
{
    Q_OBJECT

private slots:
    void namesTheTile()
    {
        const auto r = runCli(
            { u"determinism"_qs, u"--etdump"_qs, kDir + u"tile.etdp"_qs, u"--debug-buffer"_qs, kDir + u"tile.bin"_qs });
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.startsWith("op #12 (native_call_permute_copy.out) varies on runs 1, 4 in a 32×64 tile "
                                 "(rows 32–63, cols 0–63 of 256×64; 2048 elements)\n"));
        QVERIFY(r.out.contains("2 of 33 logged tensors vary, beyond rounding: up to 31 differing low-order bits"));
    }

    // Two recordings: --etdump/--debug-buffer repeated, paired in order; JSON as numpy says.
    void jsonAcrossRecordings()
    {
        const auto truth = expected("/determinism/determinism_expected.json")["tile"];
        const auto r = runCli({ u"determinism"_qs, u"--etdump"_qs, kDir + u"tile_a.etdp"_qs, u"--debug-buffer"_qs,
            kDir + u"tile_a.bin"_qs, u"--etdump"_qs, kDir + u"tile_b.etdp"_qs, u"--debug-buffer"_qs,
            kDir + u"tile_b.bin"_qs, u"--json"_qs, u"-"_qs });
        QCOMPARE(r.code, 0);
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QVERIFY(j["runs"] == 6);
        QVERIFY(j["tensors"].size() == truth.size());
        for (std::size_t i = 0; i < truth.size(); ++i) {
            QVERIFY(j["tensors"][i]["distinct"] == truth[i]["distinct"]);
            QVERIFY(j["tensors"][i]["runs_differ"] == truth[i]["runs_differ"]);
        }
        QVERIFY(j["tensors"][13]["instruction_id"] == 12);
        QVERIFY(j["first_varying"] == 13);
    }

    void deterministic()
    {
        const auto r
            = runCli({ u"determinism"_qs, u"-e"_qs, kDir + u"repeat.etdp"_qs, u"-b"_qs, kDir + u"repeat.bin"_qs });
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.startsWith("deterministic: all 33 logged tensors are bit-exact over 3 runs\n"));
    }

    void badInput()
    {
        auto r = runCli({ u"determinism"_qs, u"-e"_qs, kDir + u"tile.etdp"_qs, u"-b"_qs, kDir + u"tile.bin"_qs,
            u"-e"_qs, kDir + u"tile_a.etdp"_qs });
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("2 --etdump but 1 --debug-buffer"));
        r = runCli({ u"determinism"_qs, u"-e"_qs, kCnn, u"-b"_qs, kDir + u"tile.bin"_qs });
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("no run logged tensors"));
    }

    // `runs`: the coverage line with units, and in the JSON; `table --coverage`: the table's bytes
    // unchanged on stdout, the summary on stderr.
    void coverageLines()
    {
        const auto truth = expected("/analysis/coverage_expected.json")["cnn_mlp_50runs"];
        auto r = runCli({ u"runs"_qs, u"--etdump"_qs, kCnn });
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("coverage: events explain 98.7 % of Method::execute (50 runs: "));
        QVERIFY(r.out.contains("coverage: kernels explain 98.4 % of OPERATOR_CALL (1400 instances: "));
        r = runCli({ u"runs"_qs, u"--etdump"_qs, kCnn, u"--json"_qs, u"-"_qs });
        QCOMPARE(r.code, 0);
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QVERIFY(std::abs(j["coverage"]["execute"].get<double>() - truth["execute"].get<double>()) < 1e-9);
        QVERIFY(std::abs(j["coverage"]["explained"].get<double>() - truth["explained"].get<double>()) < 1e-9);
        QVERIFY(j["coverage"]["unit"] == "ms");
        QVERIFY(j.contains("runs")); // the runs' own members are still there

        const auto plain = runCli({ u"table"_qs, u"--etdump"_qs, kCnn });
        const auto withCoverage
            = runCli({ u"table"_qs, u"--etdump"_qs, kCnn, u"--coverage"_qs, u"--wall-ms"_qs, u"100"_qs });
        QCOMPARE(withCoverage.code, 0);
        QCOMPARE(withCoverage.out, plain.out);
        QVERIFY(plain.err.isEmpty());
        QVERIFY(withCoverage.err.startsWith("coverage: events explain 98.7 % of Method::execute"));
        QVERIFY(withCoverage.err.contains("of the wall time given ("));
        QVERIFY(withCoverage.err.contains("100 ms)"));

        const auto low = runCli({ u"runs"_qs, u"--etdump"_qs,
            QStringLiteral(ETSCOPE_SHARED_DIR "/fixtures/runtime/add_pte_50runs/etdump.etdp") });
        QVERIFY(low.out.contains("coverage: warning: events explain only 80.7 % of Method::execute"));
    }

    // `runs` with several --etdump: one table, a column per recording; the coverage row is the
    // numpy truth (98.74 % and 98.12 %, rounded to 3 digits), the run counts the fixtures' own.
    void runsSideBySide()
    {
        const QString xnn
            = QStringLiteral(ETSCOPE_SHARED_DIR "/fixtures/runtime/xnnpack_mlp_intermediates/etdump.etdp");
        const auto r = runCli({ u"runs"_qs, u"--etdump"_qs, kCnn, u"--etdump"_qs, xnn, u"--top"_qs, u"2"_qs });
        QCOMPARE(r.code, 0);
        const QStringList lines = QString::fromUtf8(r.out).split(u'\n');
        QCOMPARE(lines.at(0), u"2 recordings side by side"_qs);
        QVERIFY(lines.at(1).contains(u"cnn_mlp_50runs/etdump.etdp"_qs));
        QVERIFY(lines.at(1).contains(u"xnnpack_mlp_intermediates/etdump.etdp"_qs));
        QVERIFY(QString::fromUtf8(r.out).contains(QRegularExpression(u"\\nruns +50 +1\\n"_qs)));
        QVERIFY(QString::fromUtf8(r.out).contains(
            QRegularExpression(u"coverage: events / Method::execute +98.7 % +98.1 %"_qs)));
        const auto j = runCli({ u"runs"_qs, u"--etdump"_qs, kCnn, u"--etdump"_qs, xnn, u"--json"_qs, u"-"_qs });
        QCOMPARE(j.code, 0);
        const auto doc = nlohmann::json::parse(j.out.toStdString());
        QVERIFY(doc["recordings"].size() == 2);
        QVERIFY(doc["recordings"][1]["coverage"]["runs"] == 1);
    }
};

QTEST_GUILESS_MAIN(TstDeterminismCli)
#include "tst_determinismcli.moc"
