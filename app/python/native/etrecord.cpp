// etscope._native.ETRecord and parse_etrecord: the ETRecord read once (an Inspector links it
// without reading it again) and its programs as `etscope-cli graph` lists them.
#include "native/bindings.h"
#include "native/common.h"
#include "native/values.h"

#include "etrecord/etrecord.h"
#include "etrecord/modulestack.h"

#include <pybind11/stl.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace py = pybind11;

namespace etscope::python {
namespace {

// One program of the ETRecord as `etscope-cli graph` lists it: a title line and one row per node
// (node, op, output, handle, module, source).
py::tuple programNodes(const NativeETRecord &r, const std::string &entry)
{
    const ETRecordProgram *p = r.record->program(entry);
    if (!p)
        throw py::key_error(entry);
    const ExportedProgram &ep = *p->program;
    const std::string title = fmt::format("{}: {} nodes ({}, schema {})", p->entryName, ep.nodes.size(),
        ep.dialect.empty() ? "dialect not recorded" : ep.dialect, ep.schemaVersion);
    py::list rows;
    for (const GraphNode &n : ep.nodes) {
        std::vector<std::string> shapes;
        for (const GraphArgument &o : n.outputs)
            for (const std::string &name : o.tensorNames) {
                const TensorMetaInfo *m = ep.tensor(name);
                shapes.push_back(m ? m->dtypeName() + m->shapeText() : "?");
            }
        std::string module;
        if (n.moduleStack && !n.moduleStack->empty())
            module = normalizeModulePath(n.moduleStack->back().path);
        py::dict row;
        row["name"] = n.name;
        row["target"] = n.target;
        row["op"] = n.opName;
        row["output"] = fmt::format("{}", fmt::join(shapes, " "));
        row["debug_handle"] = n.debugHandle ? py::object(py::int_(*n.debugHandle)) : py::none();
        row["module"] = module;
        row["source"] = n.sourceLocation();
        row["stack_trace"] = optionalStr(n.stackTrace);
        row["nn_module_stack"] = moduleStackToPython(n.moduleStack);
        rows.append(row);
    }
    return py::make_tuple(title, rows);
}

} // namespace

void bindETRecord(py::module_ &m)
{
    ETRecordClass(m, "ETRecord")
        .def_property_readonly("path", [](const NativeETRecord &r) { return r.record->path(); })
        .def("programs",
            [](const NativeETRecord &r) {
                std::vector<std::string> names;
                for (const auto &p : r.record->programs())
                    names.push_back(p.entryName);
                return names;
            })
        .def_property_readonly("warnings", [](const NativeETRecord &r) { return r.record->warnings(); })
        .def("program_nodes", &programNodes)
        .def("has_representative_inputs", [](const NativeETRecord &r) { return r.record->hasRepresentativeInputs(); });
    m.def("parse_etrecord", [](const std::string &path) {
        auto r = std::make_shared<NativeETRecord>();
        py::gil_scoped_release release;
        r->record = orThrow(readETRecord(path));
        return r;
    });
}

} // namespace etscope::python
