// What etscope-cli writes, from a loaded session: the Inspector's table (fancy grid or TSV) and
// the Chrome trace streamed to a Python file, the HTML report, the backend events as JSON.
#include "native/bindings.h"
#include "native/common.h"

#include "etrecord/backendlink.h"
#include "evalgap/decompose.h"
#include "evalgap/graphdiff.h"
#include "events/inspectortable.h"
#include "export/chrometrace.h"
#include "export/htmlreport.h"
#include "export/reportdecompose.h"
#include "export/reportgraphdiff.h"

#include <pybind11/stl.h>

#include <optional>

namespace py = pybind11;

namespace etscope::python {
namespace {

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

// The Chrome trace (etscope-cli trace) of a block and run range, streamed as the table is.
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

// Inspector.backend_events(): what `etscope-cli backend-events --json` writes (backendlink.h).
std::string backendEventsJson(const NativeSession &s, const std::string &method)
{
    py::gil_scoped_release release;
    const BackendEventTable table = decodeBackendEvents(s.session->blocks);
    const PayloadEventLinks payload = payloadEventLinks(*s.session, table); // with the program
    return formatBackendEventsJson(s.session->blocks, table, s.session->etrecord.get(), method,
        [&payload](std::size_t block, std::size_t event) { return payloadNodeRef(payload, block, event); });
}

} // namespace

void bindExport(py::module_ &m)
{
    sessionClass(m)
        .def("write_table", &writeTable)
        .def("write_trace", &writeTrace)
        .def("report_html", &reportHtml, py::arg("decompose") = false, py::arg("graph_a") = "", py::arg("graph_b") = "",
            py::arg("metric") = "MSE", py::arg("threshold") = std::nullopt, py::arg("reference_graph") = "",
            py::arg("inputs") = "", py::arg("bundled_program") = "", py::arg("test_case") = 0)
        .def("backend_events_json", &backendEventsJson, py::arg("method"));
}

} // namespace etscope::python
