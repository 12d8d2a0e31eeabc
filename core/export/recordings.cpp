#include "export/recordings.h"

#include "common/jsontext.h"
#include "common/parallel.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <glob.h>
#include <map>
#include <set>

namespace etscope {

namespace fs = std::filesystem;

std::string findDebugBufferBeside(const std::string &etdump)
{
    const fs::path p(etdump);
    std::error_code ec;
    fs::path stemBin = p;
    stemBin.replace_extension(".bin");
    if (stemBin != p && fs::is_regular_file(stemBin, ec))
        return stemBin.string();
    if (p.filename() == "etdump.etdp") {
        const fs::path d = p.parent_path() / "debug_output.bin";
        if (fs::is_regular_file(d, ec))
            return d.string();
    }
    return {};
}

Result<std::vector<RecordingInput>> expandRecordings(const std::vector<std::string> &args)
{
    std::vector<std::string> paths;
    for (const std::string &a : args) {
        std::error_code ec;
        if (fs::is_directory(a, ec)) {
            std::vector<std::string> found;
            for (auto it = fs::recursive_directory_iterator(a, fs::directory_options::skip_permission_denied, ec);
                 !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
                if (it->path().extension() == ".etdp" && it->is_regular_file(ec))
                    found.push_back(it->path().string());
            if (ec)
                return makeError(ErrorCode::Io, a, "cannot list the directory: " + ec.message());
            if (found.empty())
                return makeError(ErrorCode::InvalidArgument, a, "no .etdp files in this directory");
            std::sort(found.begin(), found.end());
            paths.insert(paths.end(), found.begin(), found.end());
        } else if (fs::exists(a, ec)) {
            paths.push_back(a);
        } else if (a.find_first_of("*?[") != std::string::npos) {
            glob_t g {};
            const int rc = ::glob(a.c_str(), 0, nullptr, &g);
            if (rc != 0) {
                ::globfree(&g);
                return makeError(ErrorCode::InvalidArgument, a, "no file matches this pattern");
            }
            std::vector<std::string> found(g.gl_pathv, g.gl_pathv + g.gl_pathc);
            ::globfree(&g);
            std::sort(found.begin(), found.end()); // glob sorts already; by bytes, to be sure
            paths.insert(paths.end(), found.begin(), found.end());
        } else {
            return makeError(ErrorCode::Io, a, "no such file or directory");
        }
    }
    std::vector<RecordingInput> out;
    std::set<std::string> seen;
    for (auto &p : paths)
        if (seen.insert(p).second)
            out.push_back({ p, findDebugBufferBeside(p) });
    return out;
}

namespace {

RecordingSummary summarize(const RecordingInput &in, const RecordingsOptions &opt)
{
    RecordingSummary s;
    s.file = in.etdump;
    s.debugBuffer = in.debugBuffer;
    s.unit = opt.time.target;
    SessionInputs si;
    si.etdump = in.etdump;
    si.debugBuffer = in.debugBuffer;
    si.etrecord = opt.etrecord;
    si.program = opt.program;
    si.programData = opt.programData;
    si.phases = opt.phases;
    si.time = opt.time;
    auto session = loadSession(si);
    if (!session) {
        s.error = session.error().message();
        return s;
    }
    const Session &ses = **session;
    s.warnings.assign(ses.warnings.begin(), ses.warnings.end());
    std::optional<ScopedBlocks> scoped;
    if (!opt.scope.whole()) {
        auto sb = scopeBlocks(ses, opt.scope);
        if (!sb) {
            s.error = sb.error().message();
            return s;
        }
        scoped = std::move(*sb);
    }
    const std::vector<EventBlock> &blocks = scoped ? scoped->blocks : ses.blocks;
    const std::string tsv = formatDelimited(blocks, opt.separator, opt.table);
    const auto nl = tsv.find('\n');
    s.tsvRows = nl == std::string::npos ? std::string() : tsv.substr(nl + 1);
    const auto rows = inspectorTableRows(blocks, opt.table);
    std::map<std::pair<const EventBlock *, std::string>, std::size_t> occurrences;
    for (const TableRow &r : rows) {
        const Event &e = *r.event;
        RecordingEvent ev;
        ev.blockIndex = static_cast<std::size_t>(r.block - blocks.data());
        ev.block = r.block->name;
        ev.event = std::string(e.name);
        ev.occurrence = occurrences[{ r.block, ev.event }]++;
        ev.instructionId = e.instructionId;
        ev.opTypes = e.opTypes();
        ev.delegated = e.isDelegatedOp;
        ev.delegateDebugId = delegateDebugIdText(e.delegateDebugIdentifier());
        ev.delegateBackend = e.delegateBackendName().value_or("");
        ev.module = eventModulePath(e);
        if (e.perfData) { // copied out: the session (and the store it points into) goes away
            PerfData &p = ev.perf.emplace();
            static_cast<PerfStats &>(p) = *e.perfData;
            p.raw.assign(e.perfData->raw.begin(), e.perfData->raw.end());
        }
        s.events.push_back(std::move(ev));
    }
    return s; // the session (and its mapped file) is released here
}

std::string pyFloat(double v)
{
    return std::isnan(v) ? std::string() : pythonFloatRepr(v);
}

// pandas' QUOTE_MINIMAL, as the single-file TSV writes fields.
std::string field(const std::string &s, char sep)
{
    return csvField(s, sep);
}

void appendNumber(fmt::memory_buffer &b, double v)
{
    if (std::isfinite(v))
        fmt::format_to(std::back_inserter(b), "{}", v);
    else
        b.append(std::string_view("null"));
}

} // namespace

std::vector<RecordingSummary> summarizeRecordings(
    const std::vector<RecordingInput> &inputs, const RecordingsOptions &options)
{
    std::vector<RecordingSummary> out(inputs.size());
    forEachIndex(inputs.size(), options.threads, [&](std::size_t i) {
        try {
            out[i] = summarize(inputs[i], options);
        } catch (const std::exception &e) { // e.g. bad_alloc: report it as this file's error
            out[i].file = inputs[i].etdump;
            out[i].error = inputs[i].etdump + ": " + e.what();
        }
    });
    return out;
}

std::string formatManyDelimited(
    const std::vector<RecordingSummary> &files, const RecordingsOptions &options, bool aggregate)
{
    const char sep = options.separator;
    std::string out;
    out += "file";
    out += sep; // the index column has no header, as in the single-file TSV
    for (const auto &h : inspectorTableHeaders(options.time.target, options.table)) {
        out += sep;
        out += field(h, sep);
    }
    out += '\n';
    std::size_t loaded = 0;
    for (const auto &f : files) {
        if (!f.error.empty())
            continue;
        ++loaded;
        const std::string name = field(f.file, sep);
        std::size_t pos = 0;
        while (pos < f.tsvRows.size()) {
            auto end = f.tsvRows.find('\n', pos);
            if (end == std::string::npos)
                end = f.tsvRows.size();
            out += name;
            out += sep;
            out.append(f.tsvRows, pos, end - pos);
            out += '\n';
            pos = end + 1;
        }
    }
    if (!aggregate)
        return out;

    // Aggregate per (block, event, occurrence), in order of first appearance.
    struct Agg {
        const RecordingEvent *first = nullptr;
        std::vector<double> durations;
        bool anyPerf = false;
    };
    std::map<std::tuple<std::string, std::string, std::size_t>, std::size_t> index;
    std::vector<Agg> aggs;
    for (const auto &f : files) {
        if (!f.error.empty())
            continue;
        for (const auto &e : f.events) {
            auto [it, fresh] = index.try_emplace({ e.block, e.event, e.occurrence }, aggs.size());
            if (fresh)
                aggs.push_back({ &e, {}, false });
            Agg &a = aggs[it->second];
            if (e.perf) {
                a.anyPerf = true;
                a.durations.insert(a.durations.end(), e.perf->raw.begin(), e.perf->raw.end());
            }
        }
    }
    const std::string all = field(fmt::format("(all {} files)", loaded), sep);
    for (std::size_t i = 0; i < aggs.size(); ++i) {
        const RecordingEvent &e = *aggs[i].first;
        out += all;
        out += fmt::format("{}{}{}{}{}{}", sep, i, sep, field(e.block, sep), sep, field(e.event, sep));
        if (aggs[i].anyPerf) {
            const PerfData p = PerfData::fromRaw(std::move(aggs[i].durations));
            for (double v : { p.p10, p.p50, p.p90, p.avg, p.min, p.max })
                out += sep + pyFloat(v);
        } else {
            for (int k = 0; k < 6; ++k)
                out += sep;
        }
        out += sep + field(opTypesText(e.opTypes), sep);
        out += sep + std::string(e.delegated ? "True" : "False");
        out += sep + field(e.delegateBackend, sep);
        out += sep; // start_time: per file only
        if (options.table.includeModuleColumn)
            out += sep + field(e.module, sep);
        out += '\n';
    }
    return out;
}

std::vector<EventBlock> poolRecordings(const std::vector<RecordingSummary> &files)
{
    std::vector<EventBlock> blocks;
    std::map<std::string, std::size_t> blockIndex;
    std::map<std::tuple<std::string, std::string, std::size_t>, std::pair<std::size_t, std::size_t>> eventIndex;
    std::vector<std::vector<std::vector<double>>> durations; // [block][event]
    for (const auto &f : files) {
        if (!f.error.empty())
            continue;
        for (const auto &e : f.events) {
            auto [bit, newBlock] = blockIndex.try_emplace(e.block, blocks.size());
            if (newBlock) {
                EventBlock b;
                b.name = e.block;
                b.targetTimeScale = f.unit;
                blocks.push_back(std::move(b));
                durations.emplace_back();
            }
            EventBlock &b = blocks[bit->second];
            auto [eit, newEvent]
                = eventIndex.try_emplace({ e.block, e.event, e.occurrence }, bit->second, b.events.size());
            if (newEvent) {
                EventStore &store = b.storage();
                Event ev;
                ev.name = store.intern(e.event);
                ev.instructionId = e.instructionId;
                ev.isDelegatedOp = e.delegated;
                if (!e.opTypes.empty() || !e.delegateBackend.empty()) {
                    EventExtra &x = store.extra(ev);
                    x.opTypes = e.opTypes;
                    if (!e.delegateBackend.empty())
                        x.delegateBackendName = e.delegateBackend;
                }
                b.events.push_back(ev);
                durations[bit->second].emplace_back();
            }
            if (e.perf) {
                auto &d = durations[eit->second.first][eit->second.second];
                d.insert(d.end(), e.perf->raw.begin(), e.perf->raw.end());
            }
        }
    }
    for (std::size_t b = 0; b < blocks.size(); ++b)
        for (std::size_t k = 0; k < blocks[b].events.size(); ++k)
            if (!durations[b][k].empty())
                blocks[b].storage().setPerf(blocks[b].events[k], durations[b][k]);
    return blocks;
}

std::string formatJsonl(const std::vector<RecordingSummary> &files)
{
    fmt::memory_buffer b;
    auto out = std::back_inserter(b);
    for (const auto &f : files) {
        if (!f.error.empty())
            continue;
        for (const auto &e : f.events) {
            b.append(std::string_view("{\"file\":"));
            appendJsonString(b, f.file);
            fmt::format_to(out, ",\"block_index\":{},\"block\":", e.blockIndex);
            appendJsonString(b, e.block);
            b.append(std::string_view(",\"event\":"));
            appendJsonString(b, e.event);
            fmt::format_to(
                out, ",\"occurrence\":{},\"instruction_id\":{},\"op_types\":[", e.occurrence, e.instructionId);
            for (std::size_t k = 0; k < e.opTypes.size(); ++k) {
                if (k)
                    b.push_back(',');
                appendJsonString(b, e.opTypes[k]);
            }
            fmt::format_to(
                out, "],\"unit\":\"{}\",\"runs\":{}", timeScaleName(f.unit), e.perf ? e.perf->raw.size() : 0);
            const char *names[] = { "min", "p10", "p50", "p90", "max", "avg" };
            const double vals[] = { e.perf ? e.perf->min : NAN, e.perf ? e.perf->p10 : NAN, e.perf ? e.perf->p50 : NAN,
                e.perf ? e.perf->p90 : NAN, e.perf ? e.perf->max : NAN, e.perf ? e.perf->avg : NAN };
            for (int k = 0; k < 6; ++k) {
                fmt::format_to(out, ",\"{}\":", names[k]);
                appendNumber(b, vals[k]);
            }
            fmt::format_to(out, ",\"delegated\":{},\"delegate_debug_id\":", e.delegated ? "true" : "false");
            if (e.delegateDebugId.empty())
                b.append(std::string_view("null"));
            else
                appendJsonString(b, e.delegateDebugId);
            b.append(std::string_view(",\"delegate_backend\":"));
            if (e.delegateBackend.empty())
                b.append(std::string_view("null"));
            else
                appendJsonString(b, e.delegateBackend);
            b.append(std::string_view(",\"module\":"));
            if (e.module.empty())
                b.append(std::string_view("null"));
            else
                appendJsonString(b, e.module);
            b.append(std::string_view("}\n"));
        }
    }
    return fmt::to_string(b);
}

Result<History> loadHistory(const HistoryInputs &in)
{
    auto inputs = expandRecordings(in.recordings);
    if (!inputs)
        return inputs.error();
    std::vector<HistoryLabel> labels = in.labels;
    if (!in.labelsCsv.empty()) {
        auto l = readHistoryLabels(in.labelsCsv);
        if (!l)
            return l.error();
        labels = std::move(*l);
    }
    std::vector<std::string> paths;
    paths.reserve(inputs->size());
    for (const auto &r : *inputs)
        paths.push_back(r.etdump);
    return buildHistory(
        profileRecordings(paths, in.by, in.time, in.threads), labels, in.by, in.time.target, in.changePoints);
}

} // namespace etscope
