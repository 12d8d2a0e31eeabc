// The reference interpreter against a real PyTorch oracle.
//
// Expected values: tests/tools/gen_eval_fixtures.py (Debian python3-torch 1.13) traced five
// modules written for this test (transformer block, CNN, integer path, quantize/dequantize
// chain, dtype/broadcast edge cases) and stored every call_function node's output, computed by
// torch.fx.Interpreter, in tests/data/eval/<case>_expected.pt. The fixture ETRecords'
// reference_outputs (tests/tools/gen_etrecord_fixtures.py) were computed by the eager modules.
// Hostile graphs are written inline; their expected outcome is an error message, no crash.

#include "testpaths.h"

#include "etrecord/exportedprogram.h"
#include "etrecord/torchsave.h"
#include "eval/evaluator.h"

#include <QTest>

#include <cmath>

using namespace etscope;
using namespace etscope::eval;

namespace {

// float32: |a - b| <= 1e-6 + 1e-5 |b|; NaN matches NaN, infinities match exactly; reduced
// precision floats allow one unit in the last place of their dtype; ints and bools are exact.
QString compareTensor(const Tensor &got, const PyTensor &want, bool computedInFloat32 = false)
{
    if (got.sizes != want.sizes)
        return QStringLiteral("shape differs");
    if (got.dtype != want.dtype)
        return QStringLiteral("dtype %1, expected %2")
            .arg(QString::fromStdString(std::string(scalarTypeName(got.dtype))),
                QString::fromStdString(std::string(scalarTypeName(want.dtype))));
    auto values = tensorValues(want);
    if (!values)
        return QString::fromStdString(values.error().message());
    double rel = 1e-5, abs = 1e-6;
    if (want.dtype == ScalarType::Half)
        rel = 1e-3;
    if (want.dtype == ScalarType::BFloat16)
        rel = 8e-3;
    if (want.dtype == ScalarType::Double && !computedInFloat32)
        rel = 1e-12, abs = 1e-14;
    const bool exact = !isFloatingPoint(want.dtype);
    for (std::int64_t i = 0; i < got.numel(); ++i) {
        const double a = got.getDouble(i), b = (*values)[std::size_t(i)];
        bool ok;
        if (exact)
            ok = a == b;
        else if (std::isnan(b))
            ok = std::isnan(a);
        else if (std::isinf(b))
            ok = a == b;
        else
            ok = std::abs(a - b) <= abs + rel * std::abs(b);
        if (!ok)
            return QStringLiteral("element %1: %2, expected %3").arg(i).arg(a, 0, 'g', 17).arg(b, 0, 'g', 17);
    }
    return {};
}

} // namespace

class TestEvaluator : public QObject
{
    Q_OBJECT

private slots:
    void torchOracle_data();
    void torchOracle();
    void floatTwin_data();
    void floatTwin();
    void inputsFileMatchesRepresentative();
    void fixtureEtrecordReproducesReferenceOutputs();
    void fixtureOpsHaveKernels();
    void unsupportedOpIsolated();
    void hostileGraphs_data();
    void hostileGraphs();
    void noInputsError();
    void progressCancels();
    void memoryBudget();
    void keepDebugHandlesOnly();
    void inputOverride();
    void operatorKeys();
};

void TestEvaluator::torchOracle_data()
{
    QTest::addColumn<QString>("stem");
    // llama*: Llama-style decoder (aten SDPA with index_put_/index_copy_ caches, and ExecuTorch's
    // llama.sdpa_with_kv_cache / update_cache + custom_sdpa); edgeops: roll, as_strided, gather,
    // topk, sort, index_put, 3-d conv/pool, per-token quantization, upsampling by scale.
    for (const char *s :
        { "transformer", "cnn", "intpath", "quant", "small", "llama", "llama_kv", "llama_custom", "edgeops", "vit" })
        QTest::newRow(s) << QString::fromLatin1(s);
    // Quantized graphs (tests/tools/gen_quant_fixtures.py): PT2E-style CNN (per-channel int8
    // weights, per-tensor activations), linears with dynamic per-token / per-tensor activations,
    // decoder block with 4-bit groupwise weights, torchao affine ops and GQA (repeat_interleave).
    for (const char *s : { "qcnn", "qlinear", "qdecoder" })
        QTest::newRow(s) << QString::fromLatin1(s);
}

void TestEvaluator::floatTwin_data()
{
    QTest::addColumn<QString>("stem");
    for (const char *s : { "qcnn", "qlinear", "qdecoder" })
        QTest::newRow(s) << QString::fromLatin1(s);
}

// The float twin (EvalOptions::floatTwin) against PyTorch: every node against the same graph
// run by torch.fx.Interpreter with dequantize(quantize(x)) -> x (<stem>_twin_expected.pt), and
// the graph outputs against a separate float module run eagerly, its weights dequantized by
// PyTorch and no activation quantization (<stem>_float_outputs.pt). Both written by
// tests/tools/gen_quant_fixtures.py.
void TestEvaluator::floatTwin()
{
    QFETCH(QString, stem);
    const std::string base = test::testData("eval/" + stem.toStdString());
    auto record = readETRecord(base + "_etrecord.bin");
    QVERIFY(record);
    auto inputs = chooseInputs(**record, {});
    QVERIFY(inputs);
    EvalOptions opts;
    opts.threads = 2;
    opts.floatTwin = true;
    auto twin = evaluate(**record, "", *inputs, opts);
    QVERIFY2(twin, twin ? "" : twin.error().message().c_str());
    QVERIFY(twin->floatTwinPairs >= 3);

    auto expected = loadTorchSave(base + "_twin_expected.pt");
    QVERIFY(expected);
    const PyDict *dict = expected->dict();
    QVERIFY(dict);
    QCOMPARE(twin->nodes.size(), dict->items.size());
    for (const NodeOutput &n : twin->nodes) {
        QVERIFY2(n.error.empty(), (n.node + ": " + n.error).c_str());
        const auto *items = dict->get(n.node)->sequence();
        QVERIFY(items);
        QCOMPARE(n.outputs.size(), items->size());
        if (n.target == "aten.empty.memory_format")
            continue; // uninitialized memory (filled by the next node)
        for (std::size_t k = 0; k < items->size(); ++k) {
            // choose_qparams computes its float64 scales in float32 (widened at the end).
            const QString why = compareTensor(
                n.outputs[k], *(*items)[k].tensor(), n.target.find("choose_qparams") != std::string::npos);
            QVERIFY2(why.isEmpty(), qPrintable(QString::fromStdString(n.node) + ": " + why));
        }
    }

    auto flt = loadTorchSave(base + "_float_outputs.pt");
    QVERIFY(flt);
    const auto *outs = flt->sequence();
    QVERIFY(outs);
    QCOMPARE(twin->programOutputs.size(), outs->size());
    opts.floatTwin = false;
    auto fake = evaluate(**record, "", *inputs, opts);
    QVERIFY(fake);
    for (std::size_t k = 0; k < outs->size(); ++k) {
        const QString why = compareTensor(twin->programOutputs[k], *(*outs)[k].tensor());
        QVERIFY2(why.isEmpty(), qPrintable(QStringLiteral("output %1: ").arg(k) + why));
        // The fake-quantized model is off the float one: the comparison above means something.
        QVERIFY(!compareTensor(fake->programOutputs[k], *(*outs)[k].tensor()).isEmpty());
    }
}

void TestEvaluator::torchOracle()
{
    QFETCH(QString, stem);
    const std::string base = test::testData("eval/" + stem.toStdString());
    auto record = readETRecord(base + "_etrecord.bin");
    QVERIFY2(record, record ? "" : record.error().message().c_str());
    auto inputs = chooseInputs(**record, {});
    QVERIFY2(inputs, inputs ? "" : inputs.error().message().c_str());
    EvalOptions opts;
    opts.threads = 2;
    auto result = evaluate(**record, "", *inputs, opts);
    QVERIFY2(result, result ? "" : result.error().message().c_str());

    auto expected = loadTorchSave(base + "_expected.pt");
    QVERIFY(expected);
    const PyDict *dict = expected->dict();
    QVERIFY(dict);
    QCOMPARE(result->nodes.size(), dict->items.size());
    int compared = 0;
    for (const NodeOutput &n : result->nodes) {
        const PyValue *want = dict->get(n.node);
        QVERIFY2(want, n.node.c_str());
        QVERIFY2(n.error.empty(), (n.node + ": " + n.error).c_str());
        const auto *items = want->sequence();
        QVERIFY(items);
        QCOMPARE(n.outputs.size(), items->size());
        if (n.target == "aten.empty.memory_format")
            continue; // uninitialized memory (filled by the next node)
        for (std::size_t k = 0; k < items->size(); ++k) {
            const PyTensor *t = (*items)[k].tensor();
            QVERIFY(t);
            // choose_qparams computes its float64 scales in float32 (widened at the end).
            const QString why = compareTensor(n.outputs[k], *t, n.target.find("choose_qparams") != std::string::npos);
            QVERIFY2(why.isEmpty(),
                qPrintable(QStringLiteral("%1 (%2) output %3: %4")
                               .arg(QString::fromStdString(n.node), QString::fromStdString(n.target))
                               .arg(k)
                               .arg(why)));
            ++compared;
        }
    }
    QVERIFY(compared >= 8);
}

void TestEvaluator::inputsFileMatchesRepresentative()
{
    auto record = readETRecord(test::testData("eval/intpath_etrecord.bin"));
    QVERIFY(record);
    InputChoice c;
    c.inputsFile = test::testData("eval/intpath_inputs.pt");
    auto fromFile = chooseInputs(**record, c);
    auto fromRecord = chooseInputs(**record, {});
    QVERIFY(fromFile && fromRecord);
    QCOMPARE(fromFile->size(), std::size_t(2));
    QCOMPARE(fromRecord->size(), std::size_t(2));
    for (std::size_t i = 0; i < 2; ++i) {
        QCOMPARE((*fromFile)[i].tensor.sizes, (*fromRecord)[i].tensor.sizes);
        QCOMPARE((*fromFile)[i].tensor.dtype, (*fromRecord)[i].tensor.dtype);
        QCOMPARE(*(*fromFile)[i].tensor.storage, *(*fromRecord)[i].tensor.storage);
    }
    QCOMPARE((*fromFile)[1].tensor.dtype, ScalarType::Long);
}

// cnn_mlp_etrecord.bin holds the eager model's outputs for its representative input
// (gen_etrecord_fixtures.py): probs [1, 10] and the argmax class.
void TestEvaluator::fixtureEtrecordReproducesReferenceOutputs()
{
    auto record = readETRecord(test::testData("etrecord/cnn_mlp_etrecord.bin"));
    QVERIFY(record);
    auto inputs = chooseInputs(**record, {});
    QVERIFY(inputs);
    auto ref = (*record)->loadReferenceOutputs();
    QVERIFY(ref);
    const auto *outs = (*(*ref).dict()->get("forward")->sequence())[0].sequence();
    for (const char *graph : { "edge_dialect_exported_program", "exported_program" }) {
        auto result = evaluate(**record, graph, *inputs);
        QVERIFY2(result, result ? "" : result.error().message().c_str());
        QCOMPARE(result->nodes.size(), std::size_t(28));
        for (const auto &n : result->nodes)
            QVERIFY2(n.error.empty(), n.error.c_str());
        QCOMPARE(result->programOutputs.size(), outs->size());
        for (std::size_t k = 0; k < outs->size(); ++k) {
            const QString why = compareTensor(result->programOutputs[k], *(*outs)[k].tensor());
            QVERIFY2(why.isEmpty(), qPrintable(why));
        }
    }
}

void TestEvaluator::fixtureOpsHaveKernels()
{
    for (const char *f : { "etrecord/cnn_mlp_etrecord.bin", "etrecord/xnn_mlp_etrecord.bin" }) {
        auto record = readETRecord(test::testData(f));
        QVERIFY(record);
        for (const auto &p : (*record)->programs())
            for (const auto &n : p.program->nodes)
                QVERIFY2(hasKernel(operatorKey(n.target)), n.target.c_str());
    }
}

namespace {

// A tiny exported program: x -> op_a -> op_b, and x -> relu (independent).
std::string program(const std::string &nodes, const std::string &outputs = R"([{"as_tensor": {"name": "y"}}])")
{
    return R"({"graph_module": {"graph": {"inputs": [{"as_tensor": {"name": "x"}}], "outputs": )" + outputs
        + R"(, "nodes": )" + nodes + R"(, "tensor_values": {}},
        "signature": {"input_specs": [{"user_input": {"arg": {"as_tensor": {"name": "x"}}}}], "output_specs": []}},
        "schema_version": {"major": 5, "minor": 3}})";
}

std::string node(const std::string &name, const std::string &target, const std::string &inputs)
{
    return R"({"name": ")" + name + R"(", "target": "executorch.exir.dialects.edge.ops.)" + target + R"(", "inputs": )"
        + inputs + R"(, "outputs": [{"as_tensor": {"name": ")" + name
        + R"("}}], "metadata": {"stack_trace": "  File \"/m.py\", line 7, in forward\n    y\n"}})";
}

std::string tensorArg(const std::string &argName, const std::string &tensor)
{
    return R"({"name": ")" + argName + R"(", "arg": {"as_tensor": {"name": ")" + tensor + R"("}}})";
}

Result<EvalResult> run(const std::string &json, std::vector<Value> inputs = {})
{
    auto ep = parseExportedProgram(json, "test.json");
    if (!ep)
        return ep.error();
    if (inputs.empty())
        inputs.push_back(Value::ofTensor(Tensor::fromFloats({ 2, 3 }, { 1, -2, 3, -4, 5, -6 })));
    return evaluateProgram(*ep, {}, inputs);
}

} // namespace

void TestEvaluator::unsupportedOpIsolated()
{
    const std::string nodes = "[" + node("a", "aten.frobnicate.default", "[" + tensorArg("self", "x") + "]") + ","
        + node("b", "aten.relu.default", "[" + tensorArg("self", "a") + "]") + ","
        + node("c", "aten.abs.default", "[" + tensorArg("self", "x") + "]") + "]";
    auto r = run(program(nodes));
    QVERIFY(r);
    QCOMPARE(r->nodes.size(), std::size_t(3));
    QVERIFY2(r->nodes[0].error.find("node a (aten.frobnicate.default) at m.py:7") != std::string::npos,
        r->nodes[0].error.c_str());
    QVERIFY(r->nodes[0].error.find("no kernel") != std::string::npos);
    QCOMPARE(QString::fromStdString(r->nodes[1].error), QStringLiteral("no reference (needs aten.frobnicate.default)"));
    QVERIFY(r->nodes[2].error.empty());
    QCOMPARE(r->nodes[2].outputs[0].getDouble(5), 6.0);
}

void TestEvaluator::hostileGraphs_data()
{
    QTest::addColumn<QString>("nodes");
    QTest::addColumn<QString>("expect");
    const auto x = tensorArg("self", "x");
    QTest::newRow("missing tensor") << QString::fromStdString(
        "[" + node("a", "aten.relu.default", "[" + tensorArg("self", "nowhere") + "]") + "]")
                                    << "reads 'nowhere', which no node or input defines";
    QTest::newRow("cycle") << QString::fromStdString("["
        + node("a", "aten.relu.default", "[" + tensorArg("self", "b") + "]") + ","
        + node("b", "aten.relu.default", "[" + tensorArg("self", "a") + "]") + "]")
                           << "before it is produced";
    QTest::newRow("shape mismatch") << QString::fromStdString("["
        + node("a", "aten.add.Tensor", "[" + x + ", " + tensorArg("other", "x") + "]") + ","
        + node("b", "aten.view_copy.default",
            R"([)" + tensorArg("self", "a") + R"(, {"name": "size", "arg": {"as_ints": [4, 2]}}])")
        + "]") << "invalid for input of size 6";
    QTest::newRow("2^40 elements") << QString::fromStdString("["
        + node("a", "aten.full.default",
            R"([{"name": "size", "arg": {"as_ints": [1048576, 1048576]}}, {"name": "fill_value", "arg": {"as_float": 1.5}}])")
        + "]") << "exceeds the";
    QTest::newRow("bad int") << QString::fromStdString(
        "[" + node("a", "aten.squeeze_copy.dim", "[" + x + R"(, {"name": "dim", "arg": {"as_int": "seven"}}])") + "]")
                             << "argument 'dim'";
    QTest::newRow("wrong arg kind") << QString::fromStdString("["
        + node("a", "aten.permute_copy.default", "[" + x + R"(, {"name": "dims", "arg": {"as_float": 1.0}}])") + "]")
                                    << "must be an int list";
    QTest::newRow("dim out of range") << QString::fromStdString("["
        + node("a", "aten._softmax.default",
            "[" + x
                + R"(, {"name": "dim", "arg": {"as_int": 5}}, {"name": "half_to_float", "arg": {"as_bool": false}}])")
        + "]") << "out of range";
    QTest::newRow("broadcast") << QString::fromStdString("["
        + node("s", "aten.slice_copy.Tensor",
            "[" + x
                + R"(, {"name": "dim", "arg": {"as_int": 1}}, {"name": "start", "arg": {"as_int": 0}}, {"name": "end", "arg": {"as_int": 2}}])")
        + "," + node("a", "aten.add.Tensor", "[" + x + ", " + tensorArg("other", "s") + "]") + "]")
                               << "do not broadcast";
    QTest::newRow("as_strided out of bounds") << QString::fromStdString("["
        + node("a", "aten.as_strided_copy.default",
            "[" + x
                + R"(, {"name": "size", "arg": {"as_ints": [3, 3]}}, {"name": "stride", "arg": {"as_ints": [3, 1]}}])")
        + "]") << "as_strided";
    QTest::newRow("gather index out of range") << QString::fromStdString("["
        + node("i", "aten.full.default",
            R"([{"name": "size", "arg": {"as_ints": [2, 3]}}, {"name": "fill_value", "arg": {"as_int": 9}}, {"name": "dtype", "arg": {"as_scalar_type": 5}}])")
        + ","
        + node("a", "aten.gather.default",
            "[" + x + R"(, {"name": "dim", "arg": {"as_int": 1}}, )" + tensorArg("index", "i") + "]")
        + "]") << "out of bounds";
    QTest::newRow("topk k too large") << QString::fromStdString(
        "[" + node("a", "aten.topk.default", "[" + x + R"(, {"name": "k", "arg": {"as_int": 7}}])") + "]")
                                      << "k=7";
    QTest::newRow("custom_sdpa on 2-d") << QString::fromStdString("["
        + node("a", "llama.custom_sdpa.default",
            "[" + tensorArg("query", "x") + ", " + tensorArg("key", "x") + ", " + tensorArg("value", "x")
                + R"(, {"name": "start_pos", "arg": {"as_int": 0}}])")
        + "]") << "4-d";
    QTest::newRow("3-d pool on 2-d") << QString::fromStdString("["
        + node("a", "aten.avg_pool3d.default", "[" + x + R"(, {"name": "kernel_size", "arg": {"as_ints": [2]}}])")
        + "]") << "4-d or 5-d";
    QTest::newRow("conv channels") << QString::fromStdString("["
        + node("a", "aten.convolution.default",
            R"([{"name": "input", "arg": {"as_tensor": {"name": "x"}}}, {"name": "weight", "arg": {"as_tensor": {"name": "x"}}}])")
        + "]") << "convolution";
}

void TestEvaluator::hostileGraphs()
{
    QFETCH(QString, nodes);
    QFETCH(QString, expect);
    auto r = run(program(nodes.toStdString()));
    QVERIFY(r);
    bool found = false;
    for (const auto &n : r->nodes)
        found = found || n.error.find(expect.toStdString()) != std::string::npos;
    QVERIFY2(found, r->nodes.empty() ? "no nodes" : r->nodes.front().error.c_str());
}

void TestEvaluator::noInputsError()
{
    auto record = readETRecord(test::testData("etrecord/xnn_mlp_etrecord.bin"));
    QVERIFY(record);
    auto inputs = chooseInputs(**record, {});
    QVERIFY(!inputs);
    const std::string m = inputs.error().message();
    QVERIFY(m.find("representative_inputs") != std::string::npos);
    QVERIFY(m.find("--inputs") != std::string::npos);
    QVERIFY(m.find("--bundled-program") != std::string::npos);
    // More inputs than the graph takes is a warning; fewer is an error.
    auto few = evaluate(**record, "", {});
    QVERIFY(!few);
}

// The Llama fixture's state dict holds ~50 KB of float32 weights (vocab 64 x 32 embedding alone is
// 8 KB): a 1 KB budget must be refused up front with the figures, 1 GB must run.
void TestEvaluator::memoryBudget()
{
    auto record = readETRecord(test::testData("eval/llama_etrecord.bin"));
    QVERIFY(record);
    auto inputs = chooseInputs(**record, {});
    QVERIFY(inputs);
    EvalOptions o;
    o.maxMemory = 1024;
    auto r = evaluate(**record, "", *inputs, o);
    QVERIFY(!r);
    QVERIFY2(r.error().reason.find("over the memory budget of 0.0 MB") != std::string::npos, r.error().reason.c_str());
    QCOMPARE(r.error().code, ErrorCode::LimitExceeded);
    o.maxMemory = std::int64_t(1) << 30;
    QVERIFY(evaluate(**record, "", *inputs, o));
}

// Nodes without a debug handle are computed (their readers and the graph output need them) but
// not kept under Keep::DebugHandles.
void TestEvaluator::keepDebugHandlesOnly()
{
    auto ep = parseExportedProgram(program("[" + node("a", "aten.relu.default", "[" + tensorArg("self", "x") + "]")
                                       + "," + node("y", "aten.neg.default", "[" + tensorArg("self", "a") + "]") + "]"),
        "test.json");
    QVERIFY(ep);
    EvalOptions o;
    o.keep = EvalOptions::Keep::DebugHandles;
    auto r = evaluateProgram(*ep, {}, { Value::ofTensor(Tensor::fromFloats({ 2, 3 }, { 1, -2, 3, -4, 5, -6 })) }, o);
    QVERIFY(r);
    QCOMPARE(r->nodes.size(), std::size_t(2));
    for (const auto &n : r->nodes) {
        QVERIFY(!n.kept);
        QVERIFY(n.outputs.empty());
        QVERIFY(n.error.empty());
    }
    // -relu(x), by hand.
    QCOMPARE(r->programOutputs.size(), std::size_t(1));
    const std::vector<double> want { -1, 0, -3, 0, -5, 0 };
    for (std::size_t i = 0; i < want.size(); ++i)
        QCOMPARE(r->programOutputs[0].getDouble(std::int64_t(i)) + 0.0, want[i]);
}

void TestEvaluator::progressCancels()
{
    auto record = readETRecord(test::testData("eval/cnn_etrecord.bin"));
    QVERIFY(record);
    auto inputs = chooseInputs(**record, {});
    QVERIFY(inputs);
    int calls = 0, last = 0;
    EvalOptions o;
    o.progress = [&](int p) {
        ++calls;
        last = p;
        return calls < 5;
    };
    auto r = evaluate(**record, "", *inputs, o);
    QVERIFY(!r);
    QCOMPARE(calls, 5);
    QVERIFY(last > 0 && last < 1000);
}

// Isolated mode: a node reading an overridden producer sees the override, not the computed value.
void TestEvaluator::inputOverride()
{
    const std::string nodes = "[" + node("a", "aten.relu.default", "[" + tensorArg("self", "x") + "]") + ","
        + node("b", "aten.neg.default", "[" + tensorArg("self", "a") + "]") + "]";
    auto ep = parseExportedProgram(program(nodes), "t.json");
    QVERIFY(ep);
    EvalOptions o;
    o.inputOverride = [](const std::string &producer, int index) -> std::optional<Tensor> {
        if (producer == "a" && index == 0)
            return Tensor::fromFloats({ 2, 3 }, { 10, 20, 30, 40, 50, 60 });
        return std::nullopt;
    };
    auto r = evaluateProgram(*ep, {}, { Value::ofTensor(Tensor::fromFloats({ 2, 3 }, { 1, -2, 3, -4, 5, -6 })) }, o);
    QVERIFY(r);
    QCOMPARE(r->nodes[0].outputs[0].getDouble(1), 0.0); // a itself is computed
    QCOMPARE(r->nodes[1].outputs[0].getDouble(1), -20.0);
}

void TestEvaluator::operatorKeys()
{
    QCOMPARE(QString::fromStdString(operatorKey("executorch.exir.dialects.edge.ops.aten.convolution.default")),
        QStringLiteral("aten.convolution.default"));
    QCOMPARE(QString::fromStdString(operatorKey("torch.ops.aten.add.Tensor")), QStringLiteral("aten.add.Tensor"));
    QCOMPARE(QString::fromStdString(operatorKey("add.Tensor")), QStringLiteral("aten.add.Tensor"));
    QCOMPARE(QString::fromStdString(operatorKey("torch.ops.quantized_decomposed.quantize_per_tensor.default")),
        QStringLiteral("quantized_decomposed.quantize_per_tensor.default"));
    QCOMPARE(QString::fromStdString(operatorKey("_operator.getitem")), QStringLiteral("getitem"));
}

QTEST_GUILESS_MAIN(TestEvaluator)
#include "tst_evaluator.moc"
