// etscope._native.Session and load(): one ETDump (+ debug buffer + ETRecord + program) loaded
// into the core's immutable Session with the GIL released, and the hooks the other topics reach
// it through (bindings.h).
#include "native/bindings.h"
#include "native/common.h"

#include "common/mappedfile.h"
#include "session/session.h"

#include <pybind11/stl.h>

#include <cmath>
#include <exception>

namespace py = pybind11;
using namespace etscope;
using etscope::python::NativeETRecord;
using etscope::python::NativeSession;

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

namespace etscope::python {
namespace {

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

} // namespace

void bindSession(py::module_ &m)
{
    SessionClass(m, "Session")
        .def_property_readonly("block_count", [](const NativeSession &s) { return s.session->blocks.size(); })
        .def_property_readonly("warnings",
            [](const NativeSession &s) {
                return std::vector<std::string>(s.session->warnings.begin(), s.session->warnings.end());
            })
        .def_property_readonly("has_debug_buffer", [](const NativeSession &s) { return bool(s.session->debugBuffer); });
    m.def("load", &load, py::arg("etdump_path"), py::arg("etdump_data"), py::arg("debug_buffer_path"),
        py::arg("etrecord"), py::arg("source"), py::arg("target"), py::arg("cycles_per_second"),
        py::arg("delegate_time_converter"), py::arg("program") = "",
        py::arg("program_data") = std::vector<std::string>(), py::arg("phase_by") = "",
        py::arg("prefill_runs") = std::nullopt);
}

} // namespace etscope::python
