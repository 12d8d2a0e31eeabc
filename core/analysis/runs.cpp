#include "analysis/runs.h"

#include "events/backendevents.h"
#include "events/blockstats.h"
#include "events/perfdata.h"
#include "program/program.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>
#include <unordered_map>

namespace etscope {

const char *phaseRuleName(PhaseRule r)
{
    switch (r) {
    case PhaseRule::Auto:
        return "auto";
    case PhaseRule::Method:
        return "method";
    case PhaseRule::Duration:
        return "duration";
    case PhaseRule::PrefillRuns:
        return "prefill-runs";
    case PhaseRule::None:
        break;
    }
    return "none";
}

const char *shareRowsByName(ShareRowsBy by)
{
    return by == ShareRowsBy::BackendOperator ? "backend-operator" : "operator";
}

std::string phaseOfMethodName(std::string_view method)
{
    std::string lower(method);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (lower.find("prefill") != std::string::npos)
        return "prefill";
    if (lower.find("decode") != std::string::npos || lower.find("kv_forward") != std::string::npos)
        return "decode";
    return {};
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

double medianOf(std::vector<double> v) // numpy's median: mean of the two middle values
{
    if (v.empty())
        return std::nan("");
    const std::size_t n = v.size(), h = n / 2;
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(h), v.end());
    const double hi = v[h];
    if (n % 2)
        return hi;
    return (*std::max_element(v.begin(), v.begin() + std::ptrdiff_t(h)) + hi) / 2;
}

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

// The event whose durations are the block's run durations: its (last) Method::execute.
const Event *executeEvent(const EventBlock &b)
{
    const Event *found = nullptr;
    for (const Event &e : b.events)
        if (e.name == kMethodExecute && e.perfData && e.perfData->raw.size() == b.runIndices.size())
            found = &e;
    return found;
}

// Theil's estimator with pairs half the sample apart (Theil 1950, the "incomplete" method):
// slope = median of (y[i+h] − y[i]) / h for i < n − h, h = ceil(n/2), x = 0, 1, …; intercept =
// median of y[i] − slope·i. Each run enters at most one pair, so an outlier moves one slope.
struct Fit {
    double slope = 0, intercept = 0;
};
std::optional<Fit> theilFit(const std::vector<double> &y)
{
    const std::size_t n = y.size();
    if (n < 2)
        return std::nullopt;
    const std::size_t h = (n + 1) / 2;
    std::vector<double> slopes;
    slopes.reserve(n - h);
    for (std::size_t i = 0; i + h < n; ++i)
        slopes.push_back((y[i + h] - y[i]) / double(h));
    Fit f;
    f.slope = medianOf(std::move(slopes));
    std::vector<double> rest(n);
    for (std::size_t i = 0; i < n; ++i)
        rest[i] = y[i] - f.slope * double(i);
    f.intercept = medianOf(std::move(rest));
    return f;
}

// Leading runs, fewer than half of the phase, each > kWarmupFactor × the median of the runs after it.
std::size_t warmupCount(const std::vector<double> &d)
{
    const std::size_t n = d.size();
    std::size_t w = 0;
    while (n > 0 && w < (n - 1) / 2) {
        const double rest = medianOf(std::vector<double>(d.begin() + std::ptrdiff_t(w + 1), d.end()));
        if (!(d[w] > kWarmupFactor * rest))
            break;
        ++w;
    }
    return w;
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

Result<RunsReport> analyzeRuns(
    const std::vector<EventBlock> &blocks, const Program *program, const RunsOptions &options, const std::string &file)
{
    auto clock = clockOf(options.time, file);
    if (!clock)
        return clock.error();
    if (!program && !options.method.empty())
        return makeError(ErrorCode::InvalidArgument, file, "--method needs the program (--program P.pte)");
    if (!program && options.phaseBy == PhaseRule::Method)
        return makeError(ErrorCode::InvalidArgument, file, "--phase-by method needs the program (--program P.pte)");
    if (program && !options.method.empty() && !program->method(options.method))
        return makeError(
            ErrorCode::InvalidArgument, file, fmt::format("the program has no method named '{}'", options.method));

    RunsReport report;
    report.file = file;
    if (program)
        report.program = program->path();
    std::vector<RunAttribution> attribution;
    if (program)
        attribution = attributeRuns(blocks, *program);

    // Every executed run, in file order.
    std::vector<const Event *> execute(blocks.size());
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        execute[b] = executeEvent(blocks[b]);
        if (!execute[b])
            continue;
        const RunAttribution *a = program ? &attribution[b] : nullptr;
        if (!options.method.empty() && !a->fits(options.method))
            continue;
        for (std::size_t r = 0; r < blocks[b].runIndices.size(); ++r) {
            RunRow row;
            row.runDataIndex = blocks[b].runIndices[r];
            row.block = b;
            row.runInBlock = r;
            if (a) {
                row.methodNote = a->label();
                if (!options.method.empty())
                    row.method = options.method; // the user resolved an ambiguity
                else if (a->kind == RunAttribution::Kind::Matched)
                    row.method = a->method->name();
            }
            row.durationMs = execute[b]->perfData->raw[r] * clock->msPerUnit;
            row.startNs = std::llround(double(execute[b]->startTimes()[r]) * clock->nsPerTick);
            report.runs.push_back(std::move(row));
        }
    }
    std::sort(report.runs.begin(), report.runs.end(),
        [](const RunRow &x, const RunRow &y) { return x.runDataIndex < y.runDataIndex; });
    for (std::size_t i = 0; i < report.runs.size(); ++i)
        report.runs[i].index = i;

    // Phases.
    auto methodPhase = [&](const RunRow &row) -> std::string {
        if (!row.method.empty())
            return phaseOfMethodName(row.method);
        const RunAttribution &a = attribution[row.block];
        std::string common; // ambiguous: the phase all candidates agree on
        for (std::size_t i = 0; i < a.candidates.size(); ++i) {
            const std::string p = phaseOfMethodName(a.candidates[i]->name());
            if (i == 0)
                common = p;
            else if (p != common)
                return {};
        }
        return common;
    };
    PhaseRule rule = options.phaseBy;
    if (rule == PhaseRule::Auto) {
        rule = PhaseRule::None;
        if (program)
            for (const RunRow &row : report.runs)
                if (!methodPhase(row).empty()) {
                    rule = PhaseRule::Method;
                    break;
                }
    }
    switch (rule) {
    case PhaseRule::Method: {
        bool any = false;
        for (RunRow &row : report.runs) {
            row.phase = methodPhase(row);
            any = any || !row.phase.empty();
            if (row.phase.empty())
                row.phase = "other";
        }
        if (!any) {
            report.notes.push_back("no method of the program names a phase (prefill, decode, kv_forward): one phase");
            rule = PhaseRule::None;
        }
        break;
    }
    case PhaseRule::PrefillRuns:
        for (RunRow &row : report.runs)
            row.phase = row.index < options.prefillRuns ? "prefill" : "decode";
        break;
    case PhaseRule::Duration: {
        std::vector<double> d;
        for (const RunRow &row : report.runs)
            d.push_back(row.durationMs);
        const double median = medianOf(d);
        bool any = false;
        for (RunRow &row : report.runs) {
            row.phase = row.durationMs >= kPrefillDurationFactor * median ? "prefill" : "decode";
            any = any || row.phase == "prefill";
        }
        if (!any) {
            report.notes.push_back(fmt::format(
                "no run lasts {}x the median run ({:.6g} ms): no prefill, one phase", kPrefillDurationFactor, median));
            rule = PhaseRule::None;
        }
        break;
    }
    case PhaseRule::Auto:
    case PhaseRule::None:
        break;
    }
    if (rule == PhaseRule::None)
        for (RunRow &row : report.runs)
            row.phase = "all";
    report.rule = rule;

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
        f.warmupRuns = warmupCount(all);
        std::vector<double> d(all.begin() + std::ptrdiff_t(f.warmupRuns), all.end());
        for (std::size_t i = 0; i < rows.size(); ++i) {
            rows[i]->warmup = i < f.warmupRuns;
            if (!rows[i]->warmup)
                rows[i]->position = i - f.warmupRuns;
        }
        const std::size_t n = d.size();
        for (double x : d)
            f.totalMs += x;
        f.meanMs = f.totalMs / double(n);
        std::vector<double> sorted = d;
        std::sort(sorted.begin(), sorted.end());
        f.medianMs = numpyPercentileSorted(sorted, 50);
        f.p90Ms = numpyPercentileSorted(sorted, 90);
        if (const auto fit = theilFit(d)) {
            f.slopeMsPerPosition = fit->slope;
            f.interceptMs = fit->intercept;
            if (n >= 3) {
                std::vector<double> res(n);
                for (std::size_t i = 0; i < n; ++i)
                    res[i] = d[i] - (fit->intercept + fit->slope * double(i));
                const double med = medianOf(res);
                std::vector<double> dev(n);
                for (std::size_t i = 0; i < n; ++i)
                    dev[i] = std::abs(res[i] - med);
                const double mad = std::max(medianOf(dev), kMadFloor * f.medianMs);
                for (std::size_t i = 0; i < n; ++i)
                    if (mad > 0 && 0.6745 * dev[i] / mad > kOutlierZ) {
                        rows[f.warmupRuns + i]->outlier = true;
                        ++f.outlierRuns;
                    }
            }
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
            report.notes.push_back("shares by backend operator: no delegate event follows a known backend convention "
                                   "(Vulkan, VGF, Neutron, XNNPACK), rows by operator");
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

} // namespace etscope
