// Linking ETDump events to ETRecord graph nodes (inspector-semantics.md §5, §6).
// The ETDumps are the real runtime fixtures; the ETRecords were generated for them by
// tests/tools/gen_etrecord_fixtures.py, which also wrote etrecord_expected.json (every node's
// op, debug handle and module keys, and the debug_handle_map). Expected op types, linked node
// names and per-module totals are computed here from that JSON with the Inspector's rules, and
// from the events' own perf averages; they never come from the linker under test.
#include "etrecord/etrecord.h"
#include "etrecord/linker.h"
#include "etrecord/modulerollup.h"
#include "session/session.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace etscope;

namespace {
const QString kData = QStringLiteral(ETSCOPE_TEST_DATA_DIR "/etrecord/");
const std::string kRuntime = ETSCOPE_SHARED_DIR "/fixtures/runtime/";

QJsonObject expectedFor(const QString &file)
{
    QFile f(kData + QStringLiteral("etrecord_expected.json"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object().value(file).toObject();
}

struct ExpectedNode {
    std::string name, op;
    std::int64_t handle = 0;
    std::vector<std::string> moduleKeys;
};

std::vector<ExpectedNode> expectedNodes(const QJsonObject &exp, const QString &key)
{
    std::vector<ExpectedNode> out;
    for (const auto &v : exp.value(key).toArray()) {
        const QJsonObject o = v.toObject();
        ExpectedNode n { o.value(QStringLiteral("name")).toString().toStdString(),
            o.value(QStringLiteral("op")).toString().toStdString(), o.value(QStringLiteral("handle")).toInteger(), {} };
        for (const auto &k : o.value(QStringLiteral("module_keys")).toArray())
            n.moduleKeys.push_back(k.toString().toStdString());
        out.push_back(std::move(n));
    }
    return out;
}

std::map<std::int64_t, std::vector<std::int64_t>> expectedHandles(const QJsonObject &exp, const QString &method)
{
    std::map<std::int64_t, std::vector<std::int64_t>> out;
    const QJsonObject m = exp.value(QStringLiteral("debug_handle_map")).toObject().value(method).toObject();
    for (auto it = m.begin(); it != m.end(); ++it) {
        auto &h = out[it.key().toLongLong()];
        if (it.value().isArray())
            for (const auto &x : it.value().toArray())
                h.push_back(x.toInteger());
        else
            h.push_back(it.value().toInteger());
    }
    return out;
}

// The Inspector's step 3 written out on the expected data: per handle, per node with it.
void expectedLink(const std::vector<std::int64_t> &handles, const std::vector<ExpectedNode> &nodes,
    std::vector<std::string> &ops, std::vector<std::string> &names, std::set<std::string> &moduleKeys)
{
    for (std::int64_t h : handles)
        for (const ExpectedNode &n : nodes)
            if (n.handle == h) {
                ops.push_back(n.op);
                if (std::find(names.begin(), names.end(), n.name + "_") == names.end())
                    names.push_back(n.name + "_");
                moduleKeys.insert(n.moduleKeys.begin(), n.moduleKeys.end());
            }
}

std::shared_ptr<const Session> load(const std::string &etdump, const std::string &etrecord)
{
    SessionInputs in;
    in.etdump = etdump;
    in.etrecord = etrecord;
    auto s = loadSession(in);
    if (!s) {
        qWarning("%s", s.error().message().c_str());
        return nullptr;
    }
    return s.value();
}

std::vector<std::string> names(const Event &e)
{
    std::vector<std::string> out;
    for (const LinkedNode &n : e.linkedNodes())
        out.push_back(n.nodeName);
    return out;
}

void walk(const ModuleRollupNode &n, std::vector<const ModuleRollupNode *> &out)
{
    out.push_back(&n);
    for (const auto &c : n.children)
        walk(c, out);
}
} // namespace

class TestETRecordLink : public QObject
{
    Q_OBJECT
private slots:
    // loadSession reads and links the ETRecord itself (no hook to install), with the caller's
    // LinkOptions; a file that is not an ETRecord is refused with an error naming it.
    void sessionLinksWithTheGivenOptions()
    {
        SessionInputs in;
        in.etdump = kRuntime + "cnn_mlp_50runs/etdump.etdp";
        in.etrecord = (kData + QStringLiteral("cnn_mlp_etrecord.bin")).toStdString();
        auto linked = loadSession(in);
        QVERIFY2(linked.ok(), linked.ok() ? "" : linked.error().message().c_str());
        QVERIFY((*linked)->etrecord);
        std::size_t withNodes = 0;
        for (const EventBlock &b : (*linked)->blocks)
            for (const Event &e : b.events)
                withNodes += !e.linkedNodes().empty();
        QVERIFY(withNodes > 0);

        // A method the ETRecord has no debug_handle_map for: loads, links nothing, says so.
        in.link.method = "no_such_method";
        auto other = loadSession(in);
        QVERIFY2(other.ok(), other.ok() ? "" : other.error().message().c_str());
        for (const EventBlock &b : (*other)->blocks)
            for (const Event &e : b.events)
                QVERIFY(e.linkedNodes().empty());
        QVERIFY(std::any_of((*other)->warnings.begin(), (*other)->warnings.end(),
            [](const std::string &w) { return w.find("'no_such_method'") != std::string::npos; }));

        // A reference graph the ETRecord does not hold is an error, not a silent default.
        in.link = {};
        in.link.referenceGraph = "no_such_entry";
        auto missing = loadSession(in);
        QVERIFY(!missing.ok());
        QCOMPARE(missing.error().code, ErrorCode::InvalidArgument);
        QVERIFY(missing.error().message().starts_with(in.etrecord));
        QVERIFY(missing.error().message().find("'no_such_entry'") != std::string::npos);

        // Not an ETRecord at all (the ETDump itself).
        in.link = {};
        in.etrecord = in.etdump;
        auto wrong = loadSession(in);
        QVERIFY(!wrong.ok());
        QVERIFY(wrong.error().message().starts_with(in.etrecord));
    }

    void cnnMlpOpTypesAndModules()
    {
        const QJsonObject exp = expectedFor(QStringLiteral("cnn_mlp_etrecord.bin"));
        const auto nodes = expectedNodes(exp, QStringLiteral("forward_nodes"));
        const auto handles = expectedHandles(exp, QStringLiteral("forward"));
        QCOMPARE(handles.size(), std::size_t(28));
        auto session = load(
            kRuntime + "cnn_mlp_50runs/etdump.etdp", (kData + QStringLiteral("cnn_mlp_etrecord.bin")).toStdString());
        QVERIFY(session);
        QVERIFY(session->etrecord);
        std::size_t nativeCalls = 0;
        for (const EventBlock &b : session->blocks)
            for (const Event &e : b.events) {
                auto h = handles.find(e.instructionId);
                QVERIFY(h != handles.end()); // every event of this program has instruction 0..27
                QVERIFY(e.debugHandles());
                QCOMPARE(*e.debugHandles(), h->second);
                QVERIFY(e.debugHandlesIsScalar());
                QCOMPARE(e.numOutputs(), 1);
                QVERIFY(!e.delegateBackendName());
                if (e.isFramework()) {
                    // The Inspector gives framework events instruction 0's handles but no nodes.
                    QCOMPARE(e.instructionId, 0);
                    QVERIFY(e.opTypes().empty() && e.linkedNodes().empty());
                    continue;
                }
                std::vector<std::string> ops, nodeNames;
                std::set<std::string> keys;
                expectedLink(h->second, nodes, ops, nodeNames, keys);
                QCOMPARE(e.opTypes(), ops);
                QCOMPARE(names(e), nodeNames);
                std::set<std::string> gotKeys;
                for (const LinkedNode &n : e.linkedNodes()) {
                    QVERIFY(n.stackTrace && n.stackTrace->find("cnn_mlp.py") != std::string::npos);
                    if (n.moduleStack)
                        for (const ModuleFrame &f : *n.moduleStack)
                            gotKeys.insert(f.key);
                }
                QCOMPARE(gotKeys, keys);
                if (e.name.starts_with("native_call_")) {
                    ++nativeCalls;
                    // The kernel the runtime ran is among the linked ops: native_call_<op>.<overload>
                    const std::string op(e.name.substr(12, e.name.find('.') - 12));
                    bool found = false;
                    for (const std::string &t : e.opTypes())
                        found = found || t.starts_with("aten." + op + ".");
                    QVERIFY2(found, std::string(e.name).c_str());
                }
            }
        QCOMPARE(nativeCalls, std::size_t(28));
        // Instructions 12 and 13 (permute_copy + addmm of head.fc1) share one handle, so both
        // events get both ops, as the Inspector shows them.
        for (const EventBlock &b : session->blocks)
            for (const Event &e : b.events)
                if (e.name == "native_call_permute_copy.out" && e.instructionId == 12)
                    QCOMPARE(
                        e.opTypes(), (std::vector<std::string> { "aten.permute_copy.default", "aten.addmm.default" }));
    }

    void cnnMlpModuleRollupMatchesFindTotal()
    {
        const QJsonObject exp = expectedFor(QStringLiteral("cnn_mlp_etrecord.bin"));
        const auto nodes = expectedNodes(exp, QStringLiteral("forward_nodes"));
        const auto handles = expectedHandles(exp, QStringLiteral("forward"));
        auto session = load(
            kRuntime + "cnn_mlp_50runs/etdump.etdp", (kData + QStringLiteral("cnn_mlp_etrecord.bin")).toStdString());
        QVERIFY(session);

        // Independent totals: module key -> sum of avg of the non-OPERATOR_CALL, non-framework
        // events whose instruction's nodes sit in that module.
        std::map<std::string, double> expTotal;
        std::map<std::string, std::size_t> expCount;
        for (const EventBlock &b : session->blocks)
            for (const Event &e : b.events) {
                if (e.name == kOperatorCall || e.isFramework() || !e.perfData)
                    continue;
                std::vector<std::string> ops, nn;
                std::set<std::string> keys;
                expectedLink(handles.at(e.instructionId), nodes, ops, nn, keys);
                for (const std::string &k : keys) {
                    expTotal[k] += e.perfData->avg;
                    ++expCount[k];
                }
            }
        QCOMPARE(expTotal.size(),
            std::size_t(11)); // stem, stem.conv, blocks, blocks.0(+conv, dw), head(+fc1, norm, fc2), classifier

        const ModuleRollupNode root = buildModuleRollup(session->blocks);
        std::vector<const ModuleRollupNode *> all;
        walk(root, all);
        QCOMPARE(all.size(), expTotal.size() + 1);
        for (const ModuleRollupNode *n : all) {
            if (n == &root)
                continue;
            QVERIFY2(expTotal.count(n->key), n->key.c_str());
            QVERIFY(qFuzzyCompare(n->total, expTotal[n->key]));
            QCOMPARE(n->eventCount, expCount[n->key]);
            QCOMPARE(n->total, findTotalForModule(session->blocks, n->key)); // same rule, same order
            double childSum = 0;
            for (const auto &c : n->children)
                childSum += c.total;
            QVERIFY(childSum <= n->total * (1 + 1e-12)); // children never exceed their parent
        }
        // Tree shape from the model definition (generator): top-level modules in call order.
        QStringList top;
        for (const auto &c : root.children)
            top << QString::fromStdString(c.displayPath);
        QCOMPARE(top,
            (QStringList { QStringLiteral("stem"), QStringLiteral("blocks"), QStringLiteral("head"),
                QStringLiteral("classifier") }));
        QCOMPARE(
            QString::fromStdString(root.find("L__self___blocks_0_dw")->displayPath), QStringLiteral("blocks.0.dw"));
        QCOMPARE(QString::fromStdString(root.find("L__self___head_fc1")->type),
            QStringLiteral("torch.nn.modules.linear.Linear"));
        QCOMPARE(findTotalForModule(session->blocks, "no_such_module"), 0.0);
    }

    void xnnpackDelegates()
    {
        const QJsonObject exp = expectedFor(QStringLiteral("xnn_mlp_etrecord.bin"));
        const auto nodes = expectedNodes(exp, QStringLiteral("forward_nodes"));
        const auto handles = expectedHandles(exp, QStringLiteral("forward"));
        auto session = load(kRuntime + "xnnpack_mlp_intermediates/etdump.etdp",
            (kData + QStringLiteral("xnn_mlp_etrecord.bin")).toStdString());
        QVERIFY(session);
        std::size_t delegated = 0, delegateCalls = 0;
        for (const EventBlock &b : session->blocks)
            for (const Event &e : b.events) {
                if (e.isDelegatedOp) {
                    // XNNPACK registers no identifiers ({}): backend name only.
                    ++delegated;
                    QCOMPARE(e.delegateBackendName().value_or(""), std::string("XnnpackBackend"));
                    QVERIFY(!e.debugHandles());
                    QVERIFY(e.opTypes().empty());
                    continue;
                }
                if (e.isFramework())
                    continue;
                const auto &h = handles.at(e.instructionId);
                QCOMPARE(*e.debugHandles(), h);
                std::vector<std::string> ops, nn;
                std::set<std::string> keys;
                expectedLink(h, nodes, ops, nn, keys);
                QCOMPARE(e.opTypes(), ops);
                if (e.name == kDelegateCall) {
                    ++delegateCalls;
                    QVERIFY(!e.debugHandlesIsScalar());
                    QCOMPARE(e.delegateBackendName().value_or(""), std::string("XnnpackBackend"));
                    QCOMPARE(e.numOutputs(), 1);
                } else {
                    QVERIFY(!e.delegateBackendName());
                }
            }
        QCOMPARE(delegated, std::size_t(8)); // README: 8 delegate profile events
        QCOMPARE(delegateCalls, std::size_t(2));
    }

    // Issue 23: a delegated partition spanning modules is counted once. Expected values are
    // derived from the generator's JSON, not from the roll-up: each event's nodes (its
    // instruction's handles in debug_handle_map -> the nodes carrying them, with their
    // module_stack lists) give the innermost module holding all of them (longest common prefix
    // of the stacks; a node without a stack is in the model itself), and the event's time is
    // added there and to every module above. By hand from the fixture README: DELEGATE_CALL #0
    // runs fc1, relu, fc2, add, gelu (fc1 + fc2 + the model's own ops -> the model),
    // layer_norm is norm, DELEGATE_CALL #1 runs fc3, tanh, fc4, softmax (-> the model), argmax
    // has no module (not counted). Durations: the Inspector reference
    // (tests/data/core/expected/xnnpack_mlp_intermediates.tsv, inspector_reference.py):
    // DELEGATE_CALL 0.043306 and 0.032013 ms, native_layer_norm 0.010668 ms.
    void xnnpackModuleRollupCountsDelegateCallsOnce()
    {
        const QJsonObject exp = expectedFor(QStringLiteral("xnn_mlp_etrecord.bin"));
        const auto handles = expectedHandles(exp, QStringLiteral("forward"));
        std::map<std::int64_t, std::vector<std::vector<std::string>>> stacksOfHandle; // module keys per node
        for (const auto &v : exp.value(QStringLiteral("forward_nodes")).toArray()) {
            std::vector<std::string> keys;
            for (const auto &f : v.toObject().value(QStringLiteral("module_stack")).toArray())
                keys.push_back(f.toArray().at(0).toString().toStdString());
            stacksOfHandle[v.toObject().value(QStringLiteral("handle")).toInteger()].push_back(keys);
        }
        auto session = load(kRuntime + "xnnpack_mlp_intermediates/etdump.etdp",
            (kData + QStringLiteral("xnn_mlp_etrecord.bin")).toStdString());
        QVERIFY(session);

        std::map<std::string, double> expTotal; // "" = the model
        std::map<std::string, std::size_t> expCount;
        for (const EventBlock &b : session->blocks)
            for (const Event &e : b.events) {
                if (e.name == kOperatorCall || e.isFramework() || e.isDelegatedOp || !e.perfData
                    || !handles.count(e.instructionId))
                    continue;
                std::vector<std::vector<std::string>> stacks;
                for (std::int64_t h : handles.at(e.instructionId))
                    for (const auto &st : stacksOfHandle[h])
                        stacks.push_back(st);
                if (std::all_of(stacks.begin(), stacks.end(), [](const auto &st) { return st.empty(); }))
                    continue;
                std::vector<std::string> home = stacks.front();
                for (const auto &st : stacks) {
                    std::size_t i = 0;
                    while (i < home.size() && i < st.size() && home[i] == st[i])
                        ++i;
                    home.resize(i);
                }
                expTotal[""] += e.perfData->avg;
                ++expCount[""];
                for (const std::string &k : home) {
                    expTotal[k] += e.perfData->avg;
                    ++expCount[k];
                }
            }
        // By hand: only the model and norm hold a call.
        QCOMPARE(expTotal.size(), std::size_t(2));
        QVERIFY(qFuzzyCompare(expTotal[""], 0.043306 + 0.010668 + 0.032013));
        QVERIFY(qFuzzyCompare(expTotal["L__self___norm"], 0.010668));

        const ModuleRollupNode root = buildModuleRollup(session->blocks);
        std::vector<const ModuleRollupNode *> all;
        walk(root, all);
        QCOMPARE(all.size(), std::size_t(6)); // model, fc1, fc2, norm, fc3, fc4
        for (const ModuleRollupNode *n : all) {
            QVERIFY(std::abs(n->total - expTotal[n->key]) < 1e-12);
            QCOMPARE(n->eventCount, expCount[n->key]);
            double childSum = 0;
            for (const auto &c : n->children)
                childSum += c.total;
            QVERIFY(childSum <= n->total * (1 + 1e-12)); // children never exceed their parent
        }
        // The two calls are labelled where they are counted, with the modules they span.
        QCOMPARE(root.spanning.size(), std::size_t(2));
        QVERIFY(std::abs(root.spanning[0].time - 0.043306) < 1e-12);
        QCOMPARE(root.spanning[0].modules, (std::vector<std::string> { "fc1", "fc2", "(model)" }));
        QCOMPARE(root.spanning[0].label, std::string("DELEGATE_CALL (XnnpackBackend, instruction 0)"));
        QVERIFY(std::abs(root.spanning[1].time - 0.032013) < 1e-12);
        QCOMPARE(root.spanning[1].modules, (std::vector<std::string> { "fc3", "fc4", "(model)" }));
        // The modules they touch show them as shared time, outside their totals.
        for (const auto &[key, time] : std::vector<std::pair<std::string, double>> { { "L__self___fc1", 0.043306 },
                 { "L__self___fc2", 0.043306 }, { "L__self___fc3", 0.032013 }, { "L__self___fc4", 0.032013 } }) {
            const ModuleRollupNode *n = root.find(key);
            QVERIFY2(n, key.c_str());
            QCOMPARE(n->total, 0.0);
            QVERIFY(std::abs(n->sharedTotal - time) < 1e-12);
            QCOMPARE(n->sharedCount, std::size_t(1));
            QCOMPARE(n->sharedAt, std::string("(model)"));
            // find_total_for_module keeps the Inspector's semantics: the call counts in each.
            QVERIFY(std::abs(findTotalForModule(session->blocks, key) - time) < 1e-12);
        }
        QCOMPARE(root.find("L__self___norm")->sharedCount, std::size_t(0));
    }

    void delegateIdentifierMatching_data()
    {
        QTest::addColumn<qlonglong>("id");
        QTest::addColumn<bool>("quirk");
        QTest::addColumn<QList<qlonglong>>("handles"); // empty = none
        // encode's delegate_map inner keys in file order: "0": [1], "12": [1, 2], "1": [2]
        QTest::newRow("0 exact") << 0ll << false << QList<qlonglong> { 1 };
        QTest::newRow("12 exact") << 12ll << false << QList<qlonglong> { 1, 2 };
        QTest::newRow("12 quirk: last substring key '1' wins") << 12ll << true << QList<qlonglong> { 2 };
        QTest::newRow("21 exact: none") << 21ll << false << QList<qlonglong> {};
        QTest::newRow("21 quirk: '1'") << 21ll << true << QList<qlonglong> { 2 };
        QTest::newRow("5: none either way") << 5ll << true << QList<qlonglong> {};
    }
    void delegateIdentifierMatching()
    {
        QFETCH(qlonglong, id);
        QFETCH(bool, quirk);
        QFETCH(QList<qlonglong>, handles);
        auto rec = readETRecord((kData + QStringLiteral("cnn_mlp_etrecord.bin")).toStdString());
        QVERIFY(rec.ok());
        std::vector<EventBlock> blocks(1);
        Event e;
        e.name = blocks[0].storage().intern(std::to_string(id));
        blocks[0].storage().extra(e).delegateDebugIdentifier = std::int64_t(id);
        e.isDelegatedOp = true;
        e.instructionId = 0;
        blocks[0].events.push_back(e);
        LinkOptions opts;
        opts.method = "encode";
        opts.delegateSubstringQuirk = quirk;
        auto report = linkETRecord(blocks, **rec, opts);
        QVERIFY(report.ok());
        QCOMPARE(report->referenceGraph, std::string("edge_dialect_exported_program/encode"));
        const Event &got = blocks[0].events[0];
        QCOMPARE(got.delegateBackendName().value_or(""), std::string("VulkanBackend"));
        if (handles.isEmpty()) {
            QVERIFY(!got.debugHandles());
            QVERIFY(got.opTypes().empty());
            return;
        }
        QVERIFY(got.debugHandles());
        QCOMPARE(got.debugHandles()->size(), std::size_t(handles.size()));
        std::vector<std::string> ops;
        for (int i = 0; i < handles.size(); ++i) {
            QCOMPARE((*got.debugHandles())[std::size_t(i)], std::int64_t(handles[i]));
            // encode graph: handle 1 = convolution, handle 2 = relu (generator)
            ops.push_back(handles[i] == 1 ? "aten.convolution.default" : "aten.relu.default");
        }
        QCOMPARE(got.opTypes(), ops);
        QCOMPARE(got.linkedNodes().size(), ops.size());
    }

    void danglingHandleIsAMarkedGap()
    {
        auto rec = readETRecord((kData + QStringLiteral("hostile_dangling_handle_etrecord.bin")).toStdString());
        QVERIFY(rec.ok());
        std::vector<EventBlock> blocks(1);
        Event e;
        e.name = "native_call_native_layer_norm.out";
        e.instructionId = 1;
        blocks[0].events.push_back(e);
        auto report = linkETRecord(blocks, **rec);
        QVERIFY(report.ok());
        QCOMPARE(report->danglingHandles, std::size_t(1));
        QCOMPARE(*blocks[0].events[0].debugHandles(), std::vector<std::int64_t> { 999 });
        QVERIFY(blocks[0].events[0].opTypes().empty());
        bool warned = false;
        for (const auto &w : report->warnings)
            warned = warned || w.find("debug handle 999") != std::string::npos;
        QVERIFY(warned);
    }

    void unknownReferenceGraphIsAnError()
    {
        auto rec = readETRecord((kData + QStringLiteral("cnn_mlp_etrecord.bin")).toStdString());
        QVERIFY(rec.ok());
        std::vector<EventBlock> blocks;
        LinkOptions opts;
        opts.referenceGraph = "nope/forward";
        auto report = linkETRecord(blocks, **rec, opts);
        QVERIFY(!report.ok());
        QCOMPARE(report.error().code, ErrorCode::InvalidArgument);
    }
};

QTEST_GUILESS_MAIN(TestETRecordLink)
#include "tst_etrecordlink.moc"
