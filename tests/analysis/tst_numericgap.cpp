// Numeric gap table and compare_results.
// * cnn_mlp_intermediates (real runtime files) against itself: every row has gap 0.
// * against a perturbed copy of its debug buffer: expected rows and gap values come from
//   tests/tools/gen_gap_perturbed.py (flatc-decoded ETDump + numpy), written to
//   tests/data/analysis/cnn_mlp_perturbed_expected.json.
// * debug-handle matching on a hand-built session; values and gaps derived by hand below.
// * compare_results on the real bundled program run and on hand-computed small tensors.

#include "analysis/compareresults.h"
#include "analysis/noise.h"
#include "analysis/numericgap.h"
#include "analysis/referenceset.h"
#include "bundled/bundledprogram.h"
#include "common/mappedfile.h"
#include "session/session.h"
#include "testsession.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>
#include <cstring>

using namespace etscope;
using namespace etscope::analysis;

namespace {

const std::string kCnn = ETSCOPE_SHARED_DIR "/fixtures/runtime/cnn_mlp_intermediates/";
const std::string kBundled = ETSCOPE_SHARED_DIR "/fixtures/runtime/bundled_program_outputs_only/";

std::shared_ptr<const Session> load(const std::string &etdump, const std::string &buffer)
{
    return test::loadSessionOrDie(etdump, buffer);
}

double decode(const QJsonValue &v)
{
    return v.isString() ? std::numeric_limits<double>::infinity() : v.toDouble();
}

bool close(double got, double want)
{
    if (std::isinf(want))
        return got == want;
    return std::abs(got - want) <= 1e-12 * std::max(1.0, std::abs(want));
}

// A tensor appended to a hand-built debug buffer.
TensorRef put(std::string &buf, const std::vector<float> &v, std::vector<std::int64_t> sizes)
{
    while (buf.size() % 64)
        buf.push_back('\0');
    TensorRef r;
    r.dtype = ScalarType::Float;
    r.sizes = std::move(sizes);
    r.offset = std::int64_t(buf.size());
    buf.append(reinterpret_cast<const char *>(v.data()), v.size() * sizeof(float));
    return r;
}

RuntimeValue tv(const TensorRef &r)
{
    RuntimeValue v;
    v.kind = RuntimeValue::Kind::Tensor;
    v.tensors = { r };
    return v;
}

} // namespace

class TestNumericGap : public QObject
{
    Q_OBJECT
private slots:
    void selfComparisonIsZero()
    {
        auto s = load(kCnn + "etdump.etdp", kCnn + "debug_output.bin");
        auto ref = referenceFromSession(*s);
        QVERIFY(ref.ok());
        QVERIFY(!ref->keyedByHandle);
        GapOptions o;
        o.metric = Metric::MSE;
        o.threshold = 0.0;
        auto t = computeNumericGap(*s, *ref, o);
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().message().c_str());
        // 28 instructions, one row each (OPERATOR_CALL duplicates are not rows).
        QCOMPARE(t->rows.size(), std::size_t(28));
        for (std::size_t i = 0; i < t->rows.size(); ++i) {
            const auto &r = t->rows[i];
            QCOMPARE(r.instructionId, std::int32_t(i));
            QVERIFY(!r.gap.empty());
            for (double g : r.gap)
                QCOMPARE(g, 0.0);
            QVERIFY(!r.flagged);
        }
        QCOMPARE(t->rows[2].gap.size(), std::size_t(2)); // max_pool2d_with_indices: values + indices
        QCOMPARE(t->rows[14].gap.size(), std::size_t(3)); // native_layer_norm: 3 outputs
        QCOMPARE(t->rows[0].runtimeOps, std::vector<std::string> { "native_call_convolution.out" });
    }

    void perturbedCopyFlagsExactlyThoseRows_data()
    {
        QTest::addColumn<QString>("metric");
        QTest::addColumn<double>("threshold");
        // Thresholds chosen so that any non-zero error crosses them.
        QTest::newRow("MSE") << "MSE" << 0.0;
        QTest::newRow("L1") << "L1" << 0.0;
        QTest::newRow("SNR") << "SNR" << 1000.0;
        QTest::newRow("MAXABS") << "MAXABS" << 0.0;
    }
    void perturbedCopyFlagsExactlyThoseRows()
    {
        QFETCH(QString, metric);
        QFETCH(double, threshold);
        QFile f(QStringLiteral(ETSCOPE_TEST_DATA_DIR "/analysis/cnn_mlp_perturbed_expected.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject exp = QJsonDocument::fromJson(f.readAll()).object();
        const QJsonArray rows = exp["rows"].toArray();
        QCOMPARE(rows.size(), 28);

        auto runtime = load(kCnn + "etdump.etdp", ETSCOPE_TEST_DATA_DIR "/analysis/cnn_mlp_perturbed.bin");
        auto refSession = load(kCnn + "etdump.etdp", kCnn + "debug_output.bin");
        auto ref = referenceFromSession(*refSession);
        QVERIFY(ref.ok());
        GapOptions o;
        o.metric = *parseMetric(metric.toStdString());
        o.threshold = threshold;
        auto t = computeNumericGap(*runtime, *ref, o);
        QVERIFY(t.ok());
        QCOMPARE(t->rows.size(), std::size_t(28));
        for (int i = 0; i < rows.size(); ++i) {
            const QJsonObject e = rows[i].toObject();
            const GapRow &r = t->rows[std::size_t(i)];
            QCOMPARE(r.instructionId, std::int32_t(e["instruction"].toInt()));
            QCOMPARE(r.flagged, e["perturbed"].toBool());
            const QJsonArray gaps = e["gaps"].toArray();
            QCOMPARE(qsizetype(r.gap.size()), gaps.size());
            for (int k = 0; k < gaps.size(); ++k) {
                const double want = decode(gaps[k].toObject()[metric]);
                QVERIFY2(close(r.gap[std::size_t(k)], want),
                    qPrintable(QString("instr %1 out %2: got %3 want %4")
                                   .arg(r.instructionId)
                                   .arg(k)
                                   .arg(r.gap[std::size_t(k)], 0, 'g', 17)
                                   .arg(want, 0, 'g', 17)));
            }
        }
        // Worst first: for MSE the spike (25) beats the LayerNorm scale (14) beats the shift (3).
        if (metric == "MSE") {
            sortWorstFirst(*t);
            QCOMPARE(t->rows[0].instructionId, 25);
            QCOMPARE(t->rows[1].instructionId, 14);
            QCOMPARE(t->rows[2].instructionId, 3);
            const std::string tsv = gapTableTsv(*t);
            QCOMPARE(std::count(tsv.begin(), tsv.end(), '\n'), std::ptrdiff_t(29));
            QVERIFY(tsv.rfind("instruction_id\tdebug_handles\taot_ops", 0) == 0);
            QVERIFY(tsv.find("\n25\t") != std::string::npos);
        }
        if (metric == "SNR") {
            sortWorstFirst(*t);
            QCOMPARE(t->rows[0].instructionId, 25); // -9.8 dB
        }
    }

    // The noise level (analysis/noise.h) with no threshold: the perturbations of
    // gen_gap_perturbed.py (1e-2 shifts and more) are far above float32 rounding, the other rows
    // are exact copies, so every metric flags exactly the perturbed rows.
    void noiseLevelFlagsExactlyThePerturbedRows()
    {
        QFile f(QStringLiteral(ETSCOPE_TEST_DATA_DIR "/analysis/cnn_mlp_perturbed_expected.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonArray rows = QJsonDocument::fromJson(f.readAll()).object()["rows"].toArray();
        auto runtime = load(kCnn + "etdump.etdp", ETSCOPE_TEST_DATA_DIR "/analysis/cnn_mlp_perturbed.bin");
        auto ref = referenceFromSession(*load(kCnn + "etdump.etdp", kCnn + "debug_output.bin"));
        QVERIFY(ref.ok());
        for (Metric m : { Metric::MSE, Metric::L1, Metric::SNR, Metric::Cosine, Metric::MaxAbs }) {
            GapOptions o;
            o.metric = m;
            auto t = computeNumericGap(*runtime, *ref, o);
            QVERIFY(t.ok());
            QVERIFY(!t->threshold);
            for (int i = 0; i < rows.size(); ++i)
                QVERIFY2(t->rows[std::size_t(i)].flagged == rows[i].toObject()["perturbed"].toBool(),
                    qPrintable(QStringLiteral("%1 row %2").arg(QLatin1String(metricName(m))).arg(i)));
            QCOMPARE(firstFlagged(*t)->instructionId, 3);
            // A user threshold replaces the rule, and back (SNR: exact rows are +inf dB, never
            // below any threshold).
            const bool lowerIsWorse = m == Metric::SNR || m == Metric::Cosine;
            applyThreshold(*t, lowerIsWorse ? 1e9 : -1.0);
            QVERIFY(t->threshold.has_value());
            for (const GapRow &r : t->rows) {
                // Error metrics are >= 0 > -1: every row with a number is flagged.
                const bool number = std::any_of(r.gap.begin(), r.gap.end(), [](double g) { return !std::isnan(g); });
                if (!lowerIsWorse)
                    QCOMPARE(r.flagged, number);
                else if (r.instructionId == 3 || r.instructionId == 14 || r.instructionId == 25)
                    QVERIFY(r.flagged);
            }
            applyThreshold(*t, std::nullopt);
            QCOMPARE(firstFlagged(*t)->instructionId, 3);
        }
    }

    // The thresholds of the noise rule, by hand: reference float32 [3, 4], τ = √(2^-23).
    void noiseThresholdsByHand()
    {
        const NumTensor ref = NumTensor::fromFloats({ 2 }, { 3.0f, 4.0f });
        const NumTensor run = NumTensor::fromFloats({ 2 }, { 3.0f, 4.0f });
        const double tau = std::sqrt(std::ldexp(1.0, -23)); // 3.4527e-4
        QCOMPARE(*relativeTolerance(ScalarType::Float), tau);
        QVERIFY(!relativeTolerance(ScalarType::Int));
        // rms = sqrt(12.5), mean |r| = 3.5, max |r| = 4, two elements.
        QVERIFY(qFuzzyCompare(noiseThreshold(Metric::MSE, ref, run), tau * tau * 12.5));
        QVERIFY(qFuzzyCompare(noiseThreshold(Metric::L1, ref, run), tau * 3.5 * 2));
        QVERIFY(qFuzzyCompare(noiseThreshold(Metric::MaxAbs, ref, run), tau * 4));
        QVERIFY(qFuzzyCompare(noiseThreshold(Metric::SNR, ref, run), 11.5 * 20 * std::log10(2.0))); // 69.24 dB
        QVERIFY(qFuzzyCompare(noiseThreshold(Metric::Cosine, ref, run), 1 - std::ldexp(1.0, -24)));
        // Integers tolerate one unit; a float64 reference against a float32 run rounds as float32.
        const NumTensor ints = NumTensor::fromDoubles(ScalarType::Long, { 2 }, { 3, 4 });
        QCOMPARE(noiseThreshold(Metric::MSE, ints, ints), 1.0);
        QVERIFY(qFuzzyCompare(noiseThreshold(Metric::SNR, ints, ints), 10 * std::log10(12.5)));
        const NumTensor f64 = NumTensor::fromDoubles(ScalarType::Double, { 2 }, { 3, 4 });
        QVERIFY(qFuzzyCompare(noiseThreshold(Metric::MSE, f64, run), tau * tau * 12.5));
        // Excess: ten times the MSE noise level is one decade; SNR 10 dB below is one decade.
        QVERIFY(qFuzzyCompare(excessOverNoise(Direction::HigherIsWorse, Metric::MSE, 1e-5, 1e-6), 1.0));
        QVERIFY(qFuzzyCompare(excessOverNoise(Direction::LowerIsWorse, Metric::SNR, 59.24, 69.24), 1.0));
        QCOMPARE(gapSeverity(0.0), 0.5);
        QCOMPARE(gapSeverity(-1e300), 0.0);
        QCOMPARE(gapSeverity(kSeverityDecadesAbove), 1.0);
    }

    // §8 steps 4-6 on a hand-built linked session: overlapping handles merge, a DELEGATE_CALL's
    // argument list yields its same-shape output.
    void debugHandleMatching()
    {
        std::string buf;
        auto a = put(buf, { 1, 2 }, { 2 }); // event A: handles (1,2), instruction 0
        auto b = put(buf, { 3, 5 }, { 2 }); // event B: handles (2,3), instruction 1
        auto arg = put(buf, { 9, 9, 9 }, { 3 }); // DELEGATE_CALL argument
        auto out = put(buf, { 10, 20 }, { 2 }); // DELEGATE_CALL output
        auto session = std::make_shared<Session>();
        session->debugBuffer = DebugBuffer::fromFile(MappedFile::fromBytes("hand.bin", buf));
        EventBlock blk;
        auto ev = [&blk](std::string name, int instr, std::vector<std::int64_t> h, std::vector<RuntimeValue> d) {
            Event e;
            e.name = blk.storage().intern(name);
            e.instructionId = instr;
            EventExtra &x = blk.storage().extra(e);
            x.debugHandles = std::move(h);
            x.opTypes = { "aten.x" };
            x.debugData = std::move(d);
            return e;
        };
        blk.events.push_back(ev("A", 0, { 1, 2 }, { tv(a) }));
        blk.events.push_back(ev("B", 1, { 2, 3 }, { tv(b) }));
        Event dc = ev("DELEGATE_CALL", 2, { 4, 5 }, { tv(arg), tv(out) });
        blk.storage().extra(dc).delegateBackendName = "XnnpackBackend";
        blk.events.push_back(dc);
        session->blocks.push_back(blk);

        auto merged = collectByHandle(*session);
        QVERIFY(merged.ok());
        QCOMPARE(merged->size(), std::size_t(2));
        QCOMPARE((*merged)[0].debugHandles, (std::vector<std::int64_t> { 1, 2, 3 })); // lower first, minus shared
        QCOMPARE((*merged)[0].ops, (std::vector<std::string> { "A", "B" }));

        ReferenceSet ref;
        ref.keyedByHandle = true;
        auto aot = [](std::int64_t h, std::vector<double> v) {
            OpOutputs o;
            o.debugHandles = { h };
            o.outputs = { NumValue::tensor(NumTensor::fromDoubles(ScalarType::Float, { std::int64_t(v.size()) }, v)) };
            return o;
        };
        ref.intermediates = { aot(1, { 1, 2 }), aot(2, { 0, 0 }), aot(3, { 3, 4 }), aot(5, { 10, 22 }) };
        GapOptions o;
        o.metric = Metric::MSE;
        o.threshold = 1.0;
        auto t = computeNumericGap(*session, ref, o);
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().message().c_str());
        QVERIFY(t->matchedByHandle);
        QCOMPARE(t->rows.size(), std::size_t(2));
        // Row 1: AOT handle 3 [3,4] vs B's value [3,5]: MSE = (0 + 1) / 2 = 0.5.
        QCOMPARE(t->rows[0].debugHandles, (std::vector<std::int64_t> { 1, 2, 3 }));
        QCOMPARE(t->rows[0].gap, std::vector<double> { 0.5 });
        QVERIFY(!t->rows[0].flagged);
        // Row 2: AOT handle 5 [10,22] vs the delegate's [2]-shaped entry [10,20]: MSE = 4/2 = 2.
        QCOMPARE(t->rows[1].gap, std::vector<double> { 2.0 });
        QVERIFY(t->rows[1].flagged);
        QVERIFY(t->rows[1].delegated);
        QCOMPARE(t->rows[1].backend, std::string("XnnpackBackend"));

        // Without handles on the runtime side, handle matching is refused with a typed error.
        auto plain = load(kCnn + "etdump.etdp", kCnn + "debug_output.bin");
        auto bad = computeNumericGap(*plain, ref, o);
        QVERIFY(!bad.ok());
        QCOMPARE(bad.error().code, ErrorCode::InvalidArgument);
    }

    void compareResultsOnBundledRun()
    {
        auto s = load(kBundled + "etdump.etdp", kBundled + "debug_output.bin");
        auto bp = BundledProgram::open(kBundled + "bundled_program.bpte");
        QVERIFY(bp.ok());
        auto ref = referenceFromBundled(**bp); // default: last case, as the Inspector
        QVERIFY(ref.ok());
        QVERIFY(ref->description.find("test case 9") != std::string::npos);
        QVERIFY(!referenceFromBundled(**bp, 10).ok());
        QVERIFY(referenceFromBundled(**bp, 0).ok());
        QVERIFY(!referenceFromBundled(**bp, -1, "nope").ok());
        auto run = sessionRunOutputs(*s);
        QVERIFY(run.ok());
        QCOMPARE(run->size(), std::size_t(1));
        // The runner verified the output (log: "Model verified successfully"): both are
        // int32 [2,2] of 2s, so SNR +inf, MSE 0, cosine 1.
        auto rows = compareResults(ref->finalOutputs, *run);
        QCOMPARE(rows.size(), std::size_t(1));
        QVERIFY(rows[0].comparable);
        QCOMPARE(rows[0].snr, std::numeric_limits<double>::infinity());
        QCOMPARE(rows[0].mse, 0.0);
        QCOMPARE(rows[0].cosine, 1.0);
    }

    void compareResultsByHand()
    {
        // r = [1,2,3], o = [1,2,4]: mse = 1/3; snr = 10·log10((14/3)/(1/3)) = 10·log10(14)
        // = 11.4613; cosine = 17 / (√14·√21) = 0.99146.
        std::vector<NumValue> r { NumValue::tensor(NumTensor::fromDoubles(ScalarType::Double, { 3 }, { 1, 2, 3 })),
            NumValue::tensor(NumTensor::scalar(ScalarType::Long, 1)),
            NumValue::tensor(NumTensor::fromFloats({ 2 }, { 1, 1 })) };
        std::vector<NumValue> o { NumValue::tensor(NumTensor::fromFloats({ 3 }, { 1, 2, 4 })), NumValue {},
            NumValue::tensor(NumTensor::fromFloats({ 1, 2 }, { 1, 1 })), NumValue {} };
        auto rows = compareResults(r, o);
        QCOMPARE(rows.size(), std::size_t(3)); // shorter list wins
        QVERIFY(std::abs(rows[0].mse - 1.0 / 3.0) < 1e-15);
        QVERIFY(std::abs(rows[0].snr - 10.0 * std::log10(14.0)) < 1e-12);
        QVERIFY(std::abs(rows[0].cosine - 17.0 / std::sqrt(294.0)) < 1e-15);
        QCOMPARE(roundTo2(rows[0].snr), 11.46);
        QCOMPARE(roundTo2(rows[0].mse), 0.33);
        QCOMPARE(roundTo2(rows[0].cosine), 0.99);
        QVERIFY(!rows[1].comparable); // not a tensor → None
        QVERIFY(!rows[2].comparable); // cosine needs equal shapes
        QVERIFY(!rows[2].error.empty());
        const std::string text = compareResultsText(rows, false);
        QVERIFY(text.rfind("snr\n  0 11.46000\n  1 none\n", 0) == 0);
        QVERIFY(text.find("cosine_similarity\n  0 0.99000\n") != std::string::npos);

        // float32 cast: 0.1 (double) becomes 0.100000001490116; vs double 0.1 exactly the MSE is
        // that cast error squared ((0.1f − 0.1)² ≈ 2.2e-18), not 0.
        auto cast = compareResults({ NumValue::tensor(NumTensor::fromDoubles(ScalarType::Double, { 1 }, { 0.1 })) },
            { NumValue::tensor(NumTensor::fromDoubles(ScalarType::Double, { 1 }, { 0.1 })) });
        QCOMPARE(cast[0].mse, 0.0); // both sides cast the same way
    }

    // AOT outputs file written by real torch.save (tests/tools/gen_gap_aot.py, which also
    // derives the expected rows with numpy) against the real run linked with its ETRecord.
    void aotOutputsFile()
    {
        QFile f(QStringLiteral(ETSCOPE_TEST_DATA_DIR "/analysis/cnn_mlp_aot_expected.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject exp = QJsonDocument::fromJson(f.readAll()).object();
        const QJsonArray rows = exp["rows"].toArray();

        SessionInputs in;
        in.etdump = kCnn + "etdump.etdp";
        in.debugBuffer = kCnn + "debug_output.bin";
        in.etrecord = ETSCOPE_TEST_DATA_DIR "/etrecord/cnn_mlp_etrecord.bin";
        auto s = loadSession(in);
        QVERIFY2(s.ok(), s.ok() ? "" : s.error().message().c_str());
        auto ref = referenceFromAotOutputs(ETSCOPE_TEST_DATA_DIR "/analysis/cnn_mlp_aot_outputs.pt");
        QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().message().c_str());
        QVERIFY(ref->keyedByHandle);
        QCOMPARE(qsizetype(ref->intermediates.size()), rows.size());
        GapOptions o;
        o.metric = Metric::MSE;
        o.threshold = 0.0;
        auto t = computeNumericGap(**s, *ref, o);
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().message().c_str());
        QVERIFY(t->matchedByHandle);
        QCOMPARE(qsizetype(t->rows.size()), rows.size());
        for (int i = 0; i < rows.size(); ++i) {
            const QJsonObject e = rows[i].toObject();
            const GapRow &r = t->rows[std::size_t(i)];
            QCOMPARE(r.instructionId, std::int32_t(e["instruction"].toInt()));
            QCOMPARE(r.debugHandles, std::vector<std::int64_t> { e["handle"].toInteger() });
            QCOMPARE(r.flagged, e["perturbed"].toBool());
            const QJsonArray g = e["gap_mse"].toArray();
            QCOMPARE(qsizetype(r.gap.size()), g.size());
            for (int k = 0; k < g.size(); ++k)
                QVERIFY(close(r.gap[std::size_t(k)], g[k].toDouble()));
        }

        // ETRecord reference_outputs as the compare_results reference.
        auto etr = referenceFromETRecord(in.etrecord);
        QVERIFY2(etr.ok(), etr.ok() ? "" : etr.error().message().c_str());
        auto run = sessionRunOutputs(**s);
        QVERIFY(run.ok());
        auto cmp = compareResults(etr->finalOutputs, *run);
        const QJsonArray want = exp["compare_results_vs_etrecord"].toArray();
        QCOMPARE(qsizetype(cmp.size()), want.size());
        for (int i = 0; i < want.size(); ++i) {
            const QJsonObject w = want[i].toObject();
            QVERIFY(close(cmp[std::size_t(i)].snr, w["snr"].toDouble()));
            QVERIFY(close(cmp[std::size_t(i)].mse, w["mse"].toDouble()));
            QVERIFY(close(cmp[std::size_t(i)].cosine, w["cosine"].toDouble()));
        }
        QVERIFY(!referenceFromETRecord(in.etrecord, 1).ok()); // one set only

        // Not a torch.save archive → typed error naming the file.
        auto bad = referenceFromAotOutputs(kCnn + "etdump.etdp");
        QVERIFY(!bad.ok());
        QVERIFY(bad.error().message().find("etdump.etdp") != std::string::npos);
    }

    // Real DELEGATE_CALLs (XNNPACK fixture + its ETRecord) against a torch.save'd AOT file:
    // tests/tools/gen_gap_aot_xnnpack.py perturbed both delegate outputs and computed the MSEs.
    void aotOutputsThroughDelegates()
    {
        QFile f(QStringLiteral(ETSCOPE_TEST_DATA_DIR "/analysis/xnn_mlp_aot_expected.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonArray rows = QJsonDocument::fromJson(f.readAll()).object()["rows"].toArray();
        const std::string dir = ETSCOPE_SHARED_DIR "/fixtures/runtime/xnnpack_mlp_intermediates/";
        SessionInputs in;
        in.etdump = dir + "etdump.etdp";
        in.debugBuffer = dir + "debug_output.bin";
        in.etrecord = ETSCOPE_TEST_DATA_DIR "/etrecord/xnn_mlp_etrecord.bin";
        auto s = loadSession(in);
        QVERIFY2(s.ok(), s.ok() ? "" : s.error().message().c_str());
        auto ref = referenceFromAotOutputs(ETSCOPE_TEST_DATA_DIR "/analysis/xnn_mlp_aot_outputs.pt");
        QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().message().c_str());
        GapOptions o;
        o.threshold = 0.0;
        auto t = computeNumericGap(**s, *ref, o);
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().message().c_str());
        QCOMPARE(qsizetype(t->rows.size()), rows.size());
        for (int i = 0; i < rows.size(); ++i) {
            const QJsonObject e = rows[i].toObject();
            const GapRow &r = t->rows[std::size_t(i)];
            QCOMPARE(r.instructionId, std::int32_t(e["instruction"].toInt()));
            QCOMPARE(r.flagged, e["perturbed"].toBool());
            QCOMPARE(r.delegated, !e["backend"].toString().isEmpty());
            QCOMPARE(QString::fromStdString(r.backend), e["backend"].toString());
            const QJsonArray g = e["gap_mse"].toArray();
            QCOMPARE(qsizetype(r.gap.size()), g.size());
            for (int k = 0; k < g.size(); ++k)
                QVERIFY(close(r.gap[std::size_t(k)], g[k].toDouble()));
        }
        // The delegate's handle tuple keeps the ETRecord's duplicates, as the Inspector's.
        QCOMPARE(t->rows[0].debugHandles, (std::vector<std::int64_t> { 1, 1, 2, 3, 3, 4, 5 }));
        QVERIFY(!t->rows[0].stackTraces.empty());
    }

    void roundingMatchesPython()
    {
        // Python: round(0.125, 2) = 0.12 (exact tie, half-even), round(0.375, 2) = 0.38,
        // round(2.675, 2) = 2.67 (2.675 is stored as 2.67499999...), round(-1.005, 2) = -1.0.
        QCOMPARE(roundTo2(0.125), 0.12);
        QCOMPARE(roundTo2(0.375), 0.38);
        QCOMPARE(roundTo2(2.675), 2.67);
        QCOMPARE(roundTo2(-1.005), -1.0);
        QCOMPARE(roundTo2(std::numeric_limits<double>::infinity()), std::numeric_limits<double>::infinity());
    }
};

QTEST_GUILESS_MAIN(TestNumericGap)
#include "tst_numericgap.moc"
