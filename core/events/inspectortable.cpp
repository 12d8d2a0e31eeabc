#include "events/inspectortable.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace etscope {

namespace {

const char *const kStatNames[] = {"p10", "p50", "p90", "avg", "min", "max"};

double statValue(const PerfStats &p, int i)
{
    switch (i) {
    case 0: return p.p10;
    case 1: return p.p50;
    case 2: return p.p90;
    case 3: return p.avg;
    case 4: return p.min;
    default: return p.max;
    }
}

// UTF-8 code points: tabulate measures with len() on str.
std::size_t visibleWidth(const std::string &s)
{
    std::size_t n = 0;
    for (unsigned char c : s)
        if ((c & 0xC0) != 0x80)
            ++n;
    return n;
}

std::string strip(const std::string &s)
{
    const auto isSpace = [](unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
    std::size_t b = 0, e = s.size();
    while (b < e && isSpace(static_cast<unsigned char>(s[b])))
        ++b;
    while (e > b && isSpace(static_cast<unsigned char>(s[e - 1])))
        --e;
    return s.substr(b, e - b);
}

// Python int(str) / float(str) acceptance, close enough for table cells.
bool parsesAsInt(const std::string &raw)
{
    if (raw.size() > 64)
        return false; // no table cell holds a 64-digit integer; skips long list cells cheaply
    const std::string s = strip(raw);
    std::size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
    if (i >= s.size())
        return false;
    bool digit = false;
    for (; i < s.size(); ++i) {
        if (s[i] >= '0' && s[i] <= '9')
            digit = true;
        else if (!(s[i] == '_' && digit && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '9'))
            return false;
    }
    return digit;
}

bool parsesAsFloat(const std::string &raw)
{
    // Cheap rejection first: cells such as "[1, 2, ...]" can be long.
    const auto first = raw.find_first_not_of(" \t\n\r\f\v");
    if (first == std::string::npos)
        return false;
    const char c0 = static_cast<char>(std::tolower(static_cast<unsigned char>(raw[first])));
    if (!(std::isdigit(static_cast<unsigned char>(c0)) || c0 == '+' || c0 == '-' || c0 == '.' || c0 == 'i' ||
          c0 == 'n') ||
        raw.size() > 64)
        return false;
    const std::string s = strip(raw);
    std::string lower;
    for (char c : s)
        lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::string body = (lower[0] == '+' || lower[0] == '-') ? lower.substr(1) : lower;
    if (body == "inf" || body == "infinity" || body == "nan")
        return true;
    char *end = nullptr;
    std::strtod(s.c_str(), &end);
    return end && *end == '\0' && body.find_first_of("0123456789") != std::string::npos &&
           body.find('x') == std::string::npos;
}

// tabulate's type lattice: none < bool < int < float < text.
enum class CellType { None = 0, Bool = 1, Int = 2, Float = 3, Text = 5 };

CellType cellType(const GridCell &c)
{
    if (std::holds_alternative<std::monostate>(c))
        return CellType::None;
    if (std::holds_alternative<bool>(c))
        return CellType::Bool;
    if (std::holds_alternative<std::int64_t>(c))
        return CellType::Int;
    if (std::holds_alternative<double>(c))
        return CellType::Float;
    const std::string &s = std::get<std::string>(c);
    if (s == "True" || s == "False")
        return CellType::Bool;
    if (parsesAsInt(s))
        return CellType::Int;
    if (parsesAsFloat(s))
        return CellType::Float;
    return CellType::Text;
}

// format(x, "g"): C's %g with precision 6 has the same rules as Python's 'g'.
std::string formatG(double v)
{
    if (std::isnan(v))
        return "nan";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    return fmt::format("{:g}", v);
}

std::string pythonBoolText(bool b)
{
    return b ? "True" : "False";
}

std::string formatCell(const GridCell &c, CellType columnType)
{
    if (std::holds_alternative<std::monostate>(c))
        return {};
    if (columnType == CellType::Float) {
        if (const auto *d = std::get_if<double>(&c))
            return formatG(*d);
        if (const auto *i = std::get_if<std::int64_t>(&c))
            return formatG(static_cast<double>(*i));
        if (const auto *s = std::get_if<std::string>(&c))
            return formatG(std::strtod(s->c_str(), nullptr));
    }
    if (const auto *b = std::get_if<bool>(&c))
        return pythonBoolText(*b);
    if (const auto *i = std::get_if<std::int64_t>(&c))
        return std::to_string(*i);
    if (const auto *d = std::get_if<double>(&c))
        return pythonFloatRepr(*d);
    return std::get<std::string>(c);
}

// Digits after the decimal point (or after 'e'), -1 for ints and non-numbers (tabulate's _afterpoint).
int afterPoint(const std::string &s)
{
    if (!parsesAsFloat(s) || parsesAsInt(s))
        return -1;
    auto pos = s.rfind('.');
    if (pos == std::string::npos) {
        std::string lower = s;
        for (auto &ch : lower)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        pos = lower.rfind('e');
    }
    return pos == std::string::npos ? -1 : static_cast<int>(s.size() - pos - 1);
}

std::string padLeft(const std::string &s, std::size_t width)
{
    const std::size_t w = visibleWidth(s);
    return w >= width ? s : std::string(width - w, ' ') + s;
}

// In place: cells can be long (one start time per run).
void padRightInPlace(std::string &s, std::size_t width)
{
    const std::size_t w = visibleWidth(s);
    if (w < width)
        s.append(width - w, ' ');
}

std::string padRight(std::string s, std::size_t width)
{
    padRightInPlace(s, width);
    return s;
}

std::string repeat(const char *glyph, std::size_t n)
{
    std::string out;
    for (std::size_t i = 0; i < n; ++i)
        out += glyph;
    return out;
}

std::vector<GridCell> rowCells(std::size_t index, const TableRow &r, const TableOptions &options)
{
    const Event &e = *r.event;
    std::vector<GridCell> cells;
    cells.emplace_back(static_cast<std::int64_t>(index));
    cells.emplace_back(r.block->name);
    cells.emplace_back(std::string(e.name));
    for (int i = 0; i < 6; ++i) {
        if (e.perfData)
            cells.emplace_back(statValue(*e.perfData, i));
        else
            cells.emplace_back(std::monostate{});
    }
    cells.emplace_back(opTypesText(e.opTypes()));
    cells.emplace_back(e.isDelegatedOp);
    if (e.delegateBackendName())
        cells.emplace_back(*e.delegateBackendName());
    else
        cells.emplace_back(std::monostate{});
    if (e.perfData)
        cells.emplace_back(startTimeText(e.startTimes()));
    else
        cells.emplace_back(std::monostate{});
    if (options.includeModuleColumn)
        cells.emplace_back(eventModulePath(e));
    return cells;
}

} // namespace

std::string eventModulePath(const Event &e)
{
    for (const LinkedNode &n : e.linkedNodes())
        if (n.moduleStack && !n.moduleStack->empty())
            return n.moduleStack->back().path;
    return {};
}

std::string pythonFloatRepr(double v)
{
    if (std::isnan(v))
        return "nan";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    if (v == 0)
        return std::signbit(v) ? "-0.0" : "0.0";
    // Shortest round-trip digits, then Python's repr layout: positional for 1e-4 <= |v| < 1e16.
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    std::string sci(buf, res.ptr);
    const auto epos = sci.find('e');
    const int exp10 = std::atoi(sci.c_str() + epos + 1);
    std::string mant = sci.substr(0, epos);
    const bool neg = mant[0] == '-';
    if (neg)
        mant.erase(0, 1);
    std::string digits;
    for (char c : mant)
        if (c != '.')
            digits += c;
    std::string out;
    if (exp10 < -4 || exp10 >= 16) {
        out = digits.substr(0, 1);
        if (digits.size() > 1)
            out += "." + digits.substr(1);
        out += fmt::format("e{}{:02d}", exp10 < 0 ? '-' : '+', std::abs(exp10));
    } else if (exp10 < 0) {
        out = "0." + std::string(static_cast<std::size_t>(-exp10 - 1), '0') + digits;
    } else {
        const auto intLen = static_cast<std::size_t>(exp10 + 1);
        if (digits.size() <= intLen)
            out = digits + std::string(intLen - digits.size(), '0') + ".0";
        else
            out = digits.substr(0, intLen) + "." + digits.substr(intLen);
    }
    return neg ? "-" + out : out;
}

std::string pythonRepr(const std::string &s)
{
    // Python prefers single quotes unless the text holds ' and no ".
    const bool useDouble = s.find('\'') != std::string::npos && s.find('"') == std::string::npos;
    const char q = useDouble ? '"' : '\'';
    std::string out(1, q);
    for (unsigned char c : s) {
        switch (c) {
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c == static_cast<unsigned char>(q))
                out += std::string("\\") + static_cast<char>(c);
            else if (c < 0x20 || c == 0x7f)
                out += fmt::format("\\x{:02x}", c);
            else
                out += static_cast<char>(c);
        }
    }
    out += q;
    return out;
}

std::string opTypesText(const std::vector<std::string> &opTypes)
{
    if (opTypes.size() >= 5)
        return fmt::format("['{}', '{}' ... '{}'] ({} total)", opTypes[0], opTypes[1], opTypes.back(), opTypes.size());
    std::string out = "[";
    for (std::size_t i = 0; i < opTypes.size(); ++i) {
        if (i)
            out += ", ";
        out += pythonRepr(opTypes[i]);
    }
    return out + "]";
}

std::string startTimeText(std::span<const std::uint64_t> starts)
{
    std::string out;
    out.reserve(starts.size() * 12 + 2);
    out += '[';
    char buf[24];
    for (std::size_t i = 0; i < starts.size(); ++i) {
        if (i)
            out += ", ";
        const auto res = std::to_chars(buf, buf + sizeof buf, starts[i]);
        out.append(buf, res.ptr);
    }
    out += ']';
    return out;
}

std::vector<TableRow> inspectorTableRows(const std::vector<EventBlock> &blocks, const TableOptions &options)
{
    std::vector<TableRow> rows;
    for (const EventBlock &b : blocks)
        for (const Event &e : b.events)
            if (options.includeOperatorCalls || !e.isOperatorCall())
                rows.push_back({&b, &e});
    return rows;
}

std::vector<std::string> inspectorTableHeaders(TimeScale target, const TableOptions &options)
{
    std::vector<std::string> h{"event_block_name", "event_name"};
    const std::string unit = options.includeUnits ? fmt::format(" ({})", timeScaleName(target)) : std::string();
    for (const char *s : kStatNames)
        h.push_back(s + unit);
    for (const char *s : {"op_types", "is_delegated_op", "delegate_backend_name", "start_time"})
        h.emplace_back(s);
    if (options.includeModuleColumn)
        h.emplace_back("module");
    return h;
}

std::string renderFancyGrid(const std::vector<std::string> &headers, const std::vector<std::vector<GridCell>> &rows)
{
    const std::size_t ncols = headers.size();
    std::vector<CellType> types(ncols, CellType::Bool); // tabulate starts the reduction at bool
    for (const auto &r : rows)
        for (std::size_t c = 0; c < ncols && c < r.size(); ++c)
            types[c] = std::max(types[c], cellType(r[c]));

    std::vector<std::vector<std::string>> cols(ncols);
    std::vector<std::size_t> widths(ncols);
    std::vector<bool> numeric(ncols);
    for (std::size_t c = 0; c < ncols; ++c) {
        numeric[c] = types[c] == CellType::Int || types[c] == CellType::Float;
        auto &col = cols[c];
        for (const auto &r : rows)
            col.push_back(c < r.size() ? formatCell(r[c], types[c]) : std::string());
        const std::size_t minWidth = visibleWidth(headers[c]) + 2;
        if (numeric[c]) {
            // "decimal" alignment: pad right so decimal points line up, then right-align.
            int maxDec = -1;
            std::vector<int> dec;
            for (const auto &s : col) {
                dec.push_back(afterPoint(s));
                maxDec = std::max(maxDec, dec.back());
            }
            for (std::size_t i = 0; i < col.size(); ++i)
                col[i] += std::string(static_cast<std::size_t>(maxDec - dec[i]), ' ');
        } else {
            for (auto &s : col)
                if (!s.empty() && (std::isspace(static_cast<unsigned char>(s.front())) ||
                                   std::isspace(static_cast<unsigned char>(s.back()))))
                    s = strip(s);
        }
        std::size_t w = minWidth;
        for (const auto &s : col)
            w = std::max(w, visibleWidth(s));
        for (auto &s : col) {
            if (numeric[c])
                s = padLeft(s, w);
            else
                padRightInPlace(s, w);
        }
        widths[c] = w;
    }

    auto line = [&](const char *begin, const char *fill, const char *sep, const char *end) {
        std::string out = begin;
        for (std::size_t c = 0; c < ncols; ++c) {
            if (c)
                out += sep;
            out += repeat(fill, widths[c] + 2);
        }
        return out + end + "\n";
    };
    // Reserve the whole table up front (a 100k-row table is tens of MB): each row line holds its
    // cells plus padding and one 3-byte glyph per border, and a separator line follows it.
    std::size_t rowBytes = 3 * (ncols + 1) + 2 * ncols, sepBytes = 3 * (ncols + 1) + 1;
    for (std::size_t c = 0; c < ncols; ++c) {
        rowBytes += cols[c].empty() ? widths[c] : cols[c].front().size();
        sepBytes += 3 * (widths[c] + 2);
    }
    std::string out;
    out.reserve((rows.size() + 2) * (rowBytes + sepBytes + 16));
    auto dataRow = [&](auto cellAt) {
        out += "│";
        for (std::size_t c = 0; c < ncols; ++c) {
            if (c)
                out += "│";
            out += ' ';
            out += cellAt(c);
            out += ' ';
        }
        out += "│\n";
    };

    out += line("╒", "═", "╤", "╕");
    std::vector<std::string> hdr(ncols);
    for (std::size_t c = 0; c < ncols; ++c)
        hdr[c] = numeric[c] ? padLeft(headers[c], widths[c]) : padRight(headers[c], widths[c]);
    dataRow([&](std::size_t c) -> const std::string & { return hdr[c]; });
    out += line("╞", "═", "╪", "╡");
    const std::string between = line("├", "─", "┼", "┤");
    for (std::size_t r = 0; r < rows.size(); ++r) {
        dataRow([&](std::size_t c) -> const std::string & { return cols[c][r]; });
        if (r + 1 < rows.size())
            out += between;
    }
    out += line("╘", "═", "╧", "╛");
    return out;
}

std::string formatFancyGrid(const std::vector<EventBlock> &blocks, const TableOptions &options)
{
    const auto rows = inspectorTableRows(blocks, options);
    const TimeScale unit = blocks.empty() ? TimeScale::MS : blocks.front().targetTimeScale;
    std::vector<std::string> headers{""};
    for (auto &h : inspectorTableHeaders(unit, options))
        headers.push_back(std::move(h));
    std::vector<std::vector<GridCell>> cells;
    cells.reserve(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
        cells.push_back(rowCells(i, rows[i], options));
    return renderFancyGrid(headers, cells);
}

std::string csvField(const std::string &s, char sep)
{
    if (s.find_first_of(std::string{sep, '"', '\n', '\r'}) == std::string::npos)
        return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + "\"";
}

std::string formatDelimited(const std::vector<EventBlock> &blocks, char sep, const TableOptions &options)
{
    const auto rows = inspectorTableRows(blocks, options);
    const TimeScale unit = blocks.empty() ? TimeScale::MS : blocks.front().targetTimeScale;
    std::string out;
    for (const auto &h : inspectorTableHeaders(unit, options)) {
        out += sep;
        out += csvField(h, sep);
    }
    out += '\n';
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto cells = rowCells(i, rows[i], options);
        for (std::size_t c = 0; c < cells.size(); ++c) {
            if (c)
                out += sep;
            // Floats as numpy/Python repr (round-trip exact), NaN and None as empty.
            if (const auto *d = std::get_if<double>(&cells[c]))
                out += std::isnan(*d) ? std::string() : pythonFloatRepr(*d);
            else
                out += csvField(formatCell(cells[c], CellType::Text), sep);
        }
        out += '\n';
    }
    return out;
}

std::string formatJson(const std::vector<EventBlock> &blocks, const TableOptions &options)
{
    using nlohmann::ordered_json;
    const auto rows = inspectorTableRows(blocks, options);
    ordered_json arr = ordered_json::array();
    for (const auto &r : rows) {
        const Event &e = *r.event;
        ordered_json o;
        o["event_block_name"] = r.block->name;
        o["event_name"] = e.name;
        for (int i = 0; i < 6; ++i) {
            if (e.perfData && std::isfinite(statValue(*e.perfData, i)))
                o[kStatNames[i]] = statValue(*e.perfData, i);
            else
                o[kStatNames[i]] = nullptr;
        }
        o["unit"] = std::string(timeScaleName(r.block->targetTimeScale));
        o["op_types"] = e.opTypes();
        o["is_delegated_op"] = e.isDelegatedOp;
        o["delegate_backend_name"] = e.delegateBackendName() ? ordered_json(*e.delegateBackendName()) : ordered_json(nullptr);
        o["start_time"] = std::vector<std::uint64_t>(e.startTimes().begin(), e.startTimes().end());
        o["instruction_id"] = e.instructionId;
        o["runs"] = e.perfData ? e.perfData->raw.size() : 0;
        if (e.debugHandles())
            o["debug_handles"] = *e.debugHandles();
        else
            o["debug_handles"] = nullptr;
        o["module"] = eventModulePath(e);
        arr.push_back(std::move(o));
    }
    // Names come from the file and need not be UTF-8: replace bad bytes instead of throwing.
    return arr.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

} // namespace etscope
