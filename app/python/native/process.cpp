// The exit policy of etscope._native: what the module deliberately leaves to the operating system
// when the interpreter ends, and why. Neither has a switch: both only change what happens while
// Python is finalizing, when nothing can observe the memory any more. etscope/_process.py lists
// these with the package's other process-wide effects (GC pause, pandas prefetch) and their switches.
//
// 1. A Session (NativeSession) freed at interpreter exit (the last DataFrame view or Inspector
//    going with the modules) leaves its recording to the operating system: freeing a million
//    events piece by piece only delays the process's end. Any other time it is freed as usual.
// 2. numpy.broadcast_to (the zeros the Inspector substitutes for tensors without a debug buffer,
//    values.cpp) is held by a Python reference that is never released: a static py::object would
//    be released by the C++ runtime after the interpreter is gone, a crash at exit on Python 3.13.
#include "native/process.h"

#include "native/common.h"

#include <memory>
#include <utility>

namespace py = pybind11;

namespace etscope::python {

NativeSession::~NativeSession()
{
#if PY_VERSION_HEX >= 0x030D0000
    const bool finalizing = Py_IsFinalizing(); // public from Python 3.13 on
#else
    const bool finalizing = _Py_IsFinalizing(); // its name up to 3.12
#endif
    if (finalizing && session)
        new std::shared_ptr<const Session>(std::move(session)); // NOLINT: deliberately never freed
}

const py::object &numpyBroadcastTo()
{
    static const py::object &broadcastTo = *new py::object(py::module_::import("numpy").attr("broadcast_to"));
    return broadcastTo;
}

} // namespace etscope::python
