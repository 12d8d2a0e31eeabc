#include "events/inspectortable.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "common/chunkedwriter.h"
#include "common/jsontext.h"
#include <nlohmann/json.hpp>

namespace etscope {

namespace {

const char *const kStatNames[] = { "p10", "p50", "p90", "avg", "min", "max" };

double statValue(const PerfStats &p, int i)
{
    switch (i) {
    case 0:
        return p.p10;
    case 1:
        return p.p50;
    case 2:
        return p.p90;
    case 3:
        return p.avg;
    case 4:
        return p.min;
    default:
        return p.max;
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
    const auto isSpace
        = [](unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
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
    if (!(std::isdigit(static_cast<unsigned char>(c0)) || c0 == '+' || c0 == '-' || c0 == '.' || c0 == 'i' || c0 == 'n')
        || raw.size() > 64)
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
    return end && *end == '\0' && body.find_first_of("0123456789") != std::string::npos
        && body.find('x') == std::string::npos;
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

// Bitwise equal doubles (so -0.0 and 0.0, which print differently, are not taken for each other).
bool sameNumber(const GridCell &a, const GridCell &b)
{
    const auto *x = std::get_if<double>(&a);
    const auto *y = std::get_if<double>(&b);
    return x && y && std::memcmp(x, y, sizeof(double)) == 0;
}

// format(x, "g"): C's %g with precision 6 has the same rules as Python's 'g'.
void formatGTo(std::string &out, double v)
{
    if (std::isnan(v)) {
        out = "nan";
    } else if (std::isinf(v)) {
        out = v > 0 ? "inf" : "-inf";
    } else {
        char buf[40]; // to_chars with a precision is printf's %.6g (checked against fmt on 20M values)
        out.assign(buf, std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 6).ptr);
    }
}

std::string pythonBoolText(bool b)
{
    return b ? "True" : "False";
}

// One cell as tabulate formats it for its column type, into `out` (reused from row to row).
void formatCellTo(std::string &out, const GridCell &c, CellType columnType)
{
    if (std::holds_alternative<std::monostate>(c)) {
        out.clear();
        return;
    }
    if (columnType == CellType::Float) {
        if (const auto *d = std::get_if<double>(&c))
            return formatGTo(out, *d);
        if (const auto *i = std::get_if<std::int64_t>(&c))
            return formatGTo(out, static_cast<double>(*i));
        if (const auto *s = std::get_if<std::string>(&c))
            return formatGTo(out, std::strtod(s->c_str(), nullptr));
    }
    if (const auto *b = std::get_if<bool>(&c)) {
        out = pythonBoolText(*b);
    } else if (const auto *i = std::get_if<std::int64_t>(&c)) {
        char buf[24];
        out.assign(buf, std::to_chars(buf, buf + sizeof buf, *i).ptr);
    } else if (const auto *d = std::get_if<double>(&c)) {
        char buf[kFloatReprMax];
        out.assign(buf, pythonFloatReprTo(buf, *d));
    } else {
        out = std::get<std::string>(c);
    }
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

// afterPoint of a number this file formatted (%g, repr or an integer): no parsing needed, the
// text is a number; "nan" and "inf" hold neither '.' nor 'e'.
int afterPointOfFormattedNumber(std::string_view s)
{
    auto pos = s.find('.');
    if (pos == std::string_view::npos)
        pos = s.find_first_of("eE");
    return pos == std::string_view::npos ? -1 : static_cast<int>(s.size() - pos - 1);
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

// Text into a cell, reusing the string the cell held for the previous row (rows are built
// three times each over hundreds of thousands of rows).
void setText(GridCell &cell, std::string_view text)
{
    if (auto *s = std::get_if<std::string>(&cell))
        s->assign(text);
    else
        cell = std::string(text);
}

void rowCells(std::vector<GridCell> &cells, std::size_t index, const TableRow &r, const TableOptions &options)
{
    const Event &e = *r.event;
    cells.resize(options.includeModuleColumn ? 14 : 13);
    cells[0] = static_cast<std::int64_t>(index);
    setText(cells[1], r.block->name);
    setText(cells[2], e.name);
    for (int i = 0; i < 6; ++i) {
        if (e.perfData)
            cells[std::size_t(3 + i)] = statValue(*e.perfData, i);
        else
            cells[std::size_t(3 + i)] = std::monostate {};
    }
    setText(cells[9], opTypesText(e.opTypes()));
    cells[10] = e.isDelegatedOp;
    if (e.delegateBackendName())
        setText(cells[11], *e.delegateBackendName());
    else
        cells[11] = std::monostate {};
    if (e.perfData) {
        thread_local fmt::memory_buffer starts;
        starts.clear();
        appendStartTimeText(starts, e.startTimes());
        setText(cells[12], std::string_view(starts.data(), starts.size()));
    } else {
        cells[12] = std::monostate {};
    }
    if (options.includeModuleColumn)
        setText(cells[13], eventModulePath(e));
}

} // namespace

std::string eventModulePath(const Event &e)
{
    for (const LinkedNode &n : e.linkedNodes())
        if (n.moduleStack && !n.moduleStack->empty())
            return n.moduleStack->back().path;
    return {};
}

std::size_t pythonFloatReprTo(char *out, double v)
{
    auto put = [out](const char *t) {
        const std::size_t n = std::strlen(t);
        std::memcpy(out, t, n);
        return n;
    };
    if (std::isnan(v))
        return put("nan");
    if (std::isinf(v))
        return put(v > 0 ? "inf" : "-inf");
    if (v == 0)
        return put(std::signbit(v) ? "-0.0" : "0.0");
    // Shortest round-trip digits, then Python's repr layout: positional for 1e-4 <= |v| < 1e16.
    char sci[40];
    const char *end = std::to_chars(sci, sci + sizeof sci, v, std::chars_format::scientific).ptr;
    const char *e = std::find(static_cast<const char *>(sci), end, 'e');
    int exp10 = 0;
    std::from_chars(e + 1 + (e[1] == '+'), end, exp10);
    char digits[24] = {};
    std::size_t nd = 0;
    const char *p = sci;
    std::size_t n = 0;
    if (*p == '-') {
        out[n++] = '-';
        ++p;
    }
    for (; p < e; ++p)
        if (*p != '.')
            digits[nd++] = *p;
    if (exp10 < -4 || exp10 >= 16) {
        out[n++] = digits[0];
        if (nd > 1) {
            out[n++] = '.';
            std::memcpy(out + n, digits + 1, nd - 1);
            n += nd - 1;
        }
        const int a = std::abs(exp10);
        out[n++] = 'e';
        out[n++] = exp10 < 0 ? '-' : '+';
        if (a < 10)
            out[n++] = '0';
        n += std::size_t(std::to_chars(out + n, out + n + 4, a).ptr - (out + n));
    } else if (exp10 < 0) {
        out[n++] = '0';
        out[n++] = '.';
        for (int i = 0; i < -exp10 - 1; ++i)
            out[n++] = '0';
        std::memcpy(out + n, digits, nd);
        n += nd;
    } else {
        const auto intLen = static_cast<std::size_t>(exp10 + 1);
        if (nd <= intLen) {
            std::memcpy(out + n, digits, nd);
            n += nd;
            for (std::size_t i = nd; i < intLen; ++i)
                out[n++] = '0';
            out[n++] = '.';
            out[n++] = '0';
        } else {
            std::memcpy(out + n, digits, intLen);
            n += intLen;
            out[n++] = '.';
            std::memcpy(out + n, digits + intLen, nd - intLen);
            n += nd - intLen;
        }
    }
    return n;
}

std::string pythonFloatRepr(double v)
{
    char buf[kFloatReprMax];
    return std::string(buf, pythonFloatReprTo(buf, v));
}

std::string pythonRepr(const std::string &s)
{
    // Python prefers single quotes unless the text holds ' and no ".
    const bool useDouble = s.find('\'') != std::string::npos && s.find('"') == std::string::npos;
    const char q = useDouble ? '"' : '\'';
    std::string out(1, q);
    for (unsigned char c : s) {
        switch (c) {
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
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

void appendStartTimeText(fmt::memory_buffer &out, std::span<const std::uint64_t> starts)
{
    out.push_back('[');
    char buf[24];
    for (std::size_t i = 0; i < starts.size(); ++i) {
        if (i) {
            out.push_back(',');
            out.push_back(' ');
        }
        const auto res = std::to_chars(buf, buf + sizeof buf, starts[i]);
        out.append(buf, res.ptr);
    }
    out.push_back(']');
}

std::string startTimeText(std::span<const std::uint64_t> starts)
{
    fmt::memory_buffer b;
    appendStartTimeText(b, starts);
    return fmt::to_string(b);
}

std::vector<TableRow> inspectorTableRows(const std::vector<EventBlock> &blocks, const TableOptions &options)
{
    std::vector<TableRow> rows;
    for (const EventBlock &b : blocks)
        for (const Event &e : b.events)
            if (options.includeOperatorCalls || !e.isOperatorCall())
                rows.push_back({ &b, &e });
    return rows;
}

std::vector<std::string> inspectorTableHeaders(TimeScale target, const TableOptions &options)
{
    std::vector<std::string> h { "event_block_name", "event_name" };
    const std::string unit = options.includeUnits ? fmt::format(" ({})", timeScaleName(target)) : std::string();
    for (const char *s : kStatNames)
        h.push_back(s + unit);
    for (const char *s : { "op_types", "is_delegated_op", "delegate_backend_name", "start_time" })
        h.emplace_back(s);
    if (options.includeModuleColumn)
        h.emplace_back("module");
    return h;
}

bool writeFancyGrid(
    const std::vector<std::string> &headers, std::size_t rowCount, const GridRowFn &rowAt, const TextSink &sink)
{
    const std::size_t ncols = headers.size();
    std::vector<GridCell> cells;
    // Pass 1: tabulate's column types (it starts the reduction at bool).
    std::vector<CellType> types(ncols, CellType::Bool);
    for (std::size_t r = 0; r < rowCount; ++r) {
        rowAt(r, cells);
        for (std::size_t c = 0; c < ncols && c < cells.size(); ++c)
            if (types[c] != CellType::Text)
                types[c] = std::max(types[c], cellType(cells[c]));
    }
    std::vector<bool> numeric(ncols);
    for (std::size_t c = 0; c < ncols; ++c)
        numeric[c] = types[c] == CellType::Int || types[c] == CellType::Float;

    // One cell as tabulate prints it before padding: numbers formatted for their column type,
    // text stripped when it starts or ends with white space. The row's previous cell is reused
    // when it holds the same number (a block of one run has six equal statistics).
    std::vector<std::string> texts(ncols);
    std::vector<int> decs(ncols, -1);
    auto formatRow = [&](std::size_t r) {
        rowAt(r, cells);
        for (std::size_t c = 0; c < ncols; ++c) {
            const GridCell empty;
            const GridCell &cell = c < cells.size() ? cells[c] : empty;
            if (c > 0 && numeric[c] && numeric[c - 1] && types[c] == types[c - 1] && c - 1 < cells.size()
                && sameNumber(cell, cells[c - 1])) {
                texts[c] = texts[c - 1];
                decs[c] = decs[c - 1];
                continue;
            }
            formatCellTo(texts[c], cell, types[c]);
            if (numeric[c]) {
                const bool ours = std::holds_alternative<double>(cell) || std::holds_alternative<std::int64_t>(cell);
                decs[c] = ours ? afterPointOfFormattedNumber(texts[c]) : afterPoint(texts[c]);
            } else if (!texts[c].empty()
                && (std::isspace(static_cast<unsigned char>(texts[c].front()))
                    || std::isspace(static_cast<unsigned char>(texts[c].back())))) {
                texts[c] = strip(texts[c]);
            }
        }
    };

    // Pass 2: widths. Numeric columns use "decimal" alignment: each cell is padded on the right
    // so that decimal points line up (maxDec - dec spaces), then right-aligned.
    std::vector<int> maxDec(ncols, -1);
    std::vector<std::int64_t> maxWidthLessDec(ncols, 0);
    std::vector<std::size_t> widths(ncols);
    for (std::size_t c = 0; c < ncols; ++c)
        widths[c] = visibleWidth(headers[c]) + 2;
    for (std::size_t r = 0; r < rowCount; ++r) {
        formatRow(r);
        for (std::size_t c = 0; c < ncols; ++c) {
            const std::size_t w = visibleWidth(texts[c]);
            if (numeric[c]) {
                maxDec[c] = std::max(maxDec[c], decs[c]);
                maxWidthLessDec[c] = std::max(maxWidthLessDec[c], std::int64_t(w) - decs[c]);
            } else {
                widths[c] = std::max(widths[c], w);
            }
        }
    }
    if (rowCount)
        for (std::size_t c = 0; c < ncols; ++c)
            if (numeric[c])
                widths[c] = std::max<std::size_t>(widths[c], std::size_t(maxWidthLessDec[c] + maxDec[c]));

    // Pass 3: the lines, streamed.
    ChunkedWriter w(sink);
    fmt::memory_buffer &out = w.buf();
    auto append = [&out](std::string_view t) { out.append(t.data(), t.data() + t.size()); };
    auto line = [&](const char *begin, const char *fill, const char *sep, const char *end) {
        std::string text = begin;
        for (std::size_t c = 0; c < ncols; ++c) {
            if (c)
                text += sep;
            text += repeat(fill, widths[c] + 2);
        }
        return text + end + "\n";
    };
    append(line("╒", "═", "╤", "╕"));
    append("│");
    for (std::size_t c = 0; c < ncols; ++c) {
        if (c)
            append("│");
        append(" ");
        append(numeric[c] ? padLeft(headers[c], widths[c]) : padRight(headers[c], widths[c]));
        append(" ");
    }
    append("│\n");
    append(line("╞", "═", "╪", "╡"));
    const std::string between = line("├", "─", "┼", "┤");
    constexpr std::string_view bar = "│";
    std::size_t widthSum = 0;
    for (const std::size_t wc : widths)
        widthSum += wc;
    // A row is some 500 bytes written in ~70 pieces: reserve it whole and copy through a pointer.
    for (std::size_t r = 0; r < rowCount; ++r) {
        formatRow(r);
        std::size_t bound = widthSum + ncols * (bar.size() + 2) + bar.size() + 1 + between.size();
        for (const std::string &t : texts)
            bound += t.size();
        const std::size_t start = out.size();
        out.try_resize(start + bound);
        if (out.size() < start + bound)
            return false; // out of memory
        char *p = out.data() + start;
        auto put = [&p](std::string_view t) {
            std::memcpy(p, t.data(), t.size());
            p += t.size();
        };
        auto pad = [&p](std::size_t n) {
            std::memset(p, ' ', n);
            p += n;
        };
        put(bar);
        for (std::size_t c = 0; c < ncols; ++c) {
            if (c)
                put(bar);
            *p++ = ' ';
            const std::size_t vw = visibleWidth(texts[c]);
            if (numeric[c]) {
                const std::size_t after = std::size_t(maxDec[c] - decs[c]);
                pad(widths[c] > vw + after ? widths[c] - vw - after : 0);
                put(texts[c]);
                pad(after);
            } else {
                put(texts[c]);
                pad(widths[c] > vw ? widths[c] - vw : 0);
            }
            *p++ = ' ';
        }
        put(bar);
        *p++ = '\n';
        if (r + 1 < rowCount)
            put(between);
        out.try_resize(std::size_t(p - out.data()));
        if (!w.maybeFlush())
            return false;
    }
    append(line("╘", "═", "╧", "╛"));
    return w.flush();
}

std::string renderFancyGrid(const std::vector<std::string> &headers, const std::vector<std::vector<GridCell>> &rows)
{
    std::string out;
    writeFancyGrid(
        headers, rows.size(), [&rows](std::size_t r, std::vector<GridCell> &cells) { cells = rows[r]; },
        [&out](std::string_view chunk) {
            out.append(chunk);
            return true;
        });
    return out;
}

bool writeFancyGrid(const std::vector<EventBlock> &blocks, const TableOptions &options, const TextSink &sink)
{
    const auto rows = inspectorTableRows(blocks, options);
    const TimeScale unit = blocks.empty() ? TimeScale::MS : blocks.front().targetTimeScale;
    std::vector<std::string> headers { "" };
    for (auto &h : inspectorTableHeaders(unit, options))
        headers.push_back(std::move(h));
    return writeFancyGrid(
        headers, rows.size(),
        [&](std::size_t i, std::vector<GridCell> &cells) { rowCells(cells, i, rows[i], options); }, sink);
}

std::string formatFancyGrid(const std::vector<EventBlock> &blocks, const TableOptions &options)
{
    std::string out;
    writeFancyGrid(blocks, options, [&out](std::string_view chunk) {
        out.append(chunk);
        return true;
    });
    return out;
}

void appendCsvField(fmt::memory_buffer &out, std::string_view s, char sep)
{
    const char special[] = { sep, '"', '\n', '\r' };
    if (s.find_first_of(std::string_view(special, 4)) == std::string_view::npos) {
        out.append(s.data(), s.data() + s.size());
        return;
    }
    out.push_back('"');
    for (char c : s) {
        if (c == '"')
            out.push_back('"');
        out.push_back(c);
    }
    out.push_back('"');
}

std::string csvField(const std::string &s, char sep)
{
    fmt::memory_buffer b;
    appendCsvField(b, s, sep);
    return fmt::to_string(b);
}

bool writeDelimited(const std::vector<EventBlock> &blocks, char sep, const TableOptions &options, const TextSink &sink)
{
    const TimeScale unit = blocks.empty() ? TimeScale::MS : blocks.front().targetTimeScale;
    ChunkedWriter w(sink);
    fmt::memory_buffer &out = w.buf();
    auto append = [&out](std::string_view t) { out.append(t.data(), t.data() + t.size()); };
    auto field = [&](std::string_view t) { appendCsvField(out, t, sep); };
    for (const auto &h : inspectorTableHeaders(unit, options)) {
        out.push_back(sep);
        field(h);
    }
    out.push_back('\n');
    char num[kFloatReprMax];
    std::size_t index = 0;
    for (const EventBlock &b : blocks)
        for (const Event &e : b.events) {
            if (!options.includeOperatorCalls && e.isOperatorCall())
                continue;
            fmt::format_to(std::back_inserter(out), "{}", index++);
            out.push_back(sep);
            field(b.name);
            out.push_back(sep);
            field(e.name);
            // Floats as numpy/Python repr (round-trip exact), NaN and None as empty; a block of
            // one run has six equal statistics, formatted once.
            double last = 0;
            std::size_t lastLen = std::size_t(-1);
            for (int i = 0; i < 6; ++i) {
                out.push_back(sep);
                if (!e.perfData)
                    continue;
                const double v = statValue(*e.perfData, i);
                if (std::isnan(v))
                    continue;
                if (lastLen == std::size_t(-1) || std::memcmp(&v, &last, sizeof v) != 0) {
                    lastLen = pythonFloatReprTo(num, v);
                    last = v;
                }
                out.append(num, num + lastLen);
            }
            out.push_back(sep);
            field(opTypesText(e.opTypes()));
            out.push_back(sep);
            append(e.isDelegatedOp ? "True" : "False");
            out.push_back(sep);
            if (e.delegateBackendName())
                field(*e.delegateBackendName());
            out.push_back(sep);
            if (e.perfData && sep == '\t')
                appendStartTimeText(out, e.startTimes()); // digits, ", " and brackets: nothing to quote
            else if (e.perfData)
                field(startTimeText(e.startTimes()));
            if (options.includeModuleColumn) {
                out.push_back(sep);
                field(eventModulePath(e));
            }
            out.push_back('\n');
            if (!w.maybeFlush())
                return false;
        }
    return w.flush();
}

std::string formatDelimited(const std::vector<EventBlock> &blocks, char sep, const TableOptions &options)
{
    std::string out;
    writeDelimited(blocks, sep, options, [&out](std::string_view chunk) {
        out.append(chunk);
        return true;
    });
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
        o["delegate_backend_name"]
            = e.delegateBackendName() ? ordered_json(*e.delegateBackendName()) : ordered_json(nullptr);
        o["start_time"] = std::vector<std::uint64_t>(e.startTimes().begin(), e.startTimes().end());
        o["instruction_id"] = e.instructionId;
        o["runs"] = e.perfData ? e.perfData->raw.size() : 0;
        if (e.debugHandles())
            o["debug_handles"] = *e.debugHandles();
        else
            o["debug_handles"] = nullptr;
        o["module"] = eventModulePath(e);
        if (options.blockMethod && options.blockPhase) {
            const auto b = std::size_t(r.block - blocks.data());
            const std::string &m = b < options.blockMethod->size() ? (*options.blockMethod)[b] : std::string();
            o["method"] = m.empty() ? ordered_json(nullptr) : ordered_json(m);
            o["phase"] = b < options.blockPhase->size() ? (*options.blockPhase)[b] : "all";
        }
        arr.push_back(std::move(o));
    }
    return jsonDocument(arr);
}

} // namespace etscope
