#pragma once

// The self-contained HTML report: one file, no network, no external files. Inline CSS, inline
// SVG charts and a few lines of inline JS (table sorting) that the page does not need to read.
// Everything taken from files is escaped.

#include "export/reportdata.h"
#include "export/reportdecompose.h"
#include "export/reportgraphdiff.h"
#include "session/session.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace etscope {

struct History;
struct ProgramDiff;

struct ReportInputs {
    std::vector<std::shared_ptr<const Session>> sessions; // at least one
    std::optional<ReportGap> gap;
    std::optional<ReportDiff> diff;
    std::optional<ReportDecomposition> decomposition; // quantization / kernel error per op (issue 30)
    std::optional<ReportGraphDiff> graphDiff; // two graphs of the ETRecord layer by layer (issue 30)
    std::shared_ptr<const History> history; // many recordings over time, change points (issue 38)
    std::shared_ptr<const ProgramDiff> programDiff; // two builds of one model (issue 37 item 4)
    std::string generator = "etscope"; // shown in the footer
    // The runs the charts answer for (session/scope.h), named above them; the Runs section
    // shows every phase. Default: the whole recording.
    Scope scope;
    // The runs' wall time in ms (e.g. from the runner's log), for the coverage section.
    std::optional<double> wallMs;
};

std::string renderHtmlReport(const ReportInputs &in);

// A page of its own with the program-diff section alone (`etscope-cli program-diff --html`): the
// report's style, no recording.
std::string renderProgramDiffPage(const ProgramDiff &d, const std::string &generator);

} // namespace etscope
