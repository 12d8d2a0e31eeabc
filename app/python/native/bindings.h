#pragma once

// The native module's parts that live in their own files (app/python/native/<topic>.cpp), each
// adding its functions to the module; module.cpp calls every bind…() once.

#include <pybind11/pybind11.h>

void bindHistory(pybind11::module_ &m);
void bindDeterminism(pybind11::module_ &m);
