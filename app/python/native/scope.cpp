// Python bindings of the scope (session/scope.h): the runs a table, a gap or a diff answers for,
// chosen by method, phase and run range; the session's run table; input files sorted by content.
#include "native/bindings.h"
#include "native/common.h"

#include "analysis/latencydiff.h"
#include "analysis/latencydiffformat.h"
#include "analysis/scopediff.h"
#include "session/inputfiles.h"
#include "session/session.h"

#include <pybind11/stl.h>

namespace py = pybind11;
using namespace etscope;

PhaseOptions phaseOptionsOf(const std::string &phaseBy, std::optional<std::size_t> prefillRuns)
{
    PhaseOptions o;
    if (prefillRuns) {
        o.rule = PhaseRule::PrefillRuns;
        o.prefillRuns = *prefillRuns;
        return o;
    }
    if (phaseBy.empty())
        return o;
    const auto rule = parsePhaseRule(phaseBy);
    if (!rule || *rule == PhaseRule::PrefillRuns)
        throw py::value_error("phase_by must be 'method', 'operators', 'duration' or 'none', not '" + phaseBy + "'");
    o.rule = *rule;
    return o;
}

void checkProgramInputs(const SessionInputs &inputs)
{
    SessionInputs files;
    files.program = inputs.program;
    files.programData = inputs.programData;
    if (Status st = checkInputFiles(files); !st) {
        PyErr_SetString(PyExc_OSError, st.error().message().c_str());
        throw py::error_already_set();
    }
}

namespace {

Scope scopeOf(const std::string &method, const std::string &phase, const std::string &runs)
{
    Scope scope;
    scope.method = method;
    if (!phase.empty()) {
        const auto p = parsePhase(phase);
        if (!p)
            throw py::value_error("phase must be 'prefill', 'decode', 'warmup', 'other' or 'all', not '" + phase + "'");
        scope.phase = *p;
    }
    if (!runs.empty())
        if (Status st = parseRunRange(runs, scope); !st)
            throw py::value_error(st.error().message());
    return scope;
}

// A session holding only the scoped blocks (what to_dataframe and the numeric gap read), with
// each block's method and phase, the scope's label and the rule that decided the phases.
py::dict scoped(py::handle native, const std::string &method, const std::string &phase, const std::string &runs)
{
    const std::shared_ptr<const Session> s = nativeSession(native);
    const Scope scope = scopeOf(method, phase, runs);
    Result<ScopedBlocks> blocks = makeError(ErrorCode::InvalidArgument, "", "not scoped");
    std::shared_ptr<const Session> copy;
    {
        py::gil_scoped_release release;
        blocks = scopeBlocks(*s, scope);
        if (blocks)
            copy = scopedSession(*s, *blocks); // its runs are the scope's: read runs from the whole session
    }
    if (!blocks)
        throw py::value_error(blocks.error().message());
    py::dict d;
    d["session"] = wrapNativeSession(std::move(copy));
    d["methods"] = blocks->blockMethod;
    d["phases"] = blocks->blockPhase;
    d["label"] = blocks->label;
    d["rule"] = blocks->ruleLine;
    d["runs"] = blocks->runCount;
    return d;
}

std::string diffTsvScoped(py::handle a, py::handle b, const std::string &method, const std::string &phase,
    const std::string &runs, double alpha, double minChange, bool all)
{
    const auto sa = nativeSession(a), sb = nativeSession(b);
    const Scope scope = scopeOf(method, phase, runs);
    DiffOptions opt;
    opt.alpha = alpha;
    opt.minChange = minChange;
    opt.includeOperatorCalls = all;
    Result<ScopedLatencyDiff> d = makeError(ErrorCode::InvalidArgument, "", "not compared");
    {
        py::gil_scoped_release release;
        d = diffLatencyByScope(*sa, *sb, scope, opt);
    }
    if (!d)
        throw etscope::python::CoreError(d.error());
    py::gil_scoped_release release;
    return formatDiffDelimited(d->diff, '\t');
}

// The run table: one entry per executed run, as loadSession decided it.
py::dict runTable(py::handle native)
{
    const auto s = nativeSession(native);
    const RunTable &t = s->runTable;
    py::list index, method, phase, generation, warmup, outlier, runData;
    for (const SessionRun &r : t.runs) {
        index.append(r.index);
        const std::string m = r.methodName();
        method.append(m.empty() ? py::object(py::none()) : py::object(py::str(m)));
        phase.append(phaseName(r.phase));
        generation.append(r.generation);
        warmup.append(r.warmup);
        outlier.append(r.outlier);
        runData.append(r.runDataIndex);
    }
    py::dict d;
    d["index"] = index;
    d["method"] = method;
    d["phase"] = phase;
    d["generation"] = generation;
    d["warmup"] = warmup;
    d["outlier"] = outlier;
    d["run_data_index"] = runData;
    d["rule"] = phaseRuleName(t.rule);
    d["rule_line"] = t.ruleLine;
    d["generations"] = t.generations;
    return d;
}

py::dict classify(const std::vector<std::string> &paths)
{
    const InputFiles f = classifyInputFiles(paths);
    py::dict d;
    d["etdump"] = f.etdump;
    d["debug_buffer"] = f.debugBuffer;
    d["etrecord"] = f.etrecord;
    d["bundled_program"] = f.bundledProgram;
    d["program"] = f.program;
    d["program_data"] = f.programData;
    d["errors"] = f.errors;
    d["ignored"] = f.ignored;
    return d;
}

} // namespace

void bindScope(py::module_ &m)
{
    m.def("scoped", &scoped, py::arg("native"), py::arg("method") = "", py::arg("phase") = "", py::arg("runs") = "");
    m.def("diff_tsv_scoped", &diffTsvScoped, py::arg("a"), py::arg("b"), py::arg("method"), py::arg("phase"),
        py::arg("runs"), py::arg("alpha"), py::arg("min_change"), py::arg("all"));
    m.def("run_table", &runTable, py::arg("native"));
    m.def("classify_files", &classify, py::arg("paths"));
    m.def("sniff_file", [](const std::string &path) {
        const FileSniff s = sniffInputFile(path);
        return py::make_tuple(fileKindLabel(s.kind), s.error);
    });
}
