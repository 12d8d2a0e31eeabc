// Many recordings: one reduced to plain Python data (summarize_recording, for process pools and
// cluster schedulers) and the expansion of folders and globs into recordings.
#include "native/bindings.h"
#include "native/common.h"
#include "native/values.h"

#include "export/recordings.h"

#include <pybind11/stl.h>

#include <utility>

namespace py = pybind11;

namespace etscope::python {
namespace {

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

} // namespace

void bindRecordings(py::module_ &m)
{
    m.def("summarize_recording", &summarizeRecording);
    m.def("expand_recordings", [](const std::vector<std::string> &args) {
        std::vector<std::pair<std::string, std::string>> out;
        for (const RecordingInput &r : orThrow(expandRecordings(args)))
            out.emplace_back(r.etdump, r.debugBuffer);
        return out;
    });
}

} // namespace etscope::python
