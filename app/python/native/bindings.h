#pragma once

// The native module's parts that live in their own files (app/python/native/<topic>.cpp), each
// adding its functions to the module; module.cpp calls every bind…() once.

#include "common/error.h"

#include <pybind11/pybind11.h>

// A core error as the package's exception (OSError for files we cannot read, ValueError for
// content we refuse), as module.cpp's CoreError does; the GIL must be held.
[[noreturn]] inline void throwCoreError(const etscope::Error &e)
{
    PyErr_SetString(e.code == etscope::ErrorCode::Io ? PyExc_OSError : PyExc_ValueError, e.message().c_str());
    throw pybind11::error_already_set();
}

void bindHistory(pybind11::module_ &m);
void bindDeterminism(pybind11::module_ &m);
