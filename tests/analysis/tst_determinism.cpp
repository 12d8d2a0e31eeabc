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

DeterminismInput runtimeInput(const std::string &fixture)
{
    const std::string dir = ETSCOPE_TEST_DATA_DIR "/runtime/" + fixture + "/";
    auto e = readETDump(dir + "etdump.etdp");
    auto b = DebugBuffer::open(dir + "debug_output.bin");
    if (!e || !b)
        qFatal("cannot open %s", fixture.c_str());
    return { *e, *b };
}

nlohmann::json expectedMaps()
{
    std::ifstream in(kDir + "determinism_maps_expected.json");
    return nlohmann::json::parse(in);
}

// The report's per-run deviations and the maps of the positions the truth has, for one case.
void compareMapsWithTruth(
    const std::vector<DeterminismInput> &inputs, const DeterminismReport &r, const nlohmann::json &truth)
{
    QCOMPARE(r.runs, truth["runs"].get<std::size_t>());
    for (const auto &[key, t] : truth["tensors"].items()) {
        const std::size_t pos = std::stoul(key);
        const TensorDeterminism &d = r.tensors[pos];
        QCOMPARE(d.referenceRun, t["reference_run"].get<std::size_t>());
        const auto runMax = t["run_max_abs"].get<std::vector<double>>();
        QCOMPARE(d.runMaxAbs.size(), runMax.size());
        for (std::size_t run = 0; run < runMax.size(); ++run)
            QVERIFY2(close(d.runMaxAbs[run], runMax[run]), qPrintable(QString::fromStdString(key)));
        if (!t.contains("maps"))
            continue;
        for (const auto &want : t["maps"]) {
            auto m = determinismMap(inputs, r, pos, want["max_side"].get<std::int64_t>());
            QVERIFY2(m, m ? "" : m.error().message().c_str());
            QCOMPARE(m->position, pos);
            QCOMPARE(m->rows, want["rows"].get<std::int64_t>());
            QCOMPARE(m->cols, want["cols"].get<std::int64_t>());
            QCOMPARE(m->cellRows, want["cell_rows"].get<std::int64_t>());
            QCOMPARE(m->cellCols, want["cell_cols"].get<std::int64_t>());
            QCOMPARE(m->gridRows, want["grid_rows"].get<std::int64_t>());
            QCOMPARE(m->gridCols, want["grid_cols"].get<std::int64_t>());
            QCOMPARE(m->maxCount, want["max_count"].get<std::uint32_t>());
            QCOMPARE(m->runs, r.runs);
            const auto rows = want["counts"].get<std::vector<std::string>>();
            for (std::int64_t row = 0; row < m->gridRows; ++row) {
                std::string got;
                for (std::int64_t col = 0; col < m->gridCols; ++col)
                    got += char('0' + m->at(row, col));
                QCOMPARE(got, rows[std::size_t(row)]);
            }
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

    // The real runtime's perturbed tile: named exactly, and mapped cell for cell.
    void runtimeCorruptedTileMaps()
    {
        const std::vector<DeterminismInput> in { runtimeInput("determinism_corrupt") };
        auto r = analyzeDeterminism(in);
        QVERIFY(r);
        QCOMPARE(determinismSentence(*r),
            std::string("op #2 (native_call_mm.out) varies on runs 3, 7, 19 in a 32×32 tile (rows 0–31, cols "
                        "32–63 of 64×64; 1024 elements)"));
        compareMapsWithTruth(in, *r, expectedMaps()["determinism_corrupt"]);
        auto m = determinismMap(in, *r, 2);
        QVERIFY(m);
        QVERIFY(!m->pooled());
        QCOMPARE(m->at(0, 32), 3u); // by hand from the README: every element of the tile, on 3 runs
        QCOMPARE(m->at(31, 63), 3u);
        QCOMPARE(m->at(32, 32), 0u);
        QCOMPARE(m->at(0, 31), 0u);
        QCOMPARE(varyingMapCaption(*m), std::string("64×64, one cell per element; 3 of 20 runs differ"));
        auto pooled = determinismMap(in, *r, 2, 16);
        QVERIFY(pooled);
        QCOMPARE(varyingMapCaption(*pooled),
            std::string("64×64, pooled into 4×4-element cells (a cell counts a run if any of its elements differs); "
                        "3 of 20 runs differ"));
        QVERIFY(!determinismMap(in, *r, r->tensors.size()));
    }

    void runtimeRepeatMapIsEmpty()
    {
        const std::vector<DeterminismInput> in { runtimeInput("determinism_repeat") };
        auto r = analyzeDeterminism(in);
        QVERIFY(r);
        QVERIFY(!r->firstVarying);
        compareMapsWithTruth(in, *r, expectedMaps()["determinism_repeat"]);
    }

    void writtenTileMaps()
    {
        const std::vector<DeterminismInput> in { input("tile") };
        auto r = analyzeDeterminism(in);
        QVERIFY(r);
        compareMapsWithTruth(in, *r, expectedMaps()["tile"]);
    }

    // Leading dimensions fold onto the last two: a float [2, 3, 4] tensor, by hand. Run A changes
    // [0, 1, 2] and [1, 1, 2] (one cell, once), run B changes [1, 2, 3]: cell (1, 2) counts 1 run,
    // (2, 3) 1 run; with max side 2 the cells are 2×2 elements: (0, 1) ← (1, 2); (1, 1) ← (2, 3).
    void leadingDimensionsFoldByHand()
    {
        std::vector<float> ref(24), a, b;
        for (std::size_t i = 0; i < ref.size(); ++i)
            ref[i] = float(i) * 0.5f;
        a = ref;
        b = ref;
        a[0 * 12 + 1 * 4 + 2] += 1;
        a[1 * 12 + 1 * 4 + 2] += 1;
        b[1 * 12 + 2 * 4 + 3] -= 1;
        auto bytes = [](const std::vector<float> &v) {
            return std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t *>(v.data()), v.size() * 4);
        };
        auto m = varyingMap(ScalarType::Float, { 2, 3, 4 }, bytes(ref), { bytes(a), bytes(b) });
        QVERIFY(m);
        QCOMPARE(m->leading, std::int64_t(2));
        QCOMPARE(m->gridRows, std::int64_t(3));
        QCOMPARE(m->gridCols, std::int64_t(4));
        std::vector<std::uint32_t> want(12, 0);
        want[1 * 4 + 2] = 1;
        want[2 * 4 + 3] = 1;
        QVERIFY(m->counts == want);
        m = varyingMap(ScalarType::Float, { 2, 3, 4 }, bytes(ref), { bytes(a), bytes(b) }, 2);
        QVERIFY(m);
        QCOMPARE(m->cellRows, std::int64_t(2));
        QCOMPARE(m->cellCols, std::int64_t(2));
        QVERIFY((m->counts == std::vector<std::uint32_t> { 0, 1, 0, 1 }));
        // Sizes that do not match the bytes: an error, never a read past them.
        QVERIFY(!varyingMap(ScalarType::Float, { 5, 5 }, bytes(ref), {}));
        QVERIFY(!varyingMap(ScalarType::Float, { 2, 3, 4 }, bytes(ref), { bytes(std::vector<float>(3)) }));
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
