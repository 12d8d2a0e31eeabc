// `etscope-cli program` and `memory` with external data: the real binary on the authored
// program whose constants and mutable buffer live in a .ptd (tests/data/program/ptd/README.md).
// Expected values by hand from tests/data/program/external.program.json and
// ptd/external.flat_tensor.json: linear.weight float32[3, 4] = 48 bytes, linear.bias float32[3]
// = 12, state.cache float32[2, 3] = 24 (mutable, cuda:0): 84 bytes in forward, 48 in project
// (linear.weight only); arena 2 of forward on cuda:0; the .ptd's segments start at 512 (the
// 424-byte flatbuffer rounded up to 128) at offsets 0, 128, 256.
#include "clirun.h"
#include "testpaths.h"

#include <nlohmann/json.hpp>

#include <QTest>

using nlohmann::json;

namespace {

const QString kPte = QStringLiteral(ETSCOPE_PROGRAM_BUILD_DIR "/external.pte");

QString ptd(const char *name)
{
    return QString::fromStdString(etscope::test::testData(std::string("program/ptd/") + name));
}

} // namespace

class TstProgramDataCli : public QObject
{
    Q_OBJECT
private slots:
    void programAlone()
    {
        const auto r = etscope::test::runCli({ u"program"_qs, kPte });
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("external data: 3 tensors, 84 bytes (2 constants, 1 mutable buffer), not attached"),
            r.out.constData());
        QVERIFY(r.out.contains("method forward: 7 values, 2 instructions, 2 operators, 0 delegates, 3 external "
                               "tensors (84 bytes)\n  arena 1: 64 bytes, cpu\n  arena 2: 64 bytes, cuda:0\n"));
        QVERIFY(r.out.contains("1 external tensor (48 bytes)"));
        QVERIFY(r.out.contains("%1 float32[3, 4] external: linear.weight, %2 float32[3] external: linear.bias"));
        QVERIFY(r.out.contains("%4 float32[2, 3] @2:0 external: state.cache cuda:0"));
    }

    void programPaired()
    {
        const auto r = etscope::test::runCli({ u"program"_qs, kPte, u"--data"_qs, ptd("external.ptd") });
        QCOMPARE(r.code, 0);
        const QByteArray file = ptd("external.ptd").toUtf8();
        QVERIFY2(r.out.contains("external data: 3 tensors, 84 bytes (2 constants, 1 mutable buffer) in " + file),
            r.out.constData());
        QVERIFY(r.out.contains("linear.bias  float32[3]  12 bytes  constant  (method forward %2)  " + file
            + " segment 1: 12 bytes at 640\n"));
        QVERIFY(r.out.contains("state.cache  float32[2, 3]  24 bytes  mutable buffer on cuda:0  (method forward %4)  "
            + file + " segment 2: 24 bytes at 768\n"));

        const auto j
            = etscope::test::runCli({ u"program"_qs, kPte, u"--data"_qs, ptd("external.ptd"), u"--json"_qs, u"-"_qs });
        QCOMPARE(j.code, 0);
        const json doc = json::parse(j.out.toStdString());
        QCOMPARE(doc["external"]["bytes"].get<int>(), 84);
        QCOMPARE(doc["external"]["tensors"][0]["offset"].get<int>(), 512);
        QCOMPARE(doc["methods"][1]["external_bytes"].get<int>(), 48);
        QCOMPARE(doc["methods"][0]["arenas"][1]["device"].get<std::string>(), std::string("cuda:0"));
    }

    void memoryJson()
    {
        const auto r = etscope::test::runCli({ u"memory"_qs, kPte, u"--data"_qs, ptd("external.ptd"), u"--method"_qs,
            u"forward"_qs, u"--json"_qs, u"-"_qs });
        QCOMPARE(r.code, 0);
        const json doc = json::parse(r.out.toStdString());
        const json &m = doc["methods"][0];
        QCOMPARE(m["external_bytes"].get<int>(), 84);
        QCOMPARE(m["external_tensors"].get<int>(), 3);
        QCOMPARE(m["arenas"][0]["device"].get<std::string>(), std::string("cpu"));
        QCOMPARE(m["arenas"][1]["device"].get<std::string>(), std::string("cuda:0"));
        for (const json &t : m["tensors"])
            QCOMPARE(t["device"].get<std::string>(), std::string(t["arena"].get<int>() == 2 ? "cuda:0" : "cpu"));
        QCOMPARE(doc["external"]["count"].get<int>(), 3);
        QCOMPARE(doc["external"]["data_files"].size(), 1u);

        const auto text = etscope::test::runCli({ u"memory"_qs, kPte });
        QCOMPARE(text.code, 0);
        QVERIFY(text.out.contains("  arena 2 (cuda:0): 64 bytes, peak live 48 bytes (75.0%) at instruction 1"));
        QVERIFY(text.out.contains("  external: 3 tensors, 84 bytes\n"));
        QVERIFY(text.out.contains("  external: 1 tensor, 48 bytes\n"));
    }

    // A .ptd given as the file: its names and segments.
    void ptdAlone()
    {
        const auto r = etscope::test::runCli({ u"program"_qs, ptd("external.ptd") });
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains(
                     ": FlatTensor data, version 0, 792 bytes (flatbuffer 424 bytes; 3 segments from offset "
                     "512, 280 bytes, aligned to 128)\n  linear.weight  float32[3, 4]  segment 0: 48 bytes at 512\n"),
            r.out.constData());
        const auto j = etscope::test::runCli({ u"program"_qs, ptd("external.ptd"), u"--json"_qs, u"-"_qs });
        QCOMPARE(j.code, 0);
        const json doc = json::parse(j.out.toStdString());
        QCOMPARE(doc["named_data"][2]["key"].get<std::string>(), std::string("state.cache"));
        QCOMPARE(doc["named_data"][2]["nbytes"].get<int>(), 24);
    }

    // Refused: exit 1, one line naming both files and the reason.
    void refused()
    {
        for (const char *name : { "missing_name.ptd", "wrong_size.ptd" })
            for (const char *cmd : { "program", "memory" }) {
                const auto r = etscope::test::runCli({ QString(cmd), kPte, u"--data"_qs, ptd(name) });
                QCOMPARE(r.code, 1);
                QCOMPARE(r.out, QByteArray());
                QVERIFY2(r.err.startsWith("etscope-cli: " + kPte.toUtf8() + ": external tensor '"), r.err.constData());
                QVERIFY(r.err.contains(ptd(name).toUtf8()));
                QCOMPARE(r.err.count('\n'), 1);
            }
        const auto hostile
            = etscope::test::runCli({ u"program"_qs, kPte, u"--data"_qs, ptd("hostile/truncated_segments.ptd") });
        QCOMPARE(hostile.code, 1);
        QVERIFY(hostile.err.contains("truncated_segments.ptd: header claims 280 bytes of segment data at 512"));
        // --data is repeatable; one name in two files is refused.
        const auto twice = etscope::test::runCli(
            { u"memory"_qs, kPte, u"--data"_qs, ptd("external.ptd"), u"--data"_qs, ptd("wrong_size.ptd") });
        QCOMPARE(twice.code, 1);
        QVERIFY2(twice.err.contains("'linear.weight' is in both " + ptd("external.ptd").toUtf8() + " and "
                     + ptd("wrong_size.ptd").toUtf8()),
            twice.err.constData());
        const auto noProgram
            = etscope::test::runCli({ u"program"_qs, ptd("external.ptd"), u"--data"_qs, ptd("external.ptd") });
        QCOMPARE(noProgram.code, 1);
    }
};

QTEST_GUILESS_MAIN(TstProgramDataCli)
#include "tst_programdatacli.moc"
