// Comparisons: two loaded sessions' latencies (etscope-cli diff as TSV) and compare_results on two
// lists of tensors (SNR, MSE, cosine per pair).
#include "native/bindings.h"
#include "native/common.h"

#include "analysis/compareresults.h"
#include "analysis/latencydiff.h"
#include "analysis/latencydiffformat.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

namespace py = pybind11;

namespace etscope::python {
namespace {

std::string diffTsv(const NativeSession &a, const NativeSession &b, double alpha, double minChange, bool all)
{
    py::gil_scoped_release release;
    DiffOptions opt;
    opt.alpha = alpha;
    opt.minChange = minChange;
    opt.includeOperatorCalls = all;
    return formatDiffDelimited(diffLatency(a.session->blocks, b.session->blocks, opt), '\t');
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

void bindCompare(py::module_ &m)
{
    sessionClass(m).def("diff_tsv", &diffTsv);
    m.def("compare_results", &compareResults);
}

} // namespace etscope::python
