// etscope._native program functions: the .pte (with its .ptd files) as the JSON etscope-cli
// `program --json` and `size --json` write; etscope.Program (etscope/_program.py) wraps them.
#include "bindings.h"

#include "program/flattensor.h"
#include "program/programexport.h"
#include "program/programsize.h"

#include <pybind11/stl.h>

#include <string>
#include <vector>

namespace etscope::python {
namespace {

std::shared_ptr<const Program> openOrThrow(const std::string &path, const std::vector<std::string> &data)
{
    auto program = openProgramWithData(path, data);
    if (!program)
        throw pybind11::value_error(program.error().message());
    return *program;
}

} // namespace

void bindProgram(pybind11::module_ &m)
{
    m.def(
        "program_json",
        [](const std::string &path, const std::vector<std::string> &data) {
            return programJson(*openOrThrow(path, data));
        },
        pybind11::arg("path"), pybind11::arg("data") = std::vector<std::string> {},
        "The program as etscope-cli program --json writes it (delegates with their decoded nodes).");
    m.def(
        "program_size_json",
        [](const std::string &path, const std::vector<std::string> &data) {
            return sizeJson(programSize(*openOrThrow(path, data)));
        },
        pybind11::arg("path"), pybind11::arg("data") = std::vector<std::string> {},
        "Every byte of the program as etscope-cli size --json writes it.");
}

} // namespace etscope::python
