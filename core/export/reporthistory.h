#pragma once

// The report's History section (issue 38 item 1): many recordings of one program over time
// (analysis/history.h, docs/history.md), as `etscope-cli history` computes them. Every change
// point as a table row — series, before → after with their 95 % intervals, the change, the
// recordings on either side, p — and an inline SVG trend per series that changed: each
// recording's p50 with its p10–p90 band, the change points as vertical markers and the mean before
// and after each. Series without a change are counted, not drawn.

#include <string>

namespace etscope {

struct History;

// <section id="history">.
std::string historySection(const History &h);

} // namespace etscope
