#include "etrecord/linker.h"

#include "etrecord/etrecord.h"
#include "etrecord/pyvalue.h"

#include <fmt/format.h>

#include <unordered_map>
#include <unordered_set>

namespace etscope {

namespace {
const std::vector<std::int64_t> *lookupDelegate(const DelegateEntry &d, const DelegateDebugId &id, bool quirk)
{
    const std::vector<std::int64_t> *found = nullptr;
    if (const auto *s = std::get_if<std::string>(&id)) {
        for (const auto &[key, handles] : d.identifiers)
            if (key == *s)
                return &handles;
    }
    const std::string text = delegateDebugIdText(id);
    if (text.empty())
        return nullptr;
    for (const auto &[key, handles] : d.identifiers) {
        if (quirk ? text.find(key) != std::string::npos : key == text) {
            found = &handles;
            if (!quirk)
                break;
        }
    }
    return found;
}

// Kernels and their graph ops share the operator name up to copy/overload variants
// ("view_copy" for aten.view, "_softmax" for aten.softmax), so compare loosely.
bool sameOperator(const std::string &kernel, const std::string &op)
{
    auto strip = [](std::string s) {
        while (!s.empty() && s.front() == '_')
            s.erase(s.begin());
        for (std::string_view suffix : { "_copy", "_" })
            if (s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0)
                s.resize(s.size() - suffix.size());
        return s;
    };
    const std::string k = strip(kernel), o = strip(op);
    return !k.empty() && !o.empty() && (k == o || k.find(o) != std::string::npos || o.find(k) != std::string::npos);
}

void checkMismatch(
    const std::vector<EventBlock> &blocks, const ETRecordMethodMaps *maps, const std::string &path, LinkReport &report)
{
    std::unordered_set<std::int32_t> instructions, unmatched;
    for (const EventBlock &block : blocks)
        for (const Event &e : block.events) {
            if (e.isFramework() || e.isOperatorCall() || e.isDelegatedOp || e.instructionId < 0)
                continue;
            instructions.insert(e.instructionId);
            if (!maps || !maps->debugHandles.count(e.instructionId))
                unmatched.insert(e.instructionId);
            const std::string kernel = kernelOperatorName(e.name);
            if (kernel.empty() || e.opTypes().empty())
                continue;
            ++report.comparedKernels;
            bool any = false;
            for (const std::string &op : e.opTypes())
                any = any || sameOperator(kernel, opTypeOperatorName(op));
            if (!any) {
                ++report.mismatchedKernels;
                if (report.mismatchExample.empty())
                    report.mismatchExample = std::string(e.name) + " -> " + e.opTypes().front();
            }
        }
    report.runtimeInstructions = instructions.size();
    report.unmatchedInstructions = unmatched.size();
    // One odd kernel can be a fused or renamed op; a quarter of them is another program.
    const bool kernelsDisagree = report.mismatchedKernels > 0 && report.mismatchedKernels * 4 >= report.comparedKernels;
    const bool instructionsMissing = report.unmatchedInstructions > 0 && maps && !maps->debugHandles.empty();
    report.mismatch = kernelsDisagree || instructionsMissing;
    if (!report.mismatch)
        return;
    std::string why;
    if (instructionsMissing)
        why = fmt::format("{} of {} runtime instructions have no debug_handle_map entry ({} entries)",
            report.unmatchedInstructions, report.runtimeInstructions, maps->debugHandles.size());
    if (kernelsDisagree)
        why += fmt::format("{}{} of {} kernels are linked to other operators (e.g. {})", why.empty() ? "" : "; ",
            report.mismatchedKernels, report.comparedKernels, report.mismatchExample);
    report.warnings.insert(report.warnings.begin(),
        fmt::format("{}: ETRecord does not match this ETDump (another program?): {}", path, why));
}
} // namespace

std::string kernelOperatorName(std::string_view name)
{
    constexpr std::string_view prefix = "native_call_";
    if (name.substr(0, prefix.size()) != prefix)
        return {};
    name.remove_prefix(prefix.size());
    return std::string(name.substr(0, name.find('.')));
}

std::string opTypeOperatorName(std::string_view op)
{
    if (const auto colons = op.rfind("::"); colons != std::string_view::npos)
        op.remove_prefix(colons + 2);
    else if (op.substr(0, 5) == "aten." || op.substr(0, 5) == "edge.")
        op.remove_prefix(5);
    else if (const auto dot = op.find('.');
             dot != std::string_view::npos && op.find('.', dot + 1) != std::string_view::npos)
        op.remove_prefix(dot + 1); // "<namespace>.<op>.<overload>"
    return std::string(op.substr(0, op.find('.')));
}

Result<LinkReport> linkETRecord(std::vector<EventBlock> &blocks, const ETRecord &record, const LinkOptions &options)
{
    LinkReport report;
    const std::string &method = options.method;
    const ETRecordMethodMaps *maps = record.methodMaps(method);

    const ETRecordProgram *graph = nullptr;
    if (!options.referenceGraph.empty()) {
        graph = record.program(options.referenceGraph);
        if (!graph)
            return makeError(ErrorCode::InvalidArgument, record.path(),
                fmt::format("no program entry '{}' to link against", options.referenceGraph));
    } else {
        graph = record.edgeProgram(method);
    }
    if (graph)
        report.referenceGraph = graph->entryName;
    else
        report.warnings.push_back(fmt::format(
            "{}: no Edge program for method '{}'; events get debug handles but no op types", record.path(), method));
    if (!maps || maps->debugHandles.empty())
        report.warnings.push_back(
            fmt::format("{}: debug_handle_map has no entries for method '{}'; nothing to link", record.path(), method));
    if (!record.hasNumOutputsMap())
        report.warnings.push_back(fmt::format(
            "{}: no instruction_id_to_num_outs_map (older ETRecord); num_outputs defaults to 1", record.path()));

    // handle -> nodes, in graph order; getitem and memory.alloc are not operator nodes.
    std::unordered_map<std::int64_t, std::vector<const GraphNode *>> byHandle;
    if (graph)
        for (const GraphNode &n : graph->program->nodes)
            if (n.debugHandle && !n.isGetItem() && !n.isMemoryAlloc())
                byHandle[*n.debugHandle].push_back(&n);

    std::unordered_set<std::string> warnedMissingDelegate;
    std::unordered_set<std::int64_t> warnedDangling;
    for (EventBlock &block : blocks) {
        EventStore &store = block.storage();
        for (Event &e : block.events) {
            if (e.extra)
                store.extra(e).clearLink();
            if (!maps)
                continue;
            auto dh = maps->debugHandles.find(e.instructionId);
            if (dh == maps->debugHandles.end())
                continue;
            EventExtra &x = store.extra(e);
            if (auto no = maps->numOutputs.find(e.instructionId); no != maps->numOutputs.end())
                x.numOutputs = static_cast<int>(no->second);
            auto del = maps->delegates.find(e.instructionId);
            if (!e.isDelegatedOp) {
                x.debugHandles = dh->second.handles;
                x.debugHandlesIsScalar = dh->second.isScalar;
                if (e.name == kDelegateCall && del != maps->delegates.end())
                    x.delegateBackendName = del->second.backendName;
            } else if (del == maps->delegates.end()) {
                x.debugHandles = dh->second.handles;
                x.debugHandlesIsScalar = dh->second.isScalar;
                if (warnedMissingDelegate.insert(std::to_string(e.instructionId)).second)
                    report.warnings.push_back(fmt::format(
                        "{}: instruction {} has delegated events but no delegate_map entry; using its debug handles",
                        record.path(), e.instructionId));
            } else {
                x.delegateBackendName = del->second.backendName;
                if (const auto *h
                    = lookupDelegate(del->second, x.delegateDebugIdentifier, options.delegateSubstringQuirk))
                    x.debugHandles = *h;
            }
            if (!x.debugHandles)
                continue;
            ++report.linkedEvents;
            if (e.isFramework())
                continue;
            for (std::int64_t h : *x.debugHandles) {
                auto it = byHandle.find(h);
                if (it == byHandle.end()) {
                    if (graph) {
                        ++report.danglingHandles;
                        if (warnedDangling.insert(h).second)
                            report.warnings.push_back(
                                fmt::format("{}: debug handle {} (instruction {}) matches no node of {}", record.path(),
                                    h, e.instructionId, printable(graph->entryName)));
                    }
                    continue;
                }
                for (const GraphNode *n : it->second) {
                    const std::string name = n->inspectorName();
                    bool seen = false;
                    for (const LinkedNode &ln : x.linkedNodes)
                        if (ln.nodeName == name) {
                            seen = true;
                            break;
                        }
                    if (!seen)
                        x.linkedNodes.push_back(LinkedNode { name, n->stackTrace, n->moduleStack });
                    x.opTypes.push_back(n->opName);
                }
            }
            if (!e.opTypes().empty())
                ++report.eventsWithOpTypes;
        }
    }
    checkMismatch(blocks, maps, record.path(), report);
    return report;
}

double findTotalForModule(const std::vector<EventBlock> &blocks, std::string_view name)
{
    double total = 0;
    for (const EventBlock &b : blocks)
        for (const Event &e : b.events) {
            if (e.name == kOperatorCall)
                continue;
            bool found = false;
            for (const LinkedNode &n : e.linkedNodes()) {
                if (!n.moduleStack || n.moduleStack->empty())
                    continue;
                for (const ModuleFrame &f : *n.moduleStack)
                    if (f.key.find(name) != std::string::npos) {
                        found = true;
                        break;
                    }
                if (found)
                    break;
            }
            if (found && e.perfData)
                total += e.perfData->avg;
        }
    return total;
}

} // namespace etscope
