#pragma once

// The pybind11 bindings of etscope._native, one topic per file in app/python/native/, each
// called from module.cpp with one line, and the hooks they reach the session through (defined
// in module.cpp, which owns the Python Session type).

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

// A core error as the package's exception (OSError for files we cannot read, ValueError for
// content we refuse), as module.cpp's CoreError does; the GIL must be held.
[[noreturn]] inline void throwCoreError(const etscope::Error &e)
{
    PyErr_SetString(e.code == etscope::ErrorCode::Io ? PyExc_OSError : PyExc_ValueError, e.message().c_str());
    throw pybind11::error_already_set();
}

// program.cpp: program_json, program_size_json (the .pte reader and its delegates' payloads).
void bindProgram(pybind11::module_ &m);
// history.cpp: history over many recordings, with change points.
void bindHistory(pybind11::module_ &m);
// determinism.cpp: Inspector.determinism().
void bindDeterminism(pybind11::module_ &m);

} // namespace etscope::python
