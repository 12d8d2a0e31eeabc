// etscope._native.history: the history of many recordings (core/analysis/history.h) as the
// JSON `etscope-cli history --json` writes; etscope/_history.py turns it into DataFrames.
#include "bindings.h"
#include "common.h"

#include "export/recordings.h"

#include <pybind11/stl.h>

#include <optional>
#include <stdexcept>
#include <tuple>

namespace py = pybind11;

namespace etscope::python {

void bindHistory(py::module_ &m)
{
    m.def(
        "history",
        [](const std::vector<std::string> &paths, const std::string &labelsCsv,
            const std::vector<std::tuple<std::string, std::string, double>> &labels, const std::string &by,
            double alpha, std::size_t permutations, std::size_t minSegment, std::optional<std::uint64_t> seed,
            unsigned jobs, const std::string &source, const std::string &target) {
            HistoryInputs in;
            in.recordings = paths;
            in.labelsCsv = labelsCsv;
            for (const auto &[file, label, order] : labels)
                in.labels.push_back({ file, label, file, order });
            std::stable_sort(in.labels.begin(), in.labels.end(),
                [](const HistoryLabel &a, const HistoryLabel &b) { return a.order < b.order; });
            if (by != "operator" && by != "method" && by != "total")
                throw py::value_error("by: expected 'operator', 'method' or 'total', got '" + by + "'");
            in.by = by == "method" ? HistoryBy::Method : by == "total" ? HistoryBy::Total : HistoryBy::Operator;
            const auto s = parseTimeScale(source), t = parseTimeScale(target);
            if (!s || !t)
                throw py::value_error("unknown time scale");
            in.time.source = *s;
            in.time.target = *t;
            in.threads = jobs;
            in.changePoints.alpha = alpha;
            in.changePoints.permutations = permutations;
            in.changePoints.minSegment = minSegment;
            if (seed)
                in.changePoints.seed = *seed;
            std::string json;
            std::optional<Error> error;
            {
                py::gil_scoped_release release;
                auto h = loadHistory(in);
                if (h)
                    json = historyJson(*h);
                else
                    error = h.error();
            }
            if (error)
                throw CoreError(*error);
            return json;
        },
        py::arg("paths"), py::arg("labels_csv") = "",
        py::arg("labels") = std::vector<std::tuple<std::string, std::string, double>> {}, py::arg("by") = "operator",
        py::arg("alpha") = 0.001, py::arg("permutations") = 999, py::arg("min_segment") = 3,
        py::arg("seed") = std::nullopt, py::arg("jobs") = 0, py::arg("source_time_scale") = "ns",
        py::arg("target_time_scale") = "ms",
        "History of many recordings as JSON (series and change points; docs/history.md)");
}

} // namespace etscope::python
