#include "export/reportbackend.h"

#include "common/jsontext.h"
#include "common/numberformat.h"
#include "etrecord/backendlink.h"
#include "events/backendevents.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace etscope {

std::vector<BackendReportRow> backendReportRows(const Session &s)
{
    const BackendEventTable table = decodeBackendEvents(s.blocks);
    if (table.empty())
        return {};
    const BackendShareRows shares = backendShareRows(s.blocks, table);
    std::vector<BackendReportRow> rows(shares.names().size());
    for (std::size_t i = 0; i < rows.size(); ++i)
        rows[i].name = shares.names()[i];
    const std::vector<BackendEventRow> linked
        = backendEventRows(s.blocks, table, s.etrecord.get(), s.inputs.link.method);
    const PayloadEventLinks payload = payloadEventLinks(s, table);
    for (const BackendEventRow &r : linked) {
        const int row = shares.row(r.block, r.event);
        if (row < 0)
            continue;
        BackendReportRow &out = rows[std::size_t(row)];
        if (const PayloadEventLink *p = payload.find(r.block, r.event)) {
            const std::string label = fmt::format("d{} {}", p->delegate, payload.nodeLabel(*p));
            if (std::find(out.payloadNodes.begin(), out.payloadNodes.end(), label) == out.payloadNodes.end())
                out.payloadNodes.push_back(label);
            out.placedByOrder += p->basis == PayloadLinkBasis::OrderAndKind ? 1 : 0;
        }
        if (out.backend.empty())
            out.backend = backendKindName(r.decoded->backend);
        const Event &e = s.blocks[r.block].events[r.event];
        if (e.perfData)
            for (double v : e.perfData->raw) {
                out.total += v;
                ++out.calls;
            }
        if (!r.link)
            continue;
        if (!r.link->exact) {
            ++out.notExact;
            continue;
        }
        for (const std::string &n : r.link->nodeNames)
            if (std::find(out.nodes.begin(), out.nodes.end(), n) == out.nodes.end())
                out.nodes.push_back(n);
    }
    double total = 0;
    for (const BackendReportRow &r : rows)
        total += r.total;
    for (BackendReportRow &r : rows)
        r.share = total > 0 ? r.total / total : 0;
    rows.erase(
        std::remove_if(rows.begin(), rows.end(), [](const BackendReportRow &r) { return r.calls == 0; }), rows.end());
    std::sort(rows.begin(), rows.end(), [](const BackendReportRow &a, const BackendReportRow &b) {
        return a.total != b.total ? a.total > b.total : a.name < b.name;
    });
    return rows;
}

std::string backendReportSection(const Session &s)
{
    const std::vector<BackendReportRow> rows = backendReportRows(s);
    if (rows.empty())
        return {};
    const std::string unit(timeScaleName(s.inputs.time.target));
    const auto num = [](double v) { return std::isfinite(v) ? significantText(v) : std::string("–"); };
    std::string h = "<section id=\"backend\"><h2>Backend operators <span class=\"muted\">(decoded by etscope from "
                    "the backends' own events)</span></h2><p class=\"muted\">Each Vulkan dispatch, XNNPACK "
                    "operator, Neutron kernel and host phase under the operator etscope reads from its name, with "
                    "its own time summed over every run; host phases that wrap other counted events "
                    "(ETVK_EXECUTE, ETVK_COMPUTE_GRAPH_EXECUTE around dispatches, VGF_EXECUTE, "
                    "VGF_DISPATCH_AND_WAIT) are not counted. Graph node: the ETRecord node an exact link gives; "
                    "a link that is not exact is not attributed.";
    const bool withPayload
        = std::any_of(rows.begin(), rows.end(), [](const BackendReportRow &r) { return !r.payloadNodes.empty(); });
    if (withPayload)
        h += " Payload nodes: the nodes of the delegate's payload in the program (d<delegate> <node>) that the "
             "events ran; XNNPACK logs no node id, its operators are placed by the runtime's operator order and "
             "kind (marked \"by order\").";
    h += "</p>";
    h += fmt::format(R"(<table class="sortable" id="backend-ops"><thead><tr><th>backend operator</th><th>backend</th>)"
                     R"(<th>total ({})</th><th>share</th><th>calls</th><th>graph node</th>{}</tr></thead><tbody>)",
        htmlEscaped(unit), withPayload ? "<th>payload nodes</th>" : "");
    for (const BackendReportRow &r : rows) {
        std::string nodes = fmt::format("{}", fmt::join(r.nodes, ", "));
        if (r.notExact)
            nodes += fmt::format("{}{} not attributed (link not exact)", nodes.empty() ? "" : "; ", r.notExact);
        std::string payloadCell;
        if (withPayload) {
            std::string text = fmt::format("{}", fmt::join(r.payloadNodes, "; "));
            if (r.placedByOrder > 0)
                text += " (by order)";
            payloadCell = "<td>" + htmlEscaped(text) + "</td>";
        }
        h += fmt::format(
            R"(<tr><td>{}</td><td>{}</td><td class="n" data-v="{}">{}</td><td class="n" data-v="{}">{} %</td>)"
            R"(<td class="n" data-v="{}">{}</td><td>{}</td>{}</tr>)",
            htmlEscaped(r.name), htmlEscaped(r.backend), r.total, num(r.total), r.share,
            significantText(100 * r.share, 3), r.calls, r.calls, htmlEscaped(nodes), payloadCell);
    }
    h += "</tbody></table></section>\n";
    return h;
}

} // namespace etscope
