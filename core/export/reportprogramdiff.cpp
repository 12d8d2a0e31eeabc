#include "export/reportprogramdiff.h"

#include "common/jsontext.h"
#include "program/programdiff.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>

namespace etscope {

namespace {

using std::string;

string esc(std::string_view s)
{
    return htmlEscaped(s);
}

string fileName(const string &p)
{
    return std::filesystem::path(p).filename().string();
}

// A change in red when it grows, green when it shrinks (inline: the window's HTML view has no
// style sheet classes).
string deltaCell(std::int64_t a, std::int64_t b)
{
    const std::int64_t d = b - a;
    const char *colour = d > 0 ? "#cf222e" : d < 0 ? "#1a7f37" : "#656d76";
    return fmt::format(R"(<td class="n" data-v="{}" style="color:{}">{}</td>)", d, colour,
        d == 0 ? std::string("0") : fmt::format("{:+}", d));
}

string percentCell(std::int64_t a, std::int64_t b)
{
    if (a == 0)
        return R"(<td class="n" data-v="0">–</td>)";
    const double p = 100.0 * (double(b) - double(a)) / double(a);
    return fmt::format(R"(<td class="n" data-v="{:.6f}">{:+.2f}</td>)", p, p);
}

string countRow(const char *kind, const ProgramDiffCount &c)
{
    return fmt::format(
               R"(<tr><td>{}</td><td>{}</td><td class="n" data-v="{}">{}</td><td class="n" data-v="{}">{}</td>)", kind,
               esc(c.name), c.a, c.a, c.b, c.b)
        + deltaCell(c.a, c.b) + "</tr>";
}

string signatureText(const std::vector<string> &v)
{
    return v.empty() ? string("–") : esc(fmt::format("{}", fmt::join(v, ", ")));
}

string methodBlock(const ProgramMethodDiff &m, std::size_t index)
{
    string out = "<h3>Method " + esc(m.name);
    if (!(m.inA && m.inB))
        out += m.inA ? " <span class=\"warn\">(only in A)</span>" : " <span class=\"warn\">(only in B)</span>";
    out += "</h3>";
    out += fmt::format(
        R"(<table class="kv" id="program-diff-method-{}"><thead><tr><th></th><th>A</th><th>B</th><th>change</th></tr></thead><tbody>)",
        index);
    out += "<tr><td>inputs</td><td>" + signatureText(m.inputsA) + "</td><td>" + signatureText(m.inputsB) + "</td><td>"
        + (m.inputsA != m.inputsB ? "changed" : "") + "</td></tr>";
    out += "<tr><td>outputs</td><td>" + signatureText(m.outputsA) + "</td><td>" + signatureText(m.outputsB)
        + "</td><td>" + (m.outputsA != m.outputsB ? "changed" : "") + "</td></tr>";
    auto bytesRow = [&](const char *what, std::uint64_t a, std::uint64_t b) {
        return fmt::format(R"(<tr><td>{}</td><td class="n" data-v="{}">{}</td><td class="n" data-v="{}">{}</td>)", what,
                   a, a, b, b)
            + deltaCell(std::int64_t(a), std::int64_t(b)) + "</tr>";
    };
    out += bytesRow("memory plan: peak live bytes", m.peakA, m.peakB);
    out += bytesRow("memory plan: planned bytes", m.plannedA, m.plannedB);
    out += "</tbody></table>";
    if (m.portableOps.empty() && m.delegatedOps.empty() && m.delegates.empty()) {
        out += "<p class=\"muted\">The same operators, portable and delegated, in both.</p>";
    } else {
        out += "<p>Operators and delegate calls whose counts differ:</p>";
        out += fmt::format(
            R"(<table class="sortable" id="program-diff-ops-{}"><thead><tr><th>where</th><th>operator or backend</th><th>A</th><th>B</th><th>change</th></tr></thead><tbody>)",
            index);
        for (const ProgramDiffCount &c : m.portableOps)
            out += countRow("portable kernel", c);
        for (const ProgramDiffCount &c : m.delegatedOps)
            out += countRow("delegated node", c);
        for (const ProgramDiffCount &c : m.delegates)
            out += countRow("delegate calls", c);
        out += "</tbody></table>";
    }
    if (!m.notes.empty()) {
        out += fmt::format(R"(<ul id="program-diff-notes-{}">)", index);
        for (const string &n : m.notes)
            out += "<li>" + esc(n) + "</li>";
        out += "</ul>";
    }
    return out;
}

} // namespace

std::string programDiffSummaryLine(const ProgramDiff &d)
{
    if (!d.comparable)
        return R"(<p id="program-diff-summary" class="warn">Program diff: not comparable — )" + esc(d.refusal)
            + ".</p>";
    return fmt::format(R"(<p id="program-diff-summary">Program diff: {} → {}: {} → {} bytes ({:+.2f} %).</p>)",
        esc(fileName(d.fileA)), esc(fileName(d.fileB)), d.bytesA, d.bytesB, d.growthPercent());
}

std::string programDiffSection(const ProgramDiff &d)
{
    string out = fmt::format(R"(<section id="program-diff"><h2>Program diff <span class="muted">({} → {})</span></h2>)",
        esc(fileName(d.fileA)), esc(fileName(d.fileB)));
    out += "<table class=\"kv\" id=\"program-diff-files\"><tbody><tr><td>A</td><td>" + esc(d.fileA)
        + "</td></tr><tr><td>B</td><td>" + esc(d.fileB) + "</td></tr></tbody></table>";
    if (!d.comparable) {
        out += R"(<p class="warn" id="program-diff-refusal"><b>Not comparable:</b> )" + esc(d.refusal)
            + ". No difference is shown for two different models.</p>";
        return out + "</section>\n";
    }
    out += fmt::format(
        R"(<p id="program-diff-verdict">File: <b>{} → {} bytes ({:+.2f} %)</b>. Constants by content: {} the same, {} only in A ({} bytes), {} only in B ({} bytes).</p>)",
        d.bytesA, d.bytesB, d.growthPercent(), d.constantsSame, d.constantsOnlyA, d.constantBytesOnlyA,
        d.constantsOnlyB, d.constantBytesOnlyB);
    out += "<h3>Size per part</h3><table class=\"sortable\" id=\"program-diff-size\"><thead><tr><th>part</th><th>A "
           "(bytes)</th><th>B (bytes)</th><th>change (bytes)</th><th>change (%)</th></tr></thead><tbody>";
    for (const ProgramDiffCount &c : d.sizeParts)
        out += fmt::format(R"(<tr><td>{}</td><td class="n" data-v="{}">{}</td><td class="n" data-v="{}">{}</td>)",
                   esc(c.name), c.a, c.a, c.b, c.b)
            + deltaCell(c.a, c.b) + percentCell(c.a, c.b) + "</tr>";
    out += fmt::format(
               R"(<tr><td><b>file</b></td><td class="n" data-v="{}"><b>{}</b></td><td class="n" data-v="{}"><b>{}</b></td>)",
               d.bytesA, d.bytesA, d.bytesB, d.bytesB)
        + deltaCell(std::int64_t(d.bytesA), std::int64_t(d.bytesB))
        + percentCell(std::int64_t(d.bytesA), std::int64_t(d.bytesB)) + "</tr></tbody></table>";
    for (std::size_t i = 0; i < d.methods.size(); ++i)
        out += methodBlock(d.methods[i], i);
    return out + "</section>\n";
}

} // namespace etscope
