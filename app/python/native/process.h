#pragma once

// The native module's effects on the Python process rather than on one object, in one place
// (process.cpp): its exit policy. The pure-Python ones (GC pause, pandas prefetch) are in
// etscope/_process.py, whose docstring lists them all.

#include <pybind11/pybind11.h>

namespace etscope::python {

// numpy.broadcast_to, imported on first use and never freed (process.cpp says why).
const pybind11::object &numpyBroadcastTo();

} // namespace etscope::python
