// The delegate payload decoders against expected_delegates.json, written by
// tests/tools/gen_delegate_payloads.py from the JSON each payload was compiled from with flatc
// (for the real fixture xnn_mlp.pte: its xnn_mlp.xnnpack_graphs.json, cross-checked there by
// decoding the payload with `flatc --json` against upstream's schema), and expected_coreml.json,
// written by tests/tools/gen_coreml_payloads.py from the plan it encodes its CoreML payloads
// from (its own protobuf encoder and inmemoryfs layout), and hostile payloads:
// every prefix and single-byte corruption decodes without failing, and parts always add up.
#include "testpaths.h"

#include "program/delegates/delegatepayload.h"
#include "program/delegates/miltext.h"
#include "program/delegates/nodelink.h"
#include "program/program.h"
#include "program/programexport.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <fstream>

using namespace etscope;
using etscope::test::sharedFixture;
using etscope::test::testData;
using nlohmann::json;

namespace {

json loadJson(const std::string &path)
{
    std::ifstream in(path);
    return json::parse(in);
}

std::string ptePath(const std::string &name)
{
    if (name == "xnn_mlp.pte")
        return sharedFixture("runtime/xnnpack_mlp_intermediates/xnn_mlp.pte");
    return testData("program/delegates/" + name);
}

std::vector<std::int64_t> ids(const json &j)
{
    return j.get<std::vector<std::int64_t>>();
}

void checkPayload(const DelegatePayload &p, const json &e, const std::string &where)
{
    const QByteArray at = QByteArray::fromStdString(where);
    QVERIFY2(
        p.backend == e.at("backend").get<std::string>(), at + " backend " + p.backend.c_str() + " " + p.note.c_str());
    QCOMPARE(p.decoded, e.at("decoded").get<bool>());
    QCOMPARE(p.bytes, e.at("bytes").get<std::uint64_t>());
    std::uint64_t sum = 0;
    for (const PayloadPart &part : p.parts)
        sum += part.bytes;
    QCOMPARE(sum, p.bytes);
    if (e.contains("version"))
        QCOMPARE(p.version, e["version"].get<std::string>());
    if (e.contains("identifier"))
        QCOMPARE(p.identifier, e["identifier"].get<std::string>());
    if (e.contains("graph_names"))
        QCOMPARE(p.graphNames, e["graph_names"].get<std::vector<std::string>>());
    QCOMPARE(p.nodes.size(), e.at("nodes").size());
    for (std::size_t i = 0; i < p.nodes.size(); ++i) {
        const json &en = e["nodes"][i];
        QCOMPARE(p.nodes[i].op, en.at("op").get<std::string>());
        QCOMPARE(p.nodes[i].inputs, ids(en.at("inputs")));
        QCOMPARE(p.nodes[i].outputs, ids(en.at("outputs")));
        if (en.contains("debug_handle"))
            QCOMPARE(p.nodes[i].debugHandle, en["debug_handle"].get<std::int64_t>());
    }
    if (e.contains("inputs")) {
        QCOMPARE(p.inputs, e["inputs"].get<std::vector<std::uint32_t>>());
        QCOMPARE(p.outputs, e["outputs"].get<std::vector<std::uint32_t>>());
    }
    if (e.contains("values"))
        for (const auto &[id, ev] : e["values"].items()) {
            const DelegateValue *v = p.value(std::stoll(id));
            QVERIFY2(v, (at + " value " + id.c_str()).constData());
            if (ev.contains("name"))
                QCOMPARE(v->name, ev["name"].get<std::string>());
            QCOMPARE(v->dtype, ev.at("dtype").get<std::string>());
            QCOMPARE(v->shape, ev.at("shape").get<std::vector<std::uint64_t>>());
            QCOMPARE(v->constant, ev.value("constant", 0u));
            if (ev.contains("text"))
                QCOMPARE(v->text, ev["text"].get<std::string>());
            QCOMPARE(std::string(delegateQuantKindName(v->quant.kind)), ev.value("quant", std::string("none")));
            if (ev.contains("scale")) {
                QCOMPARE(float(v->quant.scale), ev["scale"].get<float>());
                QCOMPARE(v->quant.zeroPoint, ev["zero_point"].get<std::int32_t>());
            }
            if (ev.contains("scale_count"))
                QCOMPARE(v->quant.scaleCount, ev["scale_count"].get<std::uint64_t>());
            if (ev.contains("group_size"))
                QCOMPARE(v->quant.groupSize, ev["group_size"].get<std::int32_t>());
        }
    if (e.contains("constants")) {
        QCOMPARE(p.constants.size(), e["constants"].size());
        for (std::size_t i = 0; i < p.constants.size(); ++i) {
            QCOMPARE(p.constants[i].bytes, e["constants"][i].at("bytes").get<std::uint64_t>());
            QCOMPARE(std::string(delegateConstantPlaceName(p.constants[i].place)),
                e["constants"][i].at("place").get<std::string>());
        }
    }
    if (e.contains("parts")) {
        QCOMPARE(p.parts.size(), e["parts"].size());
        for (std::size_t i = 0; i < p.parts.size(); ++i) {
            QCOMPARE(p.parts[i].name, e["parts"][i].at("name").get<std::string>());
            QCOMPARE(p.parts[i].bytes, e["parts"][i].at("bytes").get<std::uint64_t>());
        }
    }
    for (const char *key : { "command_stream_bytes", "weight_bytes", "scratch_bytes" }) {
        const std::optional<std::uint64_t> &got = std::string_view(key) == "command_stream_bytes" ? p.commandStreamBytes
            : std::string_view(key) == "weight_bytes"                                             ? p.weightBytes
                                                                                                  : p.scratchBytes;
        if (e.contains(key)) {
            QVERIFY2(got.has_value(), (at + " " + key).constData());
            QCOMPARE(*got, e[key].get<std::uint64_t>());
        } else {
            QVERIFY(!got.has_value());
        }
    }
}

} // namespace

class TestDelegatePayload : public QObject
{
    Q_OBJECT

private slots:
    void decodesAsAuthored_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("truth");
        for (const char *truth : { "expected_delegates.json", "expected_coreml.json" }) {
            const json expected = loadJson(testData(std::string("program/delegates/") + truth));
            for (const auto &[name, list] : expected.items())
                QTest::newRow(name.c_str()) << QString::fromStdString(name) << truth;
        }
    }
    void decodesAsAuthored()
    {
        QFETCH(QString, file);
        QFETCH(QString, truth);
        const json expected = loadJson(testData("program/delegates/" + truth.toStdString()));
        const json &list = expected.at(file.toStdString());
        auto program = Program::open(ptePath(file.toStdString()));
        QVERIFY2(program.ok(), program ? "" : program.error().message().c_str());
        const ProgramMethod &m = (*program)->methods().at(0);
        QCOMPARE(m.delegates().size(), list.size());
        for (std::size_t d = 0; d < list.size(); ++d) {
            const ProgramDelegate &del = m.delegates()[d];
            QCOMPARE(del.blob.size(), del.blobBytes);
            checkPayload(decodeDelegatePayload(del.backendId, del.blob), list[d],
                file.toStdString() + " delegate " + std::to_string(d));
        }
    }

    // The real fixture in words: node 0 of delegate 0 is the fused-ReLU linear 64 -> 128.
    void fixtureText()
    {
        auto program = Program::open(ptePath("xnn_mlp.pte"));
        QVERIFY(program.ok());
        const std::string text = programText(**program);
        QVERIFY2(text.find("node   0  FullyConnected  %0 fp32[1, 64], %1 fp32[128, 64] const, %2 fp32[128] const -> "
                           "%3 fp32[1, 128]  clamp [0, +inf]  handle 1")
                != std::string::npos,
            text.c_str());
        const json j = json::parse(programJson(**program));
        const json &nodes = j["methods"][0]["delegates"][1]["nodes"];
        QCOMPARE(nodes.size(), std::size_t(4));
        QCOMPARE(nodes[3]["op"].get<std::string>(), std::string("Softmax"));
        QVERIFY(nodes[0]["inputs"][1]["shape"] == json::parse("[64, 128]"));
    }

    // Opaque payloads say what they are; they do not fail the program.
    void opaqueSaysSo()
    {
        auto program = Program::open(ptePath("mixed_backends.pte"));
        QVERIFY(program.ok());
        const ProgramDelegate &qnn = (*program)->methods()[0].delegates()[2];
        const DelegatePayload p = decodeDelegatePayload(qnn.backendId, qnn.blob);
        QCOMPARE(
            p.summary(), std::string("opaque: 208 bytes, identifier 'NCTX' (no decoder for backend 'QnnBackend')"));
        const ProgramDelegate &bad = (*program)->methods()[0].delegates()[3];
        const DelegatePayload b = decodeDelegatePayload(bad.backendId, bad.blob);
        QVERIFY2(b.summary().find("XNNPACK header: flatbuffer") != std::string::npos, b.summary().c_str());
    }

    // XNNPACK operator events -> nodes. The fixture's README lists the operator events its run
    // logged (FC #1, FC #2, Add #1, GELU #1 for delegate 0; FC, TanH, FC, Softmax for delegate 1);
    // XNNProfiler::submit_trace logs them in runtime-operator order, which follows the nodes.
    void xnnpackEventLinks()
    {
        auto program = Program::open(ptePath("xnn_mlp.pte"));
        QVERIFY(program.ok());
        const auto &dels = (*program)->methods()[0].delegates();
        const std::vector<std::vector<std::string>> events = {
            { "Fully Connected (NC, F32) GEMM #1", "Fully Connected (NC, F32) GEMM #2", "Add (ND) #1", "GELU (NC) #1" },
            { "Fully Connected (NC, F32) GEMM #1", "TanH (NC) #1", "Fully Connected (NC, F32) GEMM #2",
                "Softmax (NC, F32) #1" },
        };
        for (std::size_t d = 0; d < 2; ++d) {
            const DelegateEventLinks links
                = linkXnnpackEvents(decodeDelegatePayload(dels[d].backendId, dels[d].blob), events[d]);
            QVERIFY(links.complete);
            QCOMPARE(links.fusedNodes, std::size_t(0));
            for (std::size_t e = 0; e < 4; ++e)
                QCOMPARE(links.events[e].node, std::int64_t(e));
        }
        // The int8 payload (Convert, FC, FC, Convert, Add): no event for the second Convert.
        auto authored = Program::open(ptePath("xnn_int8_fp16.pte"));
        QVERIFY(authored.ok());
        const ProgramDelegate &int8 = (*authored)->methods()[0].delegates()[0];
        const DelegatePayload p = decodeDelegatePayload(int8.backendId, int8.blob);
        DelegateEventLinks links = linkXnnpackEvents(p,
            { "Convert (NC, F32, QD8) #1", "Fully Connected (NC, QD8, F32, QC8W) GEMM #1",
                "Fully Connected (NC, QD8, F32, QB4W) GEMM #2", "Add (ND) #1" });
        QVERIFY(links.complete);
        QCOMPARE(links.fusedNodes, std::size_t(1));
        QCOMPARE(links.events[3].node, std::int64_t(4));
        // An operator no node names is left unlinked, and the links are not called exact.
        links = linkXnnpackEvents(p, { "Convert (NC, F32, QD8) #1", "Transpose (ND, X32) #1", "Add (ND) #1" });
        QVERIFY(!links.complete);
        QCOMPARE(links.events[1].node, std::int64_t(-1));
        QCOMPARE(links.events[2].node, std::int64_t(4));
    }

    // A graph whose header puts it 4 bytes off an 8-byte boundary (a payload the fuzzer made
    // from conv.vulkan; any writer may pad less than upstream's 16): it decodes to the same
    // graph as the aligned original. Read in place, its 8-byte fields would be loaded from
    // misaligned addresses (caught by the sanitizer builds).
    void graphOffAlignment_data()
    {
        QTest::addColumn<QString>("payload");
        QTest::addColumn<QString>("backend");
        QTest::newRow("vulkan") << "conv.vulkan"
                                << "VulkanBackend";
        QTest::newRow("xnnpack") << "int8.xnnpack"
                                 << "XnnpackBackend";
    }
    void graphOffAlignment()
    {
        QFETCH(QString, payload);
        QFETCH(QString, backend);
        std::ifstream in(testData("program/delegates/payloads/" + payload.toStdString()), std::ios::binary);
        const std::vector<std::uint8_t> blob((std::istreambuf_iterator<char>(in)), {});
        QVERIFY(blob.size() > 64);
        // Header fields (payloaddecoders.h): u32 flatbuffer offset at 10, u32 constant offset at 18.
        auto u32 = [](const std::uint8_t *at) { return std::uint32_t(at[0] | at[1] << 8 | at[2] << 16 | at[3] << 24); };
        auto put = [](std::uint8_t *at, std::uint32_t v) {
            for (int i = 0; i < 4; ++i)
                at[i] = std::uint8_t(v >> (8 * i));
        };
        const std::uint32_t fbOffset = u32(&blob[10]);
        QCOMPARE(fbOffset % 8, 0u);
        std::vector<std::uint8_t> shifted(blob.begin(), blob.begin() + fbOffset);
        shifted.insert(shifted.end(), 4, 0);
        shifted.insert(shifted.end(), blob.begin() + fbOffset, blob.end());
        put(&shifted[10], fbOffset + 4);
        put(&shifted[18], u32(&blob[18]) + 4);

        const DelegatePayload a = decodeDelegatePayload(backend.toStdString(), blob);
        const DelegatePayload b = decodeDelegatePayload(backend.toStdString(), shifted);
        QVERIFY2(a.decoded && b.decoded, b.summary().c_str());
        QVERIFY(!a.nodes.empty());
        QCOMPARE(b.nodes.size(), a.nodes.size());
        for (std::size_t i = 0; i < a.nodes.size(); ++i) {
            QCOMPARE(b.nodes[i].op, a.nodes[i].op);
            QCOMPARE(b.nodes[i].inputs, a.nodes[i].inputs);
            QCOMPARE(b.nodes[i].outputs, a.nodes[i].outputs);
        }
        QCOMPARE(b.values.size(), a.values.size());
        for (std::size_t i = 0; i < a.values.size(); ++i)
            QCOMPARE(b.values[i].shape, a.values[i].shape);
        QCOMPARE(b.constants.size(), a.constants.size());
        QCOMPARE(b.note, a.note);
    }

    // The CoreML payloads whole (their file table sits at the end, so the prefixes above only
    // reach the opaque path): every byte flipped, the front cut off, every suffix, zeros
    // appended; each decodes without failing and its parts add up.
    void hostileCoreML()
    {
        for (const char *name : { "mlprogram.coreml", "neuralnetwork.coreml", "compiled.coreml", "compiled_nn.coreml",
                 "reference.coreml" }) {
            std::ifstream in(testData(std::string("program/delegates/payloads/") + name), std::ios::binary);
            const std::vector<std::uint8_t> blob((std::istreambuf_iterator<char>(in)), {});
            QVERIFY(blob.size() > 64);
            auto check = [](const std::vector<std::uint8_t> &bytes) {
                const DelegatePayload p = decodeDelegatePayload("CoreMLBackend", bytes);
                std::uint64_t sum = 0;
                for (const PayloadPart &part : p.parts)
                    sum += part.bytes;
                QCOMPARE(sum, std::uint64_t(bytes.size()));
                QCOMPARE(p.bytes, std::uint64_t(bytes.size()));
                (void)p.summary();
                for (const DelegateNode &n : p.nodes)
                    for (std::int64_t id : n.inputs)
                        QVERIFY(p.value(id) != nullptr);
            };
            std::vector<std::uint8_t> flipped = blob;
            for (std::size_t i = 0; i < flipped.size(); ++i) {
                for (std::uint8_t mask : { std::uint8_t(0x01), std::uint8_t(0x80), std::uint8_t(0xFF) }) {
                    flipped[i] ^= mask;
                    check(flipped);
                    flipped[i] ^= mask;
                }
            }
            for (std::size_t n = 1; n < blob.size(); n += 7) {
                check({ blob.begin() + std::ptrdiff_t(n), blob.end() });
                check({ blob.begin(), blob.begin() + std::ptrdiff_t(n) });
            }
            std::vector<std::uint8_t> padded = blob;
            padded.resize(blob.size() + 4096, 0);
            const DelegatePayload p = decodeDelegatePayload("CoreMLBackend", padded);
            QVERIFY2(p.decoded, p.summary().c_str());
        }
    }

    // What the program listing shows for the ML Program delegate (names from the plan of
    // gen_coreml_payloads.py: the conv reads x and the two weight blobs of 432 and 16 bytes).
    void coremlText()
    {
        auto program = Program::open(ptePath("coreml.pte"));
        QVERIFY(program.ok());
        const std::string text = programText(**program);
        QVERIFY2(text.find("CoreML executorch_6c1d1f5e-2a41-4c0e-9d6b-5f3b7f0e0a01 ML Program version specification 8, "
                           "CoreML7, model version 1.0, coremltools 8.3.0, from torch==2.7.0: 11 nodes")
                != std::string::npos,
            text.c_str());
        QVERIFY2(text.find("conv  %0 x fp32[1, 3, 8, 8], %2 conv_0_weight fp32[4, 3, 3, 3] const") != std::string::npos,
            text.c_str());
        QVERIFY2(text.find("432 bytes in @model_path/weights/weight.bin at 128") != std::string::npos, text.c_str());
        QVERIFY2(text.find("opaque") == std::string::npos, text.c_str());
        const json j = json::parse(programJson(**program));
        const json &nodes = j["methods"][0]["delegates"][0]["nodes"];
        QCOMPARE(nodes.size(), std::size_t(11));
        QCOMPARE(nodes[10]["op"].get<std::string>(), std::string("linear"));
        QCOMPARE(nodes[10]["outputs"][0]["name"].get<std::string>(), std::string("y"));
        QVERIFY(nodes[10]["outputs"][0]["shape"] == json::parse("[1, 10]"));
    }

    // Every prefix and every single-byte corruption of real payloads: no failure, parts add up.
    void hostilePayloads()
    {
        for (const std::string name : { "xnn_mlp.pte", "mixed_backends.pte", "xnn_int8_fp16.pte", "coreml.pte" }) {
            auto program = Program::open(ptePath(name));
            QVERIFY(program.ok());
            for (const ProgramDelegate &del : (*program)->methods()[0].delegates()) {
                const std::vector<std::uint8_t> blob(
                    del.blob.begin(), del.blob.begin() + std::min<std::size_t>(del.blob.size(), 2048));
                for (std::size_t n = 0; n <= blob.size(); n += 3) {
                    const DelegatePayload p = decodeDelegatePayload(del.backendId, { blob.data(), n });
                    std::uint64_t sum = 0;
                    for (const PayloadPart &part : p.parts)
                        sum += part.bytes;
                    QCOMPARE(sum, std::uint64_t(n));
                }
                std::vector<std::uint8_t> flipped = blob;
                for (std::size_t i = 0; i < flipped.size(); i += 5) {
                    flipped[i] ^= 0xA5;
                    (void)decodeDelegatePayload(del.backendId, flipped).summary();
                    flipped[i] ^= 0xA5;
                }
            }
        }
    }

    // The MIL text reader on what the generated program does not show, expected values by hand:
    // several outputs on one line, a symbolic dimension, separators inside strings, a blob in an
    // operation's attributes (constexpr_*), and text that stops half way (what came before stays).
    void milTextShapes()
    {
        using namespace etscope::delegates;
        const std::string text = R"(program(1.0)
[buildInfo = dict<tensor<string, []>, tensor<string, []>>({{"a;b", "c=d"}})]
{
    func main<ios16>(tensor<fp32, [is0, 8]> x, tensor<int32, [2]> sizes) {
        tensor<fp32, [is0, 4]> a, tensor<fp32, [is0, 4]> b = split(axis = axis_1, split_sizes = sizes, x = x)[name = tensor<string, []>("sp;lit")];
        tensor<fp16, [4, 4]> w = constexpr_affine_dequantize(axis = 0)[name = string("w"), quantized_data = tensor<uint8, [4, 4]>(BLOBFILE(path = string("@model_path/weights/weight.bin"), offset = uint64(128)))];
        tensor<fp32, [is0, 8]> c = concat(axis = 1, values = (a, b))[name = string("c")];
    } -> (c, a);
    func second(tensor<fp32, [2]> y) {
        tensor<fp32, [2]> z = relu(x = y)[name = string("z")];
        tensor<fp32, [2]> broken = add(x = z, y = (z)[name = string("broken")];
    } -> (z);
})";
        const MilTextProgram p = parseMilText(text);
        QCOMPARE(p.version, std::string("1.0"));
        QCOMPARE(p.functions.size(), std::size_t(1)); // the second one does not balance (below)
        const MilTextFunction &f = p.functions[0];
        QCOMPARE(f.name, std::string("main"));
        QCOMPARE(f.opset, std::string("ios16"));
        QCOMPARE(f.inputs.size(), std::size_t(2));
        QVERIFY(!f.inputs[0].shape); // [is0, 8]: not a list of numbers
        QCOMPARE(f.inputs[1].shape, std::optional<std::vector<std::uint64_t>>(std::vector<std::uint64_t> { 2 }));
        QCOMPARE(f.ops.size(), std::size_t(3));
        QCOMPARE(f.ops[0].op, std::string("split"));
        QCOMPARE(f.ops[0].outputs.size(), std::size_t(2));
        QCOMPARE(f.ops[0].outputs[1].name, std::string("b"));
        QCOMPARE(f.ops[0].args.size(), std::size_t(3));
        QCOMPARE(f.ops[0].args[1].second, std::vector<std::string> { "sizes" });
        QCOMPARE(f.ops[1].blobPath, std::string("@model_path/weights/weight.bin"));
        QCOMPARE(f.ops[1].blobOffset, std::optional<std::uint64_t>(128));
        QVERIFY(f.ops[1].args[0].second.empty()); // axis = 0: a literal
        QCOMPARE(f.ops[2].args[1].second, (std::vector<std::string> { "a", "b" }));
        QCOMPARE(f.outputs, (std::vector<std::string> { "c", "a" }));
        // The second function's body does not balance ("(z)[…" never closes its '('): it is not
        // listed, and the reason names it.
        QVERIFY2(p.error.find("second") != std::string::npos, p.error.c_str());
        // Cut anywhere, the text never reads past its end and keeps what it read.
        for (std::size_t n = 0; n < text.size(); n += 7)
            (void)parseMilText(std::string_view(text).substr(0, n));
    }
};

QTEST_GUILESS_MAIN(TestDelegatePayload)
#include "tst_delegatepayload.moc"
