// `size` (core/program/programsize.h): on every fixture program the top-level parts equal the
// hand count of tests/tools/gen_size_expected.py (extended header and `flatc --json` segments,
// tests/data/program/expected_size.json), and at every level the parts add up to their parent.
// Program diff (programdiff.h) on the authored builds of tests/tools/gen_delegate_payloads.py.
#include "testpaths.h"

#include "program/programdiff.h"
#include "program/programsize.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QTest>

#include <fstream>

using namespace etscope;
using etscope::test::sharedFixture;
using etscope::test::testData;
using nlohmann::json;

namespace {

void checkSums(const std::vector<SizePart> &parts, const std::string &where)
{
    for (const SizePart &p : parts) {
        if (!p.parts.empty())
            QVERIFY2(sumOfParts(p.parts) == p.bytes, (where + " / " + p.name).c_str());
        checkSums(p.parts, where + " / " + p.name);
    }
}

std::string resolve(const std::string &key)
{
    if (key.starts_with("shared:"))
        return sharedFixture(key.substr(7));
    return std::string(ETSCOPE_SOURCE_DIR) + "/" + key;
}

} // namespace

class TestProgramSize : public QObject
{
    Q_OBJECT

private slots:
    void handCount_data()
    {
        QTest::addColumn<QString>("key");
        std::ifstream in(testData("program/expected_size.json"));
        const json expected = json::parse(in);
        for (const auto &[key, parts] : expected.items())
            QTest::newRow(key.c_str()) << QString::fromStdString(key);
    }
    void handCount()
    {
        QFETCH(QString, key);
        std::ifstream in(testData("program/expected_size.json"));
        const json expected = json::parse(in).at(key.toStdString());
        auto program = Program::open(resolve(key.toStdString()));
        QVERIFY2(program.ok(), program ? "" : program.error().message().c_str());
        const SizeReport r = programSize(**program);
        QCOMPARE(r.fileBytes, (*program)->fileSize());
        QCOMPARE(sumOfParts(r.parts), r.fileBytes);
        std::vector<std::uint64_t> top;
        for (const SizePart &p : r.parts)
            top.push_back(p.bytes);
        QCOMPARE(top, expected.get<std::vector<std::uint64_t>>());
        checkSums(r.parts, key.toStdString());
    }

    // The authored programs compiled by this build (tests/program/CMakeLists.txt) add up too.
    void authoredProgramsAddUp()
    {
        const QDir dir(QStringLiteral(ETSCOPE_PROGRAM_BUILD_DIR));
        const auto files = dir.entryList({ QStringLiteral("*.pte") });
        QVERIFY(!files.isEmpty());
        for (const QString &f : files) {
            auto program = Program::open(dir.filePath(f).toStdString());
            QVERIFY(program.ok());
            const SizeReport r = programSize(**program);
            QCOMPARE(sumOfParts(r.parts), r.fileBytes);
            checkSums(r.parts, f.toStdString());
        }
    }

    // The XNNPACK fixture: the delegate segments are split by the decoder, the constant segment
    // per tensor (first constant: the first linear's weight is in the payload, so entry 1 is
    // layer_norm's weight [128] = 512 bytes, read by aten::native_layer_norm.out).
    void xnnpackFixtureParts()
    {
        auto program = Program::open(sharedFixture("runtime/xnnpack_mlp_intermediates/xnn_mlp.pte"));
        QVERIFY(program.ok());
        const SizeReport r = programSize(**program);
        const SizePart *d0 = nullptr;
        for (const SizePart &p : r.parts)
            if (p.name.starts_with("delegate 0 of method forward (XnnpackBackend, XNNPACK)"))
                d0 = &p;
        QVERIFY(d0);
        QCOMPARE(d0->bytes, std::uint64_t(100432));
        QCOMPARE(d0->parts.size(), std::size_t(4));
        QCOMPARE(d0->parts[3].name, std::string("constant data"));
        QCOMPARE(d0->parts[3].bytes, std::uint64_t(99328));
        const std::string json = sizeJson(r);
        QVERIFY2(json.find("aten::native_layer_norm.out") != std::string::npos, json.c_str());
    }
};

QTEST_GUILESS_MAIN(TestProgramSize)
#include "tst_programsize.moc"
