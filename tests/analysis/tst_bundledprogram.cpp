// BundledProgram reader. Real fixture: values read off `flatc --json --raw-binary
// core/bundled/bundled_program.fbs -- bundled_program.bpte` by hand (10 forward test cases,
// inputs two int32 [2,2] zero tensors, expected output int32 [2,2] = 2,2,2,2 since the data
// bytes are 02 00 00 00 x4; embedded program 1696 bytes, identifier ET12). Synthetic file and
// its expected logical values: tests/tools/gen_gap_bundled.py (numpy transposes by dim_order).

#include "bundled/bundledprogram.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <fstream>
#include <iterator>

using namespace etscope;

namespace {

const std::string kReal = ETSCOPE_SHARED_DIR "/fixtures/runtime/bundled_program_outputs_only/bundled_program.bpte";
const std::string kSynthetic = ETSCOPE_TEST_DATA_DIR "/analysis/synthetic.bpte";

std::vector<std::uint8_t> readAll(const std::string &path)
{
    std::ifstream f(path, std::ios::binary);
    return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(f), {});
}

std::vector<double> toDoubles(const QJsonValue &v)
{
    std::vector<double> out;
    for (const auto &x : v.toArray())
        out.push_back(x.toDouble());
    return out;
}

std::vector<std::int64_t> toInts(const QJsonValue &v)
{
    std::vector<std::int64_t> out;
    for (const auto &x : v.toArray())
        out.push_back(x.toInteger());
    return out;
}

} // namespace

class TestBundledProgram : public QObject
{
    Q_OBJECT
private slots:
    void realFixture()
    {
        auto bp = BundledProgram::open(kReal);
        QVERIFY2(bp.ok(), bp.ok() ? "" : bp.error().message().c_str());
        const auto &p = **bp;
        QCOMPARE(p.version(), 2u);
        QCOMPARE(p.suites().size(), std::size_t(1));
        const auto *fwd = p.suite("forward");
        QVERIFY(fwd);
        QCOMPARE(fwd->testCases.size(), std::size_t(10));
        for (const auto &tc : fwd->testCases) {
            QCOMPARE(tc.inputs.size(), std::size_t(2));
            QCOMPARE(tc.inputs[0].values, std::vector<double>(4, 0.0));
            QCOMPARE(tc.expectedOutputs.size(), std::size_t(1));
            const auto &o = tc.expectedOutputs[0];
            QCOMPARE(o.kind, BundledValue::Kind::Tensor);
            QCOMPARE(o.dtype, ScalarType::Int);
            QCOMPARE(o.sizes, (std::vector<std::int64_t> { 2, 2 }));
            QCOMPARE(o.strides, (std::vector<std::int64_t> { 2, 1 }));
            QCOMPARE(o.values, (std::vector<double> { 2, 2, 2, 2 }));
        }
        QCOMPARE(p.program().size(), std::size_t(1696));
        QCOMPARE(p.programIdentifier(), std::string("ET12"));
        QVERIFY(!p.suite("missing"));
    }

    void syntheticDimOrderAndScalars()
    {
        QFile f(QStringLiteral(ETSCOPE_TEST_DATA_DIR "/analysis/synthetic_bpte_expected.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject exp = QJsonDocument::fromJson(f.readAll()).object();

        auto bp = BundledProgram::open(kSynthetic);
        QVERIFY2(bp.ok(), bp.ok() ? "" : bp.error().message().c_str());
        const auto &p = **bp;
        QCOMPARE(p.version(), std::uint32_t(exp["version"].toInt()));
        QCOMPARE(p.suites().size(), std::size_t(2));
        QCOMPARE(p.suites()[1].methodName, std::string("other"));
        QCOMPARE(p.programIdentifier(), exp["program_identifier"].toString().toStdString());
        QCOMPARE(qsizetype(p.program().size()), qsizetype(exp["program_size"].toInt()));
        const auto *fwd = p.suite("forward");
        QVERIFY(fwd);
        QCOMPARE(qsizetype(fwd->testCases.size()), qsizetype(exp["forward_cases"].toInt()));

        const auto &in0 = fwd->testCases[0].inputs[0];
        const auto e0 = exp["case0_input0"].toObject();
        QCOMPARE(in0.dtype, ScalarType::Float);
        QCOMPARE(in0.sizes, toInts(e0["sizes"]));
        QCOMPARE(in0.dimOrder, (std::vector<std::uint8_t> { 0, 2, 3, 1 }));
        QCOMPARE(in0.strides, toInts(e0["strides"]));
        QCOMPARE(in0.values, toDoubles(e0["values"]));

        const auto &ins = fwd->testCases[0].inputs;
        QCOMPARE(ins[1].kind, BundledValue::Kind::Int);
        QCOMPARE(ins[1].intValue, std::int64_t(-7));
        QCOMPARE(ins[2].kind, BundledValue::Kind::Bool);
        QCOMPARE(ins[2].boolValue, true);
        QCOMPARE(ins[3].kind, BundledValue::Kind::Double);
        QCOMPARE(ins[3].doubleValue, 0.125);

        const auto &out0 = fwd->testCases[0].expectedOutputs[0];
        const auto o0 = exp["case0_output0"].toObject();
        QCOMPARE(out0.dtype, ScalarType::Long);
        QCOMPARE(out0.strides, toInts(o0["strides"]));
        QCOMPARE(out0.values, toDoubles(o0["values"]));
        QCOMPARE(fwd->testCases[0].expectedOutputs[1].values, toDoubles(exp["case0_output1"]));
        QCOMPARE(fwd->testCases[1].expectedOutputs[0].values, toDoubles(exp["case1_output0"]));
        QCOMPARE(fwd->testCases[1].inputs.size(), std::size_t(0));
    }

    void stridesFromDimOrderByHand()
    {
        // NCHW [2,3,4,5] stored channels-last: C innermost (1), W (3), H (15), N (60).
        QCOMPARE(stridesFromDimOrder({ 2, 3, 4, 5 }, { 0, 2, 3, 1 }), (std::vector<std::int64_t> { 60, 1, 15, 3 }));
        QCOMPARE(stridesFromDimOrder({ 2, 3 }, {}), (std::vector<std::int64_t> { 3, 1 }));
        QVERIFY(stridesFromDimOrder({ 2, 3 }, { 0, 0 }).empty());
        QVERIFY(stridesFromDimOrder({ 2, 3 }, { 0 }).empty());
        QVERIFY(stridesFromDimOrder({ 2, 3 }, { 0, 2 }).empty());
    }

    void badInputsAreTypedErrors()
    {
        auto bytes = readAll(kReal);
        QVERIFY(bytes.size() > 100);

        auto empty = BundledProgram::fromBytes({}, "empty.bpte");
        QVERIFY(!empty.ok());
        QCOMPARE(empty.error().code, ErrorCode::Empty);

        auto wrongId = bytes;
        wrongId[4] = 'X';
        auto r = BundledProgram::fromBytes(wrongId, "wrong.bpte");
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::BadIdentifier);
        QVERIFY(r.error().message().rfind("wrong.bpte: ", 0) == 0);

        // Every truncation must fail cleanly (verifier), never read out of bounds.
        for (std::size_t n : { std::size_t(6), std::size_t(64), bytes.size() / 2, bytes.size() - 1 }) {
            std::vector<std::uint8_t> cut(bytes.begin(), bytes.begin() + std::ptrdiff_t(n));
            auto t = BundledProgram::fromBytes(cut, "cut.bpte");
            QVERIFY2(!t.ok(), qPrintable(QString::number(n)));
        }

        auto missing = BundledProgram::open(ETSCOPE_TEST_DATA_DIR "/analysis/does_not_exist.bpte");
        QVERIFY(!missing.ok());
        QCOMPARE(missing.error().code, ErrorCode::Io);

        // An ETDump is not a BundledProgram.
        auto etdump
            = BundledProgram::open(ETSCOPE_SHARED_DIR "/fixtures/runtime/bundled_program_outputs_only/etdump.etdp");
        QVERIFY(!etdump.ok());
        QCOMPARE(etdump.error().code, ErrorCode::BadIdentifier);
    }
};

QTEST_GUILESS_MAIN(TestBundledProgram)
#include "tst_bundledprogram.moc"
