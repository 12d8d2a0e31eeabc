// Backend events decoded (backendevents.h, backendlink.h) on the authored Vulkan / VGF / Neutron
// ETDumps (tests/data/backend, tests/tools/gen_backend_etdumps.py) and the real XNNPACK fixture.
// Expected values are written by hand from upstream's logging code at ExecuTorch commit
// cff6f4dd32e630945b7188512c1f2b4f102b05ad (the file is named at each check) and from the
// times the generator writes (durations worked out by hand in the comments), never from etscope.
#include "etdumpwriter.h"
#include "etrecord/backendlink.h"
#include "etrecord/etrecord.h"
#include "events/backendevents.h"
#include "events/inspectortable.h"
#include "testpaths.h"
#include "testsession.h"

#include <map>
#include <tuple>

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

using namespace etscope;

namespace {
std::size_t eventIndex(const EventBlock &b, std::string_view name, std::int32_t instruction = -2)
{
    for (std::size_t i = 0; i < b.events.size(); ++i)
        if (b.events[i].name == name && (instruction == -2 || b.events[i].instructionId == instruction))
            return i;
    qFatal("no event %s", std::string(name).c_str());
}

std::shared_ptr<const Session> loadVulkan(bool withRecord)
{
    SessionInputs in;
    in.etdump = test::testData("backend/vulkan_stem/etdump.etdp");
    if (withRecord) {
        in.etrecord = test::testData("etrecord/cnn_mlp_etrecord.bin");
        in.link.method = "encode"; // the ETRecord method the fixture's delegate call lowers
    }
    auto s = loadSession(in);
    if (!s)
        qFatal("%s", s.error().message().c_str());
    return *s;
}
} // namespace

class TestBackendEvents : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void vulkanDispatchParsed()
    {
        // DispatchNode.cpp encode + VulkanBackend.cpp execute + Logging.cpp make_operator_json /
        // make_arg_json: the exact shape of one dispatch name (a relu on a [1, 8, 4, 4] texture).
        const std::string name
            = "{\"operator\": {\"name\": \"aten.relu.default\", \"delegate_node_id\": 7, "
              "\"args\": [{\"type\": \"TENSOR\", \"value_ref\": 4, \"dtype\": \"Half\", \"sizes\": "
              "[1, 8, 4, 4], \"storage\": \"TEXTURE_3D\", \"packed_dim\": 2}, {\"type\": \"TENSOR\", "
              "\"value_ref\": 5, \"dtype\": \"Half\", \"sizes\": [1, 8, 4, 4], \"storage\": "
              "\"BUFFER\", \"packed_dim\": 0}]}, \"kernel_name\": \"relu_half_texture3d\", "
              "\"operator_id\": 12, \"dispatch_id\": 30}";
        const auto ev = decodeVulkanDispatch(name);
        QVERIFY(ev);
        QCOMPARE(ev->backend, BackendKind::Vulkan);
        QCOMPARE(ev->kind, BackendEventKind::Dispatch);
        QCOMPARE(ev->op, std::string("aten.relu.default"));
        QCOMPARE(ev->kernel, std::string("relu_half_texture3d"));
        QCOMPARE(ev->operatorId, std::optional<std::int64_t>(12));
        QCOMPARE(ev->dispatchId, std::optional<std::int64_t>(30));
        QCOMPARE(ev->delegateNodeId, std::optional<std::int64_t>(7));
        QCOMPARE(ev->args.size(), std::size_t(2));
        QCOMPARE(ev->args[0],
            (VulkanArg { "TENSOR", 4, "Half", std::vector<std::int64_t> { 1, 8, 4, 4 }, "TEXTURE_3D", 2, "" }));
        QCOMPARE(ev->args[1].storage, std::string("BUFFER"));
        QCOMPARE(ev->args[1].packedDim, std::optional<std::int64_t>(0));
        QCOMPARE(vulkanArgText(ev->args[0]), std::string("TENSOR Half [1, 8, 4, 4] TEXTURE_3D packed_dim 2"));
        QVERIFY(!ev->stagingCopy);
        QCOMPARE(backendOpLabel(*ev), std::string("aten.relu.default"));

        // A DOUBLE argument streamed as "inf" makes the name invalid JSON: the plain fields still read.
        const std::string bad = "{\"operator\": {\"name\": \"aten.clamp.default\", \"delegate_node_id\": 3, \"args\": "
                                "[{\"type\": \"DOUBLE\", \"value_ref\": 2, \"value\": inf}]}, \"kernel_name\": "
                                "\"clamp_float_texture3d\", \"operator_id\": 4, \"dispatch_id\": 9}";
        const auto lenient = decodeVulkanDispatch(bad);
        QVERIFY(lenient);
        QCOMPARE(lenient->op, std::string("aten.clamp.default"));
        QCOMPARE(lenient->kernel, std::string("clamp_float_texture3d"));
        QCOMPARE(lenient->delegateNodeId, std::optional<std::int64_t>(3));
        QCOMPARE(lenient->dispatchId, std::optional<std::int64_t>(9));
        QVERIFY(lenient->args.empty());

        // Hostile names: deep nesting (parsed without recursion), a truncated string.
        const std::string deep
            = "{\"kernel_name\": \"k\", \"operator\": " + std::string(200000, '[') + std::string(200000, ']') + "}";
        const auto d = decodeVulkanDispatch(deep);
        QVERIFY(d);
        QCOMPARE(d->kernel, std::string("k"));
        QVERIFY(d->op.empty());
        QVERIFY(!decodeVulkanDispatch("{\"kernel_name\": \"conv2d_fl"));

        // Not this convention: no kernel_name, or not an object.
        QVERIFY(!decodeVulkanDispatch("{\"name\": \"x\"}"));
        QVERIFY(!decodeVulkanDispatch("conv2d_float"));
    }

    void hostPhasesParsed()
    {
        const auto copy = decodeHostPhase("ETVK_COPY_INPUTS");
        QVERIFY(copy);
        QCOMPARE(copy->backend, BackendKind::Vulkan);
        QCOMPARE(copy->phase, std::string("COPY_INPUTS"));
        QVERIFY(!copy->wholeCall);
        QCOMPARE(backendOpLabel(*copy), std::string("phase: copy inputs"));
        QVERIFY(decodeHostPhase("ETVK_EXECUTE")->wholeCall);
        QVERIFY(decodeHostPhase("VGF_EXECUTE")->wholeCall);
        QCOMPARE(decodeHostPhase("VGF_EXECUTE")->backend, BackendKind::Vgf);
        // VGFBackend.cpp init: VGF_INIT_* are initialisation phases.
        QVERIFY(decodeHostPhase("VGF_INIT_ALLOCATE_REPR")->init);
        QVERIFY(!decodeHostPhase("VGF_COPY_OUTPUTS")->init);
        QVERIFY(!decodeHostPhase("ETVK_"));
        QVERIFY(!decodeHostPhase("ETVK_copy"));
        QVERIFY(!decodeHostPhase("XETVK_EXECUTE"));
    }

    void xnnpackNamesParsed()
    {
        // XNNProfiler.cpp submit_trace: "<xnn operator name> #<count>".
        auto fc = decodeXnnpackOperator("Fully Connected (NC, F32) GEMM #2");
        QVERIFY(fc);
        QCOMPARE(fc->op, std::string("Fully Connected"));
        QCOMPARE(fc->layout, std::string("NC"));
        QCOMPARE(fc->dtype, std::string("F32"));
        QCOMPARE(fc->variant, std::string("GEMM"));
        QCOMPARE(fc->instance, std::optional<std::int64_t>(2));
        auto conv = decodeXnnpackOperator("Convolution (NHWC, QD8, F32, QC8W) IGEMM #11");
        QVERIFY(conv);
        QCOMPARE(conv->op, std::string("Convolution"));
        QCOMPARE(conv->layout, std::string("NHWC"));
        QCOMPARE(conv->dtype, std::string("QD8, F32, QC8W"));
        QCOMPARE(conv->variant, std::string("IGEMM"));
        QCOMPARE(conv->instance, std::optional<std::int64_t>(11));
        auto add = decodeXnnpackOperator("Add (ND) #1");
        QVERIFY(add);
        QCOMPARE(add->op, std::string("Add"));
        QCOMPARE(add->layout, std::string("ND"));
        QVERIFY(add->dtype.empty());
        QVERIFY(add->variant.empty());
        for (const char *no :
            { "Add (ND)", "Add (ND) #0", "Add (ND) #x", "(ND) #1", "Add (nd) #1", "Add ND #1", "Add (ND)x #1" })
            QVERIFY2(!decodeXnnpackOperator(no), no);
    }

    void neutronKernelsParsed()
    {
        // NeutronBackend.cpp execute: 1 byte of metadata, the function code; test_profiling.py:
        // code 0 is the profiling dump.
        const std::vector<std::string> five(2, std::string(1, '\x05'));
        auto k = decodeNeutronKernel(3, five);
        QVERIFY(k);
        QCOMPARE(k->kind, BackendEventKind::Kernel);
        QCOMPARE(k->kernelIndex, std::optional<std::int64_t>(3));
        QCOMPARE(k->functionCode, std::optional<int>(5));
        QCOMPARE(k->op, std::string("Neutron kernel 5"));
        const std::vector<std::string> zero { std::string(1, '\0') };
        QCOMPARE(decodeNeutronKernel(4, zero)->kind, BackendEventKind::ProfilingDump);
        QCOMPARE(decodeNeutronKernel(4, zero)->op, std::string("Profiling dump"));
        const std::vector<std::string> high { std::string(1, '\xC8') };
        QCOMPARE(decodeNeutronKernel(0, high)->functionCode, std::optional<int>(200)); // unsigned byte
        QVERIFY(!decodeNeutronKernel(1, {}));
        const std::vector<std::string> twoBytes { "ab" };
        QVERIFY(!decodeNeutronKernel(1, twoBytes));
        QVERIFY(!decodeNeutronKernel(-1, five));
    }

    void vulkanFixtureDecoded()
    {
        const auto s = loadVulkan(false);
        QCOMPARE(s->blocks.size(), std::size_t(2));
        const EventBlock &b = s->blocks[1];
        QCOMPARE(b.runIndices.size(), std::size_t(3));
        // VulkanBackend.cpp execute: ETVK_COPY_INPUTS, ETVK_COMPUTE_GRAPH_EXECUTE (ended), the query
        // pool's dispatches in execute-node order, ETVK_COPY_OUTPUTS, ETVK_EXECUTE, then the runtime's
        // DELEGATE_CALL and Method::execute.
        QCOMPARE(b.events.size(), std::size_t(10));
        const BackendEventTable t = decodeBackendEvents(s->blocks);
        QCOMPARE(t.size(), std::size_t(8));
        QCOMPARE(backendOpLabel(*t.find(1, 0)), std::string("phase: copy inputs"));
        QCOMPARE(backendOpLabel(*t.find(1, 1)), std::string("phase: compute graph execute"));
        QVERIFY(t.find(1, 7)->wholeCall);
        QVERIFY(!t.find(1, 8)); // DELEGATE_CALL
        QVERIFY(!t.find(0, 0)); // Method::init

        // Dispatch 0: the input staging node, built before any operator (json "", count 0).
        const BackendEvent &in = *t.find(1, 2);
        QCOMPARE(in.kernel, std::string("nchw_to_image_texture3d_float_float"));
        QVERIFY(in.stagingCopy);
        QVERIFY(in.op.empty());
        QCOMPARE(in.operatorId, std::optional<std::int64_t>(0));
        QCOMPARE(in.dispatchId, std::optional<std::int64_t>(0));
        QCOMPARE(backendOpLabel(in), std::string("staging copy (nchw_to_image_texture3d_float_float)"));

        // Dispatch 1: the convolution, delegate_node_id 0, arguments in schema order, output last.
        const BackendEvent &conv = *t.find(1, 3);
        QCOMPARE(conv.op, std::string("aten.convolution.default"));
        QCOMPARE(conv.kernel, std::string("conv2d_float"));
        QCOMPARE(conv.operatorId, std::optional<std::int64_t>(1));
        QCOMPARE(conv.dispatchId, std::optional<std::int64_t>(1));
        QCOMPARE(conv.delegateNodeId, std::optional<std::int64_t>(0));
        QCOMPARE(conv.args.size(), std::size_t(10));
        QCOMPARE(vulkanArgText(conv.args[0]), std::string("TENSOR Float [1, 3, 16, 16] TEXTURE_3D packed_dim 2"));
        QCOMPARE(vulkanArgText(conv.args[1]), std::string("TENSORREF Float [8, 3, 3, 3]"));
        QCOMPARE(conv.args[1].valueRef, std::int64_t(0));
        QCOMPARE(vulkanArgText(conv.args[2]), std::string("TENSORREF Float [8]"));
        QCOMPARE(vulkanArgText(conv.args[3]), std::string("INTLIST [1, 1]"));
        QCOMPARE(vulkanArgText(conv.args[6]), std::string("BOOL 0"));
        QCOMPARE(vulkanArgText(conv.args[7]), std::string("INTLIST [0, 0]"));
        QCOMPARE(vulkanArgText(conv.args[8]), std::string("INT 1"));
        QCOMPARE(conv.args[9].valueRef, std::int64_t(9));
        QCOMPARE(conv.args[9].sizes, (std::optional<std::vector<std::int64_t>>({ 1, 8, 16, 16 })));

        const BackendEvent &relu = *t.find(1, 4);
        QCOMPARE(relu.op, std::string("aten.relu.default"));
        QCOMPARE(relu.kernel, std::string("relu_float_texture3d"));
        QCOMPARE(relu.delegateNodeId, std::optional<std::int64_t>(1));
        QCOMPARE(relu.operatorId, std::optional<std::int64_t>(2));

        // Dispatch 3: the output staging node carries the relu's JSON (a static) with count 3:
        // its operator is dropped.
        const BackendEvent &out = *t.find(1, 5);
        QCOMPARE(out.kernel, std::string("image_to_nchw_texture3d_float_float"));
        QVERIFY(out.stagingCopy);
        QVERIFY(out.op.empty());
        QVERIFY(!out.delegateNodeId);
        QCOMPARE(out.operatorId, std::optional<std::int64_t>(3));
        QCOMPARE(b.events[5].name.substr(0, 38), std::string_view("{\"operator\": {\"name\": \"aten.relu.defau"));

        // GPU times of the conv dispatch: 41600, 40560, 42120 ns -> avg 41426.667 ns, p50 41600 ns.
        QVERIFY(qAbs(b.events[3].perfData->avg - 0.041426666666) < 1e-9);
        QVERIFY(qAbs(b.events[3].perfData->p50 - 0.0416) < 1e-12);

        // Grouped under the one DELEGATE_CALL (event 8): whole call first, then phases, then dispatches.
        const auto calls = groupDelegateCalls(s->blocks, t);
        QCOMPARE(calls.size(), std::size_t(1));
        QCOMPARE(calls[0].block, std::size_t(1));
        QCOMPARE(calls[0].delegateCall, std::size_t(8));
        QCOMPARE(calls[0].backend, BackendKind::Vulkan);
        QCOMPARE(calls[0].wholeCall, std::optional<std::size_t>(7));
        QCOMPARE(calls[0].phases, (std::vector<std::size_t> { 0, 1, 6 }));
        QCOMPARE(calls[0].work, (std::vector<std::size_t> { 2, 3, 4, 5 }));
    }

    void vulkanLinkedToGraphNodes()
    {
        // cnn_mlp_etrecord.bin, method encode: delegate_map of instruction 0 is
        // {"0": [1], "12": [1, 2], "1": [2]}; handle 1 is aten_convolution_default, 2 aten_relu_default
        // (tests/data/etrecord/etrecord_expected.json, written by gen_etrecord_fixtures.py).
        const auto s = loadVulkan(true);
        const EventBlock &b = s->blocks[1];
        const BackendEventTable t = decodeBackendEvents(s->blocks);
        // The Inspector's exact lookup of the whole dispatch string finds no key: no handles.
        QVERIFY(!b.events[3].debugHandles());
        QCOMPARE(*b.events[3].delegateBackendName(), std::string("VulkanBackend"));
        const auto conv = linkBackendEvent(*s->etrecord, "encode", 0, *t.find(1, 3));
        QVERIFY(conv);
        QCOMPARE(conv->identifier, std::string("0"));
        QCOMPARE(conv->debugHandles, (std::vector<std::int64_t> { 1 }));
        QCOMPARE(conv->nodeNames, (std::vector<std::string> { "aten_convolution_default_" }));
        QCOMPARE(conv->opTypes, (std::vector<std::string> { "aten.convolution.default" }));
        QVERIFY(conv->exact);
        const auto relu = linkBackendEvent(*s->etrecord, "encode", 0, *t.find(1, 4));
        QVERIFY(relu);
        QCOMPARE(relu->nodeNames, (std::vector<std::string> { "aten_relu_default_" }));
        QVERIFY(relu->exact);
        // Staging copies have no node id; phases neither; another method has no such delegate.
        QVERIFY(!linkBackendEvent(*s->etrecord, "encode", 0, *t.find(1, 2)));
        QVERIFY(!linkBackendEvent(*s->etrecord, "encode", 0, *t.find(1, 0)));
        QVERIFY(!linkBackendEvent(*s->etrecord, "forward", 0, *t.find(1, 3)));

        // What a graph view adds: the two operator dispatches, nothing else.
        const auto exact = exactBackendHandles(s->blocks, t, *s->etrecord, "encode");
        QCOMPARE(exact.size(), std::size_t(2));
        QCOMPARE(exact.at({ 1, 3 }), (std::vector<std::int64_t> { 1 }));
        QCOMPARE(exact.at({ 1, 4 }), (std::vector<std::int64_t> { 2 }));

        // The JSON view carries the same.
        const auto doc = nlohmann::json::parse(formatBackendEventsJson(s->blocks, t, s->etrecord.get(), "encode"));
        QCOMPARE(doc.at("unit").get<std::string>(), std::string("ms"));
        QCOMPARE(doc.at("events").size(), std::size_t(8));
        const auto &jc = doc.at("events").at(3);
        QCOMPARE(jc.at("event").get<int>(), 3);
        QCOMPARE(jc.at("backend_op").get<std::string>(), std::string("aten.convolution.default"));
        QCOMPARE(jc.at("kernel").get<std::string>(), std::string("conv2d_float"));
        QCOMPARE(jc.at("args").at(0).at("sizes"), nlohmann::json::parse("[1, 3, 16, 16]"));
        QCOMPARE(jc.at("node").at("nodes").at(0).get<std::string>(), std::string("aten_convolution_default_"));
        QVERIFY(jc.at("node").at("exact").get<bool>());
        QCOMPARE(
            doc.at("delegate_calls").at(0).at("whole_call").at("name").get<std::string>(), std::string("ETVK_EXECUTE"));
        QCOMPARE(doc.at("delegate_calls").at(0).at("phases").size(), std::size_t(3));
    }

    void vgfPhasesGrouped()
    {
        const auto s = test::loadSessionOrDie(test::testData("backend/vgf_conv/etdump.etdp"));
        const EventBlock &b = s->blocks[1];
        const BackendEventTable t = decodeBackendEvents(s->blocks);
        // VGFBackend.cpp execute + VGFSetup.cpp execute_vgf / read_timestamp_queries, end order.
        const char *names[] = { "VGF_COPY_INPUTS", "VGF_QUEUE_SUBMIT_AND_WAIT_FENCE", "VGF_TIMESTAMP_QUERY_READBACK",
            "VGF_DISPATCH_AND_WAIT", "VGF_COPY_OUTPUTS", "VGF_EXECUTE" };
        for (std::size_t i = 0; i < 6; ++i) {
            QCOMPARE(b.events[i].name, std::string_view(names[i]));
            QCOMPARE(t.find(1, i)->backend, BackendKind::Vgf);
            QCOMPARE(t.find(1, i)->kind, BackendEventKind::Phase);
        }
        QCOMPARE(backendOpLabel(*t.find(1, 3)), std::string("phase: dispatch and wait"));
        const auto calls = groupDelegateCalls(s->blocks, t);
        QCOMPARE(calls.size(), std::size_t(1));
        QCOMPARE(calls[0].delegateCall, std::size_t(6));
        QCOMPARE(calls[0].backend, BackendKind::Vgf);
        QCOMPARE(calls[0].wholeCall, std::optional<std::size_t>(5));
        QCOMPARE(calls[0].phases, (std::vector<std::size_t> { 0, 1, 2, 3, 4 }));
        QVERIFY(calls[0].work.empty());
        // Generator times: fence wait 310000/317000/324000 ns (avg 317000); VGF_EXECUTE
        // 49800 + wait (avg 366800); DELEGATE_CALL 52000 + wait (avg 369000); copy inputs 25300.
        QVERIFY(qAbs(b.events[1].perfData->avg - 0.317) < 1e-12);
        QVERIFY(qAbs(b.events[5].perfData->avg - 0.3668) < 1e-12);
        QVERIFY(qAbs(b.events[6].perfData->avg - 0.369) < 1e-12);
        QVERIFY(qAbs(b.events[0].perfData->avg - 0.0253) < 1e-12);
    }

    // Share rows by backend operator (backendShareName): every event under its operator; the
    // host phases that wrap counted events (VulkanBackend.cpp: ETVK_EXECUTE around the call,
    // ETVK_COMPUTE_GRAPH_EXECUTE waiting on the dispatches; VGFBackend.cpp / VGFSetup.cpp:
    // VGF_EXECUTE, VGF_DISPATCH_AND_WAIT around the fence wait and the readback) left out.
    void shareRowsLeaveWrappersOut()
    {
        const auto vk = loadVulkan(false);
        const BackendEventTable t = decodeBackendEvents(vk->blocks);
        const BackendShareRows rows = backendShareRows(vk->blocks, t);
        const auto name = [&rows](std::size_t event) -> std::string {
            const int r = rows.row(1, event);
            return r >= 0 ? rows.names()[std::size_t(r)] : std::to_string(r);
        };
        QCOMPARE(name(0), std::string("phase: copy inputs"));
        QCOMPARE(name(1), std::string("-1")); // ETVK_COMPUTE_GRAPH_EXECUTE: dispatches inside
        QCOMPARE(name(2), std::string("staging copy (nchw_to_image_texture3d_float_float)"));
        QCOMPARE(name(3), std::string("aten.convolution.default"));
        QCOMPARE(name(4), std::string("aten.relu.default"));
        QCOMPARE(name(5), std::string("staging copy (image_to_nchw_texture3d_float_float)"));
        QCOMPARE(name(6), std::string("phase: copy outputs"));
        QCOMPARE(name(7), std::string("-1")); // ETVK_EXECUTE
        QCOMPARE(rows.row(1, 8), BackendShareRows::kNotDecoded); // DELEGATE_CALL
        QCOMPARE(rows.row(0, 0), BackendShareRows::kNotDecoded);

        // A wrapper whose contents were not logged counts: without the query pool (no
        // dispatches), ETVK_COMPUTE_GRAPH_EXECUTE is the GPU's time; alone, ETVK_EXECUTE is the call.
        const BackendEvent graph = *decodeHostPhase("ETVK_COMPUTE_GRAPH_EXECUTE");
        const BackendEvent whole = *decodeHostPhase("ETVK_EXECUTE");
        const BackendEvent copy = *decodeHostPhase("ETVK_COPY_INPUTS");
        const BackendEvent conv = *t.find(1, 3);
        std::vector<const BackendEvent *> call { &whole, &copy, &graph };
        QCOMPARE(backendShareName(graph, call), std::optional<std::string>("phase: compute graph execute"));
        QVERIFY(!backendShareName(whole, call));
        call.push_back(&conv);
        QVERIFY(!backendShareName(graph, call));
        QCOMPARE(backendShareName(conv, call), std::optional<std::string>("aten.convolution.default"));
        const std::vector<const BackendEvent *> alone { &whole };
        QCOMPARE(backendShareName(whole, alone), std::optional<std::string>("phase: execute"));
        // VGF init (VGFBackend.cpp init): VGF_INIT_TOTAL around the other VGF_INIT_*, whole call untouched.
        const BackendEvent initTotal = *decodeHostPhase("VGF_INIT_TOTAL");
        const BackendEvent initRepr = *decodeHostPhase("VGF_INIT_ALLOCATE_REPR");
        const BackendEvent vgfWhole = *decodeHostPhase("VGF_EXECUTE");
        const std::vector<const BackendEvent *> init { &initTotal, &initRepr, &vgfWhole };
        QVERIFY(!backendShareName(initTotal, init));
        QCOMPARE(backendShareName(initRepr, init), std::optional<std::string>("phase: init allocate repr"));
        QCOMPARE(backendShareName(vgfWhole, init), std::optional<std::string>("phase: execute"));

        const auto vgf = test::loadSessionOrDie(test::testData("backend/vgf_conv/etdump.etdp"));
        const BackendEventTable tv = decodeBackendEvents(vgf->blocks);
        const BackendShareRows rv = backendShareRows(vgf->blocks, tv);
        // Events 0..5: copy inputs, fence wait, readback, dispatch and wait, copy outputs, execute.
        const std::vector<int> counted { 1, 1, 1, 0, 1, 0 };
        for (std::size_t i = 0; i < counted.size(); ++i)
            QCOMPARE(rv.row(1, i) >= 0, bool(counted[i]));
        QCOMPARE(rv.names().size(), std::size_t(4));
    }

    void neutronFixtureDecoded()
    {
        const auto s = test::loadSessionOrDie(test::testData("backend/neutron_kernels/etdump.etdp"));
        const EventBlock &b = s->blocks[1];
        QCOMPARE(b.runIndices.size(), std::size_t(2));
        const BackendEventTable t = decodeBackendEvents(s->blocks);
        QCOMPARE(t.size(), std::size_t(4));
        // NeutronBackend.cpp's loop over the authored profile (gen_backend_etdumps.py): kernels
        // at entries 1, 2, 4 (opCode 6) with codes 5, 12, 5; the first kernel's start is the
        // preceding non-kernel entry's (100), the third's too (1400); then the dump (code 0).
        const int codes[] = { 5, 12, 5, 0 };
        const double ticks[] = { 850, 440, 830, 49070 }; // 950-100, 1400-960, 2230-1400, (2300+48000/50000)-2230
        for (std::size_t i = 0; i < 4; ++i) {
            const BackendEvent &k = *t.find(1, i);
            QCOMPARE(b.events[i].name, std::string_view(std::to_string(i)));
            QCOMPARE(k.kernelIndex, std::optional<std::int64_t>(std::int64_t(i)));
            QCOMPARE(k.functionCode, std::optional<int>(codes[i]));
            QCOMPARE(k.kind, i < 3 ? BackendEventKind::Kernel : BackendEventKind::ProfilingDump);
            QVERIFY(qAbs(b.events[i].perfData->avg - ticks[i] / 1e6) < 1e-12);
        }
        QCOMPARE(backendOpLabel(*t.find(1, 1)), std::string("Neutron kernel 12"));
        QCOMPARE(backendOpLabel(*t.find(1, 3)), std::string("Profiling dump"));
        const auto calls = groupDelegateCalls(s->blocks, t);
        QCOMPARE(calls.size(), std::size_t(1));
        QCOMPARE(calls[0].work, (std::vector<std::size_t> { 0, 1, 2, 3 }));
        QVERIFY(!calls[0].wholeCall);
    }

    void realXnnpackFixtureDecoded()
    {
        // shared/fixtures/runtime/xnnpack_mlp_intermediates: the names XNNPACK really reported.
        for (bool linked : { false, true }) {
            const auto s = linked
                ? test::loadSessionOrDie(test::sharedFixture("runtime/xnnpack_mlp_intermediates/etdump.etdp"), {},
                    test::testData("etrecord/xnn_mlp_etrecord.bin"))
                : test::loadSessionOrDie(test::sharedFixture("runtime/xnnpack_mlp_intermediates/etdump.etdp"));
            const EventBlock &b = s->blocks[1];
            const BackendEventTable t = decodeBackendEvents(s->blocks);
            QCOMPARE(t.size(), std::size_t(8)); // README: 8 delegate profile events
            // "Fully Connected (NC, F32) GEMM #1" and "#2" occur in both partitions: decoded once each.
            QCOMPARE(t.distinct(), std::size_t(6));
            struct Expect {
                const char *name;
                std::int32_t instruction;
                const char *op, *layout, *dtype, *variant;
                std::int64_t instance;
            };
            const Expect expect[] = {
                { "Fully Connected (NC, F32) GEMM #1", 0, "Fully Connected", "NC", "F32", "GEMM", 1 },
                { "Fully Connected (NC, F32) GEMM #2", 0, "Fully Connected", "NC", "F32", "GEMM", 2 },
                { "Add (ND) #1", 0, "Add", "ND", "", "", 1 },
                { "GELU (NC) #1", 0, "GELU", "NC", "", "", 1 },
                { "Fully Connected (NC, F32) GEMM #1", 2, "Fully Connected", "NC", "F32", "GEMM", 1 },
                { "TanH (NC) #1", 2, "TanH", "NC", "", "", 1 },
                { "Softmax (NC, F32) #1", 2, "Softmax", "NC", "F32", "", 1 },
            };
            for (const Expect &x : expect) {
                const BackendEvent *d = t.find(1, eventIndex(b, x.name, x.instruction));
                QVERIFY2(d, x.name);
                QCOMPARE(d->backend, BackendKind::Xnnpack);
                QCOMPARE(d->kind, BackendEventKind::Operator);
                QCOMPARE(d->op, std::string(x.op));
                QCOMPARE(d->layout, std::string(x.layout));
                QCOMPARE(d->dtype, std::string(x.dtype));
                QCOMPARE(d->variant, std::string(x.variant));
                QCOMPARE(d->instance, std::optional<std::int64_t>(x.instance));
            }
            // Two partitions, each its own delegate call with its four operators.
            const auto calls = groupDelegateCalls(s->blocks, t);
            QCOMPARE(calls.size(), std::size_t(2));
            QCOMPARE(calls[0].instructionId, 0);
            QCOMPARE(calls[1].instructionId, 2);
            QCOMPARE(calls[0].work.size(), std::size_t(4));
            QCOMPARE(calls[1].work.size(), std::size_t(4));
        }
    }

    void unknownConventionsStayOpaque()
    {
        // Hand-made events: a convention is only read on delegated events, only for the backend
        // that follows it when the backend is known.
        const auto s = test::loadSessionOrDie(test::testData("backend/vulkan_stem/etdump.etdp"));
        Event conv = s->blocks[1].events[3];
        QVERIFY(decodeBackendEvent(conv).decoded());
        QVERIFY(decodeBackendEvent(conv, "VulkanBackend").decoded());
        QVERIFY(!decodeBackendEvent(conv, "XnnpackBackend").decoded());
        QVERIFY(!decodeBackendEvent(conv, "QnnBackend").decoded());
        const auto x = test::loadSessionOrDie(test::sharedFixture("runtime/xnnpack_mlp_intermediates/etdump.etdp"));
        const Event &fc = x->blocks[1].events[0];
        QVERIFY(decodeBackendEvent(fc, "XnnpackBackend").decoded());
        QVERIFY(!decodeBackendEvent(fc, "VulkanBackend").decoded());
        // Framework and kernel events are never decoded.
        const auto &xb = x->blocks[1];
        QVERIFY(!decodeBackendEvent(xb.events[eventIndex(xb, "native_call_argmax.out")]).decoded());
        QVERIFY(!decodeBackendEvent(xb.events[eventIndex(xb, kDelegateCall)]).decoded());
        // Fixtures without backend events decode nothing.
        const auto cnn = test::loadSessionOrDie(test::sharedFixture("runtime/cnn_mlp_50runs/etdump.etdp"));
        QVERIFY(decodeBackendEvents(cnn->blocks).empty());
    }

    void hostileNamesStayReadable()
    {
        // Names are arbitrary bytes: an XNNPACK-shaped name that is not UTF-8 and a Vulkan name
        // with a truncated argument list still give valid JSON (invalid bytes replaced).
        test::ETDumpWriter w;
        w.beginRun("Execute");
        test::ProfileSpec p;
        p.instructionId = 0;
        p.delegateDebugIdStr = std::string("Add\xff (ND) #1");
        p.delegateDebugMetadata = std::string();
        p.startTime = 100;
        p.endTime = 200;
        w.addProfile(p);
        p.delegateDebugIdStr = std::string("{\"operator\": {\"name\": \"aten.add\xfe\", \"args\": [{\"type\": ");
        w.addProfile(p);
        p.delegateDebugIdStr = std::string("{\"kernel_name\": \"k\xfd\", \"operator_id\": 1, \"dispatch_id\": 2}");
        w.addProfile(p);
        test::ProfileSpec call;
        call.name = std::string(kDelegateCall);
        call.instructionId = 0;
        call.startTime = 50;
        call.endTime = 300;
        w.addProfile(call);
        QTemporaryDir dir;
        const std::string path = test::writeFile(dir.filePath(QStringLiteral("h.etdp")).toStdString(), w.finish());
        const auto s = test::loadSessionOrDie(path);
        const BackendEventTable t = decodeBackendEvents(s->blocks);
        QCOMPARE(t.size(), std::size_t(2)); // the truncated Vulkan name has no kernel: not decoded
        QCOMPARE(t.find(0, 0)->op, std::string("Add\xff"));
        QCOMPARE(t.find(0, 2)->kernel, std::string("k\xfd"));
        const auto doc = nlohmann::json::parse(formatBackendEventsJson(s->blocks, t, nullptr, "forward"));
        QCOMPARE(doc.at("events").size(), std::size_t(2));
        QCOMPARE(doc.at("delegate_calls").size(), std::size_t(1));
    }

    // Events on the nodes of their delegates' decoded payloads (session.h payloadEventLinks).
    // XNNPACK int8 (tests/data/runtime/xnnpack_int8, real): the README lists each call's operator
    // events in the order XNNProfiler::submit_trace logs them and says delegate 1's f32->qd8
    // Convert runs inside the QD8 fully connected (no event); xnn_int8.xnnpack_graphs.json (flatc)
    // has the nodes: delegate 0 Convert, FC, FC, Convert; delegate 1 Convert, FC, Softmax. So the
    // events land on nodes 0, 1, 2, 3 and 1, 2, by order. Vulkan on lavapipe (README): the 4
    // operator dispatches name nodes 0..3 by delegate_node_id; the 3 staging copies no node.
    void payloadNodesOnRealRecordings()
    {
        const std::string x = test::testData("runtime/xnnpack_int8/");
        SessionInputs in;
        in.etdump = x + "int8/profile/etdump.etdp";
        in.program = x + "xnn_int8.pte";
        auto s = loadSession(in);
        QVERIFY2(s.ok(), s ? "" : s.error().message().c_str());
        const Session &xs = **s;
        const BackendEventTable t = decodeBackendEvents(xs.blocks);
        const PayloadEventLinks links = payloadEventLinks(xs, t);
        QCOMPARE(links.byOrder, std::size_t(6));
        QCOMPARE(links.byNodeId, std::size_t(0));
        QCOMPARE(links.unplaced, std::size_t(0));
        QVERIFY(links.notes.empty());
        std::vector<std::tuple<std::string, std::size_t, std::int64_t>> got; // per run: name, delegate, node
        std::size_t block = links.linked.front().block;
        for (const PayloadEventLink &l : links.linked) {
            QCOMPARE(l.basis, PayloadLinkBasis::OrderAndKind);
            if (l.block == block)
                got.emplace_back(xs.blocks[l.block].events[l.event].name, l.delegate, l.node);
        }
        using Row = std::tuple<std::string, std::size_t, std::int64_t>;
        QCOMPARE(got,
            (std::vector<Row> { Row { "Convert (NC) #1", 0, 0 },
                Row { "Fully Connected (NC, QS8, QC8W) GEMM #1", 0, 1 },
                Row { "Fully Connected (NC, QS8, QC8W) GEMM #2", 0, 2 }, Row { "Convert (NC) #2", 0, 3 },
                Row { "Fully Connected (NC, QD8, F32, QC8W) GEMM #1", 1, 1 }, Row { "Softmax (NC, F32) #1", 1, 2 } }));
        // The node's shapes, as the README gives them (x [8, 64] -> h1 [8, 128] quantized).
        const PayloadEventLink &fc = links.linked[1];
        QCOMPARE(links.nodeLabel(fc), std::string("1 FullyConnected qint8[8, 64] -> qint8[8, 128]"));
        const std::optional<PayloadNodeRef> ref = payloadNodeRef(links, fc.block, fc.event);
        QVERIFY(ref);
        QCOMPARE(ref->placedBy, std::string("runtime order and kind"));
        QCOMPARE(ref->details.front(), std::string("XNNPACK FullyConnected node 1 (of 4)"));
        // One block alone gives the same links for that block (Details, the timeline).
        const BackendEventTable one = decodeBackendEvents(xs.blocks, fc.block);
        const PayloadEventLinks alone = payloadEventLinks(xs, one, fc.block);
        QCOMPARE(alone.byOrder, got.size());
        QCOMPARE(alone.find(fc.block, fc.event)->node, std::int64_t(1));
        // The JSON carries them.
        const auto doc = nlohmann::json::parse(formatBackendEventsJson(xs.blocks, t, nullptr, "forward",
            [&links](std::size_t b, std::size_t e) { return payloadNodeRef(links, b, e); }));
        const auto &first = doc.at("events").at(0);
        QCOMPARE(first.at("payload_node").at("op").get<std::string>(), std::string("Convert"));
        QCOMPARE(first.at("payload_node").at("placed_by").get<std::string>(), std::string("runtime order and kind"));

        // Without the program nothing is placed.
        SessionInputs bare = in;
        bare.program.clear();
        auto b = loadSession(bare);
        QVERIFY(b.ok());
        QVERIFY(payloadEventLinks(**b, decodeBackendEvents((*b)->blocks)).linked.empty());

        // A call whose operators do not follow its payload's nodes is not placed at all: the int8
        // recording against the fp32 build's payloads (same instructions, other operators).
        SessionInputs wrong = in;
        wrong.program = x + "xnn_fp32.pte";
        auto w = loadSession(wrong);
        QVERIFY(w.ok());
        QVERIFY((*w)->program); // paired: the instructions match
        const PayloadEventLinks none = payloadEventLinks(**w, decodeBackendEvents((*w)->blocks));
        // fp32 delegate 0 is FC, FC (README of the fp32 build): Convert finds no node, so none of
        // that call's 4 events is placed; delegate 1 (FC, Softmax) takes its 2 events by kind.
        QCOMPARE(none.unplaced, std::size_t(4) * (none.byOrder / 2));
        QCOMPARE(none.notes.size(), std::size_t(1));
        QVERIFY2(none.notes[0].starts_with("XNNPACK delegate 0 of forward: "), none.notes[0].c_str());

        const std::string v = test::testData("runtime/vulkan_lavapipe/");
        SessionInputs vin;
        vin.etdump = v + "profile/etdump.etdp";
        vin.program = v + "vk_ew.pte";
        auto vs = loadSession(vin);
        QVERIFY(vs.ok());
        const BackendEventTable vt = decodeBackendEvents((*vs)->blocks);
        const PayloadEventLinks vl = payloadEventLinks(**vs, vt);
        QVERIFY(vl.byNodeId > 0);
        QCOMPARE(vl.byOrder, std::size_t(0));
        QCOMPARE(vl.unplaced, std::size_t(0));
        std::map<std::string, std::int64_t> nodeOfOp;
        for (const PayloadEventLink &l : vl.linked) {
            QCOMPARE(l.basis, PayloadLinkBasis::NodeId);
            const BackendEvent *d = vt.find(l.block, l.event);
            QVERIFY(d && !d->stagingCopy);
            auto [it, fresh] = nodeOfOp.try_emplace(d->op, l.node);
            QCOMPARE(it->second, l.node); // the same operator lands on the same node in every run
        }
        QCOMPARE(nodeOfOp,
            (std::map<std::string, std::int64_t> { { "aten.add.Tensor", 0 }, { "aten.mul.Tensor", 1 },
                { "aten.relu.default", 2 }, { "aten.tanh.default", 3 } }));
    }

    void inspectorTableKeepsRawNames()
    {
        // The Inspector's table is unchanged: delegate events keep their raw names and the
        // decoded operator appears nowhere in it.
        const auto s = loadVulkan(true);
        const std::string tsv = formatDelimited(s->blocks);
        QVERIFY(tsv.find("conv2d_float") != std::string::npos);
        QVERIFY(tsv.find("backend op") == std::string::npos);
        QVERIFY(tsv.find("staging copy") == std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestBackendEvents)
#include "tst_backendevents.moc"
