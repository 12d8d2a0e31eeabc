#pragma once

// The pybind11 bindings of etscope._native, one topic per file in app/python/native/, each
// called from module.cpp with one line.

#include "common/error.h"

#include <pybind11/pybind11.h>

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
