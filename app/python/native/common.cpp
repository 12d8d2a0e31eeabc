// The helpers every topic of etscope._native shares (common.h), and the translation of the core's
// errors into the package's exceptions (bindErrors).
#include "native/common.h"
#include "native/bindings.h"

namespace py = pybind11;

namespace etscope::python {

py::str text(std::string_view s)
{
    PyObject *o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "backslashreplace");
    if (!o)
        throw py::error_already_set();
    return py::reinterpret_steal<py::str>(o);
}

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

analysis::Metric metricOrThrow(const std::string &name)
{
    const auto metric = analysis::parseMetric(name);
    if (!metric)
        throw py::value_error("Unsupported distance metric '" + name + "'");
    return *metric;
}

eval::InputChoice inputChoice(const std::string &inputsFile, const std::string &bundledProgram, int testCase)
{
    eval::InputChoice c;
    c.inputsFile = inputsFile;
    c.bundledProgram = bundledProgram;
    c.testCase = testCase;
    return c;
}

// A CoreError raised into Python: OSError or ValueError with the core's one line (bad bytes as
// \xNN escapes, as text() decodes).
void bindErrors(py::module_ & /*m*/)
{
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
}

} // namespace etscope::python
