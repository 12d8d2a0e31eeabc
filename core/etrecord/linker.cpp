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
} // namespace

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
        report.warnings.push_back(fmt::format("{}: no Edge program for method '{}'; events get debug handles but no op types",
                                              record.path(), method));
    if (!maps || maps->debugHandles.empty())
        report.warnings.push_back(fmt::format("{}: debug_handle_map has no entries for method '{}'; nothing to link",
                                              record.path(), method));
    if (!record.hasNumOutputsMap())
        report.warnings.push_back(fmt::format("{}: no instruction_id_to_num_outs_map (older ETRecord); num_outputs defaults to 1",
                                              record.path()));

    // handle -> nodes, in graph order; getitem and memory.alloc are not operator nodes.
    std::unordered_map<std::int64_t, std::vector<const GraphNode *>> byHandle;
    if (graph)
        for (const GraphNode &n : graph->program->nodes)
            if (n.debugHandle && !n.isGetItem() && !n.isMemoryAlloc())
                byHandle[*n.debugHandle].push_back(&n);

    std::unordered_set<std::string> warnedMissingDelegate;
    std::unordered_set<std::int64_t> warnedDangling;
    for (EventBlock &block : blocks) {
        for (Event &e : block.events) {
            e.debugHandles.reset();
            e.debugHandlesIsScalar = false;
            e.opTypes.clear();
            e.numOutputs = 1;
            e.linkedNodes.clear();
            e.delegateBackendName.reset();
            if (!maps)
                continue;
            auto dh = maps->debugHandles.find(e.instructionId);
            if (dh == maps->debugHandles.end())
                continue;
            if (auto no = maps->numOutputs.find(e.instructionId); no != maps->numOutputs.end())
                e.numOutputs = static_cast<int>(no->second);
            auto del = maps->delegates.find(e.instructionId);
            if (!e.isDelegatedOp) {
                e.debugHandles = dh->second.handles;
                e.debugHandlesIsScalar = dh->second.isScalar;
                if (e.name == kDelegateCall && del != maps->delegates.end())
                    e.delegateBackendName = del->second.backendName;
            } else if (del == maps->delegates.end()) {
                e.debugHandles = dh->second.handles;
                e.debugHandlesIsScalar = dh->second.isScalar;
                if (warnedMissingDelegate.insert(std::to_string(e.instructionId)).second)
                    report.warnings.push_back(fmt::format(
                        "{}: instruction {} has delegated events but no delegate_map entry; using its debug handles",
                        record.path(), e.instructionId));
            } else {
                e.delegateBackendName = del->second.backendName;
                if (const auto *h = lookupDelegate(del->second, e.delegateDebugIdentifier, options.delegateSubstringQuirk))
                    e.debugHandles = *h;
            }
            if (!e.debugHandles)
                continue;
            ++report.linkedEvents;
            if (e.isFramework())
                continue;
            for (std::int64_t h : *e.debugHandles) {
                auto it = byHandle.find(h);
                if (it == byHandle.end()) {
                    if (graph) {
                        ++report.danglingHandles;
                        if (warnedDangling.insert(h).second)
                            report.warnings.push_back(fmt::format("{}: debug handle {} (instruction {}) matches no node of {}",
                                                                  record.path(), h, e.instructionId, printable(graph->entryName)));
                    }
                    continue;
                }
                for (const GraphNode *n : it->second) {
                    const std::string name = n->inspectorName();
                    bool seen = false;
                    for (const LinkedNode &ln : e.linkedNodes)
                        if (ln.nodeName == name) {
                            seen = true;
                            break;
                        }
                    if (!seen)
                        e.linkedNodes.push_back(LinkedNode{name, n->stackTrace, n->moduleStack});
                    e.opTypes.push_back(n->opName);
                }
            }
            if (!e.opTypes.empty())
                ++report.eventsWithOpTypes;
        }
    }
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
            for (const LinkedNode &n : e.linkedNodes) {
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
