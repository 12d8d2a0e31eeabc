// The real two-method LLM fixture (tests/data/runtime/llm_decoder) through the binary: the .pte
// opens with its .ptd (`program`, `memory`), and the intermediates recording's outputs read.
// Expected values come from the JSON the files were compiled from (llm_decoder.program.json,
// llm_decoder.flat_tensor.json), from the .ptd's FH01 header read here byte by byte, and from
// the runner's log (intermediates/runner.log: the logits the runner printed and the largest logit
// of each run, "logit 14.358502" and "logit 10.833649").
#include "clirun.h"
#include "testpaths.h"

#include <nlohmann/json.hpp>

#include <QFile>
#include <QTest>

#include <fstream>

using nlohmann::json;

namespace {

std::string llm(const std::string &relative)
{
    return etscope::test::testData("runtime/llm_decoder/" + relative);
}

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

json readJson(const std::string &path)
{
    std::ifstream f(path);
    return json::parse(f);
}

} // namespace

class TstLlmFixtureCli : public QObject
{
    Q_OBJECT
private slots:
    // Every external tensor of the program is found in the .ptd where flat_tensor.json put it.
    void programWithItsWeights()
    {
        const auto r = etscope::test::runCli({ u"program"_qs, q(llm("llm_decoder.pte")), u"--data"_qs,
            q(llm("llm_decoder.ptd")), u"--json"_qs, u"-"_qs });
        QCOMPARE(r.code, 0);
        QVERIFY2(r.err.isEmpty(), r.err.constData());
        const json doc = json::parse(r.out.toStdString());

        const json program = readJson(llm("llm_decoder.program.json"));
        const json ptd = readJson(llm("llm_decoder.flat_tensor.json"));
        // The segment base from the FH01 header: u64 at byte 32 (after the root offset, "FT01",
        // "FH01", u32 length, u64 flatbuffer offset, u64 flatbuffer size).
        QFile f(q(llm("llm_decoder.ptd")));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray head = f.read(48);
        QCOMPARE(head.mid(4, 4), QByteArray("FT01", 4));
        QCOMPARE(head.mid(8, 4), QByteArray("FH01", 4));
        std::uint64_t base = 0;
        for (int i = 7; i >= 0; --i)
            base = (base << 8) | std::uint8_t(head[32 + i]);

        std::uint64_t bytes = 0;
        for (const auto &s : ptd["segments"])
            bytes += s["size"].get<std::uint64_t>();
        QCOMPARE(doc["external"]["count"].get<std::size_t>(), ptd["named_data"].size());
        QCOMPARE(doc["external"]["bytes"].get<std::uint64_t>(), bytes);
        QCOMPARE(doc["external"]["mutable_buffers"].get<int>(), 0);
        std::size_t seen = 0;
        for (const auto &t : doc["external"]["tensors"]) {
            for (const auto &nd : ptd["named_data"]) {
                if (nd["key"] != t["name"])
                    continue;
                const json &seg = ptd["segments"][nd["segment_index"].get<std::size_t>()];
                QVERIFY(t["shape"] == nd["tensor_layout"]["sizes"]);
                QVERIFY(t["segment"] == nd["segment_index"]);
                QCOMPARE(t["offset"].get<std::uint64_t>(), base + seg["offset"].get<std::uint64_t>());
                QVERIFY(t["data_bytes"] == seg["size"]);
                QCOMPARE(t["file"].get<std::string>(), llm("llm_decoder.ptd"));
                ++seen;
            }
        }
        QCOMPARE(seen, ptd["named_data"].size());

        QCOMPARE(doc["methods"].size(), std::size_t(2));
        for (std::size_t m = 0; m < 2; ++m) {
            const json &plan = program["execution_plan"][m];
            QVERIFY(doc["methods"][m]["name"] == plan["name"]);
            QCOMPARE(doc["methods"][m]["instructions"].size(), plan["chains"][0]["instructions"].size());
            QCOMPARE(doc["methods"][m]["external_tensors"].get<std::size_t>(), ptd["named_data"].size());
            QCOMPARE(doc["methods"][m]["external_bytes"].get<std::uint64_t>(), bytes);
        }
    }

    void memoryOfDecode()
    {
        const json program = readJson(llm("llm_decoder.program.json"));
        const auto planned = program["execution_plan"][1]["non_const_buffer_sizes"][1].get<std::uint64_t>();
        const auto r = etscope::test::runCli({ u"memory"_qs, q(llm("llm_decoder.pte")), u"--data"_qs,
            q(llm("llm_decoder.ptd")), u"--method"_qs, u"decode_forward"_qs });
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains(QStringLiteral("method decode_forward: 140 instructions").toUtf8()), r.out.constData());
        QVERIFY(r.out.contains(QStringLiteral("arena 1 (cpu): %1 bytes").arg(planned).toUtf8()));
    }

    // With the recording: every run fits one of the two methods, so the plan is shown with it
    // (no single method explains both the prefill and the decode runs). Another program's
    // recording is refused naming its first run that fits neither (cnn_mlp's README: its first
    // kernel is a convolution; llm_decoder.program.json: instruction 0 of both methods is
    // embedding.out; run_data entry 0 is the load-time block).
    void memoryWithTheRecording()
    {
        const auto r = etscope::test::runCli({ u"memory"_qs, q(llm("llm_decoder.pte")), u"--etdump"_qs,
            q(llm("profile/etdump.etdp")), u"--data"_qs, q(llm("llm_decoder.ptd")) });
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("method prefill_forward: 141 instructions"), r.out.constData());
        QVERIFY(r.out.contains("method decode_forward: 140 instructions"));
        const std::string cnn = etscope::test::sharedFixture("runtime/cnn_mlp_50runs/etdump.etdp");
        const auto refused = etscope::test::runCli({ u"memory"_qs, q(llm("llm_decoder.pte")), u"--etdump"_qs, q(cnn) });
        QCOMPARE(refused.code, 1);
        QVERIFY2(refused.err.contains(("program does not match " + cnn
                     + ": run_data entry 1: kernel 'native_call_convolution.out' at instruction 0 "
                       "but the program calls embedding.out there")
                                          .c_str()),
            refused.err.constData());
    }

    // The prefill run and the two decode runs (one block: the same events) with their outputs.
    void intermediatesOutputs()
    {
        const auto r = etscope::test::runCli({ u"outputs"_qs, u"--etdump"_qs, q(llm("intermediates/etdump.etdp")),
            u"--debug-buffer"_qs, q(llm("intermediates/debug_output.bin")) });
        QCOMPARE(r.code, 0);
        const QString out = QString::fromUtf8(r.out);
        QVERIFY2(out.contains(u"block 1 'Execute' (1 runs)\n  run outputs: 5\n    float32[1, 1, 256] "_qs),
            r.out.constData());
        // Runner log: "prefill logits (last position, first 8): 4.619888 -0.999796 -2.335377
        // 1.665555 -0.575253 -2.033111 ...", largest logit 14.358502.
        QVERIFY(out.contains(u"max 14.3585"_qs));
        QVERIFY(out.contains(u"[4.61989, -0.999796, -2.33538, 1.66556, -0.575253, -2.03311, ...]"_qs));
        // The first decode run (position 32): largest logit 10.833649.
        QVERIFY(out.contains(u"block 2 'Execute' (2 runs)\n  run outputs: 5\n    float32[1, 1, 256] "_qs));
        QVERIFY(out.contains(u"max 10.8336"_qs));
        // The runs of one block logged different tensors: said once per event, capped.
        QVERIFY(r.err.contains("differs between runs; showing the first run's"));
    }
};

QTEST_GUILESS_MAIN(TstLlmFixtureCli)
#include "tst_llmfixturecli.moc"
