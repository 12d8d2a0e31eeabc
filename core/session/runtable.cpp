#include "session/runtable.h"

#include "program/program.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iterator>
#include <unordered_map>

namespace etscope {

const char *phaseName(Phase p)
{
    switch (p) {
    case Phase::Prefill:
        return "prefill";
    case Phase::Decode:
        return "decode";
    case Phase::Warmup:
        return "warmup";
    case Phase::Other:
        return "other";
    case Phase::All:
        break;
    }
    return "all";
}

std::optional<Phase> parsePhase(std::string_view text)
{
    for (Phase p : { Phase::Prefill, Phase::Decode, Phase::Warmup, Phase::Other, Phase::All })
        if (text == phaseName(p))
            return p;
    if (text == "warm-up")
        return Phase::Warmup;
    return std::nullopt;
}

const char *phaseRuleName(PhaseRule r)
{
    switch (r) {
    case PhaseRule::Auto:
        return "auto";
    case PhaseRule::Method:
        return "method";
    case PhaseRule::Operators:
        return "operators";
    case PhaseRule::Duration:
        return "duration";
    case PhaseRule::PrefillRuns:
        return "prefill-runs";
    case PhaseRule::None:
        break;
    }
    return "none";
}

std::optional<PhaseRule> parsePhaseRule(std::string_view text)
{
    for (PhaseRule r : { PhaseRule::Auto, PhaseRule::Method, PhaseRule::Operators, PhaseRule::Duration,
             PhaseRule::PrefillRuns, PhaseRule::None })
        if (text == phaseRuleName(r))
            return r;
    return std::nullopt;
}

std::string SessionRun::methodName() const
{
    return method ? method->name() : std::string();
}

const SessionRun *RunTable::run(std::size_t block, std::size_t runInBlock) const
{
    if (block >= runOfBlock.size() || runInBlock >= runOfBlock[block].size())
        return nullptr;
    const int i = runOfBlock[block][runInBlock];
    return i < 0 ? nullptr : &runs[std::size_t(i)];
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

const Event *executeEvent(const EventBlock &b)
{
    const Event *found = nullptr;
    for (const Event &e : b.events)
        if (e.name == kMethodExecute && e.perfData && e.perfData->raw.size() == b.runIndices.size())
            found = &e;
    return found;
}

double medianOf(std::vector<double> v)
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

std::optional<TheilFit> theilFit(const std::vector<double> &y)
{
    const std::size_t n = y.size();
    if (n < 2)
        return std::nullopt;
    const std::size_t h = (n + 1) / 2;
    std::vector<double> slopes;
    slopes.reserve(n - h);
    for (std::size_t i = 0; i + h < n; ++i)
        slopes.push_back((y[i + h] - y[i]) / double(h));
    TheilFit f;
    f.slope = medianOf(std::move(slopes));
    std::vector<double> rest(n);
    for (std::size_t i = 0; i < n; ++i)
        rest[i] = y[i] - f.slope * double(i);
    f.intercept = medianOf(std::move(rest));
    return f;
}

namespace {

// Leading runs, fewer than half of the phase (beyond `forced`), each > kWarmupFactor × the median
// of the runs after it. The first `forced` runs are warm-up whatever their duration.
std::size_t warmupCount(const std::vector<double> &d, std::size_t forced)
{
    const std::size_t n = d.size();
    std::size_t w = std::min(forced, n);
    while (n > 0 && w < std::max((n - 1) / 2, forced)) {
        const double rest = medianOf(std::vector<double>(d.begin() + std::ptrdiff_t(w + 1), d.end()));
        if (!(d[w] > kWarmupFactor * rest))
            break;
        ++w;
    }
    return w;
}

// The phase a run's method (or every candidate of an ambiguous attribution) names.
Phase methodPhase(const RunAttribution *a)
{
    if (!a)
        return Phase::All;
    std::string common;
    if (a->kind == RunAttribution::Kind::Matched) {
        common = phaseOfMethodName(a->method->name());
    } else {
        for (std::size_t i = 0; i < a->candidates.size(); ++i) {
            const std::string p = phaseOfMethodName(a->candidates[i]->name());
            if (i == 0)
                common = p;
            else if (p != common)
                return Phase::All;
        }
    }
    return common == "prefill" ? Phase::Prefill : common == "decode" ? Phase::Decode : Phase::All;
}

// Per-operator evidence (kScaledOperatorFactor and the constants around it). An operator is an
// event of a kernel or a delegate (chain ≥ 0, not a framework event, not the OPERATOR_CALL around a
// kernel), identified across blocks by its name, chain, instruction id and occurrence.
struct OperatorEvidence {
    std::vector<bool> scales; // per run (RunTable order): its work scales like a prompt's
    std::vector<std::vector<int>> scaledOperators; // per run: the operators ≥ kScaledOperatorFactor, sorted
};

OperatorEvidence operatorEvidence(const std::vector<EventBlock> &blocks, const RunTable &table)
{
    struct Key {
        const char *name;
        std::size_t size;
        std::int64_t chain;
        std::int32_t instruction;
        int occurrence;
        bool operator==(const Key &) const = default;
    };
    struct KeyHash {
        std::size_t operator()(const Key &k) const
        {
            return std::hash<const void *>()(k.name) ^ (std::size_t(k.instruction) * 0x9E3779B97F4A7C15ULL)
                ^ (std::size_t(k.occurrence) << 20) ^ std::size_t(k.chain);
        }
    };
    // Names are interned per store: the same operator shares one address across a file's blocks.
    std::unordered_map<Key, int, KeyHash> slotOf;
    std::vector<std::vector<std::pair<int, const Event *>>> slotsOfBlock(blocks.size());
    std::vector<std::vector<double>> samples; // per slot, every run's duration
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        if (b >= table.runOfBlock.size() || table.runOfBlock[b].empty())
            continue;
        std::unordered_map<Key, int, KeyHash> seen;
        for (const Event &e : blocks[b].events) {
            if (!e.perfData || e.perfData->raw.size() != blocks[b].runIndices.size() || e.chainIndex < 0
                || e.isFramework() || e.name == kOperatorCall)
                continue;
            Key k { e.name.data(), e.name.size(), e.chainIndex, e.instructionId, 0 };
            k.occurrence = seen[k]++;
            auto [it, added] = slotOf.try_emplace(k, int(samples.size()));
            if (added)
                samples.emplace_back();
            slotsOfBlock[b].emplace_back(it->second, &e);
            for (double x : e.perfData->raw)
                samples[std::size_t(it->second)].push_back(x);
        }
    }
    std::vector<double> reference(samples.size());
    for (std::size_t s = 0; s < samples.size(); ++s)
        reference[s] = medianOf(std::move(samples[s]));

    OperatorEvidence ev;
    ev.scales.assign(table.runs.size(), false);
    ev.scaledOperators.resize(table.runs.size());
    std::vector<double> ratios;
    for (const SessionRun &run : table.runs) {
        ratios.clear();
        std::vector<int> &scaled = ev.scaledOperators[run.index];
        for (const auto &[slot, e] : slotsOfBlock[run.block]) {
            const double ref = reference[std::size_t(slot)];
            if (!(ref > 0))
                continue;
            const double rho = e->perfData->raw[run.runInBlock] / ref;
            ratios.push_back(rho);
            if (rho >= kScaledOperatorFactor)
                scaled.push_back(slot);
        }
        std::sort(scaled.begin(), scaled.end());
        if (ratios.size() < 2 || double(scaled.size()) < kScaledOperatorsShare * double(ratios.size()))
            continue;
        std::sort(ratios.begin(), ratios.end());
        const double p10 = numpyPercentileSorted(ratios, 10), p90 = numpyPercentileSorted(ratios, 90);
        ev.scales[run.index] = p10 > 0 && p90 >= kPrefillSpread * p10;
    }
    return ev;
}

double jaccard(const std::vector<int> &a, const std::vector<int> &b)
{
    std::vector<int> both;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
    const std::size_t either = a.size() + b.size() - both.size();
    return either ? double(both.size()) / double(either) : 0;
}

// Prefill by per-operator evidence; returns the number of runs before the first prefill (warm-up).
std::optional<std::size_t> phasesByOperators(const std::vector<EventBlock> &blocks, RunTable &t)
{
    const OperatorEvidence ev = operatorEvidence(blocks, t);
    std::optional<std::size_t> first;
    for (std::size_t i = 0; i < t.runs.size() && i < kFirstPrefillWithin; ++i)
        if (ev.scales[i]) {
            first = i;
            break;
        }
    if (!first)
        return std::nullopt;
    const std::vector<int> &signature = ev.scaledOperators[*first];
    for (SessionRun &r : t.runs)
        r.phase = Phase::Decode;
    std::size_t decodeSince = 0; // decode runs since the last prefill
    for (std::size_t i = *first; i < t.runs.size(); ++i) {
        SessionRun &r = t.runs[i];
        const bool chunk = i == *first || (ev.scales[i] && t.runs[i - 1].phase == Phase::Prefill);
        const bool newPrompt
            = ev.scales[i] && decodeSince > 0 && jaccard(ev.scaledOperators[i], signature) >= kSameOperatorsJaccard;
        if (chunk || newPrompt) {
            r.phase = Phase::Prefill;
            decodeSince = 0;
        } else {
            ++decodeSince;
        }
    }
    return first;
}

} // namespace

RunTable buildRunTable(
    const std::vector<EventBlock> &blocks, const std::vector<RunAttribution> &attribution, const PhaseOptions &options)
{
    RunTable t;
    t.runOfBlock.resize(blocks.size());
    std::vector<const RunAttribution *> attr(blocks.size(), nullptr);
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        if (b < attribution.size())
            attr[b] = &attribution[b];
        const Event *ex = executeEvent(blocks[b]);
        if (!ex)
            continue;
        t.runOfBlock[b].assign(blocks[b].runIndices.size(), -1);
        for (std::size_t r = 0; r < blocks[b].runIndices.size(); ++r) {
            SessionRun run;
            run.runDataIndex = blocks[b].runIndices[r];
            run.block = b;
            run.runInBlock = r;
            if (attr[b]) {
                run.methodNote = attr[b]->label();
                if (attr[b]->kind == RunAttribution::Kind::Matched)
                    run.method = attr[b]->method;
            }
            run.duration = ex->perfData->raw[r];
            run.startTick = ex->startTimes()[r];
            t.runs.push_back(std::move(run));
        }
    }
    std::sort(t.runs.begin(), t.runs.end(),
        [](const SessionRun &x, const SessionRun &y) { return x.runDataIndex < y.runDataIndex; });
    for (std::size_t i = 0; i < t.runs.size(); ++i) {
        t.runs[i].index = i;
        t.runOfBlock[t.runs[i].block][t.runs[i].runInBlock] = int(i);
    }

    // Phases.
    PhaseRule rule = options.rule;
    std::size_t leadingWarmup = 0; // runs before the first prefill (rule Operators)
    bool anyMethodPhase = false;
    for (const SessionRun &r : t.runs)
        anyMethodPhase = anyMethodPhase || methodPhase(attr[r.block]) != Phase::All;
    if (rule == PhaseRule::Auto)
        rule = anyMethodPhase ? PhaseRule::Method : PhaseRule::Operators;
    switch (rule) {
    case PhaseRule::Method:
        if (!anyMethodPhase) {
            t.notes.push_back("no method of the program names a phase (prefill, decode, kv_forward): one phase");
            rule = PhaseRule::None;
            break;
        }
        for (SessionRun &r : t.runs) {
            r.phase = methodPhase(attr[r.block]);
            if (r.phase == Phase::All)
                r.phase = Phase::Other;
        }
        t.ruleLine = "phases by the runs' method names (prefill, decode, kv_forward)";
        break;
    case PhaseRule::PrefillRuns:
        for (SessionRun &r : t.runs)
            r.phase = r.index < options.prefillRuns ? Phase::Prefill : Phase::Decode;
        t.ruleLine
            = fmt::format("phases as given: the first {} run(s) are prefill (--prefill-runs)", options.prefillRuns);
        break;
    case PhaseRule::Duration: {
        std::vector<double> d;
        for (const SessionRun &r : t.runs)
            d.push_back(r.duration);
        const double median = medianOf(d);
        bool any = false;
        for (SessionRun &r : t.runs) {
            r.phase = r.duration >= kPrefillDurationFactor * median ? Phase::Prefill : Phase::Decode;
            any = any || r.phase == Phase::Prefill;
        }
        if (!any) {
            t.notes.push_back(fmt::format(
                "no run lasts {}x the median run ({:.6g}): no prefill, one phase", kPrefillDurationFactor, median));
            rule = PhaseRule::None;
        } else {
            t.ruleLine = fmt::format("phases by duration (--phase-by duration): runs of at least {}x the median run "
                                     "are prefill, slow decode steps included",
                kPrefillDurationFactor);
        }
        break;
    }
    case PhaseRule::Operators:
        if (auto first = phasesByOperators(blocks, t)) {
            leadingWarmup = *first;
            t.ruleLine = fmt::format("phases by per-operator evidence: a run is prefill when at least {:g}% of its "
                                     "operators take {:g}x their median or more, unevenly (p90/p10 of the ratios "
                                     "at least {:g}), at a generation's start",
                kScaledOperatorsShare * 100, kScaledOperatorFactor, kPrefillSpread);
        } else {
            if (options.rule == PhaseRule::Operators)
                t.notes.push_back("no run's operators scale like a prompt's (per-operator evidence): one phase");
            rule = PhaseRule::None;
        }
        break;
    case PhaseRule::Auto:
    case PhaseRule::None:
        break;
    }
    if (rule == PhaseRule::None) {
        for (SessionRun &r : t.runs)
            r.phase = Phase::All;
        t.ruleLine = "one phase (\"all\"): no method names a phase and no run's operators scale like a prompt's";
        if (options.rule == PhaseRule::None)
            t.ruleLine = "one phase (\"all\"), as asked";
    }
    t.rule = rule;

    // Generations: each group of consecutive prefill runs opens one (the runs before the first
    // prefill belong to the first).
    std::size_t groups = 0;
    for (std::size_t i = 0; i < t.runs.size(); ++i) {
        SessionRun &r = t.runs[i];
        if (r.phase == Phase::Prefill && (i == 0 || t.runs[i - 1].phase != Phase::Prefill))
            ++groups;
        r.generation = groups ? groups - 1 : 0;
    }
    t.generations = t.runs.empty() ? 0 : std::max<std::size_t>(groups, 1);

    // Per phase: warm-up (leading slow runs), then outliers against the fit of the steady runs.
    for (Phase phase : { Phase::Prefill, Phase::Decode, Phase::Other, Phase::All }) {
        std::vector<SessionRun *> rows;
        for (SessionRun &r : t.runs)
            if (r.phase == phase)
                rows.push_back(&r);
        if (rows.empty())
            continue;
        std::vector<double> all;
        for (const SessionRun *r : rows)
            all.push_back(r->duration);
        const std::size_t forced = phase == Phase::Decode ? leadingWarmup : 0;
        const std::size_t w = warmupCount(all, forced);
        for (std::size_t i = 0; i < w; ++i)
            rows[i]->warmup = true;
        std::vector<double> d(all.begin() + std::ptrdiff_t(w), all.end());
        const std::size_t n = d.size();
        const auto fit = theilFit(d);
        // A prompt's duration follows its length: prefill runs of several generations differ by
        // design, so no prefill run is an outlier.
        if (!fit || n < 3 || phase == Phase::Prefill)
            continue;
        std::vector<double> sorted = d;
        std::sort(sorted.begin(), sorted.end());
        const double median = numpyPercentileSorted(sorted, 50);
        std::vector<double> res(n);
        for (std::size_t i = 0; i < n; ++i)
            res[i] = d[i] - (fit->intercept + fit->slope * double(i));
        const double med = medianOf(res);
        std::vector<double> dev(n);
        for (std::size_t i = 0; i < n; ++i)
            dev[i] = std::abs(res[i] - med);
        const double mad = std::max(medianOf(dev), kMadFloor * median);
        for (std::size_t i = 0; i < n; ++i)
            if (mad > 0 && 0.6745 * dev[i] / mad > kOutlierZ)
                rows[w + i]->outlier = true;
    }
    return t;
}

} // namespace etscope
