#pragma once

// The Python extension's binding files (app/python/native/<topic>.cpp), each adding its functions
// to the module with one bind<Topic>(m) call from module.cpp, and the hooks they reach the
// session through (defined in module.cpp, which owns the Python Session type).

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
