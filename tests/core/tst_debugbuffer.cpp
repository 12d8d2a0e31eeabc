// Debug-buffer inflation. Real values: the cnn_mlp_intermediates README states the program's
// outputs as checked against an independent NumPy model (probs to 6 digits, argmax 3).
// Dtype conversions use bit patterns whose values follow from the IEEE/OCP definitions.
#include "etdump/debugbuffer.h"
#include "etdumpwriter.h"
#include "events/eventblockbuilder.h"
#include "testpaths.h"

#include <QTest>
#include <cmath>
#include <cstring>

using namespace etscope;

class TstDebugBuffer : public QObject
{
    Q_OBJECT
private slots:
    void realRunOutputs()
    {
        auto f = readETDump(test::sharedFixture("runtime/cnn_mlp_intermediates/etdump.etdp"));
        QVERIFY(f.ok());
        auto buffer = DebugBuffer::open(test::sharedFixture("runtime/cnn_mlp_intermediates/debug_output.bin"));
        QVERIFY(buffer.ok());
        InspectorOptions opt;
        opt.debugBuffer = buffer->get();
        auto blocks = buildEventBlocks(**f, opt);
        QVERIFY(blocks.ok());
        const EventBlock &exe = blocks->at(1);
        QCOMPARE(exe.runOutput.size(), std::size_t(2));
        auto probs = (*buffer)->read(exe.runOutput[0].tensors.at(0));
        QVERIFY(probs.ok());
        QCOMPARE(probs->sizes, (std::vector<std::int64_t> { 1, 10 }));
        const double expected[10] = { 0.100996, 0.0917227, 0.104787, 0.106185, 0.0974972, 0.0923113, 0.105854,
            0.0964812, 0.101155, 0.103011 };
        double sum = 0;
        for (int i = 0; i < 10; ++i) {
            QVERIFY2(std::abs(probs->values[i] - expected[i]) < 5e-7 * 10, qPrintable(QString::number(i)));
            sum += probs->values[i];
        }
        QVERIFY(std::abs(sum - 1.0) < 1e-6); // softmax output
        auto cls = (*buffer)->read(exe.runOutput[1].tensors.at(0));
        QVERIFY(cls.ok());
        QCOMPARE(cls->dtype, ScalarType::Long);
        QCOMPARE(cls->values, std::vector<double> { 3 });
        // The max_pool2d_with_indices event logs two outputs: values (float) and indices (int64).
        int maxPoolOutputs = 0;
        for (const Event &e : exe.events)
            if (e.name == "native_call_max_pool2d_with_indices.out")
                maxPoolOutputs = int(e.debugData().size());
        QCOMPARE(maxPoolOutputs, 2);
    }

    void halfAndBfloat()
    {
        QCOMPARE(halfToDouble(0x3C00), 1.0);
        QCOMPARE(halfToDouble(0xC000), -2.0);
        QCOMPARE(halfToDouble(0x7BFF), 65504.0);
        QCOMPARE(halfToDouble(0x0001), std::ldexp(1.0, -24));
        QVERIFY(std::isinf(halfToDouble(0x7C00)));
        QVERIFY(std::isnan(halfToDouble(0x7E00)));
        QCOMPARE(bfloat16ToDouble(0x3F80), 1.0);
        QCOMPARE(bfloat16ToDouble(0xC0A0), -5.0);
    }

    void float8()
    {
        QCOMPARE(float8ToDouble(ScalarType::Float8e4m3fn, 0x7E), 448.0); // max normal
        QVERIFY(std::isnan(float8ToDouble(ScalarType::Float8e4m3fn, 0x7F)));
        QCOMPARE(float8ToDouble(ScalarType::Float8e4m3fn, 0x38), 1.0);
        QCOMPARE(float8ToDouble(ScalarType::Float8e4m3fn, 0x01), std::ldexp(1.0, -9)); // min subnormal
        QCOMPARE(float8ToDouble(ScalarType::Float8e5m2, 0x7B), 57344.0);
        QVERIFY(std::isinf(float8ToDouble(ScalarType::Float8e5m2, 0x7C)));
        QCOMPARE(float8ToDouble(ScalarType::Float8e5m2, 0x3C), 1.0);
        QVERIFY(std::isnan(float8ToDouble(ScalarType::Float8e4m3fnuz, 0x80)));
        QCOMPARE(float8ToDouble(ScalarType::Float8e4m3fnuz, 0x40), 1.0);
        QCOMPARE(float8ToDouble(ScalarType::Float8e5m2fnuz, 0x40), 1.0);
    }

    void everyScalarType_data()
    {
        QTest::addColumn<int>("dtype");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<double>("first");
        QTest::addColumn<double>("second");
        auto le = [](auto a, auto b) {
            QByteArray out(2 * int(sizeof a), '\0');
            std::memcpy(out.data(), &a, sizeof a);
            std::memcpy(out.data() + sizeof a, &b, sizeof b);
            return out;
        };
        QTest::newRow("byte") << int(ScalarType::Byte) << le(std::uint8_t(200), std::uint8_t(1)) << 200.0 << 1.0;
        QTest::newRow("char") << int(ScalarType::Char) << le(std::int8_t(-100), std::int8_t(7)) << -100.0 << 7.0;
        QTest::newRow("short") << int(ScalarType::Short) << le(std::int16_t(-30000), std::int16_t(2)) << -30000.0
                               << 2.0;
        QTest::newRow("int") << int(ScalarType::Int) << le(std::int32_t(-7), std::int32_t(1 << 30)) << -7.0
                             << 1073741824.0;
        QTest::newRow("long") << int(ScalarType::Long) << le(std::int64_t(-1), std::int64_t(1) << 40) << -1.0
                              << 1099511627776.0;
        QTest::newRow("half") << int(ScalarType::Half) << le(std::uint16_t(0x3C00), std::uint16_t(0xC000)) << 1.0
                              << -2.0;
        QTest::newRow("float") << int(ScalarType::Float) << le(1.5f, -0.25f) << 1.5 << -0.25;
        QTest::newRow("double") << int(ScalarType::Double) << le(1e300, -3.0) << 1e300 << -3.0;
        QTest::newRow("bool") << int(ScalarType::Bool) << le(std::uint8_t(1), std::uint8_t(0)) << 1.0 << 0.0;
        QTest::newRow("bfloat16") << int(ScalarType::BFloat16) << le(std::uint16_t(0x3F80), std::uint16_t(0xC0A0))
                                  << 1.0 << -5.0;
        QTest::newRow("bits16") << int(ScalarType::Bits16) << le(std::uint16_t(65535), std::uint16_t(3)) << 65535.0
                                << 3.0;
        QTest::newRow("uint16") << int(ScalarType::UInt16) << le(std::uint16_t(65535), std::uint16_t(3)) << 65535.0
                                << 3.0;
        QTest::newRow("uint32") << int(ScalarType::UInt32) << le(std::uint32_t(4000000000u), std::uint32_t(3)) << 4e9
                                << 3.0;
        QTest::newRow("uint64") << int(ScalarType::UInt64) << le(std::uint64_t(1) << 63, std::uint64_t(3))
                                << 9223372036854775808.0 << 3.0;
        QTest::newRow("qint8") << int(ScalarType::QInt8) << le(std::int8_t(-5), std::int8_t(5)) << -5.0 << 5.0;
        QTest::newRow("qint32") << int(ScalarType::QInt32) << le(std::int32_t(-5), std::int32_t(5)) << -5.0 << 5.0;
        QTest::newRow("fp8e4m3fn") << int(ScalarType::Float8e4m3fn) << le(std::uint8_t(0x38), std::uint8_t(0x7E)) << 1.0
                                   << 448.0;
    }

    void everyScalarType()
    {
        QFETCH(int, dtype);
        QFETCH(QByteArray, bytes);
        QFETCH(double, first);
        QFETCH(double, second);
        test::DebugBufferWriter w;
        const auto off = w.append(bytes.constData(), std::size_t(bytes.size()));
        auto buffer = DebugBuffer::fromFile(MappedFile::fromBytes("buf.bin", w.finish()));
        TensorRef ref { static_cast<ScalarType>(dtype), { 2 }, { 1 }, off };
        auto t = buffer->read(ref);
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().message().c_str());
        QCOMPARE(t->values, (std::vector<double> { first, second }));
    }

    void channelsLastStrides()
    {
        // Logical NCHW [1,2,2,2] stored channels-last: memory order (h, w, c).
        std::vector<float> mem;
        for (int h = 0; h < 2; ++h)
            for (int w = 0; w < 2; ++w)
                for (int c = 0; c < 2; ++c)
                    mem.push_back(float(100 * c + 10 * h + w));
        test::DebugBufferWriter bw;
        const auto off = bw.appendValues(mem);
        auto buffer = DebugBuffer::fromFile(MappedFile::fromBytes("buf.bin", bw.finish()));
        TensorRef ref { ScalarType::Float, { 1, 2, 2, 2 }, { 8, 1, 4, 2 }, off };
        auto t = buffer->read(ref);
        QVERIFY(t.ok());
        QCOMPARE(t->values, (std::vector<double> { 0, 1, 10, 11, 100, 101, 110, 111 }));
    }

    void outOfBoundsIsReportedNotRead()
    {
        auto buffer = DebugBuffer::fromFile(MappedFile::fromBytes("small.bin", std::string(256, '\0')));
        TensorRef past { ScalarType::Float, { 100 }, { 1 }, 48 };
        auto t = buffer->read(past);
        QVERIFY(!t.ok());
        QCOMPARE(t.error().code, ErrorCode::Corrupt);
        QVERIFY(t.error().message().rfind("small.bin: ", 0) == 0);
        TensorRef negative { ScalarType::Float, { 1 }, { 1 }, -1 };
        QVERIFY(!buffer->read(negative).ok());
        TensorRef huge { ScalarType::Float, { 1 << 20, 1 << 20 }, {}, 0 }; // 2^40 elements
        auto h = buffer->read(huge);
        QVERIFY(!h.ok());
        QCOMPARE(h.error().code, ErrorCode::LimitExceeded);
        TensorRef overflow { ScalarType::Float, { std::int64_t(1) << 62, 8 }, {}, 0 };
        QVERIFY(!buffer->read(overflow).ok());
        TensorRef badType { static_cast<ScalarType>(99), { 1 }, {}, 0 };
        QCOMPARE(buffer->read(badType).error().code, ErrorCode::Unsupported);
        TensorRef empty { ScalarType::Float, { 0, 3 }, { 3, 1 }, -1 };
        auto e = buffer->read(empty);
        QVERIFY(e.ok());
        QVERIFY(e->values.empty());
    }

    void zerosWithoutBuffer()
    {
        TensorRef ref { ScalarType::Float, { 2, 3 }, {}, 48 };
        auto t = inflate(ref, nullptr);
        QVERIFY(t.ok());
        QVERIFY(!t->fromBuffer);
        QCOMPARE(t->values, std::vector<double>(6, 0.0));
    }
};

QTEST_GUILESS_MAIN(TstDebugBuffer)
#include "tst_debugbuffer.moc"
