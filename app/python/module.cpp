// etscope._native: the Qt-free core seen from Python. The pure-Python layer in etscope/ gives
// it the Inspector's names; everything that costs time (reading, building EventBlocks, the
// tables, the numeric gap) happens in the core with the GIL released.
//
// One topic per file in native/ (bindings.h lists them; common.h is what they share). The
// module's process-wide effect, its exit policy, is in native/process.cpp alone. The order below
// is the order the classes must be registered in: ETRecord and Session before the topics that
// add methods to them, so that every signature names the Python classes.
#include "native/bindings.h"

#include <pybind11/pybind11.h>

PYBIND11_MODULE(_native, m)
{
    using namespace etscope::python;
    m.doc() = "etscope's core (readers, EventBlocks, tables, numeric gap) for the etscope package";
    m.attr("__version__") = ETSCOPE_VERSION;
    bindProgram(m);
    bindHistory(m);
    bindDeterminism(m);
    bindErrors(m);
    bindETRecord(m);
    bindSession(m);
    bindBlocks(m);
    bindExport(m);
    bindGap(m);
    bindCompare(m);
    bindRuns(m);
    bindRecordings(m);
    bindScope(m);
}
