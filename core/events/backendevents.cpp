#include "events/backendevents.h"
#include "common/jsontext.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <tuple>

namespace etscope {

namespace {
bool startsWith(std::string_view s, std::string_view prefix)
{
    return s.substr(0, prefix.size()) == prefix;
}

std::optional<std::int64_t> parseInt(std::string_view s)
{
    std::int64_t v = 0;
    const auto *end = s.data() + s.size();
    auto [p, ec] = std::from_chars(s.data(), end, v);
    if (ec != std::errc() || p != end || s.empty())
        return std::nullopt;
    return v;
}

std::optional<std::int64_t> jsonInt(const nlohmann::json &o, const char *key)
{
    auto it = o.find(key);
    if (it == o.end() || !it->is_number_integer())
        return std::nullopt;
    return it->get<std::int64_t>();
}

std::string jsonString(const nlohmann::json &o, const char *key)
{
    auto it = o.find(key);
    return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A value as the backend's stream wrote it: lists as "[1, 2]", numbers as they print.
std::string valueText(const nlohmann::json &v)
{
    if (v.is_array()) {
        std::string s = "[";
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (i)
                s += ", ";
            s += valueText(v[i]);
        }
        return s + "]";
    }
    if (v.is_string())
        return v.get<std::string>();
    return jsonCompact(v);
}

// Staging shaders (backends/vulkan/runtime/graph/ops/utils/StagingUtils.cpp): nchw_to_image*,
// nchw_to_buffer*, nchw_to_bitw8_image*, image_to_nchw*, buffer_to_nchw*, bitw8_image_to_nchw*.
bool isStagingKernel(std::string_view kernel)
{
    return startsWith(kernel, "nchw_to_") || kernel.find("_to_nchw") != std::string_view::npos;
}

// Value of `"key": <int>` or `"key": "<text>"` searched in raw text, for names that are not
// valid JSON (a DOUBLE argument printed as inf or nan by an ostream).
std::optional<std::string_view> rawField(std::string_view text, std::string_view key, bool quoted)
{
    const std::string pattern = "\"" + std::string(key) + "\": ";
    const auto at = text.find(pattern);
    if (at == std::string_view::npos)
        return std::nullopt;
    std::string_view rest = text.substr(at + pattern.size());
    if (quoted) {
        if (rest.empty() || rest.front() != '"')
            return std::nullopt;
        rest.remove_prefix(1);
        const auto end = rest.find('"');
        return end == std::string_view::npos ? std::nullopt : std::optional(rest.substr(0, end));
    }
    std::size_t n = 0;
    while (n < rest.size() && (rest[n] == '-' || (rest[n] >= '0' && rest[n] <= '9')))
        ++n;
    return n ? std::optional(rest.substr(0, n)) : std::nullopt;
}

std::optional<std::int64_t> rawInt(std::string_view text, std::string_view key)
{
    auto v = rawField(text, key, false);
    return v ? parseInt(*v) : std::nullopt;
}

void finishDispatch(BackendEvent &ev)
{
    if (!isStagingKernel(ev.kernel))
        return;
    ev.stagingCopy = true;
    ev.op.clear();
    ev.delegateNodeId.reset();
    ev.args.clear();
}
} // namespace

const char *backendKindName(BackendKind kind)
{
    switch (kind) {
    case BackendKind::Vulkan:
        return "Vulkan";
    case BackendKind::Vgf:
        return "VGF";
    case BackendKind::Neutron:
        return "Neutron";
    case BackendKind::Xnnpack:
        return "XNNPACK";
    case BackendKind::None:
        break;
    }
    return "";
}

const char *backendEventKindName(BackendEventKind kind)
{
    switch (kind) {
    case BackendEventKind::Dispatch:
        return "dispatch";
    case BackendEventKind::Phase:
        return "phase";
    case BackendEventKind::Kernel:
        return "kernel";
    case BackendEventKind::ProfilingDump:
        return "profiling dump";
    case BackendEventKind::Operator:
        return "operator";
    case BackendEventKind::None:
        break;
    }
    return "";
}

BackendKind backendKindFromName(std::string_view name)
{
    // Backend ids as each backend registers itself (Backend{"<id>", ...} in its runtime file).
    if (name == "VulkanBackend")
        return BackendKind::Vulkan;
    if (name == "VgfBackend")
        return BackendKind::Vgf;
    if (name == "NeutronBackend")
        return BackendKind::Neutron;
    if (name == "XnnpackBackend")
        return BackendKind::Xnnpack;
    return BackendKind::None;
}

std::optional<std::int64_t> backendEventIdentifier(const BackendEvent &event)
{
    return event.delegateNodeId ? event.delegateNodeId : event.kernelIndex;
}

std::string backendOpLabel(const BackendEvent &ev)
{
    switch (ev.kind) {
    case BackendEventKind::None:
        return {};
    case BackendEventKind::Phase: {
        std::string words = ev.phase;
        std::transform(words.begin(), words.end(), words.begin(),
            [](char c) { return c == '_' ? ' ' : static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); });
        return "phase: " + words;
    }
    case BackendEventKind::Dispatch:
        if (!ev.op.empty())
            return ev.op;
        return ev.stagingCopy ? "staging copy (" + ev.kernel + ")" : ev.kernel;
    case BackendEventKind::Kernel:
    case BackendEventKind::ProfilingDump:
    case BackendEventKind::Operator:
        return ev.op;
    }
    return {};
}

std::string vulkanArgText(const VulkanArg &a)
{
    std::string s = a.type;
    if (!a.dtype.empty())
        s += " " + a.dtype;
    if (a.sizes) {
        s += " [";
        for (std::size_t i = 0; i < a.sizes->size(); ++i)
            s += (i ? ", " : "") + std::to_string((*a.sizes)[i]);
        s += "]";
    }
    if (!a.storage.empty())
        s += " " + a.storage;
    if (a.packedDim)
        s += " packed_dim " + std::to_string(*a.packedDim);
    if (!a.value.empty())
        s += " " + a.value;
    return s;
}

std::string describeBackendEvent(const BackendEvent &ev)
{
    if (!ev.decoded())
        return {};
    std::string s = std::string("backend: ") + backendKindName(ev.backend) + "\nkind: " + backendEventKindName(ev.kind);
    const auto line = [&s](std::string_view key, const std::string &value) {
        if (!value.empty())
            s += "\n" + std::string(key) + ": " + value;
    };
    const auto num = [&line](std::string_view key, const std::optional<std::int64_t> &v) {
        if (v)
            line(key, std::to_string(*v));
    };
    line("operator", ev.op);
    line("kernel", ev.kernel);
    num("operator id", ev.operatorId);
    num("dispatch id", ev.dispatchId);
    num("delegate node id", ev.delegateNodeId);
    if (ev.stagingCopy)
        line("note", "staging copy (its operator field names the last operator logged, not its own)");
    for (std::size_t i = 0; i < ev.args.size(); ++i)
        line("arg " + std::to_string(i), vulkanArgText(ev.args[i]));
    line("layout", ev.layout);
    line("dtype", ev.dtype);
    line("variant", ev.variant);
    num("instance", ev.instance);
    line("phase", ev.phase);
    if (ev.wholeCall)
        line("spans", "the whole delegate call");
    if (ev.init)
        line("when", "delegate initialisation");
    num("kernel index", ev.kernelIndex);
    if (ev.functionCode)
        line("function code", std::to_string(*ev.functionCode));
    return s;
}

// backends/vulkan/runtime/VulkanBackend.cpp (execute): "{" + kernel_name + ", \"dispatch_id\": "
// + dispatch_id + "}", where kernel_name is the string DispatchNode::encode built:
// ["\"operator\": {" + operator_json + "}, "] "\"kernel_name\": \"<shader>\", \"operator_id\": <n>",
// and operator_json is make_operator_json (graph/Logging.cpp): "\"name\": \"<op>\",
// \"delegate_node_id\": <id>, \"args\": [<make_arg_json>...]".
std::optional<BackendEvent> decodeVulkanDispatch(std::string_view name)
{
    if (!startsWith(name, "{") || name.find("\"kernel_name\": ") == std::string_view::npos)
        return std::nullopt;
    BackendEvent ev;
    ev.backend = BackendKind::Vulkan;
    ev.kind = BackendEventKind::Dispatch;
    const nlohmann::json j = nlohmann::json::parse(name, nullptr, false);
    if (j.is_object()) {
        ev.kernel = jsonString(j, "kernel_name");
        ev.operatorId = jsonInt(j, "operator_id");
        ev.dispatchId = jsonInt(j, "dispatch_id");
        if (auto op = j.find("operator"); op != j.end() && op->is_object()) {
            ev.op = jsonString(*op, "name");
            ev.delegateNodeId = jsonInt(*op, "delegate_node_id");
            if (auto args = op->find("args"); args != op->end() && args->is_array())
                for (const auto &a : *args) {
                    if (!a.is_object())
                        continue;
                    VulkanArg arg;
                    arg.type = jsonString(a, "type");
                    arg.valueRef = jsonInt(a, "value_ref").value_or(-1);
                    arg.dtype = jsonString(a, "dtype");
                    if (auto s = a.find("sizes"); s != a.end() && s->is_array()) {
                        std::vector<std::int64_t> sizes;
                        for (const auto &d : *s)
                            if (d.is_number_integer())
                                sizes.push_back(d.get<std::int64_t>());
                        arg.sizes = std::move(sizes);
                    }
                    arg.storage = jsonString(a, "storage");
                    arg.packedDim = jsonInt(a, "packed_dim");
                    if (auto v = a.find("value"); v != a.end())
                        arg.value = valueText(*v);
                    else if (auto vs = a.find("values"); vs != a.end())
                        arg.value = valueText(*vs);
                    ev.args.push_back(std::move(arg));
                }
        }
    } else {
        // Not valid JSON (a double argument printed as "inf"): the fields that are still plain.
        if (auto k = rawField(name, "kernel_name", true))
            ev.kernel = std::string(*k);
        ev.operatorId = rawInt(name, "operator_id");
        ev.dispatchId = rawInt(name, "dispatch_id");
        if (name.find("\"operator\": {") != std::string_view::npos) {
            if (auto op = rawField(name, "name", true))
                ev.op = std::string(*op);
            ev.delegateNodeId = rawInt(name, "delegate_node_id");
        }
    }
    if (ev.kernel.empty())
        return std::nullopt;
    finishDispatch(ev);
    return ev;
}

// ETVK_*: backends/vulkan/runtime/VulkanBackend.cpp (ETVK_EXECUTE around ETVK_COPY_INPUTS,
// ETVK_RESIZE, ETVK_COMPUTE_GRAPH_EXECUTE, ETVK_COPY_OUTPUTS). VGF_*: backends/arm/runtime/
// VGFBackend.cpp (VGF_EXECUTE around VGF_COPY_INPUTS, VGF_DISPATCH_AND_WAIT, VGF_NEURAL_STATISTICS,
// VGF_COPY_OUTPUTS; VGF_INIT_* in init) and VGFSetup.cpp (VGF_QUEUE_SUBMIT_AND_WAIT_FENCE,
// VGF_TIMESTAMP_QUERY_READBACK inside the dispatch; VGF_INIT_* while initialising).
std::optional<BackendEvent> decodeHostPhase(std::string_view name)
{
    BackendEvent ev;
    std::string_view rest;
    if (startsWith(name, "ETVK_")) {
        ev.backend = BackendKind::Vulkan;
        rest = name.substr(5);
    } else if (startsWith(name, "VGF_")) {
        ev.backend = BackendKind::Vgf;
        rest = name.substr(4);
    } else {
        return std::nullopt;
    }
    if (rest.empty() || !std::all_of(rest.begin(), rest.end(), [](char c) {
            return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        }))
        return std::nullopt;
    ev.kind = BackendEventKind::Phase;
    ev.phase = std::string(rest);
    ev.wholeCall = rest == "EXECUTE";
    ev.init = ev.backend == BackendKind::Vgf && startsWith(rest, "INIT_");
    return ev;
}

// backends/xnnpack/runtime/profiling/XNNProfiler.cpp (submit_trace): the operator name XNNPACK
// reports (xnn_profile_info_operator_name: "<operator> (<layout>[, <dtypes>])[ <microkernel>]")
// + " #" + the count of operators of that name so far, from 1.
std::optional<BackendEvent> decodeXnnpackOperator(std::string_view name)
{
    const auto hash = name.rfind(" #");
    if (hash == std::string_view::npos)
        return std::nullopt;
    const auto instance = parseInt(name.substr(hash + 2));
    if (!instance || *instance < 1)
        return std::nullopt;
    const std::string_view rest = name.substr(0, hash);
    const auto open = rest.find(" (");
    if (open == std::string_view::npos || open == 0)
        return std::nullopt;
    const auto close = rest.find(')', open);
    if (close == std::string_view::npos)
        return std::nullopt;
    const std::string_view inside = rest.substr(open + 2, close - open - 2);
    std::string_view after = rest.substr(close + 1);
    if (!after.empty() && after.front() != ' ')
        return std::nullopt;
    if (!after.empty())
        after.remove_prefix(1);
    if (inside.empty() || inside.find('(') != std::string_view::npos)
        return std::nullopt;
    BackendEvent ev;
    ev.backend = BackendKind::Xnnpack;
    ev.kind = BackendEventKind::Operator;
    ev.op = std::string(rest.substr(0, open));
    const auto comma = inside.find(", ");
    ev.layout = std::string(inside.substr(0, comma));
    if (comma != std::string_view::npos)
        ev.dtype = std::string(inside.substr(comma + 2));
    if (ev.layout.empty() || !std::all_of(ev.layout.begin(), ev.layout.end(), [](char c) {
            return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        }))
        return std::nullopt;
    ev.variant = std::string(after);
    ev.instance = *instance;
    return ev;
}

// backends/nxp/runtime/NeutronBackend.cpp (execute): after the inference, one event per
// KOPC_CALLARGS entry of the profile with name nullptr, delegate_debug_id = a running index and
// 1 byte of metadata, the start event's function code; then a last one for the profile dump.
// backends/nxp/tests/generic_tests/test_profiling.py reads code 0 as "Profiling dump" and other
// codes as "Neutron kernel <code>".
std::optional<BackendEvent> decodeNeutronKernel(std::int64_t id, std::span<const std::string> metadatas)
{
    if (id < 0 || metadatas.empty())
        return std::nullopt;
    for (const std::string &m : metadatas)
        if (m.size() != 1)
            return std::nullopt;
    BackendEvent ev;
    ev.backend = BackendKind::Neutron;
    ev.kernelIndex = id;
    ev.functionCode = static_cast<unsigned char>(metadatas.front()[0]);
    if (*ev.functionCode == 0) {
        ev.kind = BackendEventKind::ProfilingDump;
        ev.op = "Profiling dump";
    } else {
        ev.kind = BackendEventKind::Kernel;
        ev.op = "Neutron kernel " + std::to_string(*ev.functionCode);
    }
    return ev;
}

BackendEvent decodeBackendEvent(const Event &e, std::string_view backendName)
{
    if (!e.isDelegatedOp)
        return {};
    if (backendName.empty() && e.delegateBackendName())
        backendName = *e.delegateBackendName();
    const BackendKind known = backendKindFromName(backendName);
    // A backend we know nothing about (named, but none of ours): no convention applies.
    if (!backendName.empty() && known == BackendKind::None)
        return {};
    const auto allows = [known](BackendKind k) { return known == BackendKind::None || known == k; };
    const DelegateDebugId &id = e.delegateDebugIdentifier();
    std::optional<BackendEvent> ev;
    if (const auto *s = std::get_if<std::string>(&id)) {
        if (startsWith(*s, "{")) {
            if (allows(BackendKind::Vulkan))
                ev = decodeVulkanDispatch(*s);
        } else if (startsWith(*s, "ETVK_") || startsWith(*s, "VGF_")) {
            ev = decodeHostPhase(*s);
            if (ev && !allows(ev->backend))
                ev.reset();
        } else if (allows(BackendKind::Xnnpack)) {
            ev = decodeXnnpackOperator(*s);
        }
    } else if (const auto *i = std::get_if<std::int64_t>(&id)) {
        if (allows(BackendKind::Neutron))
            ev = decodeNeutronKernel(*i, e.delegateDebugMetadatas());
    }
    return ev ? std::move(*ev) : BackendEvent {};
}

const BackendEvent *BackendEventTable::find(std::size_t block, std::size_t event) const
{
    auto it = std::lower_bound(m_events.begin(), m_events.end(), std::pair(block, event),
        [](const Entry &a, const std::pair<std::size_t, std::size_t> &k) { return std::pair(a.block, a.event) < k; });
    if (it == m_events.end() || it->block != block || it->event != event)
        return nullptr;
    return it->decoded;
}

BackendEventTable decodeBackendEvents(const std::vector<EventBlock> &blocks, std::optional<std::size_t> onlyBlock)
{
    BackendEventTable table;
    // A string-id event's decoding depends only on its (interned) name and backend; an int-id
    // one (Neutron) on its id and metadata byte: decode and store each distinct one once.
    std::vector<std::string> backends; // distinct backend names seen, "" first
    backends.emplace_back();
    using NameKey = std::tuple<const char *, std::size_t, std::size_t>;
    std::map<NameKey, const BackendEvent *> byName;
    std::map<std::tuple<std::int64_t, int, std::size_t>, const BackendEvent *> byId;
    for (std::size_t b = onlyBlock.value_or(0); b < (onlyBlock ? *onlyBlock + 1 : blocks.size()) && b < blocks.size();
         ++b) {
        const auto &events = blocks[b].events;
        for (std::size_t i = 0; i < events.size(); ++i) {
            const Event &e = events[i];
            if (!e.isDelegatedOp)
                continue;
            const std::string &backend = e.delegateBackendName() ? *e.delegateBackendName() : backends.front();
            auto bit = std::find(backends.begin(), backends.end(), backend);
            if (bit == backends.end())
                bit = backends.insert(backends.end(), backend);
            const auto bk = static_cast<std::size_t>(bit - backends.begin());
            const BackendEvent *decoded = nullptr;
            if (std::holds_alternative<std::string>(e.delegateDebugIdentifier())) {
                auto [it, fresh] = byName.try_emplace(NameKey { e.name.data(), e.name.size(), bk }, nullptr);
                if (fresh) {
                    BackendEvent ev = decodeBackendEvent(e);
                    if (ev.decoded())
                        it->second = &table.m_decoded.emplace_back(std::move(ev));
                }
                decoded = it->second;
            } else {
                BackendEvent ev = decodeBackendEvent(e);
                if (ev.decoded()) {
                    auto [it, fresh]
                        = byId.try_emplace(std::tuple(ev.kernelIndex.value_or(-1), ev.functionCode.value_or(-1), bk));
                    if (fresh)
                        it->second = &table.m_decoded.emplace_back(std::move(ev));
                    decoded = it->second;
                }
            }
            if (decoded)
                table.m_events.push_back({ b, i, decoded });
        }
    }
    return table;
}

std::vector<DelegateCallEvents> groupDelegateCalls(
    const std::vector<EventBlock> &blocks, const BackendEventTable &table, std::optional<std::size_t> onlyBlock)
{
    std::vector<DelegateCallEvents> out;
    std::size_t next = 0; // table entries are sorted by block
    const auto &entries = table.entries();
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        while (next < entries.size() && entries[next].block < b)
            ++next;
        // A block without decoded events (most of a long LLM recording's) has no call to group.
        if ((onlyBlock && b != *onlyBlock) || next == entries.size() || entries[next].block != b)
            continue;
        const auto &events = blocks[b].events;
        std::map<std::pair<std::int32_t, std::int64_t>, std::vector<std::size_t>> calls;
        for (std::size_t i = 0; i < events.size(); ++i)
            if (!events[i].isDelegatedOp && events[i].name == kDelegateCall)
                calls[{ events[i].instructionId, events[i].chainIndex }].push_back(i);
        std::map<std::size_t, std::size_t> groupOfCall; // DELEGATE_CALL event -> index in out
        for (; next < entries.size() && entries[next].block == b; ++next) {
            const auto &entry = entries[next];
            const Event &e = events[entry.event];
            auto it = calls.find({ e.instructionId, e.chainIndex });
            if (it == calls.end())
                continue;
            const auto &cands = it->second;
            auto after = std::upper_bound(cands.begin(), cands.end(), entry.event);
            const std::size_t call = after != cands.end() ? *after : cands.back();
            auto [g, fresh] = groupOfCall.try_emplace(call, out.size());
            if (fresh) {
                DelegateCallEvents d;
                d.block = b;
                d.delegateCall = call;
                d.instructionId = events[call].instructionId;
                d.backend = entry.decoded->backend;
                out.push_back(std::move(d));
            }
            DelegateCallEvents &d = out[g->second];
            if (entry.decoded->kind != BackendEventKind::Phase)
                d.work.push_back(entry.event);
            else if (entry.decoded->wholeCall && !d.wholeCall)
                d.wholeCall = entry.event;
            else
                d.phases.push_back(entry.event);
        }
    }
    std::sort(out.begin(), out.end(), [](const DelegateCallEvents &a, const DelegateCallEvents &c) {
        return std::pair(a.block, a.delegateCall) < std::pair(c.block, c.delegateCall);
    });
    return out;
}

namespace {
// Whether phase `w` encloses `inner` when both are logged in one call, by the order each
// backend's execute opens and closes them (VulkanBackend.cpp execute: ETVK_EXECUTE around the
// other phases, the query pool's dispatches timed while ETVK_COMPUTE_GRAPH_EXECUTE waits on
// the graph; VGFBackend.cpp execute / init and VGFSetup.cpp execute_vgf: VGF_EXECUTE around the
// call's phases, VGF_DISPATCH_AND_WAIT around the fence wait and the timestamp readback,
// VGF_INIT_TOTAL around the other VGF_INIT_*).
bool encloses(const BackendEvent &w, const BackendEvent &inner)
{
    if (w.kind != BackendEventKind::Phase || inner.backend != w.backend || &inner == &w)
        return false;
    if (w.wholeCall)
        return !inner.init && !inner.wholeCall;
    if (w.backend == BackendKind::Vulkan && w.phase == "COMPUTE_GRAPH_EXECUTE")
        return inner.kind == BackendEventKind::Dispatch;
    if (w.backend == BackendKind::Vgf && w.phase == "DISPATCH_AND_WAIT")
        return inner.kind == BackendEventKind::Phase
            && (inner.phase == "QUEUE_SUBMIT_AND_WAIT_FENCE" || inner.phase == "TIMESTAMP_QUERY_READBACK");
    if (w.backend == BackendKind::Vgf && w.phase == "INIT_TOTAL")
        return inner.init && inner.phase != w.phase;
    return false;
}
} // namespace

std::optional<std::string> backendShareName(const BackendEvent &event, std::span<const BackendEvent *const> sameCall)
{
    if (!event.decoded())
        return std::nullopt;
    for (const BackendEvent *inner : sameCall)
        if (inner && encloses(event, *inner))
            return std::nullopt;
    return backendOpLabel(event);
}

int BackendShareRows::row(std::size_t block, std::size_t event) const
{
    auto it = std::lower_bound(m_entries.begin(), m_entries.end(), std::pair(block, event),
        [](const Entry &a, const std::pair<std::size_t, std::size_t> &k) { return std::pair(a.block, a.event) < k; });
    if (it == m_entries.end() || it->block != block || it->event != event)
        return kNotDecoded;
    return it->row;
}

BackendShareRows backendShareRows(const std::vector<EventBlock> &blocks, const BackendEventTable &table)
{
    BackendShareRows out;
    const auto &entries = table.entries();
    out.m_entries.reserve(entries.size());
    for (const auto &e : entries)
        out.m_entries.push_back({ e.block, e.event, BackendShareRows::kNotCounted });
    std::vector<bool> grouped(entries.size(), false);
    const auto indexOf = [&entries](std::size_t block, std::size_t event) {
        auto it = std::lower_bound(entries.begin(), entries.end(), std::pair(block, event),
            [](const BackendEventTable::Entry &a, const std::pair<std::size_t, std::size_t> &k) {
                return std::pair(a.block, a.event) < k;
            });
        return static_cast<std::size_t>(it - entries.begin());
    };
    std::map<std::string, int, std::less<>> ids;
    std::vector<std::size_t> members;
    std::vector<const BackendEvent *> decoded;
    const auto nameCall = [&] {
        decoded.clear();
        for (std::size_t m : members)
            decoded.push_back(entries[m].decoded);
        for (std::size_t m : members) {
            grouped[m] = true;
            const std::optional<std::string> name = backendShareName(*entries[m].decoded, decoded);
            if (!name)
                continue;
            auto [it, fresh] = ids.try_emplace(*name, static_cast<int>(out.m_names.size()));
            if (fresh)
                out.m_names.push_back(*name);
            out.m_entries[m].row = it->second;
        }
    };
    for (const DelegateCallEvents &call : groupDelegateCalls(blocks, table)) {
        members.clear();
        if (call.wholeCall)
            members.push_back(indexOf(call.block, *call.wholeCall));
        for (std::size_t p : call.phases)
            members.push_back(indexOf(call.block, p));
        for (std::size_t w : call.work)
            members.push_back(indexOf(call.block, w));
        nameCall();
    }
    // Outside any DELEGATE_CALL (logged while the method loads): one call per block and instruction.
    std::map<std::pair<std::size_t, std::int32_t>, std::vector<std::size_t>> loose;
    for (std::size_t i = 0; i < entries.size(); ++i)
        if (!grouped[i])
            loose[{ entries[i].block, blocks[entries[i].block].events[entries[i].event].instructionId }].push_back(i);
    for (auto &[key, m] : loose) {
        members = std::move(m);
        nameCall();
    }
    return out;
}

std::int64_t HostClockOffsets::offset(std::size_t block, std::size_t event, std::size_t run) const
{
    const auto key = std::pair(block, event);
    const auto it = std::lower_bound(
        m_offsets.begin(), m_offsets.end(), key, [](const auto &entry, const auto &k) { return entry.first < k; });
    if (it == m_offsets.end() || it->first != key || run >= it->second.size())
        return 0;
    return it->second[run];
}

HostClockOffsets hostClockOffsets(const std::vector<EventBlock> &blocks)
{
    HostClockOffsets out;
    const BackendEventTable table = decodeBackendEvents(blocks);
    if (table.empty())
        return out;
    std::vector<double> moved(blocks.size(), 0); // largest |offset| per block, for the note
    std::vector<std::size_t> movedCount(blocks.size(), 0);
    for (const DelegateCallEvents &call : groupDelegateCalls(blocks, table)) {
        if (call.backend != BackendKind::Vulkan)
            continue;
        const EventBlock &b = blocks[call.block];
        std::optional<std::size_t> graph;
        for (std::size_t p : call.phases)
            if (const BackendEvent *e = table.find(call.block, p); e && e->phase == "COMPUTE_GRAPH_EXECUTE")
                graph = p;
        std::vector<std::size_t> dispatches;
        for (std::size_t w : call.work)
            if (const BackendEvent *e = table.find(call.block, w); e && e->kind == BackendEventKind::Dispatch)
                dispatches.push_back(w);
        if (!graph || dispatches.empty())
            continue;
        const Event &g = b.events[*graph];
        const std::size_t runs = g.runCount();
        if (!g.ticks || runs == 0)
            continue;
        std::vector<std::int64_t> offsets(runs, 0);
        bool any = false;
        for (std::size_t r = 0; r < runs; ++r) {
            std::uint64_t first = UINT64_MAX, last = 0;
            for (std::size_t d : dispatches) {
                const Event &e = b.events[d];
                if (!e.ticks || r >= e.runCount())
                    continue;
                first = std::min(first, e.startTimes()[r]);
                last = std::max(last, e.endTimes()[r]);
            }
            if (first == UINT64_MAX)
                continue;
            const std::uint64_t gs = g.startTimes()[r], ge = g.endTimes()[r];
            if (first >= gs && last <= ge)
                continue; // already on the host's clock
            // In double: the two clocks may sit at opposite ends of the tick range.
            const double off = double(gs) - double(first);
            offsets[r] = std::int64_t(std::llround(off));
            moved[call.block] = std::max(moved[call.block], std::abs(off));
            any = true;
        }
        if (!any)
            continue;
        for (std::size_t d : dispatches)
            out.m_offsets.emplace_back(std::pair(call.block, d), offsets);
        movedCount[call.block] += dispatches.size();
    }
    std::sort(
        out.m_offsets.begin(), out.m_offsets.end(), [](const auto &x, const auto &y) { return x.first < y.first; });
    for (std::size_t b = 0; b < blocks.size(); ++b)
        if (movedCount[b])
            out.m_notes.push_back(fmt::format(
                "block {} '{}': {} Vulkan dispatch event(s) on the GPU query pool's clock placed at their "
                "ETVK_COMPUTE_GRAPH_EXECUTE's start (offset up to {:.6g} source ticks); durations unchanged",
                b, blocks[b].name, movedCount[b], moved[b]));
    return out;
}

} // namespace etscope
