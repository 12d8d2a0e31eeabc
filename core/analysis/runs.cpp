#include "analysis/runs.h"

#include "events/backendevents.h"
#include "events/blockstats.h"
#include "events/perfdata.h"
#include "program/program.h"
#include "session/session.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>
#include <unordered_map>

namespace etscope {

const char *shareRowsByName(ShareRowsBy by)
{
    return by == ShareRowsBy::BackendOperator ? "backend-operator" : "operator";
}

const PhaseFigures *RunsReport::phase(std::string_view name) const
{
    for (const PhaseFigures &p : phases)
        if (p.name == name)
            return &p;
    return nullptr;
}

namespace {

constexpr const char *kPhaseOrder[] = { "prefill", "decode", "other", "all" };

// Durations in the target unit → milliseconds; ticks → nanoseconds.
struct Clock {
    double msPerUnit = 1;
    double nsPerTick = 1;
};

Result<Clock> clockOf(const TimeConversion &t, const std::string &file)
{
    const auto src = t.unitsPerSecond(t.source), dst = t.unitsPerSecond(t.target);
    if (!src || !dst)
        return makeError(ErrorCode::InvalidArgument, file,
            "timestamps are in cycles; give the clock rate (--cycles-per-second) to time the runs");
    Clock c;
    c.msPerUnit = 1e3 / *dst;
    c.nsPerTick = 1e9 / *src;
    return c;
}

// The share rows' names. Events of one store share interned names, so a name is looked up by
// its address first (a million events cost a million pointer hashes, not string compares).
class ShareNames
{
public:
    int id(std::string_view name, bool interned)
    {
        if (interned) {
            // A small direct-mapped cache before the hash map: the same few dozen names recur
            // in every block of a generation (a million lookups).
            Recent &r = m_recent[(reinterpret_cast<std::uintptr_t>(name.data()) >> 3) % m_recent.size()];
            if (r.text == name.data() && r.size == name.size())
                return r.id;
            if (auto it = m_byAddress.find(name.data());
                it != m_byAddress.end() && m_names[std::size_t(it->second)]->size() == name.size()) {
                r = { name.data(), name.size(), it->second };
                return it->second;
            }
        }
        auto [it, fresh] = m_byText.try_emplace(std::string(name), int(m_names.size()));
        if (fresh)
            m_names.push_back(&it->first);
        if (interned)
            m_byAddress[name.data()] = it->second;
        return it->second;
    }
    std::size_t size() const { return m_names.size(); }
    const std::string &name(std::size_t id) const { return *m_names[id]; }

private:
    struct Recent {
        const char *text = nullptr;
        std::size_t size = 0;
        int id = -1;
    };
    std::array<Recent, 256> m_recent {};
    std::unordered_map<const char *, int> m_byAddress;
    std::unordered_map<std::string, int> m_byText; // node-based: the names' addresses stay
    std::vector<const std::string *> m_names;
};

// What a profile event counts as in the share tables: its row, or -1.
struct Counted {
    int row = -1;
    bool delegated = false;
};

// Kernels and delegate events count with their own time; OPERATOR_CALL wraps the kernel
// (native_call_*) of its instruction and DELEGATE_CALL the delegate events of its instruction,
// so a wrapper counts only when the run logged nothing inside it (then under the instruction's
// operator or backend when the method is known). Method-level events never count.
// With shares by backend operator, `backendRows` names the decoded delegate events of block
// `block`; `idOfRow` caches each of its rows' ids in `names`.
struct BackendRowNames {
    const BackendShareRows *rows = nullptr;
    bool namesRows = true; // false: only leave the wrappers out, rows by operator
    std::size_t block = 0;
    std::vector<int> idOfRow;
};

void classify(const EventBlock &b, const ProgramMethod *method, const RunsOptions &options, ShareNames &names,
    BackendRowNames &backend, std::vector<Counted> &out, std::vector<std::int32_t> &kernels,
    std::vector<std::int32_t> &delegates)
{
    constexpr std::string_view kNative = "native_call_";
    kernels.clear();
    delegates.clear();
    for (const Event &e : b.events) {
        if (e.chainIndex < 0 || e.isFramework())
            continue;
        if (e.isDelegatedOp)
            delegates.push_back(e.instructionId);
        else if (e.name.starts_with(kNative))
            kernels.push_back(e.instructionId);
    }
    std::sort(kernels.begin(), kernels.end());
    std::sort(delegates.begin(), delegates.end());
    auto instructionLabel = [&](const Event &e, bool kernel) -> int {
        if (!method || e.instructionId < 0 || std::size_t(e.instructionId) >= method->instructionCount())
            return names.id(e.name, true);
        const ProgramInstruction ins = method->instruction(std::size_t(e.instructionId));
        if (kernel && ins.kind == InstructionKind::KernelCall && ins.operatorIndex >= 0
            && std::size_t(ins.operatorIndex) < method->operators().size())
            return names.id(method->operators()[std::size_t(ins.operatorIndex)].kernelName(), false);
        if (!kernel && ins.kind == InstructionKind::DelegateCall && ins.delegateIndex >= 0
            && std::size_t(ins.delegateIndex) < method->delegates().size())
            return names.id(method->delegates()[std::size_t(ins.delegateIndex)].backendId, false);
        return names.id(e.name, true);
    };
    out.assign(b.events.size(), Counted {});
    for (std::size_t i = 0; i < b.events.size(); ++i) {
        const Event &e = b.events[i];
        Counted &c = out[i];
        if (!e.perfData || e.perfData->raw.size() != b.runIndices.size() || e.chainIndex < 0 || e.isFramework())
            continue;
        if (e.isDelegatedOp) {
            if (backend.rows) {
                const int row = backend.rows->row(backend.block, i);
                if (row == BackendShareRows::kNotCounted)
                    continue;
                if (row >= 0 && backend.namesRows) {
                    int &id = backend.idOfRow[std::size_t(row)];
                    if (id < 0)
                        id = names.id(backend.rows->names()[std::size_t(row)], false);
                    c = { id, true };
                    continue;
                }
            }
            const std::string op = options.backendOperator ? options.backendOperator(e) : std::string();
            c = { op.empty() ? names.id(e.name, true) : names.id(op, false), true };
        } else if (e.name.starts_with(kNative)) {
            c = { names.id(e.name.substr(kNative.size()), true), false };
        } else if (e.name == kOperatorCall) {
            if (!std::binary_search(kernels.begin(), kernels.end(), e.instructionId))
                c = { instructionLabel(e, true), false };
        } else if (e.name == kDelegateCall) {
            if (!std::binary_search(delegates.begin(), delegates.end(), e.instructionId))
                c = { instructionLabel(e, false), true };
        } else {
            c = { names.id(e.name, true), false }; // JF_CALL, MOVE_CALL, FREE_CALL, custom scopes
        }
    }
}

// Tokens in one run of the prefill method: the last dimension of its first integer input.
std::optional<std::int64_t> promptTokensFromShape(const ProgramMethod &m)
{
    for (std::int32_t v : m.inputs()) {
        if (v < 0 || std::size_t(v) >= m.valueCount())
            continue;
        const ProgramValue value = m.value(std::size_t(v));
        if (value.kind != ProgramValueKind::Tensor)
            continue;
        const ScalarType t = value.tensor.dtype;
        if ((t == ScalarType::Long || t == ScalarType::Int) && !value.tensor.sizes.empty()
            && value.tensor.sizes.back() > 0)
            return value.tensor.sizes.back();
    }
    return std::nullopt;
}

} // namespace

namespace {
// The figures of the runs `table` decided (the session's, or one built for bare blocks).
Result<RunsReport> analyzeTable(const std::vector<EventBlock> &blocks, const Program *program,
    const std::vector<RunAttribution> &attribution, const RunTable &table, const RunsOptions &options,
    const std::string &file)
{
    auto clock = clockOf(options.time, file);
    if (!clock)
        return clock.error();
    if (!program && !options.method.empty())
        return makeError(ErrorCode::InvalidArgument, file, "--method needs the program (--program P.pte)");
    if (program && !options.method.empty() && !program->method(options.method))
        return makeError(
            ErrorCode::InvalidArgument, file, fmt::format("the program has no method named '{}'", options.method));

    RunsReport report;
    report.file = file;
    if (program)
        report.program = program->path();
    report.ruleLine = table.ruleLine;
    report.generations = table.generations;
    report.notes = table.notes;

    // Every executed run in scope, in file order, as the table decided it.
    Scope phaseAndRange = options.scope;
    phaseAndRange.method.clear(); // the method is options.method, which accepts ambiguous runs it fits
    if (!phaseAndRange.whole())
        report.notes.push_back(fmt::format("runs in scope: {}{}{}", phaseName(phaseAndRange.phase),
            phaseAndRange.firstRun ? fmt::format(", from run {}", *phaseAndRange.firstRun) : std::string(),
            phaseAndRange.lastRun ? fmt::format(", to run {}", *phaseAndRange.lastRun) : std::string()));
    for (const SessionRun &run : table.runs) {
        const RunAttribution *a = run.block < attribution.size() ? &attribution[run.block] : nullptr;
        if (!options.method.empty() && !(a && a->fits(options.method)))
            continue;
        if (!runInScope(run, phaseAndRange))
            continue;
        RunRow row;
        row.index = run.index;
        row.runDataIndex = run.runDataIndex;
        row.block = run.block;
        row.runInBlock = run.runInBlock;
        row.methodNote = run.methodNote;
        row.method = !options.method.empty() ? options.method : run.methodName(); // the user resolved an ambiguity
        row.phase = phaseName(run.phase);
        row.generation = run.generation;
        row.warmup = run.warmup;
        row.outlier = run.outlier;
        row.durationMs = run.duration * clock->msPerUnit;
        row.startNs = std::llround(double(run.startTick) * clock->nsPerTick);
        report.runs.push_back(std::move(row));
    }
    if (!phaseAndRange.whole() && report.runs.empty())
        return makeError(
            ErrorCode::InvalidArgument, file, fmt::format("no run is in the asked scope ({})", report.notes.back()));
    report.rule = table.rule;

    // Prompt tokens: given, else the prefill method's input shape (per prefill run).
    std::optional<std::int64_t> tokensPerPrefillRun;
    if (!options.promptTokens && program)
        for (const RunRow &row : report.runs)
            if (row.phase == "prefill" && !row.method.empty()) {
                if (const ProgramMethod *m = program->method(row.method))
                    tokensPerPrefillRun = promptTokensFromShape(*m);
                if (tokensPerPrefillRun)
                    report.notes.push_back(
                        fmt::format("prompt tokens per prefill run: {}, from the input shape of '{}'",
                            *tokensPerPrefillRun, row.method));
                break;
            }

    // Per phase: warm-up, fit, outliers, figures.
    std::map<std::string, std::size_t> phaseIndex;
    for (const char *name : kPhaseOrder) {
        std::vector<RunRow *> rows;
        for (RunRow &row : report.runs)
            if (row.phase == name)
                rows.push_back(&row);
        if (rows.empty())
            continue;
        PhaseFigures f;
        f.name = name;
        f.runs = rows.size();
        std::vector<double> all;
        for (const RunRow *r : rows)
            all.push_back(r->durationMs);
        for (const RunRow *r : rows)
            f.warmupRuns += r->warmup;
        std::vector<double> d(all.begin() + std::ptrdiff_t(f.warmupRuns), all.end());
        for (std::size_t i = 0; i < rows.size(); ++i) {
            if (!rows[i]->warmup)
                rows[i]->position = i - f.warmupRuns;
            f.outlierRuns += rows[i]->outlier;
        }
        const std::size_t n = d.size();
        for (double x : d)
            f.totalMs += x;
        f.meanMs = n ? f.totalMs / double(n) : 0;
        std::vector<double> sorted = d;
        std::sort(sorted.begin(), sorted.end());
        f.medianMs = n ? numpyPercentileSorted(sorted, 50) : 0;
        f.p90Ms = n ? numpyPercentileSorted(sorted, 90) : 0;
        if (const auto fit = theilFit(d)) {
            f.slopeMsPerPosition = fit->slope;
            f.interceptMs = fit->intercept;
        }
        if (n >= 3) {
            const std::size_t k = n / 3;
            const double first = medianOf(std::vector<double>(d.begin(), d.begin() + std::ptrdiff_t(k)));
            const double last = medianOf(std::vector<double>(d.end() - std::ptrdiff_t(k), d.end()));
            if (first > 0)
                f.driftPct = 100 * (last - first) / first;
        }
        if (f.name == "decode") {
            f.tokens = std::int64_t(n);
            for (std::size_t i = f.warmupRuns; i < rows.size(); ++i)
                rows[i]->tokens = 1;
            if (f.totalMs > 0)
                f.tokensPerS = double(n) / (f.totalMs / 1000);
            if (f.medianMs > 0)
                f.tokensPerSP50 = 1000 / f.medianMs;
            if (f.p90Ms > 0)
                f.tokensPerSP90 = 1000 / f.p90Ms;
        } else if (f.name == "prefill") {
            if (options.promptTokens) {
                f.tokens = *options.promptTokens;
                const std::int64_t steady = std::int64_t(n);
                for (std::size_t i = f.warmupRuns; i < rows.size(); ++i)
                    if (steady == 1)
                        rows[i]->tokens = *options.promptTokens;
                    else if (steady == *options.promptTokens)
                        rows[i]->tokens = 1;
            } else if (tokensPerPrefillRun) {
                f.tokens = *tokensPerPrefillRun * std::int64_t(n);
                for (std::size_t i = f.warmupRuns; i < rows.size(); ++i)
                    rows[i]->tokens = *tokensPerPrefillRun;
            }
            if (f.tokens && f.totalMs > 0)
                f.tokensPerS = double(*f.tokens) / (f.totalMs / 1000);
        }
        phaseIndex[name] = report.phases.size();
        report.phases.push_back(std::move(f));
    }

    // Time to first token: from the first steady prefill run to the end of the prefill runs that
    // follow it without a steady run of another phase in between.
    for (std::size_t i = 0; i < report.runs.size(); ++i) {
        const RunRow &first = report.runs[i];
        if (first.phase != "prefill" || first.warmup)
            continue;
        const RunRow *last = &first;
        for (std::size_t j = i + 1; j < report.runs.size(); ++j) {
            const RunRow &r = report.runs[j];
            if (r.phase == "prefill")
                last = &r;
            else if (!r.warmup)
                break;
        }
        // In double: a hostile clock may put the starts at opposite ends of the int64 range.
        report.timeToFirstTokenMs = (double(last->startNs) - double(first.startNs)) / 1e6 + last->durationMs;
        break;
    }

    // Shares: each block's events once classified, summed over the block's steady runs per phase.
    struct Acc {
        double totalMs = 0, delegatedMs = 0;
        std::uint64_t calls = 0;
    };
    const std::size_t phaseCount = report.phases.size();
    std::vector<std::vector<Acc>> acc(phaseCount);
    std::vector<std::vector<int>> phaseOfRun(blocks.size());
    for (const RunRow &row : report.runs)
        if (!row.warmup) {
            auto &ph = phaseOfRun[row.block];
            if (ph.empty())
                ph.assign(blocks[row.block].runIndices.size(), -1);
            ph[row.runInBlock] = int(phaseIndex[row.phase]);
        }
    ShareNames names;
    BackendRowNames backend;
    BackendShareRows backendRows;
    report.sharesBy = options.sharesBy;
    // Host phases (ETVK_*, VGF_*) may wrap other delegate events: by operator too, those are
    // left out (the rows keep their names), so that no time counts twice.
    const bool byBackend = options.sharesBy == ShareRowsBy::BackendOperator;
    bool hostPhases = false;
    for (std::size_t b = 0; b < blocks.size() && !byBackend && !hostPhases; ++b)
        for (const Event &e : blocks[b].events)
            if (e.isDelegatedOp && (e.name.starts_with("ETVK_") || e.name.starts_with("VGF_"))) {
                hostPhases = true;
                break;
            }
    if (hostPhases) {
        const BackendEventTable table = decodeBackendEvents(blocks);
        backendRows = backendShareRows(blocks, table);
        backend.rows = &backendRows;
        backend.namesRows = false;
        report.notes.push_back("host phases that wrap other events of their delegate call (ETVK_EXECUTE, "
                               "ETVK_COMPUTE_GRAPH_EXECUTE around dispatches, VGF_EXECUTE, VGF_DISPATCH_AND_WAIT) "
                               "not counted");
    } else if (byBackend) {
        const BackendEventTable table = decodeBackendEvents(blocks);
        backendRows = backendShareRows(blocks, table);
        if (table.empty()) {
            if (options.sharesByDefault)
                report.sharesBy = ShareRowsBy::Operator; // nothing to decode: plainly by operator
            else
                report.notes.push_back("shares by backend operator: no delegate event follows a known backend "
                                       "convention (Vulkan, VGF, Neutron, XNNPACK), rows by operator");
        } else {
            backend.rows = &backendRows;
            backend.idOfRow.assign(backendRows.names().size(), -1);
            report.notes.push_back("shares by backend operator: decoded delegate events under their operator; host "
                                   "phases that wrap counted events (ETVK_EXECUTE, ETVK_COMPUTE_GRAPH_EXECUTE around "
                                   "dispatches, VGF_EXECUTE, VGF_DISPATCH_AND_WAIT) not counted");
        }
    }
    std::vector<Counted> counted;
    std::vector<std::int32_t> kernels, delegates;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        const auto &ph = phaseOfRun[b];
        if (ph.empty())
            continue;
        const ProgramMethod *method = nullptr;
        if (program && attribution[b].kind == RunAttribution::Kind::Matched)
            method = attribution[b].method;
        else if (program && !options.method.empty())
            method = program->method(options.method);
        backend.block = b;
        classify(blocks[b], method, options, names, backend, counted, kernels, delegates);
        for (auto &a : acc)
            a.resize(names.size());
        for (std::size_t i = 0; i < counted.size(); ++i) {
            const Counted &c = counted[i];
            if (c.row < 0)
                continue;
            const auto raw = blocks[b].events[i].perfData->raw;
            for (std::size_t r = 0; r < raw.size(); ++r) {
                const int p = ph[r];
                if (p < 0)
                    continue;
                Acc &a = acc[std::size_t(p)][std::size_t(c.row)];
                const double ms = raw[r] * clock->msPerUnit;
                a.totalMs += ms;
                ++a.calls;
                if (c.delegated)
                    a.delegatedMs += ms;
            }
        }
    }
    for (std::size_t p = 0; p < phaseCount; ++p) {
        PhaseFigures &f = report.phases[p];
        double delegatedMs = 0;
        std::vector<std::size_t> order; // rows by name, so that ties stay in name order
        for (std::size_t g = 0; g < acc[p].size(); ++g)
            if (acc[p][g].calls) {
                order.push_back(g);
                f.countedMs += acc[p][g].totalMs;
                delegatedMs += acc[p][g].delegatedMs;
            }
        std::sort(
            order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return names.name(x) < names.name(y); });
        for (std::size_t g : order) {
            const Acc &a = acc[p][g];
            f.shares.push_back({ names.name(g), a.totalMs, f.countedMs > 0 ? a.totalMs / f.countedMs : 0, a.calls,
                a.totalMs > 0 ? a.delegatedMs / a.totalMs : 0 });
        }
        f.delegatedShare = f.countedMs > 0 ? delegatedMs / f.countedMs : 0;
        std::stable_sort(f.shares.begin(), f.shares.end(),
            [](const ShareRow &x, const ShareRow &y) { return x.totalMs > y.totalMs; });
    }
    return report;
}
} // namespace

Result<RunsReport> analyzeRuns(
    const std::vector<EventBlock> &blocks, const Program *program, const RunsOptions &options, const std::string &file)
{
    if (!program && options.phaseBy == PhaseRule::Method)
        return makeError(ErrorCode::InvalidArgument, file, "--phase-by method needs the program (--program P.pte)");
    std::vector<RunAttribution> attribution;
    if (program)
        attribution = attributeRuns(blocks, *program);
    const RunTable table = buildRunTable(blocks, attribution, PhaseOptions { options.phaseBy, options.prefillRuns });
    return analyzeTable(blocks, program, attribution, table, options, file);
}

Result<RunsReport> analyzeRuns(const Session &session, const RunsOptions &options)
{
    if (!session.program && session.inputs.phases.rule == PhaseRule::Method)
        return makeError(
            ErrorCode::InvalidArgument, session.primaryPath(), "--phase-by method needs the program (--program P.pte)");
    RunsOptions o = options;
    o.time = session.inputs.time;
    return analyzeTable(
        session.blocks, session.program.get(), session.runMethods, session.runTable, o, session.primaryPath());
}

} // namespace etscope
