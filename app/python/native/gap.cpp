// The numeric gap with etscope's evaluator as the reference (calculate_numeric_gap, its
// decomposition into quantization and kernel error) and graph against graph on the ETRecord:
// one dict per row plus the TSV / JSON etscope-cli writes for the same table.
#include "native/bindings.h"
#include "native/common.h"
#include "native/values.h"

#include "analysis/numericgap.h"
#include "evalgap/decompose.h"
#include "evalgap/evalgap.h"
#include "evalgap/graphdiff.h"

#include <pybind11/stl.h>

namespace py = pybind11;

namespace etscope::python {
namespace {

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

} // namespace

void bindGap(py::module_ &m)
{
    sessionClass(m).def("numeric_gap", &numericGap).def("numeric_gap_decomposed", &numericGapDecomposed);
    etrecordClass(m).def("graph_diff", &graphDiff);
}

} // namespace etscope::python
