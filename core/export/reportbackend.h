#pragma once

// The HTML report's "Backend operators" section: the operators etscope decodes from the
// backends' own events (Vulkan dispatches, XNNPACK operators, Neutron kernels, host phases;
// events/backendevents.h), each with its own time over every run, its share, calls and — with an
// ETRecord — the graph nodes an exact link gives (etrecord/backendlink.h) and, with the program,
// the payload nodes its events ran (session.h payloadEventLinks). Rows follow the share
// tables' rule (backendShareName): host phases that wrap other counted events are left out.

#include "session/session.h"

#include <string>
#include <vector>

namespace etscope {

struct BackendReportRow {
    std::string name; // backendShareName ("aten.convolution.default", "phase: copy inputs")
    std::string backend; // "Vulkan", "XNNPACK", ...
    double total = 0; // sum over every run of every event in the row, in the session's unit
    double share = 0; // of the section's total, 0–1
    std::uint64_t calls = 0; // runs × events
    std::vector<std::string> nodes; // exactly linked graph nodes, in order of first sight
    std::size_t notExact = 0; // events of the row whose link is found but not exact
    // With the program: the payload nodes its events ran ("d0 1 FullyConnected qint8[8, 64] ->
    // qint8[8, 128]", delegate and node), in order of first sight; how each was placed.
    std::vector<std::string> payloadNodes;
    std::size_t placedByOrder = 0; // events of the row placed by the runtime's order (XNNPACK)
};

// Largest first (ties by name); empty when no event of `s` follows a known convention.
std::vector<BackendReportRow> backendReportRows(const Session &s);

// The section (`<section id="backend">…`), or "" when backendReportRows is empty.
std::string backendReportSection(const Session &s);

} // namespace etscope
