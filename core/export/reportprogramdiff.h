#pragma once

// The report's program-diff section (issue 37 item 4): two builds of one model compared, as
// `etscope-cli program-diff` computes them (core/program/programdiff.h) — the file sizes, the
// size per part, constants by content, and per method its inputs and outputs, memory-plan peak,
// the operators that changed between portable kernels and delegates and the delegates added,
// removed, split or merged. Two programs of different models show the refusal and nothing else.
// Plain tables (no SVG): the window shows the same HTML in its Size panel.

#include <string>

namespace etscope {

struct ProgramDiff;

// <section id="program-diff">.
std::string programDiffSection(const ProgramDiff &d);
// The outcome for the report's summary at the top of the page.
std::string programDiffSummaryLine(const ProgramDiff &d);

} // namespace etscope
