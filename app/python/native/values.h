#pragma once

// What the core holds, as Python values: tensors of the debug buffer as numpy arrays (views of the
// mapped file where the layout allows), runtime values, evaluator tensors, and the small per-event
// fields (delegate ids, module stacks, linked nodes) as the Inspector shows them. values.cpp.

#include "analysis/numtensor.h"
#include "etdump/debugbuffer.h"
#include "etdump/runtimevalue.h"
#include "events/event.h"

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace etscope::python {

// A tensor of the debug buffer as a numpy array: a read-only view of the mapped bytes with the
// tensor's own strides (any layout with non-negative strides), else a converted copy. `owner` keeps the mapping alive.
// Without a debug buffer the Inspector substitutes zeros: a read-only broadcast of one zero, so that a tensor the file
// merely declares costs no memory whatever its shape.
pybind11::object tensorToNumpy(const TensorRef &ref, const DebugBuffer *buffer, pybind11::handle owner);
pybind11::object valueToPython(const RuntimeValue &v, const DebugBuffer *buffer, pybind11::handle owner);
pybind11::list valuesToPython(const std::vector<RuntimeValue> &vs, const DebugBuffer *buffer, pybind11::handle owner);
// An evaluator's tensor (float64 values) as a numpy array of its own dtype; a list of them as a list.
pybind11::object numValueToPython(const analysis::NumValue &v);

pybind11::object delegateIdToPython(const DelegateDebugId &id);
// nn_module_stack as the Inspector holds it: {key: (path, type)}.
pybind11::object moduleStackToPython(const std::optional<std::vector<ModuleFrame>> &stack);
pybind11::object optionalStr(const std::optional<std::string> &s);
// Event.stack_traces and Event.module_hierarchy: node name → stack trace / nn_module_stack, in
// the order the nodes were linked, the first node of a name winning (upstream's dict updates).
std::pair<pybind11::dict, pybind11::dict> linkedNodeDicts(const Event &e);
pybind11::object debugHandlesToPython(const Event &e);

pybind11::list floatList(std::span<const double> xs);
pybind11::list intList(std::span<const std::uint64_t> xs);
// A list of numbers, strings or bytes taken off the cyclic garbage collector's lists: it cannot
// be part of a reference cycle (unless a caller later puts a container in it; such a cycle is
// then freed only once broken). Walking a million-event recording's Events makes millions of
// these; tracked, they made the collector's full passes cost three times their making.
pybind11::object untracked(pybind11::object list);

} // namespace etscope::python
