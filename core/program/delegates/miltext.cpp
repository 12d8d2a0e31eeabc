#include "program/delegates/miltext.h"

#include <fmt/format.h>

#include <cctype>

namespace etscope::delegates {

namespace {

constexpr std::size_t npos = std::string_view::npos;

bool isNameChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

std::size_t skipSpace(std::string_view t, std::size_t i)
{
    while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i])))
        ++i;
    return i;
}

// At a '"': the index after its closing quote (backslash escapes skipped), npos when unclosed.
std::size_t afterString(std::string_view t, std::size_t i)
{
    for (++i; i < t.size(); ++i) {
        if (t[i] == '\\')
            ++i;
        else if (t[i] == '"')
            return i + 1;
    }
    return npos;
}

char closerOf(char c)
{
    switch (c) {
    case '(':
        return ')';
    case '[':
        return ']';
    case '{':
        return '}';
    case '<':
        return '>';
    default:
        return 0;
    }
}

bool isCloser(char c)
{
    return c == ')' || c == ']' || c == '}' || c == '>';
}

// At an opening bracket: the index of its closing one, every bracket kind and string balanced
// in between; npos when the text ends first or a bracket closes the wrong kind.
std::size_t matching(std::string_view t, std::size_t open)
{
    std::vector<char> closers { closerOf(t[open]) };
    for (std::size_t i = open + 1; i < t.size();) {
        const char c = t[i];
        if (c == '"') {
            i = afterString(t, i);
            if (i == npos)
                return npos;
            continue;
        }
        if (c == '-' && i + 1 < t.size() && t[i + 1] == '>') { // "->" is no bracket
            i += 2;
            continue;
        }
        if (const char close = closerOf(c)) {
            closers.push_back(close);
        } else if (isCloser(c)) {
            if (c != closers.back())
                return npos;
            closers.pop_back();
            if (closers.empty())
                return i;
        }
        ++i;
    }
    return npos;
}

// Splits at `sep` outside brackets and strings; false when the brackets do not balance.
bool splitTopLevel(std::string_view t, char sep, std::vector<std::string_view> &parts)
{
    std::size_t start = 0;
    for (std::size_t i = 0; i < t.size();) {
        const char c = t[i];
        if (c == '"') {
            i = afterString(t, i);
            if (i == npos)
                return false;
            continue;
        }
        if (closerOf(c)) {
            i = matching(t, i);
            if (i == npos)
                return false;
            ++i;
            continue;
        }
        if (c == sep) {
            parts.push_back(t.substr(start, i - start));
            start = i + 1;
        }
        ++i;
    }
    parts.push_back(t.substr(start));
    return true;
}

// The first `c` outside brackets and strings, npos if none.
std::size_t findTopLevel(std::string_view t, char c)
{
    for (std::size_t i = 0; i < t.size();) {
        if (t[i] == '"') {
            i = afterString(t, i);
            if (i == npos)
                return npos;
            continue;
        }
        if (t[i] == c)
            return i;
        if (closerOf(t[i])) {
            i = matching(t, i);
            if (i == npos)
                return npos;
        }
        ++i;
    }
    return npos;
}

bool isName(std::string_view s)
{
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s.front())) || s.front() == '.')
        return false;
    for (char c : s)
        if (!isNameChar(c))
            return false;
    return true;
}

// "tensor<fp32, [1, 64]>": fp32 and [1, 64]; other types as they are written.
void parseType(std::string_view type, MilTextValue &v)
{
    type = trim(type);
    if (!type.starts_with("tensor<") || !type.ends_with(">")) {
        v.dtype = std::string(type);
        return;
    }
    std::vector<std::string_view> parts;
    if (!splitTopLevel(type.substr(7, type.size() - 8), ',', parts) || parts.empty()) {
        v.dtype = std::string(type);
        return;
    }
    v.dtype = std::string(trim(parts[0]));
    if (parts.size() < 2)
        return;
    const std::string_view dims = trim(parts[1]);
    if (dims.size() < 2 || dims.front() != '[' || dims.back() != ']')
        return;
    std::vector<std::string_view> each;
    if (!splitTopLevel(dims.substr(1, dims.size() - 2), ',', each))
        return;
    std::vector<std::uint64_t> shape;
    for (std::string_view d : each) {
        d = trim(d);
        if (d.empty() && each.size() == 1)
            break; // a scalar: []
        if (d.empty() || d.size() > 18)
            return;
        std::uint64_t n = 0;
        for (char c : d) {
            if (!std::isdigit(static_cast<unsigned char>(c)))
                return; // a symbolic dimension ("is0"): the shape is not a list of numbers
            n = n * 10 + std::uint64_t(c - '0');
        }
        shape.push_back(n);
    }
    v.shape = std::move(shape);
}

// "tensor<fp32, [1, 3]> x": the name is the last word, the type what comes before it.
std::optional<MilTextValue> typedName(std::string_view s)
{
    s = trim(s);
    std::size_t i = s.size();
    while (i > 0 && isNameChar(s[i - 1]))
        --i;
    if (i == s.size() || i == 0)
        return std::nullopt;
    MilTextValue v;
    v.name = std::string(s.substr(i));
    parseType(s.substr(0, i), v);
    return v;
}

// The BLOBFILE(path = …("file"), offset = …(N)) in a value, if any.
void readBlobFile(std::string_view value, MilTextOp &op)
{
    const std::size_t at = value.find("BLOBFILE(");
    if (at == npos)
        return;
    const std::string_view blob = value.substr(at);
    if (const std::size_t p = blob.find("path"); p != npos) {
        const std::size_t q = blob.find('"', p);
        if (q != npos) {
            const std::size_t end = afterString(blob, q);
            if (end != npos)
                op.blobPath = std::string(blob.substr(q + 1, end - q - 2));
        }
    }
    if (const std::size_t o = blob.find("offset"); o != npos) {
        // "uint64(64)" or "tensor<uint64, []>(64)": the digits before the first ')'.
        const std::size_t close = blob.find(')', o);
        if (close == npos)
            return;
        std::size_t begin = close;
        while (begin > o && std::isdigit(static_cast<unsigned char>(blob[begin - 1])))
            --begin;
        if (begin == close || close - begin > 18)
            return;
        std::uint64_t n = 0;
        for (std::size_t k = begin; k < close; ++k)
            n = n * 10 + std::uint64_t(blob[k] - '0');
        op.blobOffset = n;
    }
}

// `param = value` pairs: a name, a list of names, or a literal.
bool readArgs(std::string_view args, MilTextOp &op)
{
    std::vector<std::string_view> items;
    if (!splitTopLevel(args, ',', items))
        return false;
    for (std::string_view item : items) {
        item = trim(item);
        if (item.empty())
            continue;
        const std::size_t eq = findTopLevel(item, '=');
        if (eq == npos)
            return false;
        std::pair<std::string, std::vector<std::string>> arg { std::string(trim(item.substr(0, eq))), {} };
        const std::string_view value = trim(item.substr(eq + 1));
        if (isName(value)) {
            arg.second.emplace_back(value);
        } else if (value.size() >= 2 && value.front() == '(' && matching(value, 0) == value.size() - 1) {
            std::vector<std::string_view> names;
            if (!splitTopLevel(value.substr(1, value.size() - 2), ',', names))
                return false;
            for (std::string_view n : names)
                if (isName(trim(n)))
                    arg.second.emplace_back(trim(n));
        } else {
            readBlobFile(value, op);
        }
        op.args.push_back(std::move(arg));
    }
    return true;
}

// "OUTPUTS = OP(ARGS)[ATTRS]"
std::string readStatement(std::string_view s, MilTextOp &op)
{
    const std::size_t eq = findTopLevel(s, '=');
    if (eq == npos)
        return "a statement without '='";
    std::string_view lhs = trim(s.substr(0, eq));
    std::string_view rhs = trim(s.substr(eq + 1));
    // Several outputs: `T a, T b = …`, or the same in parentheses.
    if (!lhs.empty() && lhs.front() == '(' && matching(lhs, 0) == lhs.size() - 1)
        lhs = lhs.substr(1, lhs.size() - 2);
    std::vector<std::string_view> outs;
    if (!splitTopLevel(lhs, ',', outs))
        return "unbalanced outputs";
    for (std::string_view o : outs)
        if (auto v = typedName(o))
            op.outputs.push_back(std::move(*v));
    if (op.outputs.empty())
        return "a statement without an output";
    std::size_t i = 0;
    while (i < rhs.size() && isNameChar(rhs[i]))
        ++i;
    op.op = std::string(rhs.substr(0, i));
    i = skipSpace(rhs, i);
    if (op.op.empty() || i >= rhs.size() || rhs[i] != '(')
        return fmt::format("'{}' is not an operation call", op.outputs.front().name);
    const std::size_t close = matching(rhs, i);
    if (close == npos)
        return fmt::format("the arguments of '{}' do not close", op.outputs.front().name);
    if (!readArgs(rhs.substr(i + 1, close - i - 1), op))
        return fmt::format("the arguments of '{}' are not `name = value` pairs", op.outputs.front().name);
    // Attributes: a const's val (in a blob file or written out); constexpr_* ops keep their
    // compressed data in blob files too.
    const std::size_t attrs = skipSpace(rhs, close + 1);
    if (attrs < rhs.size() && rhs[attrs] == '[') {
        const std::size_t end = matching(rhs, attrs);
        if (end == npos)
            return fmt::format("the attributes of '{}' do not close", op.outputs.front().name);
        const std::string_view list = rhs.substr(attrs + 1, end - attrs - 1);
        readBlobFile(list, op);
        if (op.op == "const" && !op.blobOffset) {
            std::vector<std::string_view> items;
            if (splitTopLevel(list, ',', items))
                for (std::string_view item : items) {
                    const std::size_t e = findTopLevel(item, '=');
                    if (e != npos && trim(item.substr(0, e)) == "val") {
                        op.inlineValue = true;
                        op.inlineChars = trim(item.substr(e + 1)).size();
                    }
                }
        }
    }
    return {};
}

// "func NAME<OPSET>(PARAMS) { STATEMENTS } -> (OUTPUTS);" from `i` (at "func").
std::string readFunction(std::string_view t, std::size_t &i, MilTextProgram &p, std::size_t &ops)
{
    MilTextFunction f;
    i = skipSpace(t, i + 4);
    const std::size_t nameStart = i;
    while (i < t.size() && isNameChar(t[i]))
        ++i;
    f.name = std::string(t.substr(nameStart, i - nameStart));
    if (i < t.size() && t[i] == '<') {
        const std::size_t close = matching(t, i);
        if (close == npos)
            return fmt::format("the opset of function '{}' does not close", f.name);
        f.opset = std::string(trim(t.substr(i + 1, close - i - 1)));
        i = close + 1;
    }
    i = skipSpace(t, i);
    if (i >= t.size() || t[i] != '(')
        return fmt::format("function '{}' has no parameter list", f.name);
    std::size_t close = matching(t, i);
    if (close == npos)
        return fmt::format("the parameters of function '{}' do not close", f.name);
    std::vector<std::string_view> params;
    if (!splitTopLevel(t.substr(i + 1, close - i - 1), ',', params))
        return fmt::format("the parameters of function '{}' do not balance", f.name);
    for (std::string_view param : params)
        if (auto v = typedName(param))
            f.inputs.push_back(std::move(*v));
    i = skipSpace(t, close + 1);
    if (i >= t.size() || t[i] != '{')
        return fmt::format("function '{}' has no body", f.name);
    close = matching(t, i);
    if (close == npos)
        return fmt::format("the body of function '{}' does not close", f.name);
    std::vector<std::string_view> statements;
    if (!splitTopLevel(t.substr(i + 1, close - i - 1), ';', statements))
        return fmt::format("the body of function '{}' does not balance", f.name);
    std::string error;
    for (std::string_view s : statements) {
        if (trim(s).empty())
            continue;
        if (++ops > kMaxMilTextOps) {
            error = fmt::format("more than {} operations; the rest are not listed", kMaxMilTextOps);
            break;
        }
        MilTextOp op;
        if (error = readStatement(trim(s), op); !error.empty()) {
            error = fmt::format("function '{}', operation {}: {}", f.name, f.ops.size(), error);
            break;
        }
        f.ops.push_back(std::move(op));
    }
    i = skipSpace(t, close + 1);
    if (error.empty() && t.substr(i).starts_with("->")) {
        i = skipSpace(t, i + 2);
        if (i < t.size() && t[i] == '(') {
            close = matching(t, i);
            if (close == npos)
                return fmt::format("the outputs of function '{}' do not close", f.name);
            std::vector<std::string_view> outs;
            if (splitTopLevel(t.substr(i + 1, close - i - 1), ',', outs))
                for (std::string_view o : outs)
                    if (isName(trim(o)))
                        f.outputs.emplace_back(trim(o));
            i = close + 1;
        }
        i = skipSpace(t, i);
        if (i < t.size() && t[i] == ';')
            ++i;
    }
    p.functions.push_back(std::move(f));
    return error;
}

} // namespace

MilTextProgram parseMilText(std::string_view t)
{
    MilTextProgram p;
    std::size_t i = skipSpace(t, 0);
    if (!t.substr(i).starts_with("program")) {
        p.error = "the text does not start with 'program'";
        return p;
    }
    i = skipSpace(t, i + 7);
    if (i < t.size() && t[i] == '(') {
        const std::size_t close = matching(t, i);
        if (close == npos) {
            p.error = "program( does not close";
            return p;
        }
        p.version = std::string(trim(t.substr(i + 1, close - i - 1)));
        i = skipSpace(t, close + 1);
    }
    if (i < t.size() && t[i] == '[') { // buildInfo
        const std::size_t close = matching(t, i);
        if (close == npos) {
            p.error = "the program's attributes do not close";
            return p;
        }
        i = skipSpace(t, close + 1);
    }
    if (i >= t.size() || t[i] != '{') {
        p.error = "the program has no body";
        return p;
    }
    // Function by function: damage in one keeps the functions before it.
    std::size_t ops = 0;
    for (i = skipSpace(t, i + 1);; i = skipSpace(t, i)) {
        if (i >= t.size()) {
            p.error = "the program's body does not close";
            break;
        }
        if (t[i] == '}')
            break;
        if (!t.substr(i).starts_with("func")) {
            p.error = fmt::format("expected a function at character {}", i);
            break;
        }
        if (p.error = readFunction(t, i, p, ops); !p.error.empty())
            break;
    }
    return p;
}

} // namespace etscope::delegates
