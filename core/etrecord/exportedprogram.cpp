#include "etrecord/exportedprogram.h"

#include "common/jsontext.h"
#include "etrecord/lenientjson.h"
#include "etrecord/modulestack.h"
#include "etrecord/pyvalue.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <unordered_set>

namespace etscope {

using nlohmann::json;

namespace {

constexpr std::string_view kEdgePrefix = "executorch.exir.dialects.edge.ops.";

const json *member(const json &obj, const char *key)
{
    if (!obj.is_object())
        return nullptr;
    auto it = obj.find(key);
    return it == obj.end() || it->is_null() ? nullptr : &*it;
}

std::string stringOr(const json *j, std::string fallback = {})
{
    return j && j->is_string() ? j->get<std::string>() : fallback;
}

// True when `j` nests deeper than `limit` (stops looking there, so the recursion is bounded).
bool nestsDeeper(const json &j, int limit)
{
    if (!j.is_structured())
        return false;
    if (limit == 0)
        return true;
    for (const json &c : j)
        if (nestsDeeper(c, limit - 1))
            return true;
    return false;
}

std::string compact(const json &j)
{
    // nlohmann's dump recurses per level: hostile nesting must not reach it.
    if (nestsDeeper(j, 64))
        return "<JSON nested too deeply>";
    std::string s = jsonCompact(j);
    if (s.size() > 4096)
        s = s.substr(0, 4096) + "...";
    return s;
}

// Active member of a union: the only key, or the only non-null key (2023 spelling).
// A union whose members are all null is treated as as_none.
std::pair<std::string, const json *> unionMember(const json &u)
{
    static const json kNull;
    if (!u.is_object())
        return { "", nullptr };
    if (u.size() == 1)
        return { u.begin().key(), &u.begin().value() };
    std::pair<std::string, const json *> found { "", nullptr };
    int active = 0;
    for (auto it = u.begin(); it != u.end(); ++it)
        if (!it->is_null()) {
            found = { it.key(), &it.value() };
            ++active;
        }
    if (active == 1)
        return found;
    if (active == 0 && u.contains("as_none"))
        return { "as_none", &kNull };
    return { "", nullptr };
}

std::string symText(const json &s)
{
    if (s.is_number_integer())
        return std::to_string(s.get<std::int64_t>());
    auto [k, v] = unionMember(s);
    if (!v)
        return "?";
    if (k == "as_int" && v->is_number_integer())
        return std::to_string(v->get<std::int64_t>());
    if (k == "as_expr") {
        if (v->is_object())
            return stringOr(member(*v, "expr_str"), "?");
        if (v->is_string())
            return v->get<std::string>();
    }
    if (k == "as_name" && v->is_string())
        return v->get<std::string>();
    return compact(*v);
}

std::string numberText(const json &v)
{
    if (v.is_number_integer())
        return std::to_string(v.get<std::int64_t>());
    if (auto d = jsonToDouble(v)) {
        if (std::isnan(*d))
            return "nan";
        if (std::isinf(*d))
            return *d > 0 ? "inf" : "-inf";
        return fmt::format("{}", *d);
    }
    return compact(v);
}

std::string tensorName(const json &v)
{
    return stringOr(member(v, "name"));
}

GraphArgument parseArgument(const json &a)
{
    GraphArgument g;
    auto [kind, v] = unionMember(a);
    g.kind = kind.empty() ? "unknown" : kind;
    if (!v) {
        g.text = compact(a);
        return g;
    }
    if (kind == "as_none") {
        g.text = "None";
    } else if (kind == "as_tensor") {
        g.text = tensorName(*v);
        g.tensorNames.push_back(g.text);
    } else if (kind == "as_tensors" || kind == "as_optional_tensors") {
        std::vector<std::string> parts;
        if (v->is_array())
            for (const json &t : *v) {
                std::string n = tensorName(t);
                if (n.empty()) {
                    // as_optional_tensors items are themselves unions (as_tensor / as_none).
                    auto [ik, iv] = unionMember(t);
                    n = ik == "as_tensor" && iv ? tensorName(*iv) : "None";
                }
                if (n != "None")
                    g.tensorNames.push_back(n);
                parts.push_back(n);
            }
        g.text = fmt::format("[{}]", fmt::join(parts, ", "));
    } else if (kind == "as_int" || kind == "as_float") {
        g.text = numberText(*v);
    } else if (kind == "as_ints" || kind == "as_floats") {
        std::vector<std::string> parts;
        if (v->is_array())
            for (const json &x : *v)
                parts.push_back(numberText(x));
        g.text = fmt::format("[{}]", fmt::join(parts, ", "));
    } else if (kind == "as_bool" && v->is_boolean()) {
        g.text = v->get<bool>() ? "True" : "False";
    } else if (kind == "as_string" && v->is_string()) {
        g.text = v->get<std::string>();
    } else if (kind == "as_sym_int" || kind == "as_sym_bool") {
        g.text = symText(*v);
    } else if (kind == "as_scalar_type" && v->is_number_integer()) {
        g.text = jsonDtypeName(v->get<int>());
    } else {
        g.text = compact(*v);
    }
    return g;
}

TensorMetaInfo parseTensorMeta(const json &m)
{
    TensorMetaInfo t;
    if (const json *d = member(m, "dtype"); d && d->is_number_integer())
        t.jsonDtype = d->get<int>();
    if (const json *s = member(m, "sizes"); s && s->is_array())
        for (const json &x : *s)
            t.sizes.push_back(symText(x));
    if (const json *s = member(m, "strides"); s && s->is_array())
        for (const json &x : *s)
            t.strides.push_back(symText(x));
    if (const json *r = member(m, "requires_grad"); r && r->is_boolean())
        t.requiresGrad = r->get<bool>();
    if (const json *d = member(m, "device")) {
        t.device = stringOr(member(*d, "type"));
        if (const json *i = member(*d, "index"); i && i->is_number_integer())
            t.device += ":" + std::to_string(i->get<std::int64_t>());
    }
    return t;
}

std::string derivedName(const GraphNode &n, std::unordered_set<std::string> &used)
{
    if (n.outputs.size() == 1 && n.outputs[0].kind == "as_tensor" && !n.outputs[0].text.empty())
        return n.outputs[0].text;
    std::string base = n.opName;
    for (char &c : base)
        if (c == '.')
            c = '_';
    if (base.empty())
        base = "node";
    std::string name = base;
    for (int i = 1; used.count(name); ++i)
        name = fmt::format("{}_{}", base, i);
    return name;
}

SignatureSpec parseSpec(const json &spec)
{
    SignatureSpec s;
    auto [kind, v] = unionMember(spec);
    s.kind = kind;
    if (!v)
        return s;
    if (const json *arg = member(*v, "arg")) {
        if (const json *n = member(*arg, "name"); n && n->is_string())
            s.argName = n->get<std::string>();
        else
            s.argName = parseArgument(*arg).text;
    }
    for (const char *key : { "parameter_name", "buffer_name", "tensor_constant_name", "custom_obj_name",
             "user_input_name", "constant_name" })
        if (const json *n = member(*v, key); n && n->is_string()) {
            s.target = n->get<std::string>();
            break;
        }
    return s;
}

} // namespace

std::optional<ScalarType> scalarTypeFromJson(int d)
{
    switch (d) {
    case 1:
        return ScalarType::Byte;
    case 2:
        return ScalarType::Char;
    case 3:
        return ScalarType::Short;
    case 4:
        return ScalarType::Int;
    case 5:
        return ScalarType::Long;
    case 6:
        return ScalarType::Half;
    case 7:
        return ScalarType::Float;
    case 8:
        return ScalarType::Double;
    case 9:
        return ScalarType::ComplexHalf;
    case 10:
        return ScalarType::ComplexFloat;
    case 11:
        return ScalarType::ComplexDouble;
    case 12:
        return ScalarType::Bool;
    case 13:
        return ScalarType::BFloat16;
    case 14:
        return ScalarType::UInt16;
    case 15:
        return ScalarType::Float8e5m2;
    case 16:
        return ScalarType::Float8e4m3fn;
    default:
        return std::nullopt;
    }
}

std::string jsonDtypeName(int d)
{
    if (auto t = scalarTypeFromJson(d))
        return std::string(scalarTypeName(*t));
    return d == 0 ? "unknown" : fmt::format("dtype#{}", d);
}

std::string TensorMetaInfo::shapeText() const
{
    return fmt::format("[{}]", fmt::join(sizes, ", "));
}

Result<TensorMetaInfo> parseTensorMetaJson(std::string_view text)
{
    auto j = parseLenientJson(text, "tensor meta");
    if (!j)
        return j.error();
    if (!j->is_object())
        return makeError(ErrorCode::Corrupt, "tensor meta", "not a JSON object");
    return parseTensorMeta(*j);
}

std::string inspectorOpName(std::string_view target)
{
    if (target.starts_with(kEdgePrefix))
        return std::string(target.substr(kEdgePrefix.size()));
    if (target.starts_with("torch.ops.")) {
        // torch.ops.<ns>.<op>.<overload> -> <op>.<overload>
        std::string_view rest = target.substr(10);
        const auto dot = rest.find('.');
        if (dot != std::string_view::npos && rest.find('.', dot + 1) != std::string_view::npos)
            return std::string(rest.substr(dot + 1));
        return std::string(rest.substr(dot == std::string_view::npos ? 0 : dot + 1));
    }
    const auto dot = target.rfind('.');
    return std::string(dot == std::string_view::npos ? target : target.substr(dot + 1));
}

bool GraphNode::isGetItem() const
{
    return opName == "getitem";
}

bool GraphNode::isMemoryAlloc() const
{
    return target == "memory.alloc" || target.ends_with(".memory.alloc");
}

bool GraphNode::isDelegateCall() const
{
    return target.ends_with("executorch_call_delegate");
}

std::string GraphNode::sourceLocation() const
{
    return stackTrace ? userSourceLocation(*stackTrace) : std::string();
}

std::string SourceFrame::location() const
{
    const auto slash = file.find_last_of("/\\");
    const std::string name = slash == std::string::npos ? file : file.substr(slash + 1);
    return line > 0 ? fmt::format("{}:{}", name, line) : name;
}

std::vector<SourceFrame> parseSourceFrames(std::string_view t)
{
    std::vector<SourceFrame> out;
    std::size_t pos = 0;
    while (pos < t.size()) {
        std::size_t end = t.find('\n', pos);
        if (end == std::string_view::npos)
            end = t.size();
        std::string_view l = t.substr(pos, end - pos);
        pos = end + 1;
        const auto first = l.find_first_not_of(" \t");
        if (first == std::string_view::npos || !l.substr(first).starts_with("File \""))
            continue;
        l = l.substr(first + 6);
        const auto quote = l.find('"');
        if (quote == std::string_view::npos)
            continue;
        SourceFrame f;
        f.file = std::string(l.substr(0, quote));
        l = l.substr(quote + 1);
        if (const auto ln = l.find("line "); ln != std::string_view::npos)
            for (std::size_t i = ln + 5;
                 i < l.size() && std::isdigit(static_cast<unsigned char>(l[i])) && f.line < 100000000; ++i)
                f.line = f.line * 10 + (l[i] - '0');
        if (const auto in = l.find(", in "); in != std::string_view::npos) {
            std::string_view fn = l.substr(in + 5);
            while (!fn.empty() && (fn.back() == ' ' || fn.back() == '\r'))
                fn.remove_suffix(1);
            f.function = std::string(fn);
        }
        out.push_back(std::move(f));
    }
    return out;
}

bool isLibraryFrame(std::string_view fileIn)
{
    if (fileIn.starts_with("<")) // <frozen importlib._bootstrap>, <eval_with_key>.3: generated code
        return true;
    std::string file(fileIn);
    std::replace(file.begin(), file.end(), '\\', '/');
    file.insert(0, "/"); // relative paths ("torch/nn/...") match like absolute ones
    if (file.find("/site-packages/") != std::string::npos || file.find("/dist-packages/") != std::string::npos)
        return true;
    if (file.find("/torch/") != std::string::npos)
        return true;
    // The standard library: <prefix>/lib/pythonX.Y/ (lib64 on some systems), <prefix>/Lib/ on Windows.
    for (std::string_view lib : { "/lib/python", "/lib64/python" })
        for (auto at = file.find(lib); at != std::string::npos; at = file.find(lib, at + 1)) {
            std::size_t i = at + lib.size();
            while (i < file.size() && (std::isdigit(static_cast<unsigned char>(file[i])) || file[i] == '.'))
                ++i;
            if (i > at + lib.size() && i < file.size() && file[i] == '/')
                return true;
        }
    return file.find("/Lib/") != std::string::npos;
}

std::optional<SourceFrame> userFrame(std::string_view trace)
{
    std::vector<SourceFrame> frames = parseSourceFrames(trace);
    if (frames.empty())
        return std::nullopt;
    for (auto it = frames.rbegin(); it != frames.rend(); ++it)
        if (!isLibraryFrame(it->file))
            return std::move(*it);
    return std::move(frames.back());
}

std::string userSourceLocation(std::string_view trace)
{
    const auto f = userFrame(trace);
    return f ? f->location() : std::string();
}

const TensorMetaInfo *ExportedProgram::tensor(const std::string &name) const
{
    auto it = tensorValues.find(name);
    return it == tensorValues.end() ? nullptr : &it->second;
}

Result<ExportedProgram> parseExportedProgram(std::string_view text, const std::string &label)
{
    auto parsed = parseLenientJson(text, label);
    if (!parsed)
        return parsed.error();
    const json &root = *parsed;
    if (!root.is_object())
        return makeError(ErrorCode::Corrupt, label, "exported program is not a JSON object");
    const json *gm = member(root, "graph_module");
    const json *graph = gm ? member(*gm, "graph") : nullptr;
    if (!graph || !graph->is_object())
        return makeError(ErrorCode::Corrupt, label, "exported program has no graph_module.graph");

    ExportedProgram p;
    if (const json *sv = member(root, "schema_version")) {
        if (sv->is_number_integer())
            p.schemaVersion = std::to_string(sv->get<std::int64_t>());
        else if (sv->is_object())
            p.schemaVersion = fmt::format("{}.{}", member(*sv, "major") ? numberText(*member(*sv, "major")) : "?",
                member(*sv, "minor") ? numberText(*member(*sv, "minor")) : "?");
    }
    p.dialect = stringOr(member(root, "dialect"));
    if (const json *ov = member(root, "opset_version"); ov && ov->is_object())
        for (auto it = ov->begin(); it != ov->end(); ++it)
            if (it->is_number_integer())
                p.opsetVersion[it.key()] = it->get<std::int64_t>();

    if (const json *in = member(*graph, "inputs"); in && in->is_array())
        for (const json &a : *in)
            p.inputs.push_back(parseArgument(a));
    if (const json *out = member(*graph, "outputs"); out && out->is_array())
        for (const json &a : *out)
            p.outputs.push_back(parseArgument(a));
    if (const json *tv = member(*graph, "tensor_values"); tv && tv->is_object()) {
        p.tensorValues.reserve(tv->size());
        for (auto it = tv->begin(); it != tv->end(); ++it) {
            const json *meta = member(*it, "meta"); // 2023 files wrap TensorMeta
            p.tensorValues.emplace(it.key(), parseTensorMeta(meta && !member(*it, "dtype") ? *meta : *it));
        }
    }

    const json *nodes = member(*graph, "nodes");
    if (nodes && !nodes->is_array())
        return makeError(ErrorCode::Corrupt, label, "graph nodes is not a list");
    std::unordered_set<std::string> used;
    if (nodes) {
        p.nodes.reserve(nodes->size());
        std::size_t index = 0;
        for (const json &jn : *nodes) {
            if (!jn.is_object())
                return makeError(ErrorCode::Corrupt, label, fmt::format("node #{} is not an object", index));
            GraphNode n;
            n.target = stringOr(member(jn, "target"));
            n.opName = inspectorOpName(n.target);
            if (const json *ins = member(jn, "inputs"); ins && ins->is_array())
                for (const json &ia : *ins) {
                    NamedArgument na;
                    na.name = stringOr(member(ia, "name"));
                    if (const json *a = member(ia, "arg"))
                        na.arg = parseArgument(*a);
                    n.inputs.push_back(std::move(na));
                }
            if (const json *outs = member(jn, "outputs"); outs && outs->is_array())
                for (const json &oa : *outs)
                    n.outputs.push_back(parseArgument(oa));
            if (const json *md = member(jn, "metadata"); md && md->is_object()) {
                for (auto it = md->begin(); it != md->end(); ++it) {
                    const std::string value = it->is_string() ? it->get<std::string>() : compact(*it);
                    n.metadata.emplace_back(it.key(), value);
                    const std::string &k = it.key();
                    if (k == "stack_trace")
                        n.stackTrace = value;
                    else if (k == "nn_module_stack")
                        n.moduleStack = decodeModuleStack(value);
                    else if (k == "from_node")
                        n.fromNode = value;
                    else if (k == "torch_fn")
                        n.torchFn = value;
                    else if (k == "source_fn_stack")
                        n.sourceFnStack = value;
                    else if (k == "debug_handle") {
                        std::int64_t h = 0;
                        const char *b = value.data();
                        const auto [ptr, ec] = std::from_chars(b, b + value.size(), h);
                        if (ec == std::errc() && ptr == b + value.size())
                            n.debugHandle = h;
                        else
                            p.warnings.push_back(fmt::format(
                                "{}: node #{} has debug_handle '{}', not an integer", label, index, printable(value)));
                    }
                }
            }
            if (const json *nm = member(jn, "name");
                nm && nm->is_string() && !nm->get_ref<const std::string &>().empty()) {
                n.name = nm->get<std::string>();
            } else {
                n.name = derivedName(n, used);
                n.nameDerived = true;
            }
            used.insert(n.name);
            p.nodes.push_back(std::move(n));
            ++index;
        }
    }

    if (const json *sig = member(*gm, "signature")) {
        if (const json *is = member(*sig, "input_specs"); is && is->is_array())
            for (const json &s : *is)
                p.inputSpecs.push_back(parseSpec(s));
        if (const json *os = member(*sig, "output_specs"); os && os->is_array())
            for (const json &s : *os)
                p.outputSpecs.push_back(parseSpec(s));
    }
    return p;
}

std::vector<NodeOrigin> fromNodeChain(const GraphNode &n)
{
    std::vector<NodeOrigin> chain;
    if (!n.fromNode)
        return chain;
    auto doc = json::parse(*n.fromNode, nullptr, false);
    if (doc.is_string()) // the metadata value may be JSON text of the list (serialized twice)
        doc = json::parse(doc.get<std::string>(), nullptr, false);
    const json *list = &doc;
    // The last entry of each list is the node's direct source; its own from_node goes further back.
    for (int depth = 0; depth < 1000 && list->is_array() && !list->empty(); ++depth) {
        const auto &e = list->back();
        if (!e.is_object())
            break;
        auto name = e.find("name");
        if (name != e.end() && name->is_string()) {
            NodeOrigin o { name->get<std::string>(), std::nullopt };
            auto gid = e.find("graph_id");
            if (gid != e.end() && gid->is_number_integer())
                o.graphId = gid->get<std::int64_t>();
            chain.push_back(std::move(o));
        }
        auto next = e.find("from_node");
        if (next == e.end())
            break;
        list = &*next;
    }
    return chain;
}

} // namespace etscope
