#include "analysis/history.h"

#include "common/jsontext.h"
#include "common/numberformat.h"
#include "common/parallel.h"
#include "events/blockstats.h"
#include "events/perfdata.h"
#include "session/session.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <numeric>
#include <sstream>

namespace etscope {

namespace fs = std::filesystem;

const char *historyByName(HistoryBy by)
{
    switch (by) {
    case HistoryBy::Method:
        return "method";
    case HistoryBy::Total:
        return "total";
    case HistoryBy::Operator:
        break;
    }
    return "operator";
}

namespace {

constexpr std::uint64_t kFnvOffset = 0xcbf2'9ce4'8422'2325ULL;
constexpr std::uint64_t kFnvPrime = 0x100'0000'01b3ULL;

std::uint64_t fnv1a(std::uint64_t h, std::string_view s)
{
    for (unsigned char c : s) {
        h ^= c;
        h *= kFnvPrime;
    }
    return h;
}

bool isOperatorEvent(const Event &e)
{
    return e.perfData && !e.isOperatorCall() && !e.isFramework();
}

HistoryPoint pointOf(std::span<const double> raw)
{
    const PerfStats s = PerfStats::of(raw);
    return { s.p10, s.p50, s.p90, raw.size() };
}

} // namespace

std::uint64_t seriesSeed(std::uint64_t seed, std::string_view name)
{
    return seed ^ fnv1a(kFnvOffset, name);
}

RecordingProfile profileSession(const Session &session, HistoryBy by)
{
    RecordingProfile p;
    p.file = session.inputs.etdump;
    p.warnings.assign(session.warnings.begin(), session.warnings.end());
    p.runs = countRecording(session.blocks).runs;
    std::uint64_t sig = kFnvOffset;
    for (const EventBlock &b : session.blocks) {
        sig = fnv1a(sig, b.name);
        for (const Event &e : b.events)
            if (e.perfData) {
                sig = fnv1a(sig, e.name);
                sig = fnv1a(sig, std::to_string(e.instructionId));
            }
    }
    p.signature = sig;
    // Blocks that contribute series; their names are prefixed only when there are several.
    std::vector<std::size_t> contributing;
    for (std::size_t bi = 0; bi < session.blocks.size(); ++bi) {
        const auto &events = session.blocks[bi].events;
        const bool any = by == HistoryBy::Method ? std::any_of(events.begin(), events.end(),
                             [](const Event &e) { return e.perfData && e.name == kMethodExecute; })
                                                 : std::any_of(events.begin(), events.end(), isOperatorEvent);
        if (any)
            contributing.push_back(bi);
    }
    auto names = std::make_shared<std::vector<std::string>>();
    for (std::size_t bi : contributing) {
        const EventBlock &b = session.blocks[bi];
        const std::string prefix = contributing.size() > 1 ? fmt::format("{} {}: ", b.name, bi) : std::string();
        if (by == HistoryBy::Total) {
            std::vector<double> sum;
            for (const Event &e : b.events)
                if (isOperatorEvent(e)) {
                    const auto raw = e.perfData->raw;
                    sum.resize(std::max(sum.size(), raw.size()), 0.0);
                    for (std::size_t r = 0; r < raw.size(); ++r)
                        sum[r] += raw[r];
                }
            names->push_back(prefix + "total of operators");
            p.points.push_back(pointOf(sum));
            continue;
        }
        std::map<std::string_view, std::size_t> count, seen;
        for (const Event &e : b.events)
            if (by == HistoryBy::Method ? (e.perfData && e.name == kMethodExecute) : isOperatorEvent(e))
                ++count[e.name];
        for (const Event &e : b.events) {
            if (!(by == HistoryBy::Method ? (e.perfData && e.name == kMethodExecute) : isOperatorEvent(e)))
                continue;
            const std::size_t k = ++seen[e.name];
            names->push_back(
                prefix + std::string(e.name) + (count[e.name] > 1 ? fmt::format(" #{}", k) : std::string()));
            p.points.push_back(pointOf(e.perfData->raw));
        }
    }
    p.names = std::move(names);
    return p;
}

std::vector<RecordingProfile> profileRecordings(
    const std::vector<std::string> &etdumps, HistoryBy by, const TimeConversion &time, unsigned threads)
{
    std::vector<RecordingProfile> out(etdumps.size());
    // Recordings of one program share one list of names: memory grows by the points only.
    std::mutex namesLock;
    std::map<std::uint64_t, std::shared_ptr<const std::vector<std::string>>> namesBySignature;
    forEachIndex(etdumps.size(), threads, [&](std::size_t i) {
        RecordingProfile &p = out[i];
        try {
            SessionInputs si;
            si.etdump = etdumps[i];
            si.time = time;
            auto session = loadSession(si);
            if (!session) {
                p.file = etdumps[i];
                p.error = session.error().message();
                return;
            }
            p = profileSession(**session, by);
        } catch (const std::exception &e) { // e.g. bad_alloc: this file's error
            p = {};
            p.file = etdumps[i];
            p.error = etdumps[i] + ": " + e.what();
            return;
        }
        std::lock_guard lock(namesLock);
        auto [it, inserted] = namesBySignature.emplace(p.signature, p.names);
        if (!inserted && *it->second == *p.names)
            p.names = it->second;
    });
    return out;
}

Result<std::vector<HistoryLabel>> readHistoryLabels(const std::string &csvPath)
{
    std::ifstream in(csvPath, std::ios::binary);
    if (!in)
        return makeError(ErrorCode::Io, csvPath, "cannot open the labels file");
    std::ostringstream text;
    text << in.rdbuf();
    return parseHistoryLabels(text.str(), csvPath);
}

Result<std::vector<HistoryLabel>> parseHistoryLabels(std::string_view text, const std::string &csvPath)
{
    std::istringstream in { std::string(text) };
    auto splitRow = [](const std::string &line) {
        std::vector<std::string> cells;
        std::string cell;
        bool quoted = false;
        for (std::size_t i = 0; i < line.size(); ++i) {
            const char c = line[i];
            if (quoted) {
                if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                    cell += '"';
                    ++i;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    cell += c;
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                cells.push_back(std::move(cell));
                cell.clear();
            } else if (c != '\r') {
                cell += c;
            }
        }
        cells.push_back(std::move(cell));
        return cells;
    };
    std::string line;
    if (!std::getline(in, line))
        return makeError(
            ErrorCode::InvalidArgument, csvPath, "empty labels file (expected a header: file,label[,order])");
    const auto header = splitRow(line);
    auto column = [&](std::string_view name) -> std::ptrdiff_t {
        const auto it = std::find(header.begin(), header.end(), name);
        return it == header.end() ? -1 : it - header.begin();
    };
    const auto fileCol = column("file"), labelCol = column("label"), orderCol = column("order");
    if (fileCol < 0 || labelCol < 0)
        return makeError(ErrorCode::InvalidArgument, csvPath, "the header must name a 'file' and a 'label' column");
    std::vector<HistoryLabel> out;
    const fs::path base = fs::path(csvPath).parent_path();
    for (std::size_t row = 2; std::getline(in, line); ++row) {
        if (line.empty() || line == "\r")
            continue;
        const auto cells = splitRow(line);
        const auto need = static_cast<std::size_t>(std::max({ fileCol, labelCol, orderCol })) + 1;
        if (cells.size() < need)
            return makeError(ErrorCode::InvalidArgument, csvPath,
                fmt::format("row {} has {} cells, expected {}", row, cells.size(), need));
        HistoryLabel l;
        l.file = cells[static_cast<std::size_t>(fileCol)];
        l.label = cells[static_cast<std::size_t>(labelCol)];
        l.order = static_cast<double>(out.size());
        if (orderCol >= 0) {
            const std::string &o = cells[static_cast<std::size_t>(orderCol)];
            char *end = nullptr;
            l.order = std::strtod(o.c_str(), &end);
            if (o.empty() || end != o.c_str() + o.size() || !std::isfinite(l.order))
                return makeError(
                    ErrorCode::InvalidArgument, csvPath, fmt::format("row {}: the order is not a number", row));
        }
        if (l.file.empty())
            return makeError(ErrorCode::InvalidArgument, csvPath, fmt::format("row {}: empty file", row));
        l.resolved = (fs::path(l.file).is_relative() && !base.empty() ? base / l.file : fs::path(l.file))
                         .lexically_normal()
                         .string();
        out.push_back(std::move(l));
    }
    std::stable_sort(
        out.begin(), out.end(), [](const HistoryLabel &a, const HistoryLabel &b) { return a.order < b.order; });
    return out;
}

namespace {

struct MeanCi {
    double mean = 0, ci = 0;
    std::size_t n = 0;
};

MeanCi meanCi(std::span<const double> v)
{
    MeanCi m;
    m.n = v.size();
    if (v.empty())
        return m;
    m.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    if (v.size() > 1)
        m.ci = 1.96 * sampleStddev(v, m.mean) / std::sqrt(static_cast<double>(v.size()));
    return m;
}

// Which label row names a file: the path as given or relative to the CSV's folder, else the
// file name when only one row has it.
class LabelIndex
{
public:
    explicit LabelIndex(const std::vector<HistoryLabel> &labels)
    {
        for (std::size_t i = 0; i < labels.size(); ++i) {
            m_byPath.emplace(fs::path(labels[i].file).lexically_normal().string(), i);
            m_byPath.emplace(labels[i].resolved, i);
            const auto [it, inserted] = m_byName.emplace(fs::path(labels[i].file).filename().string(), i);
            if (!inserted && it->second != i)
                it->second = kAmbiguous;
        }
    }
    std::optional<std::size_t> find(const std::string &file) const
    {
        const fs::path p(file);
        if (auto it = m_byPath.find(p.lexically_normal().string()); it != m_byPath.end())
            return it->second;
        if (auto it = m_byName.find(p.filename().string()); it != m_byName.end() && it->second != kAmbiguous)
            return it->second;
        return std::nullopt;
    }

private:
    static constexpr std::size_t kAmbiguous = static_cast<std::size_t>(-1);
    std::map<std::string, std::size_t> m_byPath, m_byName;
};

} // namespace

Result<History> buildHistory(std::vector<RecordingProfile> profiles, const std::vector<HistoryLabel> &labels,
    HistoryBy by, TimeScale unit, const ChangePointOptions &options)
{
    History h;
    h.by = by;
    h.unit = unit;
    h.options = options;
    struct Ordered {
        std::size_t profile;
        std::string label;
        double order;
    };
    std::vector<Ordered> ordered;
    std::size_t unlabelled = 0;
    const LabelIndex labelIndex(labels);
    for (std::size_t i = 0; i < profiles.size(); ++i) {
        const RecordingProfile &p = profiles[i];
        if (!p.error.empty()) {
            h.errors.push_back(p.error);
            continue;
        }
        for (const auto &w : p.warnings)
            h.warnings.push_back(w);
        if (labels.empty()) {
            ordered.push_back({ i, p.file, static_cast<double>(i) });
        } else if (auto l = labelIndex.find(p.file)) {
            ordered.push_back({ i, labels[*l].label, static_cast<double>(*l) }); // labels come sorted by order
        } else {
            ++unlabelled;
        }
    }
    if (unlabelled)
        h.warnings.push_back(fmt::format("{} recording(s) not named in the labels file were left out", unlabelled));
    std::stable_sort(
        ordered.begin(), ordered.end(), [](const Ordered &a, const Ordered &b) { return a.order < b.order; });
    if (ordered.empty())
        return makeError(ErrorCode::InvalidArgument, "history", "no recording could be read and labelled");

    std::map<std::uint64_t, std::size_t> groupOf;
    for (const Ordered &o : ordered) {
        const RecordingProfile &p = profiles[o.profile];
        auto [it, inserted] = groupOf.emplace(p.signature, h.groups.size());
        if (inserted)
            h.groups.push_back({ p.signature, {} });
        HistoryRecording r;
        r.index = h.recordings.size();
        r.file = p.file;
        r.label = o.label;
        r.group = it->second;
        r.indexInGroup = h.groups[r.group].recordings.size();
        r.runs = p.runs;
        h.groups[r.group].recordings.push_back(r.index);
        h.recordings.push_back(std::move(r));
    }
    if (h.groups.size() > 1) {
        for (std::size_t g = 0; g < h.groups.size(); ++g) {
            const auto &first = h.recordings[h.groups[g].recordings.front()];
            h.warnings.push_back(fmt::format("the recordings are of {} different programs (their operators differ): "
                                             "program {} ({} recordings, first {}) is a series of its own",
                h.groups.size(), g + 1, h.groups[g].recordings.size(), first.label));
        }
    }
    // Profile index of every recording, to read its points.
    std::vector<std::size_t> profileOf(h.recordings.size());
    for (std::size_t i = 0; i < ordered.size(); ++i)
        profileOf[i] = ordered[i].profile;

    for (std::size_t g = 0; g < h.groups.size(); ++g) {
        const auto &recs = h.groups[g].recordings;
        const RecordingProfile &first = profiles[profileOf[recs.front()]];
        for (std::size_t k = 0; k < first.names->size(); ++k) {
            HistorySeries s;
            s.name = (*first.names)[k];
            s.group = g;
            for (std::size_t r : recs) {
                const HistoryPoint &pt = profiles[profileOf[r]].points[k];
                s.p10.push_back(pt.p10);
                s.p50.push_back(pt.p50);
                s.p90.push_back(pt.p90);
            }
            h.series.push_back(std::move(s));
        }
    }
    profiles.clear();

    for (std::size_t si = 0; si < h.series.size(); ++si) {
        const HistorySeries &s = h.series[si];
        ChangePointOptions o = options;
        o.seed = seriesSeed(options.seed, s.name);
        const auto cps = detectChangePoints(s.p50, o);
        for (std::size_t c = 0; c < cps.size(); ++c) {
            const std::size_t from = c ? cps[c - 1].index : 0;
            const std::size_t to = c + 1 < cps.size() ? cps[c + 1].index : s.p50.size();
            const std::span<const double> v(s.p50);
            const MeanCi b = meanCi(v.subspan(from, cps[c].index - from));
            const MeanCi a = meanCi(v.subspan(cps[c].index, to - cps[c].index));
            HistoryChange ch;
            ch.series = si;
            ch.name = s.name;
            ch.group = s.group;
            ch.index = cps[c].index;
            ch.recordingBefore = h.groups[s.group].recordings[ch.index - 1];
            ch.recordingAfter = h.groups[s.group].recordings[ch.index];
            ch.before = b.mean;
            ch.beforeCi = b.ci;
            ch.beforeCount = b.n;
            ch.after = a.mean;
            ch.afterCi = a.ci;
            ch.afterCount = a.n;
            ch.changePercent = b.mean != 0 ? (a.mean / b.mean - 1.0) * 100.0 : 0.0;
            ch.test = cps[c];
            h.changes.push_back(std::move(ch));
        }
    }
    return h;
}

bool historyHasSlowdown(const History &h, double percent)
{
    return std::any_of(
        h.changes.begin(), h.changes.end(), [&](const HistoryChange &c) { return c.changePercent > percent; });
}

std::string describeChange(const History &h, const HistoryChange &c)
{
    const auto &before = h.recordings[c.recordingBefore];
    const auto &after = h.recordings[c.recordingAfter];
    const std::string_view unit = timeScaleName(h.unit);
    return fmt::format("{}: {} → {} {} (±{} → ±{}), {:+.1f} %, at #{} '{}' (after #{} '{}'), p = {}", c.name,
        significantText(c.before, 4), significantText(c.after, 4), unit, significantText(c.beforeCi, 2),
        significantText(c.afterCi, 2), c.changePercent, c.index, after.label, c.index - 1, before.label,
        significantText(c.test.pValue, 3));
}

std::string formatHistoryText(const History &h)
{
    std::string out;
    const auto &o = h.options;
    out += fmt::format("history: {} recordings, {} program{}, series by {}, p50 per recording in {}\n",
        h.recordings.size(), h.groups.size(), h.groups.size() == 1 ? "" : "s", historyByName(h.by),
        timeScaleName(h.unit));
    out += fmt::format("change points: E-divisive means, permutation test, alpha {}, up to {} permutations, "
                       "minimum segment {}, seed {:#x}\n",
        significantText(o.alpha), o.permutations, o.minSegment, o.seed);
    if (h.changes.empty())
        out += "no significant change in any series\n";
    else
        out += fmt::format("{} change point{}:\n", h.changes.size(), h.changes.size() == 1 ? "" : "s");
    for (const auto &c : h.changes)
        out += "  " + (h.groups.size() > 1 ? fmt::format("[program {}] ", c.group + 1) : std::string())
            + describeChange(h, c) + '\n';
    out += fmt::format("\n{:<48} {:>7} {:>12} {:>12} {:>12} {:>12}  {}\n", "series", "points",
        fmt::format("first ({})", timeScaleName(h.unit)), "last", "min", "max", "changes");
    std::vector<std::size_t> changesOf(h.series.size(), 0);
    for (const auto &c : h.changes)
        ++changesOf[c.series];
    for (std::size_t i = 0; i < h.series.size(); ++i) {
        const auto &s = h.series[i];
        const auto [mn, mx] = std::minmax_element(s.p50.begin(), s.p50.end());
        std::string name = (h.groups.size() > 1 ? fmt::format("[{}] ", s.group + 1) : std::string()) + s.name;
        out += fmt::format("{:<48} {:>7} {:>12} {:>12} {:>12} {:>12}  {}\n", name, s.p50.size(),
            significantText(s.p50.front(), 4), significantText(s.p50.back(), 4), significantText(*mn, 4),
            significantText(*mx, 4), changesOf[i]);
    }
    return out;
}

std::string historyJson(const History &h)
{
    using Json = nlohmann::ordered_json;
    auto num = [](double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); };
    Json j;
    j["by"] = historyByName(h.by);
    j["unit"] = timeScaleName(h.unit);
    j["method"]
        = { { "name", "e-divisive means" }, { "alpha", h.options.alpha }, { "permutations", h.options.permutations },
              { "min_segment", h.options.minSegment }, { "seed", h.options.seed } };
    Json recs = Json::array();
    for (const auto &r : h.recordings)
        recs.push_back({ { "index", r.index }, { "label", r.label }, { "file", r.file }, { "program", r.group },
            { "index_in_program", r.indexInGroup }, { "runs", r.runs } });
    j["recordings"] = std::move(recs);
    j["programs"] = h.groups.size();
    Json series = Json::array();
    for (const auto &s : h.series) {
        Json p50 = Json::array(), p10 = Json::array(), p90 = Json::array();
        for (std::size_t i = 0; i < s.p50.size(); ++i) {
            p50.push_back(num(s.p50[i]));
            p10.push_back(num(s.p10[i]));
            p90.push_back(num(s.p90[i]));
        }
        series.push_back({ { "name", s.name }, { "program", s.group }, { "p50", std::move(p50) },
            { "p10", std::move(p10) }, { "p90", std::move(p90) } });
    }
    j["series"] = std::move(series);
    Json changes = Json::array();
    for (const auto &c : h.changes) {
        const auto &b = h.recordings[c.recordingBefore];
        const auto &a = h.recordings[c.recordingAfter];
        changes.push_back({ { "name", c.name }, { "program", c.group }, { "index", c.index }, { "label", a.label },
            { "file", a.file }, { "label_before", b.label }, { "file_before", b.file }, { "before", num(c.before) },
            { "before_ci95", num(c.beforeCi) }, { "before_count", c.beforeCount }, { "after", num(c.after) },
            { "after_ci95", num(c.afterCi) }, { "after_count", c.afterCount },
            { "change_percent", num(c.changePercent) }, { "p", c.test.pValue }, { "qhat", num(c.test.qhat) },
            { "permutations", c.test.permutations }, { "text", describeChange(h, c) } });
    }
    j["change_points"] = std::move(changes);
    j["errors"] = h.errors;
    j["warnings"] = h.warnings;
    return jsonDocument(j);
}

} // namespace etscope
