#include "analysis/referenceset.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "etrecord/etrecord.h"
#include "etrecord/pyvalue.h"
#include "etrecord/torchsave.h"

namespace etscope::analysis {

namespace {

Result<OpOutputs> entryFor(const Session &s, int bi, int ei)
{
    const Event &ev = s.blocks[std::size_t(bi)].events[std::size_t(ei)];
    OpOutputs o;
    o.blockIndex = bi;
    o.eventIndex = ei;
    o.instructionId = ev.instructionId;
    o.chainIndex = ev.chainIndex;
    if (ev.debugHandles())
        o.debugHandles = *ev.debugHandles();
    o.ops = { std::string(ev.name) };
    o.numOutputs = ev.numOutputs();
    o.delegated = ev.isDelegatedOp || ev.name == kDelegateCall;
    o.backend = ev.delegateBackendName().value_or(std::string());
    o.stack = ev.linkedNodes();
    for (const auto &v : ev.debugData()) {
        auto nv = loadRuntimeValue(v, s.debugBuffer);
        if (!nv)
            return nv.error();
        o.outputs.push_back(std::move(*nv));
    }
    return o;
}

bool intersects(const std::vector<std::int64_t> &a, const std::vector<std::int64_t> &b)
{
    for (auto x : a)
        if (std::find(b.begin(), b.end(), x) != b.end())
            return true;
    return false;
}

} // namespace

bool sessionHasHandles(const Session &s)
{
    for (const auto &b : s.blocks)
        for (const auto &e : b.events)
            if (e.debugHandles() && !e.opTypes().empty())
                return true;
    return false;
}

Result<std::vector<OpOutputs>> collectByInstruction(const Session &s)
{
    std::vector<OpOutputs> out;
    for (int bi = 0; bi < int(s.blocks.size()); ++bi) {
        const auto &events = s.blocks[std::size_t(bi)].events;
        // OPERATOR_CALL carries the same debug data as the kernel event it wraps; the
        // Inspector's gap also ignores it, so the kernel event represents the instruction.
        std::map<std::pair<std::int64_t, std::int32_t>, int> seen;
        for (int ei = 0; ei < int(events.size()); ++ei) {
            const Event &ev = events[std::size_t(ei)];
            if (ev.debugData().empty() || ev.isFramework() || ev.isOperatorCall())
                continue;
            auto e = entryFor(s, bi, ei);
            if (!e)
                return e.error();
            e->occurrence = seen[{ ev.chainIndex, ev.instructionId }]++;
            out.push_back(std::move(*e));
        }
    }
    return out;
}

Result<std::vector<OpOutputs>> collectByHandle(const Session &s, std::vector<std::string> *warnings)
{
    // §8 step 4: candidates are events linked to graph nodes, OPERATOR_CALL excluded.
    struct Cand {
        int bi, ei;
    };
    std::vector<Cand> cands;
    for (int bi = 0; bi < int(s.blocks.size()); ++bi) {
        const auto &events = s.blocks[std::size_t(bi)].events;
        for (int ei = 0; ei < int(events.size()); ++ei) {
            const Event &ev = events[std::size_t(ei)];
            if (ev.opTypes().empty() || ev.isOperatorCall() || !ev.debugHandles())
                continue;
            cands.push_back({ bi, ei });
        }
    }
    auto eventOf
        = [&](const Cand &c) -> const Event & { return s.blocks[std::size_t(c.bi)].events[std::size_t(c.ei)]; };

    // A DELEGATE_CALL is redundant when its backend also logged per-operator values for any of
    // its handles (the finer events are compared instead).
    std::vector<OpOutputs> byTuple;
    std::map<std::vector<std::int64_t>, std::size_t> tupleIndex;
    for (const Cand &c : cands) {
        const Event &ev = eventOf(c);
        if (ev.name == kDelegateCall) {
            bool finer = false;
            for (const Cand &d : cands) {
                const Event &o = eventOf(d);
                if (o.isDelegatedOp && !o.debugData().empty() && o.delegateBackendName() == ev.delegateBackendName()
                    && intersects(*o.debugHandles(), *ev.debugHandles())) {
                    finer = true;
                    break;
                }
            }
            if (finer)
                continue;
        }
        auto e = entryFor(s, c.bi, c.ei);
        if (!e)
            return e.error();
        auto it = tupleIndex.find(e->debugHandles);
        if (it == tupleIndex.end()) {
            tupleIndex[e->debugHandles] = byTuple.size();
            byTuple.push_back(std::move(*e));
        } else if (e->instructionId > byTuple[it->second].instructionId) {
            // Identical tuples: the strictly larger instruction id replaces (ties keep the first).
            byTuple[it->second] = std::move(*e);
        }
    }

    // §8 step 5: merge entries whose handle sets overlap; the lower instruction's handles come
    // first, the higher instruction's value wins.
    std::vector<OpOutputs> merged;
    for (auto &e : byTuple) {
        OpOutputs cur = std::move(e);
        for (bool again = true; again;) {
            again = false;
            for (std::size_t i = 0; i < merged.size(); ++i) {
                if (!intersects(merged[i].debugHandles, cur.debugHandles))
                    continue;
                OpOutputs other = std::move(merged[i]);
                merged.erase(merged.begin() + std::ptrdiff_t(i));
                OpOutputs &lo = other.instructionId <= cur.instructionId ? other : cur;
                OpOutputs &hi = other.instructionId <= cur.instructionId ? cur : other;
                std::vector<std::int64_t> handles;
                for (auto h : lo.debugHandles)
                    if (std::find(hi.debugHandles.begin(), hi.debugHandles.end(), h) == hi.debugHandles.end())
                        handles.push_back(h);
                for (auto h : hi.debugHandles)
                    if (std::find(handles.begin(), handles.end(), h) == handles.end())
                        handles.push_back(h);
                std::vector<std::string> ops = lo.ops;
                ops.insert(ops.end(), hi.ops.begin(), hi.ops.end());
                OpOutputs m = std::move(hi);
                m.debugHandles = std::move(handles);
                m.ops = std::move(ops);
                cur = std::move(m);
                again = true;
                break;
            }
        }
        merged.push_back(std::move(cur));
    }
    for (auto &m : merged)
        if (m.outputs.empty() && warnings)
            warnings->push_back(fmt::format("{} (instruction {}): linked but no debug data, not compared",
                m.ops.empty() ? "?" : m.ops.back(), m.instructionId));
    // Execution order for display and matching.
    std::stable_sort(merged.begin(), merged.end(), [](const OpOutputs &a, const OpOutputs &b) {
        return std::tie(a.blockIndex, a.eventIndex) < std::tie(b.blockIndex, b.eventIndex);
    });
    return merged;
}

Result<std::vector<NumValue>> sessionRunOutputs(const Session &s, int blockIndex)
{
    int bi = blockIndex;
    if (bi < 0) {
        for (int i = int(s.blocks.size()) - 1; i >= 0 && bi < 0; --i)
            if (!s.blocks[std::size_t(i)].runOutput.empty())
                bi = i;
    }
    std::vector<NumValue> out;
    if (bi < 0)
        return out;
    if (bi >= int(s.blocks.size()))
        return makeError(ErrorCode::InvalidArgument, s.inputs.etdump, fmt::format("no block {}", bi));
    for (const auto &v : s.blocks[std::size_t(bi)].runOutput) {
        auto nv = loadRuntimeValue(v, s.debugBuffer);
        if (!nv)
            return nv.error();
        out.push_back(std::move(*nv));
    }
    return out;
}

Result<ReferenceSet> referenceFromSession(const Session &s)
{
    ReferenceSet r;
    r.description = fmt::format("ETDump {}", s.inputs.etdump);
    r.keyedByHandle = sessionHasHandles(s);
    auto entries = r.keyedByHandle ? collectByHandle(s) : collectByInstruction(s);
    if (!entries)
        return entries.error();
    r.intermediates = std::move(*entries);
    auto outs = sessionRunOutputs(s);
    if (!outs)
        return outs.error();
    r.finalOutputs = std::move(*outs);
    return r;
}

NumValue toNumValue(const BundledValue &v)
{
    switch (v.kind) {
    case BundledValue::Kind::Tensor:
        return NumValue::tensor(NumTensor::fromDoubles(v.dtype, v.sizes, v.values));
    case BundledValue::Kind::Int:
        return NumValue::tensor(NumTensor::scalar(ScalarType::Long, double(v.intValue)));
    case BundledValue::Kind::Bool:
        return NumValue::tensor(NumTensor::scalar(ScalarType::Bool, v.boolValue ? 1 : 0));
    case BundledValue::Kind::Double:
        return NumValue::tensor(NumTensor::scalar(ScalarType::Double, v.doubleValue));
    case BundledValue::Kind::None:
        break;
    }
    return NumValue {};
}

Result<ReferenceSet> referenceFromBundled(const BundledProgram &bp, int testCase, const std::string &method)
{
    const BundledTestSuite *suite = bp.suite(method);
    if (!suite)
        return makeError(ErrorCode::InvalidArgument, bp.path(), fmt::format("no test suite for method '{}'", method));
    const int n = int(suite->testCases.size());
    const int idx = testCase < 0 ? n + testCase : testCase;
    if (idx < 0 || idx >= n)
        return makeError(
            ErrorCode::InvalidArgument, bp.path(), fmt::format("test case {} out of range ({} cases)", testCase, n));
    ReferenceSet r;
    r.description = fmt::format("BundledProgram {} {} test case {}", bp.path(), method, idx);
    for (const auto &v : suite->testCases[std::size_t(idx)].expectedOutputs)
        r.finalOutputs.push_back(toNumValue(v));
    return r;
}

namespace {

Result<NumTensor> pyTensor(const PyValue &v, const std::string &path)
{
    const PyTensor *t = v.tensor();
    if (!t)
        return makeError(ErrorCode::Unsupported, path, "AOT outputs: value is not a tensor");
    auto vals = tensorValues(*t);
    if (!vals)
        return vals.error();
    return NumTensor::fromDoubles(t->dtype, t->sizes, std::move(*vals));
}

} // namespace

Result<ReferenceSet> referenceFromAotOutputs(const std::string &path)
{
    auto root = loadTorchSave(path);
    if (!root)
        return root.error();
    const PyDict *dict = root->dict();
    if (!dict)
        return makeError(ErrorCode::Unsupported, path, "AOT outputs: top-level object is not a dict");
    ReferenceSet r;
    r.description = fmt::format("AOT outputs {}", path);
    r.keyedByHandle = true;
    for (const auto &[key, value] : dict->items) {
        OpOutputs o;
        // bool is an int to Python but never a debug handle.
        if (key.kind() == PyKind::Int && key.toInt()) {
            o.debugHandles = { *key.toInt() };
        } else if (const PyTuple *tu = key.tuple()) {
            for (const auto &item : tu->items) {
                if (item.kind() != PyKind::Int || !item.toInt())
                    return makeError(ErrorCode::Unsupported, path, "AOT outputs: key tuple holds a non-integer");
                o.debugHandles.push_back(*item.toInt());
            }
        } else {
            return makeError(ErrorCode::Unsupported, path, "AOT outputs: key is neither an int nor a tuple of ints");
        }
        if (const std::vector<PyValue> *items = value.sequence()) {
            std::vector<NumTensor> ts;
            for (const auto &it : *items) {
                auto t = pyTensor(it, path);
                if (!t)
                    return t.error();
                ts.push_back(std::move(*t));
            }
            o.outputs.push_back(NumValue::list(std::move(ts)));
        } else {
            auto t = pyTensor(value, path);
            if (!t)
                return t.error();
            o.outputs.push_back(NumValue::tensor(std::move(*t)));
        }
        r.intermediates.push_back(std::move(o));
    }
    return r;
}

Result<ReferenceSet> referenceFromETRecord(const std::string &path, int testCase, const std::string &method)
{
    auto rec = readETRecord(path);
    if (!rec)
        return rec.error();
    auto outs = (*rec)->loadReferenceOutputs();
    if (!outs)
        return outs.error();
    const PyDict *dict = outs->dict();
    const PyValue *cases = dict ? dict->get(method) : nullptr;
    const std::vector<PyValue> *list = cases ? cases->sequence() : nullptr;
    if (!list)
        return makeError(
            ErrorCode::InvalidArgument, path, fmt::format("reference_outputs has no list for '{}'", method));
    const int n = int(list->size());
    const int idx = testCase < 0 ? n + testCase : testCase;
    if (idx < 0 || idx >= n)
        return makeError(ErrorCode::InvalidArgument, path,
            fmt::format("reference output set {} out of range ({} sets)", testCase, n));
    ReferenceSet r;
    r.description = fmt::format("ETRecord {} reference_outputs {} set {}", path, method, idx);
    const PyValue &set = (*list)[std::size_t(idx)];
    std::vector<const PyValue *> items;
    if (const auto *seq = set.sequence())
        for (const auto &v : *seq)
            items.push_back(&v);
    else
        items.push_back(&set);
    for (const PyValue *v : items) {
        if (!v->tensor()) {
            r.finalOutputs.push_back(NumValue {}); // non-tensor output: compare_results yields None
            continue;
        }
        auto t = pyTensor(*v, path);
        if (!t)
            return t.error();
        r.finalOutputs.push_back(NumValue::tensor(std::move(*t)));
    }
    return r;
}

} // namespace etscope::analysis

namespace etscope::analysis {

bool hasReference(const ReferenceInputs &in)
{
    return !in.etdump.empty() || !in.aotOutputs.empty() || !in.bundledProgram.empty() || !in.etrecordOutputs.empty();
}

Result<ReferenceSet> loadReference(const ReferenceInputs &in)
{
    if (!in.etdump.empty()) {
        SessionInputs si;
        si.etdump = in.etdump;
        si.debugBuffer = in.debugBuffer;
        si.etrecord = in.etrecord;
        auto s = loadSession(si);
        if (!s)
            return s.error();
        if (!(*s)->debugBuffer)
            return makeError(ErrorCode::InvalidArgument, in.etdump,
                "reference ETDump needs its debug buffer (values would be zeros)");
        return referenceFromSession(**s);
    }
    if (!in.aotOutputs.empty()) {
        return referenceFromAotOutputs(in.aotOutputs);
    }
    if (!in.bundledProgram.empty()) {
        auto bp = BundledProgram::open(in.bundledProgram);
        if (!bp)
            return bp.error();
        return referenceFromBundled(**bp, in.testCase);
    }
    if (!in.etrecordOutputs.empty()) {
        return referenceFromETRecord(in.etrecordOutputs, in.testCase);
    }
    return makeError(ErrorCode::InvalidArgument, "", "no reference given");
}

} // namespace etscope::analysis
