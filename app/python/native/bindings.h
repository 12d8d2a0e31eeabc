#pragma once

// The pybind11 bindings of etscope._native, one topic per file in app/python/native/, each
// called from module.cpp with one line, and the hooks they reach the session through (defined
// in session.cpp, which owns the Python Session type). What the topic files share besides:
// common.h (errors, text, NativeSession), values.h (core values as Python values).

#include "common/error.h"
#include "session/scope.h"

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <string>

namespace etscope {
struct Session;
struct SessionInputs;
} // namespace etscope

// The core session a Python Session object (etscope._native.Session) holds, and a new Python
// Session holding `session`.
std::shared_ptr<const etscope::Session> nativeSession(pybind11::handle native);
pybind11::object wrapNativeSession(std::shared_ptr<const etscope::Session> session);

// "method", "operators", "duration", "none" or "" (auto); prefill_runs overrides: the session's
// PhaseOptions. Throws ValueError on another name.
etscope::PhaseOptions phaseOptionsOf(const std::string &phaseBy, std::optional<std::size_t> prefillRuns);

// Raises OSError when a program or .ptd named does not exist (a typo is refused; a file that does
// not belong is left out with a warning).
void checkProgramInputs(const etscope::SessionInputs &inputs);

// Scope (issue 35): scoped sessions for to_dataframe / calculate_numeric_gap, the run table,
// diff per method and phase, input sniffing.
void bindScope(pybind11::module_ &m);

namespace etscope::python {

// program.cpp: program_json, program_size_json (the .pte reader and its delegates' payloads).
void bindProgram(pybind11::module_ &m);
// history.cpp: history over many recordings, with change points.
void bindHistory(pybind11::module_ &m);
// determinism.cpp: Inspector.determinism().
void bindDeterminism(pybind11::module_ &m);
// common.cpp: the core's errors (common.h's CoreError) as OSError / ValueError.
void bindErrors(pybind11::module_ &m);
// etrecord.cpp: the ETRecord class, parse_etrecord, its programs' nodes.
void bindETRecord(pybind11::module_ &m);
// session.cpp: the Session class and load(). After bindETRecord, before every topic below that
// adds methods to Session or ETRecord.
void bindSession(pybind11::module_ &m);
// blocks.cpp: event blocks, Event fields, to_dataframe's columns, reference outputs.
void bindBlocks(pybind11::module_ &m);
// export.cpp: the table and the Chrome trace streamed to a file, the HTML report, backend events.
void bindExport(pybind11::module_ &m);
// gap.cpp: the numeric gap, its decomposition, graph against graph.
void bindGap(pybind11::module_ &m);
// compare.cpp: diff of two sessions, compare_results.
void bindCompare(pybind11::module_ &m);
// runs.cpp: Inspector.runs().
void bindRuns(pybind11::module_ &m);
// recordings.cpp: summarize_recording, expand_recordings.
void bindRecordings(pybind11::module_ &m);

} // namespace etscope::python
