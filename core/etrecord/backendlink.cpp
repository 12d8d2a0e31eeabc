#include "etrecord/backendlink.h"

#include "common/jsontext.h"
#include "etrecord/etrecord.h"

#include "common/chunkedwriter.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace etscope {

std::optional<BackendNodeLink> linkBackendEvent(
    const ETRecord &record, const std::string &method, std::int32_t instructionId, const BackendEvent &event)
{
    const std::optional<std::int64_t> id = backendEventIdentifier(event);
    if (!id)
        return std::nullopt;
    const ETRecordMethodMaps *maps = record.methodMaps(method);
    if (!maps)
        return std::nullopt;
    auto del = maps->delegates.find(instructionId);
    if (del == maps->delegates.end())
        return std::nullopt;
    BackendNodeLink link;
    link.identifier = std::to_string(*id);
    const std::vector<std::int64_t> *handles = nullptr;
    for (const auto &[key, h] : del->second.identifiers)
        if (key == link.identifier) {
            handles = &h;
            break;
        }
    if (!handles)
        return std::nullopt;
    link.debugHandles = *handles;
    bool everyHandleNamed = !handles->empty();
    if (const ETRecordProgram *graph = record.edgeProgram(method); graph && graph->program) {
        for (std::int64_t h : *handles) {
            bool named = false;
            for (const GraphNode &n : graph->program->nodes) {
                if (n.debugHandle != h || n.isGetItem() || n.isMemoryAlloc())
                    continue;
                named = true;
                link.nodeNames.push_back(n.inspectorName());
                link.opTypes.push_back(n.opName);
            }
            everyHandleNamed = everyHandleNamed && named;
        }
    } else {
        everyHandleNamed = false;
    }
    link.exact = everyHandleNamed;
    return link;
}

std::vector<BackendEventRow> backendEventRows(const std::vector<EventBlock> &blocks, const BackendEventTable &table,
    const ETRecord *record, const std::string &method)
{
    BackendLinker link;
    if (record)
        link = [record, &method](std::int32_t instruction, const BackendEvent &event) {
            return linkBackendEvent(*record, method, instruction, event);
        };
    return backendEventRows(blocks, table, link);
}

std::vector<BackendEventRow> backendEventRows(
    const std::vector<EventBlock> &blocks, const BackendEventTable &table, const BackendLinker &link)
{
    std::vector<BackendEventRow> rows;
    rows.reserve(table.size());
    // Runs that do not merge repeat the same decoded event: link each (instruction, value) once.
    std::map<std::pair<std::int32_t, const BackendEvent *>, std::optional<BackendNodeLink>> links;
    for (const auto &entry : table.entries()) {
        BackendEventRow row;
        row.block = entry.block;
        row.event = entry.event;
        row.decoded = entry.decoded;
        if (link) {
            const std::int32_t instruction = blocks[entry.block].events[entry.event].instructionId;
            auto [it, fresh] = links.try_emplace({ instruction, entry.decoded });
            if (fresh)
                it->second = link(instruction, *entry.decoded);
            row.link = it->second;
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

std::map<std::pair<std::size_t, std::size_t>, std::vector<std::int64_t>> exactBackendHandles(
    const std::vector<EventBlock> &blocks, const BackendEventTable &table, const ETRecord &record,
    const std::string &method)
{
    std::map<std::pair<std::size_t, std::size_t>, std::vector<std::int64_t>> out;
    for (const BackendEventRow &row : backendEventRows(blocks, table, &record, method))
        if (row.link && row.link->exact)
            out[{ row.block, row.event }] = row.link->debugHandles;
    return out;
}

const BackendGraphLinks::Linked *BackendGraphLinks::find(std::size_t block, std::size_t event) const
{
    auto it = std::lower_bound(exact.begin(), exact.end(), std::pair(block, event),
        [](const Linked &a, const std::pair<std::size_t, std::size_t> &k) { return std::pair(a.block, a.event) < k; });
    return it != exact.end() && it->block == block && it->event == event ? &*it : nullptr;
}

BackendGraphLinks backendGraphLinks(const std::vector<EventBlock> &blocks, const BackendEventTable &table,
    const ETRecord &record, const std::string &method)
{
    return backendGraphLinks(blocks, table, [&record, &method](std::int32_t instruction, const BackendEvent &event) {
        return linkBackendEvent(record, method, instruction, event);
    });
}

BackendGraphLinks backendGraphLinks(const std::vector<EventBlock> &blocks, const BackendEventTable &table,
    const BackendLinker &link, const std::function<bool(std::int32_t instructionId)> &wanted)
{
    BackendGraphLinks out;
    std::map<std::pair<std::size_t, std::size_t>, std::size_t> callOf; // (block, event) -> DELEGATE_CALL
    for (const DelegateCallEvents &c : groupDelegateCalls(blocks, table))
        for (std::size_t w : c.work)
            callOf[{ c.block, w }] = c.delegateCall;
    for (const BackendEventRow &row : backendEventRows(blocks, table, link)) {
        const Event &ev = blocks[row.block].events[row.event];
        if (wanted && !row.link && row.decoded->kind == BackendEventKind::Operator
            && !backendEventIdentifier(*row.decoded) && wanted(ev.instructionId))
            ++out.unidentified;
        // The Inspector's own link of an integer id (Neutron's) already places the event; a
        // string id (Vulkan's) it can only give its instruction's handles, which the exact link beats.
        const Event &e = blocks[row.block].events[row.event];
        if (!row.link || (std::holds_alternative<std::int64_t>(e.delegateDebugIdentifier()) && e.debugHandles()))
            continue;
        if (!row.link->exact) {
            ++out.inexact;
            continue;
        }
        BackendGraphLinks::Linked l;
        l.block = row.block;
        l.event = row.event;
        if (auto it = callOf.find({ row.block, row.event }); it != callOf.end())
            l.delegateCall = it->second;
        l.debugHandles = row.link->debugHandles;
        l.instruction = e.instructionId;
        l.payloadNodes = row.link->payloadNodes;
        out.exact.push_back(std::move(l));
    }
    return out;
}

namespace {
nlohmann::json statsJson(const Event &e)
{
    nlohmann::json o = nlohmann::json::object();
    o["runs"] = e.runCount();
    if (e.perfData) {
        o["avg"] = e.perfData->avg;
        o["p50"] = e.perfData->p50;
    } else {
        o["avg"] = nullptr;
        o["p50"] = nullptr;
    }
    return o;
}
} // namespace

namespace {
// The fields a decoded value gives, as JSON members without the braces (cached per value).
std::string decodedMembers(const BackendEvent &d)
{
    using nlohmann::json;
    json o = json::object();
    o["backend"] = backendKindName(d.backend);
    o["kind"] = backendEventKindName(d.kind);
    o["backend_op"] = backendOpLabel(d);
    const auto str = [&o](const char *key, const std::string &v) {
        if (!v.empty())
            o[key] = v;
    };
    const auto num = [&o](const char *key, const std::optional<std::int64_t> &v) {
        if (v)
            o[key] = *v;
    };
    str("op", d.op);
    str("kernel", d.kernel);
    num("operator_id", d.operatorId);
    num("dispatch_id", d.dispatchId);
    num("delegate_node_id", d.delegateNodeId);
    if (!d.args.empty()) {
        json args = json::array();
        for (const VulkanArg &a : d.args) {
            json ja = { { "type", a.type }, { "value_ref", a.valueRef } };
            if (!a.dtype.empty())
                ja["dtype"] = a.dtype;
            if (a.sizes)
                ja["sizes"] = *a.sizes;
            if (!a.storage.empty())
                ja["storage"] = a.storage;
            if (a.packedDim)
                ja["packed_dim"] = *a.packedDim;
            if (!a.value.empty())
                ja["value"] = a.value;
            args.push_back(std::move(ja));
        }
        o["args"] = std::move(args);
    }
    if (d.stagingCopy)
        o["staging_copy"] = true;
    str("layout", d.layout);
    str("dtype", d.dtype);
    str("variant", d.variant);
    num("instance", d.instance);
    str("phase", d.phase);
    if (d.kind == BackendEventKind::Phase) {
        o["whole_call"] = d.wholeCall;
        o["init"] = d.init;
    }
    num("kernel_index", d.kernelIndex);
    if (d.functionCode)
        o["function_code"] = *d.functionCode;
    const std::string text = jsonCompact(o);
    return text.substr(1, text.size() - 2);
}

void appendJson(fmt::memory_buffer &b, const nlohmann::json &j)
{
    b.append(std::string_view(jsonCompact(j)));
}
} // namespace

bool writeBackendEventsJson(const std::vector<EventBlock> &blocks, const BackendEventTable &table,
    const ETRecord *record, const std::string &method, const TextSink &sink, const PayloadNodeOf &payloadNode)
{
    using nlohmann::json;
    ChunkedWriter w(sink);
    auto &b = w.buf();
    b.append(std::string_view("{\"unit\": "));
    appendJson(b, blocks.empty() ? std::string("ms") : std::string(timeScaleName(blocks.front().targetTimeScale)));
    b.append(std::string_view(",\n\"events\": ["));
    std::map<const BackendEvent *, std::string> members;
    bool first = true;
    for (const BackendEventRow &row : backendEventRows(blocks, table, record, method)) {
        const EventBlock &block = blocks[row.block];
        const Event &e = block.events[row.event];
        json o = { { "block", row.block }, { "block_name", block.name }, { "event", row.event },
            { "name", std::string(e.name) }, { "instruction_id", e.instructionId } };
        o.update(statsJson(e));
        if (row.link)
            o["node"] = { { "identifier", row.link->identifier }, { "debug_handles", row.link->debugHandles },
                { "nodes", row.link->nodeNames }, { "op_types", row.link->opTypes }, { "exact", row.link->exact } };
        if (payloadNode)
            if (const std::optional<PayloadNodeRef> n = payloadNode(row.block, row.event))
                o["payload_node"] = { { "delegate", n->delegate }, { "node", n->node }, { "op", n->op },
                    { "label", n->label }, { "placed_by", n->placedBy }, { "details", n->details } };
        auto [it, fresh] = members.try_emplace(row.decoded);
        if (fresh)
            it->second = decodedMembers(*row.decoded);
        const std::string own = jsonCompact(o);
        b.append(std::string_view(first ? "\n" : ",\n"));
        first = false;
        b.append(std::string_view(own).substr(0, own.size() - 1));
        b.push_back(',');
        b.append(std::string_view(it->second));
        b.push_back('}');
        if (!w.maybeFlush())
            return false;
    }
    b.append(std::string_view("],\n\"delegate_calls\": ["));
    first = true;
    for (const DelegateCallEvents &c : groupDelegateCalls(blocks, table)) {
        const auto &evs = blocks[c.block].events;
        json o = { { "block", c.block }, { "event", c.delegateCall }, { "instruction_id", c.instructionId },
            { "backend", backendKindName(c.backend) } };
        o.update(statsJson(evs[c.delegateCall]));
        if (c.wholeCall) {
            json wc = { { "event", *c.wholeCall }, { "name", std::string(evs[*c.wholeCall].name) } };
            wc.update(statsJson(evs[*c.wholeCall]));
            o["whole_call"] = std::move(wc);
        }
        json phases = json::array();
        for (std::size_t p : c.phases) {
            json jp = { { "event", p }, { "name", std::string(evs[p].name) } };
            jp.update(statsJson(evs[p]));
            phases.push_back(std::move(jp));
        }
        o["phases"] = std::move(phases);
        o["work"] = c.work;
        b.append(std::string_view(first ? "\n" : ",\n"));
        first = false;
        appendJson(b, o);
        if (!w.maybeFlush())
            return false;
    }
    b.append(std::string_view("]}\n"));
    return w.flush();
}

std::string formatBackendEventsJson(const std::vector<EventBlock> &blocks, const BackendEventTable &table,
    const ETRecord *record, const std::string &method, const PayloadNodeOf &payloadNode)
{
    std::string out;
    writeBackendEventsJson(
        blocks, table, record, method,
        [&out](std::string_view chunk) {
            out.append(chunk);
            return true;
        },
        payloadNode);
    return out;
}

} // namespace etscope
