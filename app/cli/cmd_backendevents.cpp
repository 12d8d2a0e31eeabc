// `backend-events`: what backends wrote into their own events, decoded (backendevents.h): one row
// per Vulkan dispatch, XNNPACK operator, Neutron kernel or host phase, with the graph node an
// ETRecord links it to and, with the program, the node of the delegate's payload it ran; then
// each delegate call's host phases.
#include "command.h"

#include "etrecord/backendlink.h"
#include "events/inspectortable.h"

#include <fmt/format.h>

namespace etscope::cli {
namespace {

struct BackendEventsArgs {
    InputOptions in;
    std::string method = "forward", output;
    bool json = false;
};

std::string detailsText(const BackendEvent &d)
{
    switch (d.kind) {
    case BackendEventKind::Dispatch:
        return fmt::format("{} op#{} dispatch#{}", d.kernel, d.operatorId.value_or(-1), d.dispatchId.value_or(-1));
    case BackendEventKind::Operator:
        return fmt::format("{}{}{}{} #{}", d.layout, d.dtype.empty() ? "" : ", " + d.dtype,
            d.variant.empty() ? "" : " ", d.variant, d.instance.value_or(0));
    case BackendEventKind::Kernel:
    case BackendEventKind::ProfilingDump:
        return fmt::format("index {} code {}", d.kernelIndex.value_or(-1), d.functionCode.value_or(-1));
    case BackendEventKind::Phase:
        return d.wholeCall ? "whole call" : (d.init ? "init" : "");
    case BackendEventKind::None:
        break;
    }
    return {};
}

std::string nodeText(const std::optional<BackendNodeLink> &link)
{
    if (!link)
        return {};
    std::string s;
    for (const std::string &n : link->nodeNames)
        s += (s.empty() ? "" : ", ") + n;
    if (s.empty())
        s = "handles " + link->identifier;
    return link->exact ? s : s + " (not exact)";
}

// "1 FullyConnected qint8[8, 64] -> qint8[8, 128] (by order)"; "" when not placed.
std::string payloadNodeText(const std::optional<PayloadNodeRef> &n)
{
    if (!n)
        return {};
    return n->placedBy == payloadLinkBasisName(PayloadLinkBasis::NodeId) ? n->label : n->label + " (by order)";
}

const Registration backendEvents("backend-events",
    "Decode backends' own events (Vulkan dispatches, XNNPACK operators, Neutron kernels, ETVK_/VGF_ phases)",
    [](CLI::App &sub) {
        auto a = std::make_shared<BackendEventsArgs>();
        sub.add_option("--method,-m", a->method, "Method whose delegate_map links the events (default forward)");
        addInputOptions(sub, a->in);
        sub.add_flag("--json", a->json, "Print JSON instead of tables");
        sub.add_option("--output,-o", a->output, "Write to this file instead of stdout");
        return std::function<int()>([a] {
            a->in.link.method = a->method;
            auto session = loadScopedOrReport(a->in);
            if (!session)
                return kExitBadInput;
            const BackendEventTable table = decodeBackendEvents(session->blocks);
            const ETRecord *record = session->etrecord.get();
            // With the program: each event on the node of its delegate's payload that it ran.
            const PayloadEventLinks payload = payloadEventLinks(*session, table);
            const PayloadNodeOf nodeOf
                = [&payload](std::size_t block, std::size_t event) { return payloadNodeRef(payload, block, event); };
            if (a->json)
                // Streamed: one row per decoded event of every run that does not merge.
                return writeStreamed(a->output, [&](const TextSink &sink) -> Status {
                    if (!writeBackendEventsJson(session->blocks, table, record, a->method, sink, nodeOf))
                        return makeError(ErrorCode::Io, a->output.empty() ? "stdout" : a->output, "write failed");
                    return Ok {};
                });
            std::string out;
            if (table.empty()) {
                out = "No backend event follows a known convention (Vulkan, VGF, Neutron, XNNPACK).\n";
            } else {
                const std::string unit(a->in.targetTimeScale);
                std::vector<std::vector<GridCell>> rows;
                for (const BackendEventRow &r : backendEventRows(session->blocks, table, record, a->method)) {
                    const Event &e = session->blocks[r.block].events[r.event];
                    std::vector<GridCell> row { std::int64_t(r.block), std::int64_t(r.event),
                        std::int64_t(e.instructionId), std::string(backendKindName(r.decoded->backend)),
                        std::string(backendEventKindName(r.decoded->kind)), backendOpLabel(*r.decoded),
                        detailsText(*r.decoded), e.perfData ? GridCell(e.perfData->avg) : GridCell(),
                        nodeText(r.link) };
                    if (session->program)
                        row.emplace_back(payloadNodeText(nodeOf(r.block, r.event)));
                    rows.push_back(std::move(row));
                }
                std::vector<std::string> header { "block", "event", "instr", "backend", "kind", "backend op", "details",
                    "avg (" + unit + ")", "graph node" };
                if (session->program)
                    header.emplace_back("payload node");
                out = renderFancyGrid(header, rows);
                if (payload.byOrder > 0)
                    out += fmt::format("{} event{} placed on payload nodes by the runtime's operator order and kind "
                                       "(XNNPACK logs no node id; marked \"by order\")\n",
                        payload.byOrder, payload.byOrder == 1 ? "" : "s");
                for (const std::string &note : payload.notes)
                    out += note + "\n";
                std::vector<std::vector<GridCell>> phaseRows;
                for (const DelegateCallEvents &c : groupDelegateCalls(session->blocks, table)) {
                    const auto &evs = session->blocks[c.block].events;
                    const Event &call = evs[c.delegateCall];
                    const double callAvg = call.perfData ? call.perfData->avg : 0.0;
                    std::vector<std::size_t> shown = c.phases;
                    if (c.wholeCall)
                        shown.insert(shown.begin(), *c.wholeCall);
                    for (std::size_t p : shown) {
                        const Event &pe = evs[p];
                        const double avg = pe.perfData ? pe.perfData->avg : 0.0;
                        phaseRows.push_back({ std::int64_t(c.block), std::int64_t(c.delegateCall),
                            std::int64_t(c.instructionId), std::string(pe.name), avg,
                            callAvg > 0 ? GridCell(100.0 * avg / callAvg) : GridCell() });
                    }
                }
                if (!phaseRows.empty())
                    out += "\nHost phases of each delegate call (share of its DELEGATE_CALL's avg):\n"
                        + renderFancyGrid(
                            { "block", "call event", "instr", "phase", "avg (" + unit + ")", "share %" }, phaseRows);
            }
            if (auto s = writeOutput(a->output, out); !s)
                return reportError(s.error());
            return kExitOk;
        });
    });

} // namespace
} // namespace etscope::cli
