#include "evalgap/decompose.h"

#include "analysis/noise.h"
#include "common/jsontext.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

namespace etscope::evalgap {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// An error column from a gap row (runtime against a reference).
ErrorPart partOf(const analysis::GapRow &r, analysis::Metric m, analysis::Direction d, const analysis::Comparator &snr)
{
    ErrorPart p;
    if (!r.error.empty() || r.gap.empty()) {
        p.gap = p.noise = p.excess = p.snrDb = kNaN;
        return p;
    }
    p.valid = true;
    p.gap = r.worst(d);
    p.excess = r.excess(m, d);
    p.flagged = r.flagged;
    p.noise = kNaN;
    for (std::size_t k = 0; k < r.gap.size() && k < r.noise.size(); ++k)
        if (r.gap[k] == p.gap || (std::isnan(p.gap) && std::isnan(r.gap[k])))
            p.noise = r.noise[k];
    auto s = analysis::compareValues(snr, r.reference, r.runtime);
    p.snrDb = s && !s->empty() ? *std::min_element(s->begin(), s->end()) : kNaN;
    return p;
}

// Quantization error: the fake-quantized value judged against the float twin's.
ErrorPart quantPart(const analysis::NumValue &twin, const analysis::NumValue &fake, analysis::Metric m,
    analysis::Direction d, std::optional<double> threshold, const analysis::Comparator &cmp,
    const analysis::Comparator &snr, std::string &note)
{
    ErrorPart p;
    p.gap = p.noise = p.excess = p.snrDb = kNaN;
    auto g = analysis::compareValues(cmp, twin, fake);
    if (!g || g->empty()) {
        note = g ? "float twin has no value" : "float twin: " + g.error().reason;
        return p;
    }
    p.valid = true;
    p.excess = kNaN;
    for (std::size_t k = 0; k < g->size(); ++k) {
        const double gap = (*g)[k];
        const double noise = threshold ? *threshold : analysis::noiseThreshold(m, twin.items[k], fake.items[k]);
        if (k == 0 || analysis::badness(d, gap) > analysis::badness(d, p.gap)) {
            p.gap = gap;
            p.noise = noise;
        }
        const double x = analysis::excessOverNoise(d, m, gap, noise);
        if (!std::isnan(x) && (std::isnan(p.excess) || x > p.excess))
            p.excess = x;
        p.flagged = p.flagged || analysis::exceedsThreshold(d, gap, noise);
    }
    auto s = analysis::compareValues(snr, twin, fake);
    p.snrDb = s && !s->empty() ? *std::min_element(s->begin(), s->end()) : kNaN;
    return p;
}

// The larger part above the noise level; a part within noise never dominates unless the total
// is above it (then the larger excess of the two).
Dominant dominantOf(const OpDecomposition &o)
{
    const bool q = o.quant.valid && o.quant.flagged, k = o.kernel.valid && o.kernel.flagged;
    auto larger = [&] {
        const double eq = o.quant.valid ? o.quant.excess : kNaN, ek = o.kernel.valid ? o.kernel.excess : kNaN;
        if (std::isnan(ek))
            return Dominant::Quantization;
        if (std::isnan(eq))
            return Dominant::Kernel;
        return ek > eq ? Dominant::Kernel : Dominant::Quantization;
    };
    if (q && k)
        return larger();
    if (q)
        return Dominant::Quantization;
    if (k)
        return Dominant::Kernel;
    if (o.total.valid && o.total.flagged && (o.quant.valid || o.kernel.valid))
        return larger();
    return Dominant::Noise;
}

std::string num(double v)
{
    if (std::isnan(v))
        return "nan";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    return fmt::format("{:.17g}", v);
}

std::string snrText(double db)
{
    if (std::isnan(db))
        return "SNR n/a";
    if (std::isinf(db))
        return "SNR inf";
    return fmt::format("SNR {:.1f} dB", db);
}

} // namespace

const char *dominantName(Dominant d)
{
    switch (d) {
    case Dominant::Quantization:
        return "quantization";
    case Dominant::Kernel:
        return "kernel";
    case Dominant::Noise:
        break;
    }
    return "noise";
}

double additiveError(analysis::Metric metric, double gap)
{
    if (std::isnan(gap))
        return 0;
    double e = gap;
    if (metric == analysis::Metric::SNR)
        e = std::pow(10.0, -gap / 10.0);
    else if (metric == analysis::Metric::Cosine)
        e = 1.0 - gap;
    return std::isfinite(e) ? std::max(0.0, e) : 0;
}

ErrorSplit errorSplit(const OpDecomposition &op, analysis::Metric metric)
{
    const double q = op.quant.valid ? additiveError(metric, op.quant.gap) : 0;
    const double k = op.kernel.valid ? additiveError(metric, op.kernel.gap) : 0;
    if (q + k <= 0)
        return { kNaN, kNaN };
    return { q / (q + k), k / (q + k) };
}

std::string OpDecomposition::label() const
{
    const std::string id = instructionId >= 0 ? std::to_string(instructionId)
        : debugHandles.empty()                ? std::string("?")
                                              : std::to_string(debugHandles.front());
    const std::string op = !referenceOps.empty() ? referenceOps.back() : !runtimeOps.empty() ? runtimeOps.front() : "";
    return op.empty() ? "#" + id : "#" + id + " " + op;
}

Result<Decomposition> decomposeGap(const Session &runtime, const analysis::ReferenceSet &fakeQuantized,
    const analysis::ReferenceSet &floatTwin, const DecomposeOptions &opts)
{
    analysis::GapOptions go;
    go.metric = opts.metric;
    go.threshold = opts.threshold;
    go.matching = analysis::GapOptions::Matching::DebugHandle;
    auto kernel = analysis::computeNumericGap(runtime, fakeQuantized, go);
    if (!kernel)
        return kernel.error();
    auto total = analysis::computeNumericGap(runtime, floatTwin, go);
    if (!total)
        return total.error();

    Decomposition d;
    d.metric = kernel->metric;
    d.direction = kernel->direction;
    d.threshold = opts.threshold;
    d.warnings = kernel->warnings;
    const auto cmp = analysis::makeComparator(opts.metric);
    const auto snr = analysis::makeComparator(analysis::Metric::SNR);

    // Float twin values by handle (the key both reference sets share).
    std::map<std::int64_t, const analysis::OpOutputs *> twinOf;
    for (const auto &e : floatTwin.intermediates)
        for (auto h : e.debugHandles)
            twinOf.emplace(h, &e);
    // Total rows by runtime event and output position (one row per runtime output).
    std::map<std::tuple<int, int, std::int64_t>, std::vector<const analysis::GapRow *>> totalOf;
    for (const auto &r : total->rows)
        totalOf[{ r.blockIndex, r.eventIndex, r.referenceHandle }].push_back(&r);
    std::map<std::tuple<int, int, std::int64_t>, std::size_t> seen;

    for (const auto &r : kernel->rows) {
        OpDecomposition o;
        o.blockIndex = r.blockIndex;
        o.eventIndex = r.eventIndex;
        o.instructionId = r.instructionId;
        o.debugHandles = r.debugHandles;
        o.referenceOps = r.referenceOps;
        o.runtimeOps = r.runtimeOps;
        o.delegated = r.delegated;
        o.note = r.error.empty() ? r.note : r.error;
        o.kernel = partOf(r, d.metric, d.direction, *snr);
        const auto key = std::make_tuple(r.blockIndex, r.eventIndex, r.referenceHandle);
        const std::size_t nth = seen[key]++;
        auto t = totalOf.find(key);
        if (t != totalOf.end() && nth < t->second.size())
            o.total = partOf(*t->second[nth], d.metric, d.direction, *snr);
        else
            o.total.gap = o.total.noise = o.total.excess = o.total.snrDb = kNaN;
        auto tw = twinOf.find(r.referenceHandle);
        std::string why;
        if (tw != twinOf.end() && !tw->second->outputs.empty() && !r.reference.isNone())
            o.quant = quantPart(
                tw->second->outputs.front(), r.reference, d.metric, d.direction, opts.threshold, *cmp, *snr, why);
        else {
            o.quant.gap = o.quant.noise = o.quant.excess = o.quant.snrDb = kNaN;
            why = tw == twinOf.end() ? "float twin has no value for this handle"
                                     : (tw->second->note.empty() ? "float twin has no value" : tw->second->note);
        }
        if (!why.empty())
            o.note = o.note.empty() ? why : o.note + "; " + why;
        o.dominant = dominantOf(o);
        const int i = int(d.ops.size());
        if (d.quantEnters < 0 && o.quant.valid && o.quant.flagged)
            d.quantEnters = i;
        if (d.kernelEnters < 0 && o.kernel.valid && o.kernel.flagged)
            d.kernelEnters = i;
        if (d.totalEnters < 0 && o.total.valid && o.total.flagged)
            d.totalEnters = i;
        d.ops.push_back(std::move(o));
    }
    d.summary = decompositionSentence(d);
    return d;
}

Result<Decomposition> decomposeGap(const ETRecord &record, const Session &runtime, const DecomposeOptions &opts)
{
    EvalGapOptions eo;
    eo.referenceGraph = opts.referenceGraph;
    eo.disableHandleValidation = opts.disableHandleValidation;
    eo.inputs = opts.inputs;
    eo.threads = opts.threads;
    eo.maxMemory = opts.maxMemory;
    eo.progress = opts.progress;
    auto refs = fakeAndTwinReferences(record, eo);
    if (!refs)
        return refs.error();
    const auto &[fake, twin] = *refs;
    auto d = decomposeGap(runtime, fake.accumulated, twin.accumulated, opts);
    if (!d)
        return d.error();
    d->referenceGraph = fake.graphName;
    d->floatTwinPairs = twin.floatTwinPairs;
    for (const auto &w : fake.warnings)
        d->warnings.push_back(w);
    if (twin.floatTwinPairs == 0)
        d->warnings.push_back("the reference graph has no quantize -> dequantize pair: the float twin is the graph "
                              "itself, so every quantization error is 0");
    return d;
}

std::string decompositionSentence(const Decomposition &d)
{
    const OpDecomposition *q = d.quantEnters >= 0 ? &d.ops[std::size_t(d.quantEnters)] : nullptr;
    const OpDecomposition *k = d.kernelEnters >= 0 ? &d.ops[std::size_t(d.kernelEnters)] : nullptr;
    if (!q && !k) {
        if (d.totalEnters >= 0)
            return fmt::format("accuracy is lost at {} ({}), though neither quantization nor the kernels alone "
                               "exceed the noise level",
                d.ops[std::size_t(d.totalEnters)].label(), snrText(d.ops[std::size_t(d.totalEnters)].total.snrDb));
        return "no accuracy is lost: the runtime agrees with the float model within noise";
    }
    // Lead with the part that dominates the last op above noise; else with the one that enters first.
    bool kernelLeads = !q;
    if (q && k) {
        kernelLeads = d.kernelEnters < d.quantEnters;
        for (auto it = d.ops.rbegin(); it != d.ops.rend(); ++it)
            if (it->dominant != Dominant::Noise) {
                kernelLeads = it->dominant == Dominant::Kernel;
                break;
            }
    }
    if (!kernelLeads)
        return fmt::format("accuracy is lost to quantization at {} ({}); {}", q->label(), snrText(q->quant.snrDb),
            k ? fmt::format("kernels add error from {} ({})", k->label(), snrText(k->kernel.snrDb))
              : std::string("kernels agree with the fake-quantized model within noise"));
    return fmt::format("accuracy is lost in the kernels at {} ({}); {}", k->label(), snrText(k->kernel.snrDb),
        q ? fmt::format("quantization adds error from {} ({})", q->label(), snrText(q->quant.snrDb))
          : std::string("the fake-quantized model agrees with the float model within noise"));
}

std::string decompositionTsv(const Decomposition &d)
{
    std::string out = "instruction\tdebug_handles\taot_ops\truntime_ops\tquant_error\tkernel_error\ttotal_error\t"
                      "dominant\tquant_noise\tkernel_noise\ttotal_noise\tquant_flagged\tkernel_flagged\t"
                      "total_flagged\tnote\n";
    for (const auto &o : d.ops)
        out += fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n", o.instructionId,
            fmt::join(o.debugHandles, ";"), fmt::join(o.referenceOps, ";"), fmt::join(o.runtimeOps, ";"),
            num(o.quant.gap), num(o.kernel.gap), num(o.total.gap), dominantName(o.dominant), num(o.quant.noise),
            num(o.kernel.noise), num(o.total.noise), int(o.quant.flagged), int(o.kernel.flagged), int(o.total.flagged),
            o.note);
    return out;
}

std::string decompositionJson(const Decomposition &d)
{
    auto jnum = [](double v) -> nlohmann::json {
        if (std::isnan(v))
            return nullptr;
        if (std::isinf(v))
            return v > 0 ? "inf" : "-inf";
        return v;
    };
    auto enters = [&](int i) -> nlohmann::json {
        if (i < 0)
            return nullptr;
        return nlohmann::json { { "index", i }, { "op", d.ops[std::size_t(i)].label() } };
    };
    nlohmann::json j;
    j["metric"] = analysis::metricName(d.metric);
    j["threshold"] = d.threshold ? nlohmann::json(*d.threshold) : nlohmann::json("noise level");
    j["reference_graph"] = d.referenceGraph;
    j["float_twin_pairs"] = d.floatTwinPairs;
    j["summary"] = d.summary;
    j["quant_enters"] = enters(d.quantEnters);
    j["kernel_enters"] = enters(d.kernelEnters);
    j["total_enters"] = enters(d.totalEnters);
    j["warnings"] = d.warnings;
    auto &ops = j["ops"] = nlohmann::json::array();
    for (const auto &o : d.ops) {
        auto part = [&](const ErrorPart &p) {
            return nlohmann::json { { "gap", jnum(p.gap) }, { "noise", jnum(p.noise) }, { "excess", jnum(p.excess) },
                { "snr_db", jnum(p.snrDb) }, { "flagged", p.flagged } };
        };
        ops.push_back({ { "instruction", o.instructionId }, { "debug_handles", o.debugHandles },
            { "aot_ops", o.referenceOps }, { "runtime_ops", o.runtimeOps }, { "quant_error", jnum(o.quant.gap) },
            { "kernel_error", jnum(o.kernel.gap) }, { "total_error", jnum(o.total.gap) },
            { "dominant", dominantName(o.dominant) }, { "quant", part(o.quant) }, { "kernel", part(o.kernel) },
            { "total", part(o.total) }, { "note", o.note } });
    }
    return jsonDocument(j);
}

std::string decompositionText(const Decomposition &d)
{
    std::string out = d.summary + "\n";
    out += fmt::format("{} per op: quantization = float twin vs fake-quantized, kernel = fake-quantized vs "
                       "runtime, total = float twin vs runtime; {}\n",
        analysis::metricName(d.metric), analysis::thresholdDescription(d.metric, d.threshold));
    out += fmt::format(
        "{:>6}  {:<28} {:>12} {:>12} {:>12}  {}\n", "instr", "op", "quant", "kernel", "total", "dominant");
    auto cell = [](const ErrorPart &p) {
        if (!p.valid)
            return std::string("-");
        return fmt::format("{:.4g}{}", p.gap, p.flagged ? "!" : "");
    };
    for (const auto &o : d.ops) {
        const std::string op = !o.referenceOps.empty() ? o.referenceOps.back() : "";
        out += fmt::format("{:>6}  {:<28} {:>12} {:>12} {:>12}  {}\n", o.instructionId, op.substr(0, 28), cell(o.quant),
            cell(o.kernel), cell(o.total), dominantName(o.dominant));
    }
    return out;
}

} // namespace etscope::evalgap
