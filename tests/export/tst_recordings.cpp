// Many recordings: expansion of files/directories/globs with the debug buffer beside each, the
// aggregated TSV, and jsonl. Expected values: the per-file rows are the committed single-file
// TSVs (tests/tools/inspector_reference.py); pooled statistics come from numpy over flatc
// decodes (tests/tools/gen_recordings_expected.py → tests/data/export/add_pte_pooled.json).
#include "export/recordings.h"
#include "testpaths.h"

#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace etscope;
namespace fs = std::filesystem;

namespace {
std::string readText(const std::string &p)
{
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

std::vector<std::string> lines(const std::string &text)
{
    std::vector<std::string> v;
    std::stringstream ss(text);
    for (std::string l; std::getline(ss, l);)
        v.push_back(l);
    return v;
}

std::vector<std::string> split(const std::string &l, char sep = '\t')
{
    std::vector<std::string> v;
    std::stringstream ss(l);
    for (std::string c; std::getline(ss, c, sep);)
        v.push_back(c);
    if (!l.empty() && l.back() == sep)
        v.emplace_back();
    return v;
}
} // namespace

class TstRecordings : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    std::string m_root;

    std::string copy(const std::string &fixture, const std::string &to)
    {
        const fs::path dst = fs::path(m_root) / to;
        fs::create_directories(dst.parent_path());
        fs::copy_file(test::sharedFixture(fixture), dst, fs::copy_options::overwrite_existing);
        return dst.string();
    }

private slots:
    void initTestCase()
    {
        m_root = m_dir.path().toStdString();
        copy("runtime/add_pte_50runs/etdump.etdp", "farm/a/etdump.etdp");
        copy("runtime/add_pte_intermediates/etdump.etdp", "farm/b/etdump.etdp");
        copy("runtime/add_pte_intermediates/debug_output.bin", "farm/b/debug_output.bin");
        copy("runtime/cnn_mlp_intermediates/etdump.etdp", "farm/c/phone7.etdp");
        copy("runtime/cnn_mlp_intermediates/debug_output.bin", "farm/c/phone7.bin");
        copy("runtime/cnn_mlp_50runs/etdump.etdp", "other/cnn50.etdp");
    }

    void expansion()
    {
        auto r = expandRecordings({ m_root + "/farm", m_root + "/other/*.etdp", m_root + "/farm/a/etdump.etdp" });
        QVERIFY(r.ok());
        QCOMPARE(r->size(), std::size_t(4)); // the repeated file is dropped
        QCOMPARE((*r)[0].etdump, m_root + "/farm/a/etdump.etdp");
        QCOMPARE((*r)[0].debugBuffer, std::string());
        QCOMPARE((*r)[1].debugBuffer, m_root + "/farm/b/debug_output.bin"); // beside etdump.etdp
        QCOMPARE((*r)[2].debugBuffer, m_root + "/farm/c/phone7.bin"); // <stem>.bin
        QCOMPARE((*r)[3].etdump, m_root + "/other/cnn50.etdp");

        auto none = expandRecordings({ m_root + "/nothing/*.etdp" });
        QVERIFY(!none);
        QVERIFY(none.error().message().find("no file matches") != std::string::npos);
        auto missing = expandRecordings({ m_root + "/missing.etdp" });
        QVERIFY(!missing);
        QVERIFY(missing.error().message().find("missing.etdp") != std::string::npos);
    }

    // The per-file part is the concatenation of each file's own TSV with the file name in front;
    // the result does not depend on the number of workers.
    void perFileRowsAreTheSingleFileTsvs()
    {
        auto in = expandRecordings({ m_root + "/farm", m_root + "/other" });
        QVERIFY(in.ok());
        RecordingsOptions opt;
        opt.threads = 2;
        const auto files = summarizeRecordings(*in, opt);
        for (const auto &f : files)
            QVERIFY2(f.error.empty(), f.error.c_str());
        const std::string many = formatManyDelimited(files, opt, false);

        const char *expected[]
            = { "add_pte_50runs", "add_pte_intermediates", "cnn_mlp_intermediates", "cnn_mlp_50runs" };
        std::string want;
        for (std::size_t i = 0; i < 4; ++i) {
            const auto tsv = lines(readText(test::testData(std::string("core/expected/") + expected[i] + ".tsv")));
            if (i == 0)
                want += "file\t" + tsv[0] + "\n";
            for (std::size_t k = 1; k < tsv.size(); ++k)
                want += files[i].file + "\t" + tsv[k] + "\n";
        }
        QCOMPARE(many, want);

        opt.threads = 1;
        QCOMPARE(formatManyDelimited(summarizeRecordings(*in, opt), opt, false), many);
    }

    void aggregatedRowsPoolTheRuns()
    {
        auto in = expandRecordings({ m_root + "/farm/a", m_root + "/farm/b" });
        QVERIFY(in.ok());
        RecordingsOptions opt;
        const std::string many = formatManyDelimited(summarizeRecordings(*in, opt), opt, true);
        const auto expected = nlohmann::json::parse(readText(test::testData("export/add_pte_pooled.json")));
        int aggregated = 0;
        for (const auto &l : lines(many)) {
            const auto c = split(l);
            if (c[0] != "(all 2 files)")
                continue;
            ++aggregated;
            const auto &e = expected.at(c[2] + "|" + c[3]);
            const char *stats[] = { "p10", "p50", "p90", "avg", "min", "max" };
            for (int k = 0; k < 6; ++k) // numpy printed with repr: compare as doubles, to 1e-12 relative
                QVERIFY2(std::abs(std::stod(c[4 + k]) - e.at(stats[k]).get<double>())
                        <= 1e-12 * std::abs(e.at(stats[k]).get<double>()),
                    (c[3] + " " + stats[k]).c_str());
            QCOMPARE(c[13], std::string()); // no start_time for pooled rows
        }
        QCOMPARE(aggregated, static_cast<int>(expected.size()));
    }

    // Pooled blocks (for diffs of groups of recordings) carry the same pooled statistics.
    void pooledBlocks()
    {
        auto in = expandRecordings({ m_root + "/farm/a", m_root + "/farm/b" });
        QVERIFY(in.ok());
        const auto blocks = poolRecordings(summarizeRecordings(*in, {}));
        const auto expected = nlohmann::json::parse(readText(test::testData("export/add_pte_pooled.json")));
        std::size_t events = 0;
        for (const auto &b : blocks)
            for (const auto &e : b.events) {
                ++events;
                const auto &x = expected.at(b.name + "|" + std::string(e.name));
                QVERIFY(e.perfData != nullptr);
                QCOMPARE(e.perfData->raw.size(), x.at("runs").get<std::size_t>());
                QVERIFY(std::abs(e.perfData->p50 - x.at("p50").get<double>()) <= 1e-12 * x.at("p50").get<double>());
                QVERIFY(std::abs(e.perfData->avg - x.at("avg").get<double>()) <= 1e-12 * x.at("avg").get<double>());
            }
        QCOMPARE(events, expected.size());
    }

    void jsonlRowsParseAndCount()
    {
        auto in = expandRecordings({ m_root + "/farm", m_root + "/other" });
        QVERIFY(in.ok());
        RecordingsOptions opt;
        const auto files = summarizeRecordings(*in, opt);
        const auto rows = lines(formatJsonl(files));
        std::size_t want = 0;
        for (const char *name :
            { "add_pte_50runs", "add_pte_intermediates", "cnn_mlp_intermediates", "cnn_mlp_50runs" })
            want += lines(readText(test::testData(std::string("core/expected/") + name + ".tsv"))).size() - 1;
        QCOMPARE(rows.size(), want);
        std::map<std::string, int> perFile;
        for (const auto &l : rows) {
            const auto o = nlohmann::json::parse(l);
            ++perFile[o.at("file")];
            QVERIFY(o.at("op_types").is_array());
            QVERIFY(o.contains("delegated") && o.contains("delegate_backend") && o.contains("p50"));
            if (o.at("file") == files[0].file && o.at("block") == "Execute") {
                QCOMPARE(o.at("runs").get<int>(), 50);
                QCOMPARE(o.at("unit").get<std::string>(), std::string("ms"));
            }
        }
        QCOMPARE(perFile.size(), std::size_t(4));
    }

    void badFileIsReportedNotFatal()
    {
        const std::string bad = (fs::path(m_root) / "bad/broken.etdp").string();
        fs::create_directories(fs::path(bad).parent_path());
        std::ofstream(bad) << "not an etdump";
        auto in = expandRecordings({ bad, m_root + "/farm/a" });
        QVERIFY(in.ok());
        const auto files = summarizeRecordings(*in, {});
        QVERIFY(!files[0].error.empty());
        QVERIFY(files[0].error.find("broken.etdp") != std::string::npos);
        QVERIFY(files[1].error.empty());
    }
};

QTEST_GUILESS_MAIN(TstRecordings)
#include "tst_recordings.moc"
