// Determinism over runs (analysis/determinism.h). Truth: tests/data/determinism/
// determinism_expected.json, computed with numpy by tests/tools/gen_determinism_fixtures.py from
// the tensors it wrote (the real cnn_mlp_intermediates run repeated; a 32×64 tile of one op
// corrupted on known runs, one ULP moved in another): distinct results, runs that differ,
// deviations, ULPs and the tile.
#include "analysis/determinism.h"

#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

using namespace etscope;

namespace {

const std::string kDir = ETSCOPE_TEST_DATA_DIR "/determinism/";

DeterminismInput input(const std::string &stem)
{
    auto e = readETDump(kDir + stem + ".etdp");
    auto b = DebugBuffer::open(kDir + stem + ".bin");
    if (!e || !b)
        qFatal("cannot open %s", stem.c_str());
    return { *e, *b };
}

nlohmann::json expected()
{
    std::ifstream in(kDir + "determinism_expected.json");
    return nlohmann::json::parse(in);
}

bool close(double a, double b)
{
    return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b));
}

void compareWithTruth(const DeterminismReport &r, const nlohmann::json &truth)
{
    QCOMPARE(r.tensors.size(), truth.size());
    for (std::size_t i = 0; i < truth.size(); ++i) {
        const auto &t = truth[i];
        const TensorDeterminism &d = r.tensors[i];
        QCOMPARE(d.position, i);
        QCOMPARE(d.distinct, t["distinct"].get<std::size_t>());
        QCOMPARE(d.referenceRun, t["reference_run"].get<std::size_t>());
        QVERIFY(d.runsDiffer == t["runs_differ"].get<std::vector<std::size_t>>());
        QVERIFY(close(d.maxAbs, t["max_abs"].get<double>()));
        QVERIFY(close(d.meanAbs, t["mean_abs"].get<double>()));
        QVERIFY(close(d.maxRel, t["max_rel"].get<double>()));
        QCOMPARE(d.maxUlp, t["max_ulp"].get<std::uint64_t>());
        if (t.contains("bits"))
            QCOMPARE(d.bits, t["bits"].get<int>());
        QCOMPARE(d.region.has_value(), !t["region"].is_null());
        if (d.region) {
            QCOMPARE(d.region->rowBegin, t["region"]["row_begin"].get<std::int64_t>());
            QCOMPARE(d.region->rowEnd, t["region"]["row_end"].get<std::int64_t>());
            QCOMPARE(d.region->colBegin, t["region"]["col_begin"].get<std::int64_t>());
            QCOMPARE(d.region->colEnd, t["region"]["col_end"].get<std::int64_t>());
            QCOMPARE(d.region->elements, t["region"]["elements"].get<std::size_t>());
        }
    }
}

} // namespace

class TstDeterminism : public QObject
{
    Q_OBJECT

private slots:
    void bitExactRuns()
    {
        auto r = analyzeDeterminism({ input("repeat") });
        QVERIFY(r);
        QCOMPARE(r->runs, std::size_t(3));
        compareWithTruth(*r, expected()["repeat"]);
        QVERIFY(!r->firstVarying);
        QCOMPARE(
            determinismSentence(*r), std::string("deterministic: all 33 logged tensors are bit-exact over 3 runs"));
    }

    // The corrupted tile is named exactly: op, runs, tile; the later 1-ULP change too.
    void corruptedTile()
    {
        auto r = analyzeDeterminism({ input("tile") });
        QVERIFY(r);
        QCOMPARE(r->runs, std::size_t(6));
        compareWithTruth(*r, expected()["tile"]);
        QVERIFY(r->firstVarying == std::optional<std::size_t>(13));
        const auto &t = r->tensors[13];
        QCOMPARE(t.instructionId, 12);
        QCOMPARE(t.name, std::string("native_call_permute_copy.out"));
        QCOMPARE(determinismSentence(*r),
            std::string("op #12 (native_call_permute_copy.out) varies on runs 1, 4 in a 32×64 tile "
                        "(rows 32–63, cols 0–63 of 256×64; 2048 elements)"));
        QVERIFY(r->tensors[22].earlierVarying == std::vector<std::size_t> { 13 });
        QCOMPARE(r->tensors[22].bits, 1);
        const auto j = nlohmann::json::parse(determinismJson(*r));
        QVERIFY(j["tensors"][13]["instruction_id"] == 12);
        QVERIFY(j["tensors"][13]["runs_differ"] == nlohmann::json({ 1, 4 }));
        QVERIFY(j["tensors"][13]["region"]["row_begin"] == 32);
    }

    // Two recordings of the same runs give the same answer as one.
    void acrossRecordings()
    {
        auto r = analyzeDeterminism({ input("tile_a"), input("tile_b") });
        QVERIFY(r);
        QCOMPARE(r->runs, std::size_t(6));
        compareWithTruth(*r, expected()["tile"]);
        QCOMPARE(r->runSources.size(), std::size_t(6));
    }

    void errors()
    {
        auto e = readETDump(ETSCOPE_SHARED_DIR "/fixtures/runtime/cnn_mlp_50runs/etdump.etdp");
        QVERIFY(e);
        auto b = DebugBuffer::open(kDir + "tile.bin");
        QVERIFY(b);
        auto r = analyzeDeterminism({ { *e, *b } });
        QVERIFY(!r);
        QVERIFY(r.error().message().find("no run logged tensors") != std::string::npos);
        // Another program's runs are left out with a warning.
        auto other = readETDump(ETSCOPE_SHARED_DIR "/fixtures/runtime/add_pte_intermediates/etdump.etdp");
        auto otherBuf
            = DebugBuffer::open(ETSCOPE_SHARED_DIR "/fixtures/runtime/add_pte_intermediates/debug_output.bin");
        QVERIFY(other && otherBuf);
        r = analyzeDeterminism({ input("repeat"), { *other, *otherBuf } });
        QVERIFY(r);
        QCOMPARE(r->runs, std::size_t(3));
        QCOMPARE(r->warnings.size(), std::size_t(1));
    }
};

QTEST_GUILESS_MAIN(TstDeterminism)
#include "tst_determinism.moc"
