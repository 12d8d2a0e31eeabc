// etscope._native.Session's event blocks: per-block information, Event objects' fields, the
// columns of EventBlock.to_dataframe (numpy columns and cells, no Event object per row), the
// reference outputs of the ETRecord, and find_total_for_module.
#include "native/bindings.h"
#include "native/common.h"
#include "native/values.h"

#include "analysis/referenceset.h"
#include "common/memory.h"
#include "etrecord/linker.h"
#include "events/inspectortable.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <unordered_map>

namespace py = pybind11;

namespace etscope::python {
namespace {

py::dict blockInfo(const NativeSession &s, std::size_t i, py::handle owner)
{
    const EventBlock &b = s.block(i);
    py::dict d;
    d["name"] = text(b.name);
    d["source_time_scale"] = std::string(timeScaleName(b.sourceTimeScale));
    d["target_time_scale"] = std::string(timeScaleName(b.targetTimeScale));
    d["bundled_input_index"] = b.bundledInputIndex;
    d["run_output"] = valuesToPython(b.runOutput, s.session->debugBuffer.get(), owner);
    d["event_count"] = b.events.size();
    d["run_count"] = b.runIndices.size();
    d["warnings"] = b.warnings;
    return d;
}

// What EventBlock needs of every block, in one call (an LLM recording has thousands of blocks):
// (name, source scale, target scale, bundled input index, event count, warnings). The run
// outputs are read on first use (block_info).
py::list blockInfos(const NativeSession &s)
{
    const auto &blocks = s.session->blocks;
    py::list l(blocks.size());
    std::map<std::string_view, py::str> names; // one Python str per block name
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        const EventBlock &b = blocks[i];
        auto [it, fresh] = names.try_emplace(b.name);
        if (fresh)
            it->second = text(b.name);
        py::tuple t = py::make_tuple(it->second, timeScaleName(b.sourceTimeScale), timeScaleName(b.targetTimeScale),
            b.bundledInputIndex, b.events.size(), b.warnings.empty() ? py::list() : py::cast(b.warnings));
        PyList_SET_ITEM(l.ptr(), py::ssize_t(i), t.release().ptr());
    }
    return l;
}

// Every field of one Event, in the order etscope._inspector.Event._FIELDS lists them.
py::tuple eventTuple(const NativeSession &s, const Event &e, py::handle owner)
{
    py::object perf = py::none();
    if (e.perfData)
        perf = py::make_tuple(untracked(floatList(e.perfData->raw)), e.perfData->p10, e.perfData->p50, e.perfData->p90,
            e.perfData->avg, e.perfData->min, e.perfData->max);
    auto [stacks, modules] = linkedNodeDicts(e);
    py::list metas;
    for (const std::string &m : e.delegateDebugMetadatas())
        metas.append(py::bytes(m));
    const auto &debugData = e.debugData();
    return py::make_tuple(s.eventName(e.name), perf, untracked(py::cast(e.opTypes())),
        delegateIdToPython(e.delegateDebugIdentifier()), debugHandlesToPython(e), e.numOutputs(), stacks, modules,
        e.isDelegatedOp, optionalStr(e.delegateBackendName()), untracked(metas),
        debugData.empty() ? untracked(py::list()) : valuesToPython(debugData, s.session->debugBuffer.get(), owner),
        e.instructionId, e.perfData ? untracked(intList(e.startTimes())) : py::none(), e.runCount());
}

py::list blockEvents(const NativeSession &s, std::size_t i, py::handle owner)
{
    const EventBlock &b = s.block(i);
    py::list l(b.events.size());
    for (std::size_t j = 0; j < b.events.size(); ++j)
        PyList_SET_ITEM(l.ptr(), j, eventTuple(s, b.events[j], owner).release().ptr());
    return l;
}

// A fresh column (zeroed, not yet written: huge pages for a large one, see adviseHugePages).
py::array vectorOf(const char *dtype, std::size_t n)
{
    py::array a(py::dtype(dtype), std::vector<py::ssize_t> { static_cast<py::ssize_t>(n) });
    adviseHugePages(a.mutable_data(), std::size_t(a.nbytes()));
    return a;
}

py::array objectArray(std::size_t n)
{
    return vectorOf("O", n);
}

void setObject(py::array &a, std::size_t i, py::object v)
{
    auto **p = static_cast<PyObject **>(a.mutable_data());
    Py_XDECREF(p[i]);
    p[i] = v.release().ptr();
}

// Read-only 1-D numpy views of numbers the core owns, each keeping `owner` (the Python object
// holding the session) alive: no copy, and no Python float or int per value. Made with numpy's
// C API directly (pybind11's py::array constructor costs more than the array for one-run rows).
class ViewMaker
{
public:
    ViewMaker(int typenum, py::handle owner)
        : m_api(py::detail::npy_api::get())
        , m_descr(py::reinterpret_steal<py::object>(m_api.PyArray_DescrFromType_(typenum)))
        , m_owner(owner)
    {
        if (!m_descr)
            throw py::error_already_set();
    }
    py::object operator()(const void *data, std::size_t n) const
    {
        const Py_intptr_t dims[1] = { static_cast<Py_intptr_t>(n) };
        Py_INCREF(m_descr.ptr()); // stolen by PyArray_NewFromDescr
        // flags 0: not writeable; with data == nullptr (no runs) numpy allocates the empty array.
        PyObject *a = m_api.PyArray_NewFromDescr_(
            m_api.PyArray_Type_, m_descr.ptr(), 1, dims, nullptr, n ? const_cast<void *>(data) : nullptr, 0, nullptr);
        if (!a)
            throw py::error_already_set();
        auto view = py::reinterpret_steal<py::object>(a);
        if (n) {
            Py_INCREF(m_owner.ptr()); // stolen by PyArray_SetBaseObject
            if (m_api.PyArray_SetBaseObject_(a, m_owner.ptr()) < 0)
                throw py::error_already_set();
        }
        return view;
    }

private:
    py::detail::npy_api &m_api;
    py::object m_descr;
    py::handle m_owner;
};

// A frame whose rows hold at most this many runs each gets upstream's lists in its `raw` and
// `start_time` cells; a longer row makes every cell of the frame a numpy view. A list of a few
// numbers costs what a view costs to make and less than half to free (a million one-run rows:
// 0.44 s to make either way, 0.10 s against 0.24 s to free); from about this length on a view
// is cheaper and holds no Python number per run.
constexpr std::size_t kListCellMaxRuns = 16;

// The columns of EventBlock.to_dataframe for the events of some blocks (in order, as pd.concat
// of their frames would give), built without an Event object per row. The
// statistics are float64 columns when every event has them, object columns holding None
// otherwise (what pandas makes of the Inspector's per-event frames). `raw` and `start_time`
// cells are lists of Python numbers (untracked) when no row has more than kListCellMaxRuns runs,
// else read-only numpy views of the core's durations and start ticks (float64, uint64) that keep
// `owner` alive; the empty op_types / stack_traces / module_hierarchy / debug_data
// cells are one empty list or dict per column, shared by the rows that have nothing
// (docs/inspector-semantics.md §4).
py::dict blockColumns(const NativeSession &s, const std::vector<std::size_t> &blockIndices, py::handle owner)
{
    std::size_t n = 0, maxRuns = 0;
    bool allPerf = true;
    for (std::size_t i : blockIndices)
        for (const Event &e : s.block(i).events) {
            allPerf = allPerf && e.perfData;
            maxRuns = std::max(maxRuns, e.runCount());
            ++n;
        }
    const bool listCells = maxRuns <= kListCellMaxRuns;
    py::array blockName = objectArray(n), name = objectArray(n), raw = objectArray(n), opTypes = objectArray(n),
              delegateId = objectArray(n), stacks = objectArray(n), modules = objectArray(n),
              delegated = vectorOf("bool", n), backend = objectArray(n), debugData = objectArray(n),
              startTime = objectArray(n);
    std::array<py::array, 6> stats;
    for (auto &a : stats)
        a = allPerf ? vectorOf("float64", n) : objectArray(n);
    // Event names are interned per store and repeat across blocks: one Python str per name,
    // found through a small direct-mapped cache first (a million rows, a few dozen names that
    // recur in every block; the map's random probes were half of this loop's time).
    std::unordered_map<const char *, py::str> names;
    std::array<std::pair<const char *, PyObject *>, 512> recent {};
    auto nameOf = [&](std::string_view n) -> py::object {
        auto &slot = recent[(reinterpret_cast<std::uintptr_t>(n.data()) >> 3) % recent.size()];
        if (slot.first == n.data())
            return py::reinterpret_borrow<py::object>(slot.second);
        auto [it, fresh] = names.try_emplace(n.data());
        if (fresh)
            it->second = text(n);
        slot = { n.data(), it->second.ptr() }; // borrowed: `names` holds it until the end
        return it->second;
    };
    const ViewMaker doubles(py::dtype::of<double>().num(), owner), ticks(py::dtype::of<std::uint64_t>().num(), owner);
    auto steal = [](PyObject *o) {
        if (!o)
            throw py::error_already_set();
        return py::reinterpret_steal<py::object>(o);
    };
    const py::object noOps = steal(PyList_New(0)), noStacks = steal(PyDict_New()), noModules = steal(PyDict_New()),
                     noDebugData = steal(PyList_New(0));
    std::size_t j = 0;
    for (std::size_t i : blockIndices) {
        const EventBlock &b = s.block(i);
        py::str blockNameStr = text(b.name);
        for (const Event &e : b.events) {
            setObject(blockName, j, blockNameStr);
            setObject(name, j, nameOf(e.name));
            const double values[6] = { e.perfData ? e.perfData->p10 : 0, e.perfData ? e.perfData->p50 : 0,
                e.perfData ? e.perfData->p90 : 0, e.perfData ? e.perfData->avg : 0, e.perfData ? e.perfData->min : 0,
                e.perfData ? e.perfData->max : 0 };
            for (int k = 0; k < 6; ++k) {
                if (allPerf)
                    static_cast<double *>(stats[k].mutable_data())[j] = values[k];
                else
                    setObject(stats[k], j, e.perfData ? py::object(py::float_(values[k])) : py::none());
            }
            if (!e.perfData)
                setObject(raw, j, py::none());
            else if (listCells)
                setObject(raw, j, untracked(floatList(e.perfData->raw)));
            else
                setObject(raw, j, doubles(e.perfData->raw.data(), e.perfData->raw.size()));
            const auto &ops = e.opTypes();
            setObject(opTypes, j,
                ops.empty()          ? noOps
                    : ops.size() < 5 ? py::object(py::cast(ops))
                                     : py::object(py::str(opTypesText(ops))));
            setObject(delegateId, j, delegateIdToPython(e.delegateDebugIdentifier()));
            if (e.linkedNodes().empty()) {
                setObject(stacks, j, noStacks);
                setObject(modules, j, noModules);
            } else {
                auto [st, mh] = linkedNodeDicts(e);
                setObject(stacks, j, st);
                setObject(modules, j, mh);
            }
            static_cast<bool *>(delegated.mutable_data())[j] = e.isDelegatedOp;
            setObject(backend, j, optionalStr(e.delegateBackendName()));
            setObject(debugData, j,
                e.debugData().empty() ? noDebugData
                                      : valuesToPython(e.debugData(), s.session->debugBuffer.get(), owner));
            if (!e.perfData || !e.ticks)
                setObject(startTime, j, py::none());
            else if (listCells)
                setObject(startTime, j, untracked(intList(e.startTimes())));
            else
                setObject(startTime, j, ticks(e.startTimes().data(), e.startTimes().size()));
            ++j;
        }
    }
    py::dict d;
    d["event_block_name"] = blockName;
    d["event_name"] = name;
    d["raw"] = raw;
    const char *statNames[6] = { "p10", "p50", "p90", "avg", "min", "max" };
    for (int k = 0; k < 6; ++k)
        d[statNames[k]] = stats[k];
    d["op_types"] = opTypes;
    d["delegate_debug_identifier"] = delegateId;
    d["stack_traces"] = stacks;
    d["module_hierarchy"] = modules;
    d["is_delegated_op"] = delegated;
    d["delegate_backend_name"] = backend;
    d["debug_data"] = debugData;
    d["start_time"] = startTime;
    return d;
}

// EventBlock.reference_output: the ETRecord's reference_outputs["forward"][bundled_input_index]
// (the runtime records -1: the last set, as upstream's indexing gives); None without them.
py::object referenceOutput(const NativeSession &s, std::size_t i)
{
    const EventBlock &b = s.block(i);
    const auto &record = s.session->etrecord;
    if (!record || !record->hasReferenceOutputs())
        return py::none();
    analysis::ReferenceSet ref;
    {
        py::gil_scoped_release release;
        ref = orThrow(analysis::referenceFromETRecord(record->path(), b.bundledInputIndex));
    }
    py::list outputs;
    for (const analysis::NumValue &v : ref.finalOutputs)
        outputs.append(numValueToPython(v));
    return outputs;
}

} // namespace

void bindBlocks(py::module_ &m)
{
    sessionClass(m)
        .def("block_info",
            [](py::object self, std::size_t i) { return blockInfo(self.cast<const NativeSession &>(), i, self); })
        .def("block_infos", &blockInfos)
        .def("block_events",
            [](py::object self, std::size_t i) { return blockEvents(self.cast<const NativeSession &>(), i, self); })
        .def("block_columns",
            [](py::object self, const std::vector<std::size_t> &blocks) {
                return blockColumns(self.cast<const NativeSession &>(), blocks, self);
            })
        .def("find_total_for_module",
            [](const NativeSession &s, const std::string &name) { return findTotalForModule(s.session->blocks, name); })
        .def("reference_output", &referenceOutput);
}

} // namespace etscope::python
