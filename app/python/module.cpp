// etscope._native: the Qt-free core seen from Python. The pure-Python layer in etscope/ gives
// it the Inspector's names; everything that costs time (reading, building EventBlocks, the
// tables, the numeric gap) happens here with the GIL released.
#include "analysis/compareresults.h"
#include "analysis/latencydiff.h"
#include "analysis/latencydiffformat.h"
#include "analysis/numericgap.h"
#include "analysis/referenceset.h"
#include "analysis/runs.h"
#include "common/error.h"
#include "common/mappedfile.h"
#include "common/memory.h"
#include "etrecord/backendlink.h"
#include "etrecord/etrecord.h"
#include "etrecord/linker.h"
#include "etrecord/modulestack.h"
#include "evalgap/decompose.h"
#include "evalgap/evalgap.h"
#include "evalgap/graphdiff.h"
#include "events/inspectortable.h"
#include "export/chrometrace.h"
#include "export/htmlreport.h"
#include "export/recordings.h"
#include "export/reportdecompose.h"
#include "export/reportgraphdiff.h"
#include "native/bindings.h"
#include "program/program.h"
#include "session/session.h"

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <stdexcept>
#include <unordered_map>
#include <utility>

namespace py = pybind11;
using namespace etscope;

namespace {

// An etscope error on its way to Python: OSError for files we cannot read, ValueError for
// content we refuse. The message is the core's one line, file first.
struct CoreError : std::runtime_error {
    bool io;
    explicit CoreError(const Error &e)
        : std::runtime_error(e.message())
        , io(e.code == ErrorCode::Io)
    { }
};

// Text from a file as a Python str: names need not be UTF-8, so bad bytes become \xNN escapes
// instead of an exception.
py::str text(std::string_view s)
{
    PyObject *o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "backslashreplace");
    if (!o)
        throw py::error_already_set();
    return py::reinterpret_steal<py::str>(o);
}

// Length of the longest prefix of `s` that does not end inside a UTF-8 sequence, so that text
// streamed in chunks is decoded whole.
std::size_t completeUtf8Prefix(std::string_view s)
{
    for (std::size_t back = 1; back <= 3 && back <= s.size(); ++back) {
        const auto c = static_cast<unsigned char>(s[s.size() - back]);
        if ((c & 0xC0) == 0x80)
            continue; // continuation byte: look further back for the lead byte
        const std::size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        return need > back ? s.size() - back : s.size();
    }
    return s.size();
}

template <typename T> T orThrow(Result<T> r)
{
    if (!r)
        throw CoreError(r.error());
    return std::move(r.value());
}

std::optional<TimeScale> scaleOf(const std::string &s)
{
    return parseTimeScale(s);
}

// numpy dtype of an ETDump scalar type, when numpy has one with the same bytes.
std::optional<py::dtype> numpyDtype(ScalarType t)
{
    switch (t) {
    case ScalarType::Byte:
        return py::dtype("uint8");
    case ScalarType::Char:
        return py::dtype("int8");
    case ScalarType::Short:
        return py::dtype("int16");
    case ScalarType::Int:
        return py::dtype("int32");
    case ScalarType::Long:
        return py::dtype("int64");
    case ScalarType::Half:
        return py::dtype("float16");
    case ScalarType::Float:
        return py::dtype("float32");
    case ScalarType::Double:
        return py::dtype("float64");
    case ScalarType::Bool:
        return py::dtype("bool");
    case ScalarType::UInt16:
        return py::dtype("uint16");
    case ScalarType::UInt32:
        return py::dtype("uint32");
    case ScalarType::UInt64:
        return py::dtype("uint64");
    default:
        return std::nullopt;
    }
}

py::array readOnly(py::array a)
{
    a.attr("flags").attr("writeable") = false;
    return a;
}

// A tensor of the debug buffer as a numpy array: a read-only view of the mapped bytes with the
// tensor's own strides (any layout with non-negative strides), else a converted copy. `owner` keeps the mapping alive.
// Without a debug buffer the Inspector substitutes zeros: a read-only broadcast of one zero, so that a tensor the file
// merely declares costs no memory whatever its shape.
py::object tensorToNumpy(const TensorRef &ref, const DebugBuffer *buffer, py::handle owner)
{
    const auto dtype = numpyDtype(ref.dtype);
    if (!buffer) {
        orThrow(checkedNumel(ref, {})); // the shape and its limits, without allocating
        const std::vector<std::int64_t> &shape = ref.sizes;
        // Never destroyed: a static py::object would be released by the C++ runtime after the
        // interpreter is gone (a crash at exit on Python 3.13).
        static const py::object &broadcastTo = *new py::object(py::module_::import("numpy").attr("broadcast_to"));
        auto zero = py::array(dtype ? *dtype : py::dtype("float64"), std::vector<py::ssize_t> {});
        std::memset(zero.mutable_data(), 0, static_cast<std::size_t>(zero.nbytes()));
        return broadcastTo(zero, py::tuple(py::cast(shape)));
    }
    std::vector<py::ssize_t> shape(ref.sizes.begin(), ref.sizes.end());
    const bool viewable = ref.offset >= 0 && (ref.strides.empty() || ref.strides.size() == ref.sizes.size())
        && std::all_of(ref.strides.begin(), ref.strides.end(), [](std::int64_t s) { return s >= 0; });
    if (dtype && viewable) {
        auto span = orThrow(buffer->bytes(ref)); // every element lies inside the buffer
        if (ref.strides.empty())
            return readOnly(py::array(*dtype, shape, span.data(), owner));
        std::vector<py::ssize_t> strides;
        for (std::int64_t s : ref.strides)
            strides.push_back(static_cast<py::ssize_t>(s) * dtype->itemsize());
        return readOnly(py::array(*dtype, shape, strides, span.data(), owner));
    }
    auto data = orThrow(inflate(ref, buffer));
    py::array_t<double> values(shape);
    std::copy(data.values.begin(), data.values.end(), values.mutable_data());
    return readOnly(dtype ? py::array(values.attr("astype")(*dtype)) : py::array(values));
}

py::object valueToPython(const RuntimeValue &v, const DebugBuffer *buffer, py::handle owner)
{
    switch (v.kind) {
    case RuntimeValue::Kind::None:
        return py::none();
    case RuntimeValue::Kind::Int:
        return py::int_(v.intValue);
    case RuntimeValue::Kind::Bool:
        return py::bool_(v.boolValue);
    case RuntimeValue::Kind::Float:
    case RuntimeValue::Kind::Double:
        return py::float_(v.doubleValue);
    case RuntimeValue::Kind::String:
        return text(v.stringValue);
    case RuntimeValue::Kind::Tensor:
        return tensorToNumpy(v.tensors.at(0), buffer, owner);
    case RuntimeValue::Kind::TensorList: {
        py::list l;
        for (const TensorRef &t : v.tensors)
            l.append(tensorToNumpy(t, buffer, owner));
        return l;
    }
    }
    return py::none();
}

py::list valuesToPython(const std::vector<RuntimeValue> &vs, const DebugBuffer *buffer, py::handle owner)
{
    py::list l;
    for (const RuntimeValue &v : vs)
        l.append(valueToPython(v, buffer, owner));
    return l;
}

py::object numTensorToNumpy(const analysis::NumTensor &t)
{
    std::vector<py::ssize_t> shape(t.sizes.begin(), t.sizes.end());
    py::array_t<double> a(shape);
    double *out = a.mutable_data();
    for (std::int64_t i = 0; i < t.numel; ++i)
        out[i] = t.at(i);
    if (auto d = numpyDtype(t.dtype); d && !(t.dtype == ScalarType::Double))
        return a.attr("astype")(*d);
    return a;
}

py::object numValueToPython(const analysis::NumValue &v)
{
    switch (v.kind) {
    case analysis::NumValue::Kind::None:
        return py::none();
    case analysis::NumValue::Kind::Tensor:
        return numTensorToNumpy(v.items.at(0));
    case analysis::NumValue::Kind::List: {
        py::list l;
        for (const auto &t : v.items)
            l.append(numTensorToNumpy(t));
        return l;
    }
    }
    return py::none();
}

py::object delegateIdToPython(const DelegateDebugId &id)
{
    if (const auto *i = std::get_if<std::int64_t>(&id))
        return py::int_(*i);
    if (const auto *s = std::get_if<std::string>(&id))
        return text(*s);
    return py::none();
}

// nn_module_stack as the Inspector holds it: {key: (path, type)}.
py::object moduleStackToPython(const std::optional<std::vector<ModuleFrame>> &stack)
{
    if (!stack)
        return py::none();
    py::dict d;
    for (const ModuleFrame &f : *stack)
        d[py::str(f.key)] = py::make_tuple(f.path, f.type);
    return d;
}

py::object optionalStr(const std::optional<std::string> &s)
{
    return s ? py::object(py::str(*s)) : py::none();
}

// Event.stack_traces and Event.module_hierarchy: node name → stack trace / nn_module_stack, in
// the order the nodes were linked, the first node of a name winning (upstream's dict updates).
std::pair<py::dict, py::dict> linkedNodeDicts(const Event &e)
{
    py::dict stacks, modules;
    for (const LinkedNode &n : e.linkedNodes()) {
        py::str name = text(n.nodeName);
        if (stacks.contains(name))
            continue;
        stacks[name] = optionalStr(n.stackTrace);
        modules[name] = moduleStackToPython(n.moduleStack);
    }
    return { stacks, modules };
}

py::object debugHandlesToPython(const Event &e)
{
    const auto &h = e.debugHandles();
    if (!h)
        return py::none();
    if (e.debugHandlesIsScalar() && h->size() == 1)
        return py::int_((*h)[0]);
    return py::cast(*h);
}

py::list floatList(std::span<const double> xs)
{
    py::list l(xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i)
        PyList_SET_ITEM(l.ptr(), i, PyFloat_FromDouble(xs[i]));
    return l;
}

py::list intList(std::span<const std::uint64_t> xs)
{
    py::list l(xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i)
        PyList_SET_ITEM(l.ptr(), i, PyLong_FromUnsignedLongLong(xs[i]));
    return l;
}

// The ETRecord as read once; an Inspector links it without reading it again.
struct NativeETRecord {
    std::shared_ptr<const ETRecord> record;
};

// One program of the ETRecord as `etscope-cli graph` lists it: a title line and one row per node
// (node, op, output, handle, module, source).
py::tuple programNodes(const NativeETRecord &r, const std::string &entry)
{
    const ETRecordProgram *p = r.record->program(entry);
    if (!p)
        throw py::key_error(entry);
    const ExportedProgram &ep = *p->program;
    const std::string title = fmt::format("{}: {} nodes ({}, schema {})", p->entryName, ep.nodes.size(),
        ep.dialect.empty() ? "dialect not recorded" : ep.dialect, ep.schemaVersion);
    py::list rows;
    for (const GraphNode &n : ep.nodes) {
        std::vector<std::string> shapes;
        for (const GraphArgument &o : n.outputs)
            for (const std::string &name : o.tensorNames) {
                const TensorMetaInfo *m = ep.tensor(name);
                shapes.push_back(m ? m->dtypeName() + m->shapeText() : "?");
            }
        std::string module;
        if (n.moduleStack && !n.moduleStack->empty())
            module = normalizeModulePath(n.moduleStack->back().path);
        py::dict row;
        row["name"] = n.name;
        row["target"] = n.target;
        row["op"] = n.opName;
        row["output"] = fmt::format("{}", fmt::join(shapes, " "));
        row["debug_handle"] = n.debugHandle ? py::object(py::int_(*n.debugHandle)) : py::none();
        row["module"] = module;
        row["source"] = n.sourceLocation();
        row["stack_trace"] = optionalStr(n.stackTrace);
        row["nn_module_stack"] = moduleStackToPython(n.moduleStack);
        rows.append(row);
    }
    return py::make_tuple(title, rows);
}

// One loaded ETDump (+ debug buffer + ETRecord): immutable, so any Python thread may read it.
struct NativeSession {
    std::shared_ptr<const Session> session;
    // Event names as Python strs, made once: they are interned in the session's store and repeat
    // over every block of a generation. Filled and read with the GIL held.
    mutable std::unordered_map<const char *, py::object> eventNames;

    NativeSession() = default;
    NativeSession(const NativeSession &) = delete;
    NativeSession &operator=(const NativeSession &) = delete;
    // Freed at interpreter exit (the last DataFrame view or Inspector going with the modules),
    // a recording is left to the operating system: freeing a million events piece by piece only
    // delays the process's end. Any other time it is freed as usual.
    ~NativeSession()
    {
#if PY_VERSION_HEX >= 0x030D0000
        const bool finalizing = Py_IsFinalizing(); // public from Python 3.13 on
#else
        const bool finalizing = _Py_IsFinalizing(); // its name up to 3.12
#endif
        if (finalizing && session)
            new std::shared_ptr<const Session>(std::move(session)); // NOLINT: deliberately never freed
    }

    py::object eventName(std::string_view name) const
    {
        auto [it, fresh] = eventNames.try_emplace(name.data());
        if (fresh)
            it->second = text(name);
        return it->second;
    }

    const EventBlock &block(std::size_t i) const
    {
        if (i >= session->blocks.size())
            throw py::index_error("no such event block");
        return session->blocks[i];
    }
};

std::shared_ptr<NativeSession> load(std::optional<std::string> etdumpPath, std::optional<py::bytes> etdumpData,
    std::optional<std::string> debugBufferPath, std::shared_ptr<NativeETRecord> etrecord, const std::string &source,
    const std::string &target, std::optional<double> cyclesPerSecond, py::object delegateTimeConverter,
    const std::string &program, const std::vector<std::string> &programData, const std::string &phaseBy,
    std::optional<std::size_t> prefillRuns)
{
    SessionInputs in;
    // The program and its .ptd files: session inputs (the one route to the program), left out
    // with a warning when they do not belong; how phases are decided (scope.h).
    in.program = program;
    in.programData = programData;
    in.dropUnpairable = !program.empty() || !programData.empty();
    in.phases = phaseOptionsOf(phaseBy, prefillRuns);
    checkProgramInputs(in);
    SessionSources sources;
    const auto src = scaleOf(source), dst = scaleOf(target);
    if (!src || !dst)
        throw py::value_error("unknown time scale");
    in.time.source = *src;
    in.time.target = *dst;
    in.time.cyclesPerSecond = cyclesPerSecond;
    if (etdumpData) {
        in.etdump = "<etdump_data>";
        sources.etdumpBytes = MappedFile::fromBytes(in.etdump, std::string(*etdumpData));
    } else {
        in.etdump = etdumpPath.value_or("");
    }
    in.debugBuffer = debugBufferPath.value_or("");
    if (etrecord)
        sources.etrecord = etrecord->record;

    // A Python converter is called with the GIL; its exception ends the load and is re-raised.
    std::exception_ptr callbackError;
    if (!delegateTimeConverter.is_none()) {
        sources.delegateTimeConverter = [&](std::string_view name, std::uint64_t ticks) -> double {
            if (callbackError)
                return std::nan("");
            py::gil_scoped_acquire gil;
            try {
                return delegateTimeConverter(text(name), ticks).cast<double>();
            } catch (...) {
                callbackError = std::current_exception();
                return std::nan("");
            }
        };
    }
    Result<std::shared_ptr<const Session>> loaded = makeError(ErrorCode::InvalidArgument, "", "not loaded");
    {
        py::gil_scoped_release release;
        loaded = loadSession(in, sources);
    }
    if (callbackError)
        std::rethrow_exception(callbackError);
    auto s = std::make_shared<NativeSession>();
    s->session = orThrow(std::move(loaded));
    return s;
}

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
// A list of numbers, strings or bytes taken off the cyclic garbage collector's lists: it cannot
// be part of a reference cycle (unless a caller later puts a container in it; such a cycle is
// then freed only once broken). Walking a million-event recording's Events makes millions of
// these; tracked, they made the collector's full passes cost three times their making.
py::object untracked(py::object list)
{
    PyObject_GC_UnTrack(list.ptr());
    return list;
}

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

// Runs `produce` without the GIL, handing each chunk of its text to the Python callable `write`
// (a file's write method) with the GIL; an exception raised by `write` stops it and is re-raised.
template <typename Produce> void streamToPython(const py::function &write, Produce produce)
{
    std::exception_ptr writeError;
    std::string carry; // the start of a UTF-8 sequence cut by the chunk boundary
    auto hand = [&](std::string_view chunk) {
        py::gil_scoped_acquire gil;
        try {
            write(text(chunk));
            return true;
        } catch (...) {
            writeError = std::current_exception();
            return false;
        }
    };
    const TextSink sink = [&](std::string_view chunk) {
        if (!carry.empty()) { // rare: the previous chunk ended inside a character
            std::string joined = std::exchange(carry, {});
            joined.append(chunk);
            const std::size_t n = completeUtf8Prefix(joined);
            carry = joined.substr(n);
            return hand(std::string_view(joined).substr(0, n));
        }
        const std::size_t n = completeUtf8Prefix(chunk);
        carry.assign(chunk.substr(n));
        return hand(chunk.substr(0, n));
    };
    {
        py::gil_scoped_release release;
        produce(sink);
        if (!carry.empty() && !writeError)
            hand(carry);
    }
    if (writeError)
        std::rethrow_exception(writeError);
}

// The Inspector's table (fancy grid) or TSV, streamed in chunks of about 1 MB.
void writeTable(
    const NativeSession &s, bool fancyGrid, char sep, bool includeUnits, bool includeOperatorCalls, py::function write)
{
    TableOptions opt;
    opt.includeUnits = includeUnits;
    opt.includeOperatorCalls = includeOperatorCalls;
    streamToPython(write, [&](const TextSink &sink) {
        if (fancyGrid)
            writeFancyGrid(s.session->blocks, opt, sink);
        else
            writeDelimited(s.session->blocks, sep, opt, sink);
    });
}

// The distance a Python caller names ("MSE", "SNR", ...), or ValueError as upstream raises it.
analysis::Metric metricOrThrow(const std::string &name)
{
    const auto metric = analysis::parseMetric(name);
    if (!metric)
        throw py::value_error("Unsupported distance metric '" + name + "'");
    return *metric;
}

// The evaluator's inputs as the Python keyword arguments give them (empty: representative_inputs).
eval::InputChoice inputChoice(const std::string &inputsFile, const std::string &bundledProgram, int testCase)
{
    eval::InputChoice c;
    c.inputsFile = inputsFile;
    c.bundledProgram = bundledProgram;
    c.testCase = testCase;
    return c;
}

// calculate_numeric_gap with etscope's evaluator as the reference: one dict per row, plus the
// CLI's TSV of the same table (what `etscope-cli gap --tsv` writes).
py::dict numericGap(const NativeSession &s, const std::string &metricName, const std::string &referenceGraph,
    bool disableValidation, bool isolate, const std::string &inputsFile, const std::string &bundledProgram,
    int testCase)
{
    const Session &session = *s.session;
    if (!session.etrecord)
        throw py::value_error("Missing etrecord or missing representative inputs within etrecord, both of which are "
                              "required for calculating numerical gap");
    const analysis::Metric metric = metricOrThrow(metricName);
    analysis::GapTable table;
    std::vector<std::string> warnings;
    {
        py::gil_scoped_release release;
        evalgap::EvalGapOptions o;
        o.referenceGraph = referenceGraph;
        o.disableHandleValidation = disableValidation;
        o.inputs = inputChoice(inputsFile, bundledProgram, testCase);
        o.isolated = isolate;
        auto ref = orThrow(evalgap::referenceFromEvaluator(*session.etrecord, &session, o));
        warnings = ref.warnings;
        analysis::GapOptions opts;
        opts.metric = metric;
        table = orThrow(analysis::computeNumericGap(session, isolate ? *ref.isolated : ref.accumulated, opts));
    }
    py::list rows;
    for (const analysis::GapRow &r : table.rows) {
        py::dict row;
        row["aot_ops"] = r.referenceOps;
        row["aot_intermediate_output"] = numValueToPython(r.reference);
        row["runtime_ops"] = r.runtimeOps;
        row["runtime_intermediate_output"] = numValueToPython(r.runtime);
        row["gap"] = r.gap;
        py::dict st;
        for (const LinkedNode &n : r.stackTraces)
            st[py::str(n.nodeName)] = optionalStr(n.stackTrace);
        row["stacktraces"] = st;
        row["instruction_id"] = r.instructionId;
        row["debug_handles"] = r.debugHandles;
        row["delegated"] = r.delegated;
        row["backend"] = r.backend;
        row["error"] = r.error;
        row["note"] = r.note;
        rows.append(row);
    }
    for (const std::string &w : table.warnings)
        warnings.push_back(w);
    py::dict out;
    out["rows"] = rows;
    out["warnings"] = warnings;
    out["tsv"] = analysis::gapTableTsv(table);
    out["reference"] = table.referenceDescription;
    return out;
}

// calculate_numeric_gap(..., decompose=True): quantization / kernel / total error per op
// (core/evalgap/decompose.h), one dict per row, the summary sentence and the CLI's TSV / JSON.
py::dict numericGapDecomposed(const NativeSession &s, const std::string &metricName, const std::string &referenceGraph,
    bool disableValidation, const std::string &inputsFile, const std::string &bundledProgram, int testCase)
{
    const Session &session = *s.session;
    if (!session.etrecord)
        throw py::value_error("Missing etrecord or missing representative inputs within etrecord, both of which are "
                              "required for calculating numerical gap");
    const analysis::Metric metric = metricOrThrow(metricName);
    evalgap::Decomposition d;
    {
        py::gil_scoped_release release;
        evalgap::DecomposeOptions o;
        o.referenceGraph = referenceGraph;
        o.disableHandleValidation = disableValidation;
        o.inputs = inputChoice(inputsFile, bundledProgram, testCase);
        o.metric = metric;
        d = orThrow(evalgap::decomposeGap(*session.etrecord, session, o));
    }
    auto value = [](const evalgap::ErrorPart &p) -> py::object {
        return p.valid ? py::object(py::float_(p.gap)) : py::object(py::none());
    };
    py::list rows;
    for (const auto &o : d.ops) {
        py::dict row;
        row["aot_ops"] = o.referenceOps;
        row["runtime_ops"] = o.runtimeOps;
        row["quant_error"] = value(o.quant);
        row["kernel_error"] = value(o.kernel);
        row["total_error"] = value(o.total);
        row["dominant"] = evalgap::dominantName(o.dominant);
        row["quant_noise"] = o.quant.noise;
        row["kernel_noise"] = o.kernel.noise;
        row["total_noise"] = o.total.noise;
        row["quant_snr_db"] = o.quant.snrDb;
        row["kernel_snr_db"] = o.kernel.snrDb;
        row["total_snr_db"] = o.total.snrDb;
        row["instruction_id"] = o.instructionId;
        row["debug_handles"] = o.debugHandles;
        row["delegated"] = o.delegated;
        row["note"] = o.note;
        rows.append(row);
    }
    auto index = [&](int i) -> py::object { return i < 0 ? py::object(py::none()) : py::object(py::int_(i)); };
    py::dict out;
    out["rows"] = rows;
    out["summary"] = d.summary;
    out["warnings"] = d.warnings;
    out["quant_enters"] = index(d.quantEnters);
    out["kernel_enters"] = index(d.kernelEnters);
    out["total_enters"] = index(d.totalEnters);
    out["tsv"] = evalgap::decompositionTsv(d);
    out["json"] = evalgap::decompositionJson(d);
    return out;
}

// Graph against graph (core/evalgap/graphdiff.h): one dict per aligned layer, the verdict, the
// unaligned nodes, and the CLI's TSV / JSON of the same diff.
py::dict graphDiff(const NativeETRecord &r, const std::string &a, const std::string &b, const std::string &metricName,
    std::optional<double> threshold, const std::string &inputsFile, const std::string &bundledProgram, int testCase)
{
    const analysis::Metric metric = metricOrThrow(metricName);
    evalgap::GraphDiff d;
    {
        py::gil_scoped_release release;
        evalgap::GraphDiffOptions o;
        o.a = a;
        o.b = b;
        o.metric = metric;
        o.threshold = threshold;
        o.inputs = inputChoice(inputsFile, bundledProgram, testCase);
        d = orThrow(evalgap::diffGraphs(*r.record, o));
    }
    auto handle = [](const std::optional<std::int64_t> &h) { return h ? py::object(py::int_(*h)) : py::none(); };
    py::list rows;
    for (std::size_t i = 0; i < d.rows.size(); ++i) {
        const evalgap::GraphDiffRow &x = d.rows[i];
        py::dict row;
        row["layer"] = i + 1;
        row["a_node"] = text(x.aName);
        row["a_op"] = x.aOp;
        row["a_debug_handle"] = handle(x.aHandle);
        row["b_node"] = text(x.bName);
        row["b_op"] = x.bOp;
        row["b_debug_handle"] = handle(x.bHandle);
        row["aligned_by"] = evalgap::alignedByName(x.by);
        row["gap"] = x.gap;
        row["worst"] = x.worst(d.direction);
        row["noise"] = x.noise;
        row["flagged"] = x.flagged;
        row["a_output"] = numValueToPython(x.a);
        row["b_output"] = numValueToPython(x.b);
        row["error"] = x.error;
        rows.append(row);
    }
    auto unaligned = [&](const std::vector<evalgap::UnalignedNode> &ns) {
        py::list out;
        for (const auto &n : ns) {
            py::dict e;
            e["node"] = text(n.name);
            e["op"] = n.op;
            e["debug_handle"] = handle(n.handle);
            out.append(e);
        }
        return out;
    };
    py::dict out;
    out["rows"] = rows;
    out["a"] = d.aGraph;
    out["b"] = d.bGraph;
    out["metric"] = std::string(analysis::metricName(d.metric));
    const int first = d.firstParting();
    out["first_parting"] = first < 0 ? py::object(py::none()) : py::object(py::int_(first + 1));
    out["verdict"] = text(d.verdict());
    out["unaligned_a"] = unaligned(d.unalignedA);
    out["unaligned_b"] = unaligned(d.unalignedB);
    out["warnings"] = d.warnings;
    out["tsv"] = text(evalgap::graphDiffTsv(d));
    out["json"] = text(evalgap::graphDiffJson(d));
    return out;
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

// Beyond upstream: the CLI's trace, report and diff on a loaded session.
void writeTrace(const NativeSession &s, py::function write, std::optional<std::size_t> block,
    std::optional<std::size_t> firstRun, std::optional<std::size_t> lastRun)
{
    TraceOptions opt;
    opt.block = block;
    opt.firstRun = firstRun;
    opt.lastRun = lastRun;
    std::optional<Error> error;
    streamToPython(write, [&](const TextSink &sink) {
        if (auto r = writeChromeTrace(*s.session, opt, sink); !r)
            error = r.error();
    });
    if (error)
        throw CoreError(*error);
}

// save_report(decompose=True, graph_diff=(a, b)): the sections `etscope-cli report --decompose
// --graph-diff A B` adds, from the same core functions with the same options.
std::string reportHtml(const NativeSession &s, bool decompose, const std::string &graphA, const std::string &graphB,
    const std::string &metricName, std::optional<double> threshold, const std::string &referenceGraph,
    const std::string &inputsFile, const std::string &bundledProgram, int testCase)
{
    const Session &session = *s.session;
    const analysis::Metric metric = metricOrThrow(metricName);
    if ((decompose || !graphA.empty()) && !session.etrecord)
        throw py::value_error(
            "decompose= and graph_diff= need an ETRecord (etrecord= when constructing the Inspector)");
    if (decompose && !session.debugBuffer)
        throw py::value_error("decompose=True needs the debug buffer (debug_buffer_path=)");
    py::gil_scoped_release release;
    ReportInputs in;
    in.sessions.push_back(s.session);
    in.generator = "etscope (Python)";
    if (decompose) {
        evalgap::DecomposeOptions o;
        o.referenceGraph = referenceGraph;
        o.inputs = inputChoice(inputsFile, bundledProgram, testCase);
        o.metric = metric;
        o.threshold = threshold;
        in.decomposition = reportDecomposition(orThrow(evalgap::decomposeGap(*session.etrecord, session, o)));
    }
    if (!graphA.empty()) {
        evalgap::GraphDiffOptions o;
        o.a = graphA;
        o.b = graphB;
        o.inputs = inputChoice(inputsFile, bundledProgram, testCase);
        o.metric = metric;
        o.threshold = threshold;
        in.graphDiff = reportGraphDiff(orThrow(evalgap::diffGraphs(*session.etrecord, o)));
    }
    return renderHtmlReport(in);
}

std::string diffTsv(const NativeSession &a, const NativeSession &b, double alpha, double minChange, bool all)
{
    py::gil_scoped_release release;
    DiffOptions opt;
    opt.alpha = alpha;
    opt.minChange = minChange;
    opt.includeOperatorCalls = all;
    return formatDiffDelimited(diffLatency(a.session->blocks, b.session->blocks, opt), '\t');
}

// Inspector.backend_events(): what `etscope-cli backend-events --json` writes (backendlink.h).
std::string backendEventsJson(const NativeSession &s, const std::string &method)
{
    py::gil_scoped_release release;
    const BackendEventTable table = decodeBackendEvents(s.session->blocks);
    return formatBackendEventsJson(s.session->blocks, table, s.session->etrecord.get(), method);
}

// Inspector.runs(): one row per executed run as numpy columns, and the figures as the JSON
// `etscope-cli runs --json` writes (without its runs list).
py::dict runsAnalysis(const NativeSession &s, const std::string &method, std::optional<std::int64_t> promptTokens,
    const std::string &sharesBy)
{
    RunsReport report;
    std::string figures;
    {
        py::gil_scoped_release release;
        RunsOptions opt;
        opt.method = method;
        opt.promptTokens = promptTokens;
        // etscope's own table: backend events by their decoded operator unless asked otherwise.
        if (sharesBy == "backend-operator" || sharesBy.empty())
            opt.sharesBy = ShareRowsBy::BackendOperator;
        opt.sharesByDefault = sharesBy.empty();
        // The session's runs as it decided them (its program, its phase options).
        report = orThrow(analyzeRuns(*s.session, opt));
        std::vector<RunRow> rows = std::move(report.runs);
        report.runs.clear();
        figures = runsJson(report);
        report.runs = std::move(rows);
    }
    const std::size_t n = report.runs.size();
    const auto len = py::ssize_t(n);
    py::array_t<std::int64_t> index(len), start(len), tokens(len), generation(len);
    py::array_t<double> duration(len);
    py::array_t<bool> tokensMissing(len), warmup(len), outlier(len);
    py::list methods(n), phases(n);
    // The phase and method names repeat: one Python string each.
    std::map<std::string, py::object> names;
    auto name = [&](const std::string &v) -> py::object {
        if (v.empty())
            return py::none();
        auto [it, fresh] = names.try_emplace(v);
        if (fresh)
            it->second = text(v);
        return it->second;
    };
    auto *pIndex = index.mutable_data(), *pStart = start.mutable_data(), *pTokens = tokens.mutable_data();
    auto *pGeneration = generation.mutable_data();
    auto *pDuration = duration.mutable_data();
    auto *pMissing = tokensMissing.mutable_data(), *pWarmup = warmup.mutable_data(), *pOutlier = outlier.mutable_data();
    for (std::size_t i = 0; i < n; ++i) {
        const RunRow &r = report.runs[i];
        pIndex[i] = std::int64_t(r.index);
        pGeneration[i] = std::int64_t(r.generation);
        pStart[i] = r.startNs;
        pDuration[i] = r.durationMs;
        pTokens[i] = r.tokens.value_or(0);
        pMissing[i] = !r.tokens;
        pWarmup[i] = r.warmup;
        pOutlier[i] = r.outlier;
        methods[i] = name(r.method);
        phases[i] = name(r.phase);
    }
    py::dict d;
    d["index"] = index;
    d["method"] = methods;
    d["phase"] = phases;
    d["generation"] = generation;
    d["start_ns"] = start;
    d["duration_ms"] = duration;
    d["tokens"] = tokens;
    d["tokens_missing"] = tokensMissing;
    d["warmup"] = warmup;
    d["outlier"] = outlier;
    d["figures"] = figures;
    return d;
}

// One recording reduced to plain Python data (picklable: it travels through process pools and
// cluster schedulers): per Inspector-table row its key, fields and per-run durations.
py::dict summarizeRecording(const std::string &etdump, const std::string &debugBuffer, const std::string &etrecord,
    const std::string &source, const std::string &target)
{
    RecordingsOptions opt;
    opt.time.source = scaleOf(source).value_or(TimeScale::NS);
    opt.time.target = scaleOf(target).value_or(TimeScale::MS);
    opt.etrecord = etrecord;
    opt.threads = 1;
    std::vector<RecordingSummary> out;
    {
        py::gil_scoped_release release;
        out = summarizeRecordings({ RecordingInput { etdump, debugBuffer } }, opt);
    }
    const RecordingSummary &r = out.at(0);
    py::dict d;
    d["file"] = r.file;
    d["debug_buffer"] = r.debugBuffer;
    d["error"] = r.error;
    d["warnings"] = r.warnings;
    d["unit"] = std::string(timeScaleName(r.unit));
    py::list events;
    for (const RecordingEvent &e : r.events) {
        py::dict ev;
        ev["block_index"] = e.blockIndex;
        ev["block"] = e.block;
        ev["event"] = e.event;
        ev["occurrence"] = e.occurrence;
        ev["instruction_id"] = e.instructionId;
        ev["op_types"] = e.opTypes;
        ev["delegated"] = e.delegated;
        ev["delegate_debug_id"] = e.delegateDebugId;
        ev["delegate_backend"] = e.delegateBackend;
        ev["module"] = e.module;
        ev["raw"] = e.perf ? py::object(floatList(e.perf->raw)) : py::none();
        events.append(ev);
    }
    d["events"] = events;
    return d;
}

// compare_results on two lists of numpy arrays / numbers: one dict per pair.
py::tuple compareResults(const py::list &reference, const py::list &run)
{
    auto toValues = [](const py::list &l) {
        std::vector<analysis::NumValue> vs;
        for (py::handle h : l) {
            if (h.is_none() || py::isinstance<py::str>(h)) {
                vs.push_back({});
                continue;
            }
            auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(h);
            if (!a)
                throw py::type_error("compare_results compares tensors (numpy arrays or torch tensors)");
            std::vector<std::int64_t> sizes(a.shape(), a.shape() + a.ndim());
            std::vector<double> values(a.data(), a.data() + a.size());
            vs.push_back(analysis::NumValue::tensor(
                analysis::NumTensor::fromDoubles(ScalarType::Double, std::move(sizes), std::move(values))));
        }
        return vs;
    };
    const auto ref = toValues(reference), got = toValues(run);
    std::vector<analysis::OutputComparison> rows;
    {
        py::gil_scoped_release release;
        rows = analysis::compareResults(ref, got);
    }
    py::list out;
    for (const auto &r : rows) {
        py::dict d;
        d["index"] = r.index;
        d["comparable"] = r.comparable;
        d["snr"] = r.snr;
        d["mse"] = r.mse;
        d["cosine"] = r.cosine;
        d["error"] = r.error;
        out.append(d);
    }
    return py::make_tuple(out, analysis::compareResultsText(rows, false));
}

} // namespace

// The hooks app/python/native/*.cpp reach the session through (native/bindings.h).
std::shared_ptr<const Session> nativeSession(py::handle native)
{
    return native.cast<const NativeSession &>().session;
}

py::object wrapNativeSession(std::shared_ptr<const Session> session)
{
    auto s = std::make_shared<NativeSession>();
    s->session = std::move(session);
    return py::cast(std::move(s));
}

PYBIND11_MODULE(_native, m)
{
    m.doc() = "etscope's core (readers, EventBlocks, tables, numeric gap) for the etscope package";
    m.attr("__version__") = ETSCOPE_VERSION;
    etscope::python::bindProgram(m);
    etscope::python::bindHistory(m);
    etscope::python::bindDeterminism(m);

    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p)
                std::rethrow_exception(p);
        } catch (const CoreError &e) {
            const std::string_view msg = e.what();
            PyObject *s = PyUnicode_DecodeUTF8(msg.data(), static_cast<Py_ssize_t>(msg.size()), "backslashreplace");
            PyErr_SetObject(e.io ? PyExc_OSError : PyExc_ValueError, s);
            Py_XDECREF(s);
        }
    });

    py::class_<NativeETRecord, std::shared_ptr<NativeETRecord>>(m, "ETRecord")
        .def_property_readonly("path", [](const NativeETRecord &r) { return r.record->path(); })
        .def("programs",
            [](const NativeETRecord &r) {
                std::vector<std::string> names;
                for (const auto &p : r.record->programs())
                    names.push_back(p.entryName);
                return names;
            })
        .def_property_readonly("warnings", [](const NativeETRecord &r) { return r.record->warnings(); })
        .def("program_nodes", &programNodes)
        .def("graph_diff", &graphDiff)
        .def("has_representative_inputs", [](const NativeETRecord &r) { return r.record->hasRepresentativeInputs(); });
    m.def("parse_etrecord", [](const std::string &path) {
        auto r = std::make_shared<NativeETRecord>();
        py::gil_scoped_release release;
        r->record = orThrow(readETRecord(path));
        return r;
    });

    py::class_<NativeSession, std::shared_ptr<NativeSession>>(m, "Session")
        .def_property_readonly("block_count", [](const NativeSession &s) { return s.session->blocks.size(); })
        .def_property_readonly("warnings",
            [](const NativeSession &s) {
                return std::vector<std::string>(s.session->warnings.begin(), s.session->warnings.end());
            })
        .def_property_readonly("has_debug_buffer", [](const NativeSession &s) { return bool(s.session->debugBuffer); })
        .def("block_info",
            [](py::object self, std::size_t i) { return blockInfo(self.cast<const NativeSession &>(), i, self); })
        .def("block_infos", &blockInfos)
        .def("block_events",
            [](py::object self, std::size_t i) { return blockEvents(self.cast<const NativeSession &>(), i, self); })
        .def("block_columns",
            [](py::object self, const std::vector<std::size_t> &blocks) {
                return blockColumns(self.cast<const NativeSession &>(), blocks, self);
            })
        .def("write_table", &writeTable)
        .def("find_total_for_module",
            [](const NativeSession &s, const std::string &name) { return findTotalForModule(s.session->blocks, name); })
        .def("numeric_gap", &numericGap)
        .def("numeric_gap_decomposed", &numericGapDecomposed)
        .def("reference_output", &referenceOutput)
        .def("write_trace", &writeTrace)
        .def("report_html", &reportHtml, py::arg("decompose") = false, py::arg("graph_a") = "", py::arg("graph_b") = "",
            py::arg("metric") = "MSE", py::arg("threshold") = std::nullopt, py::arg("reference_graph") = "",
            py::arg("inputs") = "", py::arg("bundled_program") = "", py::arg("test_case") = 0)
        .def("diff_tsv", &diffTsv)
        .def("backend_events_json", &backendEventsJson, py::arg("method"))
        .def("runs", &runsAnalysis, py::arg("method"), py::arg("prompt_tokens"), py::arg("shares_by") = "");
    m.def("summarize_recording", &summarizeRecording);
    m.def("expand_recordings", [](const std::vector<std::string> &args) {
        std::vector<std::pair<std::string, std::string>> out;
        for (const RecordingInput &r : orThrow(expandRecordings(args)))
            out.emplace_back(r.etdump, r.debugBuffer);
        return out;
    });
    m.def("compare_results", &compareResults);

    m.def("load", &load, py::arg("etdump_path"), py::arg("etdump_data"), py::arg("debug_buffer_path"),
        py::arg("etrecord"), py::arg("source"), py::arg("target"), py::arg("cycles_per_second"),
        py::arg("delegate_time_converter"), py::arg("program") = "",
        py::arg("program_data") = std::vector<std::string>(), py::arg("phase_by") = "",
        py::arg("prefill_runs") = std::nullopt);
    bindScope(m);
}
