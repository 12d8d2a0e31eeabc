// etscope._native.determinism: the same tensors over several runs compared bit for bit
// (core/analysis/determinism.h), as the JSON `etscope-cli determinism --json` writes;
// etscope/_determinism.py turns it into a DataFrame.
#include "bindings.h"
#include "common.h"

#include "analysis/determinism.h"

#include <pybind11/stl.h>

#include <optional>

namespace py = pybind11;

namespace etscope::python {

void bindDeterminism(py::module_ &m)
{
    m.def(
        "determinism",
        [](const std::vector<std::string> &etdumps, const std::vector<std::string> &debugBuffers) {
            if (etdumps.size() != debugBuffers.size())
                throw py::value_error("give one debug buffer per ETDump");
            std::optional<Error> error;
            std::string json;
            {
                py::gil_scoped_release release;
                std::vector<DeterminismInput> inputs;
                for (std::size_t i = 0; i < etdumps.size() && !error; ++i) {
                    auto e = readETDump(etdumps[i]);
                    auto b = e ? DebugBuffer::open(debugBuffers[i])
                               : Result<std::shared_ptr<const DebugBuffer>>(e.error());
                    if (!b)
                        error = b.error();
                    else
                        inputs.push_back({ *e, *b });
                }
                if (!error) {
                    auto r = analyzeDeterminism(inputs);
                    if (r)
                        json = determinismJson(*r);
                    else
                        error = r.error();
                }
            }
            if (error)
                throw CoreError(*error);
            return json;
        },
        py::arg("etdumps"), py::arg("debug_buffers"),
        "Determinism of the logged tensors over the runs of these recordings, as JSON");
}

} // namespace etscope::python
