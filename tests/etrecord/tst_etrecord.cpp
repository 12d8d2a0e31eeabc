// Reading ETRecords. Expected values:
//  * example_etrecord_v0.bin (real upstream file, old layout): example_etrecord_v0_expected.json,
//    written by tests/tools/gen_etrecord_v0_expected.py with Python's zipfile/json only;
//  * cnn_mlp_etrecord.bin (current layout, generated with PyTorch 1.13): etrecord_expected.json,
//    written by tests/tools/gen_etrecord_fixtures.py from the traced graph it serialized.
#include "etrecord/etrecord.h"
#include "etrecord/lenientjson.h"
#include "etrecord/modulestack.h"
#include "etrecord/torchsave.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>
#include <fstream>
#include <sstream>

using namespace etscope;

namespace {
const QString kData = QStringLiteral(ETSCOPE_TEST_DATA_DIR "/etrecord/");
const std::string kV0 = ETSCOPE_SHARED_DIR "/fixtures/upstream/example_etrecord_v0.bin";

QJsonObject jsonFile(const QString &name)
{
    QFile f(kData + name);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

std::shared_ptr<const ETRecord> mustRead(const std::string &path)
{
    auto r = readETRecord(path);
    if (!r) {
        qWarning("%s", r.error().message().c_str());
        return nullptr;
    }
    return r.value();
}
} // namespace

class TestETRecord : public QObject
{
    Q_OBJECT
private slots:
    void upstreamV0Entries()
    {
        const QJsonObject exp = jsonFile(QStringLiteral("example_etrecord_v0_expected.json"));
        auto rec = mustRead(kV0);
        QVERIFY(rec);
        const QJsonArray entries = exp.value(QStringLiteral("entries")).toArray();
        QCOMPARE(rec->entries().size(), std::size_t(entries.size()));
        for (int i = 0; i < entries.size(); ++i) {
            QCOMPARE(q(rec->entries()[std::size_t(i)].name), entries[i].toArray()[0].toString());
            QCOMPARE(qint64(rec->entries()[std::size_t(i)].size), entries[i].toArray()[1].toInteger());
        }
        // Old layout: a single-method Edge entry and a graph-map program, no _constants /
        // _example_inputs (missing companions mean empty), no num-outs map, empty JSON maps.
        QCOMPARE(rec->programs().size(), std::size_t(2));
        const ETRecordProgram *edge = rec->edgeProgram("forward");
        QVERIFY(edge);
        QCOMPARE(q(edge->entryName), QStringLiteral("edge_dialect_exported_program"));
        QCOMPARE(q(edge->stateDictEntry), QStringLiteral("edge_dialect_exported_program_state_dict"));
        QVERIFY(edge->constantsEntry.empty() && edge->exampleInputsEntry.empty());
        const ETRecordProgram *graphMap = rec->program("aten_dialect_output/forward");
        QVERIFY(graphMap);
        QCOMPARE(graphMap->kind, ETRecordEntryKind::GraphMapProgram);
        QCOMPARE(q(graphMap->baseName), QStringLiteral("aten_dialect_output"));
        QCOMPARE(q(graphMap->method), QStringLiteral("forward"));
        QVERIFY(rec->atenProgram() == nullptr);
        QVERIFY(rec->unknownEntries().empty());
        QVERIFY(rec->hasDebugHandleMap() && rec->hasDelegateMap() && !rec->hasNumOutputsMap());
        QVERIFY(rec->methods().empty()); // both maps are {} in this file
        auto sd = rec->loadStateDict(*edge);
        QVERIFY(sd.ok());
        QVERIFY(sd->dict() && sd->dict()->items.empty()); // 80 02 7D 71 00 2E
        auto consts = rec->loadConstants(*edge);
        QVERIFY(consts.ok() && consts->isNone());
        QVERIFY(!rec->hasReferenceOutputs());
    }

    void upstreamV0Programs_data()
    {
        QTest::addColumn<QString>("entry");
        QTest::newRow("aten") << QStringLiteral("aten_dialect_output/forward");
        QTest::newRow("edge") << QStringLiteral("edge_dialect_exported_program");
    }
    void upstreamV0Programs()
    {
        QFETCH(QString, entry);
        const QJsonObject exp = jsonFile(QStringLiteral("example_etrecord_v0_expected.json"))
                                    .value(QStringLiteral("programs"))
                                    .toObject()
                                    .value(entry)
                                    .toObject();
        auto rec = mustRead(kV0);
        QVERIFY(rec);
        const ETRecordProgram *p = rec->program(entry.toStdString());
        QVERIFY(p);
        const ExportedProgram &ep = *p->program;
        QCOMPARE(q(ep.schemaVersion), QString::number(exp.value(QStringLiteral("schema_version")).toInt()));
        const QJsonArray nodes = exp.value(QStringLiteral("nodes")).toArray();
        QCOMPARE(ep.nodes.size(), std::size_t(nodes.size()));
        for (int i = 0; i < nodes.size(); ++i) {
            const QJsonObject en = nodes[i].toObject();
            const GraphNode &n = ep.nodes[std::size_t(i)];
            QCOMPARE(q(n.name), en.value(QStringLiteral("name")).toString());
            QVERIFY(n.nameDerived);
            QCOMPARE(q(n.target), en.value(QStringLiteral("target")).toString());
            if (en.value(QStringLiteral("debug_handle")).isNull())
                QVERIFY(!n.debugHandle);
            else
                QCOMPARE(*n.debugHandle, en.value(QStringLiteral("debug_handle")).toInteger());
            QCOMPARE(q(n.stackTrace.value_or("")), en.value(QStringLiteral("stack_trace")).toString());
            QCOMPARE(q(n.sourceFnStack.value_or("")), en.value(QStringLiteral("source_fn_stack")).toString());
            QCOMPARE(n.inputs.size(), std::size_t(en.value(QStringLiteral("inputs")).toArray().size()));
            QCOMPARE(q(n.sourceLocation()), QStringLiteral("model.py:18")); // read off the trace by hand
        }
        const QJsonArray inputs = exp.value(QStringLiteral("graph_inputs")).toArray();
        QCOMPARE(ep.inputs.size(), std::size_t(inputs.size()));
        for (int i = 0; i < inputs.size(); ++i)
            QCOMPARE(q(ep.inputs[std::size_t(i)].text), inputs[i].toString());
        const QJsonObject shapes = exp.value(QStringLiteral("tensor_shapes")).toObject();
        QCOMPARE(ep.tensorValues.size(), std::size_t(shapes.size()));
        for (auto it = shapes.begin(); it != shapes.end(); ++it) {
            const TensorMetaInfo *t = ep.tensor(it.key().toStdString());
            QVERIFY(t);
            QCOMPARE(q(t->dtypeName()), QStringLiteral("float32")); // dtype 7 in every meta
            QStringList dims;
            for (const auto &d : it.value().toArray())
                dims << QString::number(d.toInt());
            QCOMPARE(q(t->shapeText()), QStringLiteral("[") + dims.join(QStringLiteral(", ")) + QStringLiteral("]"));
        }
        QCOMPARE(ep.inputSpecs.size(), std::size_t(2));
        QCOMPARE(q(ep.inputSpecs[0].kind), QStringLiteral("user_input"));
        QCOMPARE(q(ep.inputSpecs[0].argName), QStringLiteral("arg0_1"));
    }

    void currentLayout()
    {
        const QJsonObject exp = jsonFile(QStringLiteral("etrecord_expected.json"))
                                    .value(QStringLiteral("cnn_mlp_etrecord.bin"))
                                    .toObject();
        auto rec = mustRead((kData + QStringLiteral("cnn_mlp_etrecord.bin")).toStdString());
        QVERIFY(rec);
        const QJsonArray entries = exp.value(QStringLiteral("entries")).toArray();
        QCOMPARE(rec->entries().size(), std::size_t(entries.size()));
        for (int i = 0; i < entries.size(); ++i)
            QCOMPARE(q(rec->entries()[std::size_t(i)].name), entries[i].toString());
        QCOMPARE(rec->unknownEntries(), std::vector<std::string> { "etscope_unknown_note" });
        QCOMPARE(rec->edgeMethods(), (std::vector<std::string> { "forward", "encode" }));
        QVERIFY(rec->atenProgram());
        QCOMPARE(rec->exportGraphId().value_or(0), std::int64_t(140234567890123));
        QVERIFY(rec->hasNumOutputsMap());

        for (const char *method : { "forward", "encode" }) {
            const QJsonArray nodes = exp.value(QStringLiteral("%1_nodes").arg(QLatin1String(method))).toArray();
            const ETRecordProgram *p = rec->edgeProgram(method);
            QVERIFY(p);
            QVERIFY(!p->stateDictEntry.empty() && !p->constantsEntry.empty() && !p->exampleInputsEntry.empty());
            QCOMPARE(p->program->nodes.size(), std::size_t(nodes.size()));
            for (int i = 0; i < nodes.size(); ++i) {
                const QJsonObject en = nodes[i].toObject();
                const GraphNode &n = p->program->nodes[std::size_t(i)];
                QCOMPARE(q(n.name), en.value(QStringLiteral("name")).toString());
                QCOMPARE(q(n.opName), en.value(QStringLiteral("op")).toString());
                QCOMPARE(n.debugHandle.value_or(-1), en.value(QStringLiteral("handle")).toInteger());
                QCOMPARE(q(n.stackTrace.value_or("")), en.value(QStringLiteral("stack_trace")).toString());
                QVERIFY(n.fromNode);
                const QJsonArray ms = en.value(QStringLiteral("module_stack")).toArray();
                // Ops called at the top level (no module) have no nn_module_stack at all.
                QCOMPARE(bool(n.moduleStack), !ms.isEmpty());
                if (!n.moduleStack)
                    continue;
                QCOMPARE(n.moduleStack->size(), std::size_t(ms.size()));
                for (int k = 0; k < ms.size(); ++k) {
                    const QJsonArray f = ms[k].toArray();
                    const ModuleFrame &mf = (*n.moduleStack)[std::size_t(k)];
                    QCOMPARE(q(mf.key), f[0].toString());
                    QCOMPARE(q(mf.path), f[1].toString());
                    QCOMPARE(q(mf.type), f[2].toString());
                }
            }
        }
        // Maps, per method, as the generator wrote them.
        const QJsonObject dhm = exp.value(QStringLiteral("debug_handle_map")).toObject();
        for (auto m = dhm.begin(); m != dhm.end(); ++m) {
            const ETRecordMethodMaps *maps = rec->methodMaps(m.key().toStdString());
            QVERIFY(maps);
            const QJsonObject instrs = m.value().toObject();
            QCOMPARE(maps->debugHandles.size(), std::size_t(instrs.size()));
            for (auto it = instrs.begin(); it != instrs.end(); ++it) {
                const auto &d = maps->debugHandles.at(it.key().toLongLong());
                if (it.value().isArray()) {
                    QVERIFY(!d.isScalar);
                    QCOMPARE(d.handles.size(), std::size_t(it.value().toArray().size()));
                } else {
                    QVERIFY(d.isScalar);
                    QCOMPARE(d.handles, std::vector<std::int64_t> { it.value().toInteger() });
                }
            }
        }
        const ETRecordMethodMaps *encode = rec->methodMaps("encode");
        QCOMPARE(q(encode->delegates.at(0).backendName), QStringLiteral("VulkanBackend"));
        QCOMPARE(encode->delegates.at(0).identifiers.size(), std::size_t(3));
        QCOMPARE(q(encode->delegates.at(0).identifiers[1].first), QStringLiteral("12")); // file order kept
        QCOMPARE(encode->numOutputs.at(0), std::int64_t(1));

        // torch.save companions: shapes from the model definition in the generator.
        auto sd = rec->loadStateDict(*rec->edgeProgram("forward"));
        QVERIFY(sd.ok());
        const PyValue *w = sd->dict()->get("stem.conv.weight");
        QVERIFY(w && w->tensor());
        QCOMPARE(w->tensor()->sizes, (std::vector<std::int64_t> { 8, 3, 3, 3 }));
        QVERIFY(!w->tensor()->storage->isLoaded());
        auto ex = rec->loadExampleInputs(*rec->edgeProgram("forward"));
        QVERIFY(ex.ok() && ex->tuple() && ex->tuple()->items.size() == 2);
        auto ref = rec->loadReferenceOutputs();
        QVERIFY(ref.ok());
        const PyValue *fwd = ref->dict()->get("forward");
        QVERIFY(fwd && fwd->list());
        const PyValue &probs = fwd->list()->items.at(0).list()->items.at(0);
        auto values = tensorValues(*probs.tensor());
        QVERIFY(values.ok());
        const QJsonArray eprobs
            = exp.value(QStringLiteral("reference_outputs")).toObject().value(QStringLiteral("probs")).toArray();
        QCOMPARE(values->size(), std::size_t(eprobs.size()));
        for (int i = 0; i < eprobs.size(); ++i)
            QCOMPARE((*values)[std::size_t(i)], eprobs[i].toDouble());
        auto rep = rec->loadRepresentativeInputs();
        QVERIFY(rep.ok() && rep->list() && rep->list()->items.at(0).tensor());
        // Reading succeeded although range_constraints holds a bare Infinity token; the only
        // warning is about the unknown entry.
        QCOMPARE(rec->warnings().size(), std::size_t(1));
        QVERIFY(q(rec->warnings()[0]).contains(QStringLiteral("etscope_unknown_note")));
    }

    void deflatedEqualsStored()
    {
        // Same entries written stored and deflated by the generator: same programs and tensors.
        auto stored = mustRead((kData + QStringLiteral("xnn_mlp_etrecord.bin")).toStdString());
        auto deflated = mustRead((kData + QStringLiteral("xnn_mlp_etrecord_deflated_legacy.bin")).toStdString());
        QVERIFY(stored && deflated);
        QVERIFY(deflated->entries().size() > 2);
        QCOMPARE(deflated->programs().size(), stored->programs().size());
        const ETRecordProgram *a = stored->edgeProgram();
        const ETRecordProgram *b = deflated->edgeProgram();
        QVERIFY(a && b);
        QCOMPARE(b->program->nodes.size(), a->program->nodes.size());
        auto sa = stored->loadStateDict(*a);
        auto sb = deflated->loadStateDict(*b);
        QVERIFY(sa.ok() && sb.ok());
        const PyValue *wa = sa->dict()->get("fc3.weight");
        const PyValue *wb = sb->dict()->get("fc3.weight");
        QVERIFY(wa && wb && wa->tensor() && wb->tensor());
        auto va = tensorValues(*wa->tensor());
        auto vb = tensorValues(*wb->tensor());
        QVERIFY(va.ok() && vb.ok());
        QCOMPARE(va->size(), std::size_t(64 * 128)); // nn.Linear(128, 64)
        QVERIFY(*va == *vb);
    }

    void legacyRawPickleIsRefusedClearly()
    {
        auto rec = mustRead((kData + QStringLiteral("xnn_mlp_etrecord_deflated_legacy.bin")).toStdString());
        QVERIFY(rec);
        QVERIFY(rec->hasReferenceOutputs());
        auto ref = rec->loadReferenceOutputs();
        QVERIFY(!ref.ok());
        QCOMPARE(ref.error().code, ErrorCode::Unsupported);
        QVERIFY2(q(ref.error().message()).contains(QStringLiteral(":reference_outputs: raw Python pickle")),
            ref.error().message().c_str());
    }

    void hostile_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("code");
        QTest::newRow("malformed program JSON")
            << QStringLiteral("hostile_malformed_json_etrecord.bin") << int(ErrorCode::Corrupt);
        QTest::newRow("malformed map JSON")
            << QStringLiteral("hostile_bad_map_etrecord.bin") << int(ErrorCode::Corrupt);
        QTest::newRow("torch.save, not an ETRecord")
            << QStringLiteral("torchsave_tensors.pt") << int(ErrorCode::BadIdentifier);
        QTest::newRow("not a zip") << QStringLiteral("torchsave_expected.json") << int(ErrorCode::BadIdentifier);
        QTest::newRow("missing") << QStringLiteral("no_such_file.bin") << int(ErrorCode::Io);
    }
    void hostile()
    {
        QFETCH(QString, file);
        QFETCH(int, code);
        auto r = readETRecord((kData + file).toStdString());
        QVERIFY(!r.ok());
        QCOMPARE(int(r.error().code), code);
        QVERIFY2(q(r.error().message()).contains(file), r.error().message().c_str());
        QVERIFY(r.error().message().find('\n') == std::string::npos);
    }

    void truncated_data()
    {
        QTest::addColumn<int>("permille");
        for (int p : { 0, 1, 100, 500, 900, 990, 999 })
            QTest::newRow(qPrintable(QString::number(p))) << p;
    }
    void truncated()
    {
        QFETCH(int, permille);
        const std::string all = readAll((kData + QStringLiteral("cnn_mlp_etrecord.bin")).toStdString());
        const std::size_t keep = all.size() * std::size_t(permille) / 1000;
        auto r = readETRecord(MappedFile::fromBytes("cut_etrecord.bin", all.substr(0, keep)));
        QVERIFY(!r.ok());
        QVERIFY(r.error().message().starts_with("cut_etrecord.bin"));
    }

    void danglingAndMalformedHandlesAreWarnings()
    {
        auto rec = mustRead((kData + QStringLiteral("hostile_dangling_handle_etrecord.bin")).toStdString());
        QVERIFY(rec);
        const ETRecordMethodMaps *m = rec->methodMaps("forward");
        QVERIFY(m);
        QCOMPARE(m->debugHandles.size(), std::size_t(1)); // "1": 999 kept; "eleven" and "x" dropped
        QCOMPARE(m->debugHandles.at(1).handles, std::vector<std::int64_t> { 999 });
        QCOMPARE(rec->warnings().size(), std::size_t(2));
    }

    void deeplyNestedArgumentIsNotDumped()
    {
        const int n = 100000;
        std::string deep(std::size_t(n), '[');
        deep.append(std::size_t(n), ']');
        const std::string text = std::string("{\"graph_module\": {\"graph\": {\"nodes\": [{\"target\": \"x.y\", "
                                             "\"inputs\": [{\"name\": \"a\", \"arg\": {\"as_graph\": ")
            + deep + "}}]}]}}}";
        auto p = parseExportedProgram(text, "deep.json");
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().message().c_str());
        QCOMPARE(p->nodes.size(), std::size_t(1));
        QCOMPARE(q(p->nodes[0].inputs[0].arg.kind), QStringLiteral("as_graph"));
        QCOMPARE(q(p->nodes[0].inputs[0].arg.text), QStringLiteral("<JSON nested too deeply>"));
    }

    void lenientJson()
    {
        auto j = parseLenientJson(
            "{\"a\": NaN, \"b\": [-Infinity, Infinity], \"s\": \"NaN -Infinity \\\"Infinity\\\"\"}", "t.json");
        QVERIFY(j.ok());
        QVERIFY(std::isnan(*jsonToDouble((*j)["a"])));
        QCOMPARE(*jsonToDouble((*j)["b"][0]), -INFINITY);
        QCOMPARE(*jsonToDouble((*j)["b"][1]), INFINITY);
        QCOMPARE(q((*j)["s"].get<std::string>()), QStringLiteral("NaN -Infinity \"Infinity\""));
        auto bad = parseLenientJson("{\"a\": Nan}", "t.json");
        QVERIFY(!bad.ok());
        QCOMPARE(bad.error().code, ErrorCode::Corrupt);
    }

    void moduleStack_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("keys");
        QTest::addColumn<QStringList>("paths");
        QTest::addColumn<QStringList>("types");
        QTest::addColumn<QStringList>("display");
        QTest::newRow("formats.md example")
            << QStringLiteral("L__self___layers_0,getattr(L['self'].layers, '0'),torch.nn.modules.linear.Linear")
            << QStringList { QStringLiteral("L__self___layers_0") }
            << QStringList { QStringLiteral("getattr(L['self'].layers, '0')") }
            << QStringList { QStringLiteral("torch.nn.modules.linear.Linear") }
            << QStringList { QStringLiteral("layers.0") };
        QTest::newRow("two levels, plain paths")
            << QStringLiteral("conv,conv,torch.nn.Conv2d;block,block.sub,my.Block")
            << QStringList { QStringLiteral("conv"), QStringLiteral("block") }
            << QStringList { QStringLiteral("conv"), QStringLiteral("block.sub") }
            << QStringList { QStringLiteral("torch.nn.Conv2d"), QStringLiteral("my.Block") }
            << QStringList { QStringLiteral("conv"), QStringLiteral("block.sub") };
        QTest::newRow("nested getattr and brackets")
            << QStringLiteral("k,getattr(getattr(L['self'].a, '1').b, '2'),T;j,L['self'].x[0, 1],U")
            << QStringList { QStringLiteral("k"), QStringLiteral("j") }
            << QStringList { QStringLiteral("getattr(getattr(L['self'].a, '1').b, '2')"),
                   QStringLiteral("L['self'].x[0, 1]") }
            << QStringList { QStringLiteral("T"), QStringLiteral("U") }
            << QStringList { QStringLiteral("a.1.b.2"), QStringLiteral("x[0, 1]") };
        QTest::newRow("repeated key keeps first position")
            << QStringLiteral("a,p1,T1;b,p2,T2;a,p3,T3") << QStringList { QStringLiteral("a"), QStringLiteral("b") }
            << QStringList { QStringLiteral("p3"), QStringLiteral("p2") }
            << QStringList { QStringLiteral("T3"), QStringLiteral("T2") }
            << QStringList { QStringLiteral("p3"), QStringLiteral("p2") };
        QTest::newRow("empty") << QString() << QStringList() << QStringList() << QStringList() << QStringList();
    }
    void moduleStack()
    {
        QFETCH(QString, text);
        QFETCH(QStringList, keys);
        QFETCH(QStringList, paths);
        QFETCH(QStringList, types);
        QFETCH(QStringList, display);
        const auto frames = decodeModuleStack(text.toStdString());
        QCOMPARE(frames.size(), std::size_t(keys.size()));
        for (int i = 0; i < keys.size(); ++i) {
            QCOMPARE(q(frames[std::size_t(i)].key), keys[i]);
            QCOMPARE(q(frames[std::size_t(i)].path), paths[i]);
            QCOMPARE(q(frames[std::size_t(i)].type), types[i]);
            QCOMPARE(q(normalizeModulePath(frames[std::size_t(i)].path)), display[i]);
        }
    }

    // The root module has no dotted path: tables and graphs call it "(model)", never "" or
    // "L__self__" (names written by hand).
    void rootModuleName()
    {
        QCOMPARE(moduleDisplayName("L['self']"), std::string("(model)"));
        QCOMPARE(moduleDisplayName("self"), std::string("(model)"));
        QCOMPARE(moduleDisplayName("L['self'].fc1"), std::string("fc1"));
        QCOMPARE(moduleDisplayName("getattr(L['self'].layers, '0')"), std::string("layers.0"));
    }

    void opNames_data()
    {
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("op");
        QTest::newRow("edge") << QStringLiteral("executorch.exir.dialects.edge.ops.aten.convolution.default")
                              << QStringLiteral("aten.convolution.default");
        QTest::newRow("aten") << QStringLiteral("torch.ops.aten.convolution.default")
                              << QStringLiteral("convolution.default");
        QTest::newRow("getitem") << QStringLiteral("_operator.getitem") << QStringLiteral("getitem");
        QTest::newRow("delegate") << QStringLiteral("torch.ops.higher_order.executorch_call_delegate")
                                  << QStringLiteral("executorch_call_delegate");
    }
    void opNames()
    {
        QFETCH(QString, target);
        QFETCH(QString, op);
        QCOMPARE(q(inspectorOpName(target.toStdString())), op);
    }

    // Issue 23: "the source" of a node is the innermost frame outside torch and Python's own
    // libraries. The traces are written in the layout torch.fx records in node.meta
    // ["stack_trace"] (outermost first, as Python prints them): the user's forward calling an
    // nn.Module, whose __call__ (module.py _call_impl) calls its forward in linear.py / conv.py.
    // Expected locations read off each trace by hand.
    void userFrameSkipsLibraryCode_data()
    {
        QTest::addColumn<QString>("trace");
        QTest::addColumn<QString>("source");
        const QString user = QStringLiteral("  File \"/home/dev/models/net.py\", line 41, in forward\n"
                                            "    x = self.block(x)\n"
                                            "  File \"/home/dev/models/net.py\", line 22, in forward\n"
                                            "    h = self.fc_in(x)\n");
        QTest::newRow("site-packages torch") << user
                + QStringLiteral("  File \"/home/dev/.venv/lib/python3.11/site-packages/torch/nn/modules/module.py\", "
                                 "line 1736, in _call_impl\n"
                                 "    return forward_call(*args, **kwargs)\n"
                                 "  File \"/home/dev/.venv/lib/python3.11/site-packages/torch/nn/modules/linear.py\", "
                                 "line 114, in forward\n"
                                 "    return F.linear(input, self.weight, self.bias)\n")
                                             << QStringLiteral("net.py:22");
        QTest::newRow("torch source checkout") << user
                + QStringLiteral("  File \"/src/pytorch/torch/nn/modules/conv.py\", line 459, in _conv_forward\n"
                                 "    return F.conv2d(input, weight, bias)\n")
                                               << QStringLiteral("net.py:22");
        QTest::newRow("dist-packages and the standard library") << user
                + QStringLiteral(
                    "  File \"/usr/lib/python3.11/contextlib.py\", line 81, in inner\n"
                    "    return func(*args, **kwds)\n"
                    "  File \"/usr/lib/python3/dist-packages/executorch/exir/pass_base.py\", line 9, in f\n"
                    "    y\n"
                    "  File \"<eval_with_key>.3\", line 5, in forward\n")
                                                                << QStringLiteral("net.py:22");
        QTest::newRow("Windows") << QStringLiteral("  File \"C:\\Users\\dev\\net.py\", line 7, in forward\n"
                                                   "  File \"C:\\Python311\\Lib\\site-packages\\torch\\nn\\modules\\"
                                                   "linear.py\", line 125, in forward\n")
                                 << QStringLiteral("net.py:7");
        QTest::newRow("only library frames: the innermost")
            << QStringLiteral("  File \"/usr/lib/python3/dist-packages/torch/_ops.py\", line 716, in __call__\n"
                              "  File \"/usr/lib/python3/dist-packages/torch/nn/functional.py\", line 2573, in gelu\n")
            << QStringLiteral("functional.py:2573");
        QTest::newRow("user frame innermost") << user << QStringLiteral("net.py:22");
        QTest::newRow("a user folder named like a library is not one")
            << QStringLiteral("  File \"/home/dev/torchvision_models/lib/net.py\", line 3, in forward\n")
            << QStringLiteral("net.py:3");
        QTest::newRow("no frame") << QStringLiteral("no trace here") << QString();
    }
    void userFrameSkipsLibraryCode()
    {
        QFETCH(QString, trace);
        QFETCH(QString, source);
        QCOMPARE(q(userSourceLocation(trace.toStdString())), source);
        GraphNode n;
        n.stackTrace = trace.toStdString();
        QCOMPARE(q(n.sourceLocation()), source); // the graph, details and CLI use this
        // The full trace is still there, every frame of it.
        QCOMPARE(parseSourceFrames(*n.stackTrace).size(), std::size_t(trace.count(QStringLiteral("File \""))));
    }
};

QTEST_GUILESS_MAIN(TestETRecord)
#include "tst_etrecord.moc"
