// Inspector.runs(): one row per executed run of a loaded session as numpy columns, and the
// figures etscope-cli runs --json writes.
#include "native/bindings.h"
#include "native/common.h"

#include "analysis/runscompare.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <map>

namespace py = pybind11;

namespace etscope::python {
namespace {

// Inspector.runs(): one row per executed run as numpy columns, and the figures as the JSON
// `etscope-cli runs --json` writes (without its runs list; with its "coverage").
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
        // The session's runs as it decided them (its program, its phase options), with how much
        // of Method::execute the events explain (the "coverage" member, as the CLI's JSON).
        RecordingRuns recording = orThrow(analyzeRecordingRuns(*s.session, opt));
        report = std::move(recording.runs);
        std::vector<RunRow> rows = std::move(report.runs);
        report.runs.clear();
        figures = runsJsonWithCoverage(report, recording.coverage);
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

} // namespace

void bindRuns(py::module_ &m)
{
    sessionClass(m).def("runs", &runsAnalysis, py::arg("method"), py::arg("prompt_tokens"), py::arg("shares_by") = "");
}

} // namespace etscope::python
