#pragma once

// The pybind11 bindings of etscope._native, one topic per file in app/python/native/, each
// called from module.cpp with one line.

#include <pybind11/pybind11.h>

namespace etscope::python {

// program.cpp: program_json, program_size_json (the .pte reader and its delegates' payloads).
void bindProgram(pybind11::module_ &m);

} // namespace etscope::python
