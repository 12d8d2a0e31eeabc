#include "analysis/determinism.h"

#include "analysis/numtensor.h"
#include "common/jsontext.h"

#include "common/numberformat.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

namespace etscope {

namespace {

// One logged tensor of one run: where its bytes are.
struct LoggedTensor {
    std::int32_t instructionId = -1;
    std::size_t occurrence = 0;
    bool output = false;
    TensorRef ref;
    std::string op; // the profile event of the instruction in this run, if any
};

struct Run {
    std::size_t input = 0, runData = 0;
    std::vector<LoggedTensor> tensors;
};

bool sameLayout(const LoggedTensor &a, const LoggedTensor &b)
{
    return a.instructionId == b.instructionId && a.occurrence == b.occurrence && a.output == b.output
        && a.ref.dtype == b.ref.dtype && a.ref.sizes == b.ref.sizes;
}

// The elements of one run's tensor as bytes of `dtype` (dense, row-major): the buffer's own
// bytes when the tensor is dense, else its values inflated to double.
struct Elements {
    ScalarType dtype = ScalarType::Float;
    std::span<const std::uint8_t> bytes;
    std::vector<double> owned;
};

Result<Elements> elementsOf(const LoggedTensor &t, const DebugBuffer &buffer)
{
    Elements e;
    e.dtype = t.ref.dtype;
    if (analysis::isContiguous(t.ref)) {
        auto b = buffer.bytes(t.ref);
        if (!b)
            return b.error();
        e.bytes = *b;
        return e;
    }
    auto d = buffer.read(t.ref);
    if (!d)
        return d.error();
    e.owned = std::move(d->values);
    e.dtype = ScalarType::Double;
    e.bytes = { reinterpret_cast<const std::uint8_t *>(e.owned.data()), e.owned.size() * sizeof(double) };
    return e;
}

// Distance in units in the last place between two floats of one type, through the ordered
// integer view of their bits (NaNs and infinities: the largest distance).
std::uint64_t ulpDistance(ScalarType t, const std::uint8_t *a, const std::uint8_t *b)
{
    auto ordered = [](std::uint64_t bits, int width) -> std::int64_t {
        const std::uint64_t sign = std::uint64_t(1) << (width - 1);
        const auto magnitude = static_cast<std::int64_t>(bits & (sign - 1));
        return (bits & sign) ? -magnitude : magnitude;
    };
    std::uint64_t x = 0, y = 0;
    int width = 0;
    switch (t) {
    case ScalarType::Float:
        width = 32;
        break;
    case ScalarType::Double:
        width = 64;
        break;
    case ScalarType::Half:
    case ScalarType::BFloat16:
        width = 16;
        break;
    default:
        return 0;
    }
    std::memcpy(&x, a, static_cast<std::size_t>(width / 8));
    std::memcpy(&y, b, static_cast<std::size_t>(width / 8));
    const double da = elementToDouble(t, a), db = elementToDouble(t, b);
    if (!std::isfinite(da) || !std::isfinite(db))
        return da == db ? 0 : std::numeric_limits<std::uint64_t>::max();
    const std::int64_t ox = ordered(x, width), oy = ordered(y, width);
    return ox > oy ? static_cast<std::uint64_t>(ox - oy) : static_cast<std::uint64_t>(oy - ox);
}

bool isFloatType(ScalarType t)
{
    return t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::Half || t == ScalarType::BFloat16;
}

std::string joinRuns(const std::vector<std::size_t> &runs, std::size_t max = 12)
{
    std::string s;
    for (std::size_t i = 0; i < runs.size() && i < max; ++i)
        s += (i ? ", " : "") + std::to_string(runs[i]);
    if (runs.size() > max)
        s += fmt::format(" … ({} runs)", runs.size());
    return s;
}

// Every run that logged tensors, recording after recording; runs that do not line up with the
// first are left out with a warning.
Result<std::vector<Run>> collectRuns(const std::vector<DeterminismInput> &inputs, std::vector<std::string> &warnings)
{
    std::vector<Run> runs;
    for (std::size_t in = 0; in < inputs.size(); ++in) {
        const ETDumpFile &f = *inputs[in].etdump;
        if (!inputs[in].debugBuffer)
            return makeError(ErrorCode::InvalidArgument, f.path, "needs its debug buffer: the tensors live there");
        for (std::size_t rd = 0; rd < f.runs.size(); ++rd) {
            const RunData &r = f.runs[rd];
            Run run { in, rd, {} };
            std::map<std::pair<std::int32_t, bool>, std::size_t> seen;
            std::map<std::int32_t, std::string> ops;
            for (const ProfileEventRecord &p : r.profileEvents) {
                const std::string name(f.strings.str(p.name));
                if (!name.empty() && name != "OPERATOR_CALL" && !ops.count(p.instructionId) && p.chainIndex >= 0)
                    ops[p.instructionId] = name;
            }
            for (const DebugEventRecord &d : r.debugEvents) {
                if (!d.hasEntry || !d.value.isTensorLike())
                    continue;
                for (const TensorRef &ref : d.value.tensors) {
                    LoggedTensor t;
                    t.instructionId = d.instructionId;
                    t.output = d.value.isOutput;
                    t.occurrence = seen[{ d.instructionId, t.output }]++;
                    t.ref = ref;
                    if (!t.output && ops.count(d.instructionId))
                        t.op = ops[d.instructionId];
                    run.tensors.push_back(std::move(t));
                }
            }
            if (!run.tensors.empty())
                runs.push_back(std::move(run));
        }
    }
    if (runs.empty())
        return makeError(ErrorCode::InvalidArgument, inputs.empty() ? std::string() : inputs[0].etdump->path,
            "no run logged tensors (record with intermediate outputs, e.g. ETDumpGen::set_debug_buffer)");
    // Every run must log the same tensors as the first.
    std::vector<Run> kept;
    for (Run &r : runs) {
        const Run &first = kept.empty() ? r : kept.front();
        const bool same = r.tensors.size() == first.tensors.size()
            && std::equal(r.tensors.begin(), r.tensors.end(), first.tensors.begin(), sameLayout);
        if (!same) {
            warnings.push_back(fmt::format("{}: run_data {} logs other tensors than the first run: left out",
                inputs[r.input].etdump->path, r.runData));
            continue;
        }
        kept.push_back(std::move(r));
    }
    return kept;
}

} // namespace

Result<DeterminismReport> analyzeDeterminism(const std::vector<DeterminismInput> &inputs)
{
    DeterminismReport rep;
    auto collected = collectRuns(inputs, rep.warnings);
    if (!collected)
        return collected.error();
    const std::vector<Run> runs = std::move(*collected);
    rep.runs = runs.size();
    for (const Run &r : runs)
        rep.runSources.push_back(fmt::format("{} run_data {}", inputs[r.input].etdump->path, r.runData));

    std::vector<std::size_t> varyingSoFar;
    for (std::size_t pos = 0; pos < runs.front().tensors.size(); ++pos) {
        const LoggedTensor &t0 = runs.front().tensors[pos];
        TensorDeterminism td;
        td.position = pos;
        td.instructionId = t0.instructionId;
        td.programOutput = t0.output;
        td.occurrence = t0.occurrence;
        td.name = t0.output ? "program output"
            : t0.op.empty() ? fmt::format("instruction {}", t0.instructionId)
                            : t0.op;
        td.dtype = t0.ref.dtype;
        td.sizes = t0.ref.sizes;
        td.runs = runs.size();
        std::vector<Elements> el;
        el.reserve(runs.size());
        for (const Run &r : runs) {
            auto e = elementsOf(r.tensors[pos], *inputs[r.input].debugBuffer);
            if (!e)
                return e.error();
            el.push_back(std::move(*e));
        }
        // Classes of bitwise-equal results, each by its first run.
        std::vector<std::size_t> classOf(runs.size()), firsts, counts;
        for (std::size_t r = 0; r < runs.size(); ++r) {
            std::size_t c = 0;
            for (; c < firsts.size(); ++c) {
                const auto &a = el[firsts[c]].bytes;
                if (a.size() == el[r].bytes.size()
                    && (a.empty() || std::memcmp(a.data(), el[r].bytes.data(), a.size()) == 0))
                    break;
            }
            if (c == firsts.size()) {
                firsts.push_back(r);
                counts.push_back(0);
            }
            classOf[r] = c;
            ++counts[c];
        }
        td.distinct = firsts.size();
        const std::size_t majority
            = static_cast<std::size_t>(std::max_element(counts.begin(), counts.end()) - counts.begin());
        td.referenceRun = firsts[majority];
        for (std::size_t r = 0; r < runs.size(); ++r)
            if (classOf[r] != majority)
                td.runsDiffer.push_back(r);
        td.runMaxAbs.assign(runs.size(), 0.0);
        if (td.varies()) {
            const ScalarType dt = el[td.referenceRun].dtype;
            const std::size_t es = *elementSize(dt);
            const std::size_t n = el[td.referenceRun].bytes.size() / es;
            std::vector<std::uint8_t> differs(n, 0);
            double sumAbs = 0, sumRel = 0;
            std::size_t countAbs = 0, countRel = 0;
            const std::uint8_t *ref = el[td.referenceRun].bytes.data();
            for (std::size_t r : td.runsDiffer) {
                const std::uint8_t *cur = el[r].bytes.data();
                for (std::size_t i = 0; i < n; ++i) {
                    const std::uint8_t *a = cur + i * es, *b = ref + i * es;
                    if (std::memcmp(a, b, es) == 0) {
                        ++countAbs;
                        continue;
                    }
                    differs[i] = 1;
                    const double va = elementToDouble(dt, a), vb = elementToDouble(dt, b);
                    const double d = std::abs(va - vb);
                    td.maxAbs = std::max(td.maxAbs, d);
                    td.runMaxAbs[r] = std::max(td.runMaxAbs[r], d);
                    sumAbs += d;
                    ++countAbs;
                    if (vb != 0) {
                        td.maxRel = std::max(td.maxRel, d / std::abs(vb));
                        sumRel += d / std::abs(vb);
                    }
                    if (isFloatType(dt))
                        td.maxUlp = std::max(td.maxUlp, ulpDistance(dt, a, b));
                }
                for (std::size_t i = 0; i < n; ++i)
                    if (elementToDouble(dt, ref + i * es) != 0)
                        ++countRel;
            }
            td.meanAbs = countAbs ? sumAbs / static_cast<double>(countAbs) : 0;
            td.meanRel = countRel ? sumRel / static_cast<double>(countRel) : 0;
            if (isFloatType(dt))
                td.bits = td.maxUlp == std::numeric_limits<std::uint64_t>::max()
                    ? 64
                    : static_cast<int>(std::ceil(std::log2(static_cast<double>(td.maxUlp) + 1.0)));
            VaryingRegion g;
            g.cols = td.sizes.empty() ? 1 : td.sizes.back();
            g.rows = td.sizes.size() >= 2 ? td.sizes[td.sizes.size() - 2] : 1;
            g.rowBegin = g.rows;
            g.colBegin = g.cols;
            for (std::size_t i = 0; i < n; ++i) {
                if (!differs[i])
                    continue;
                const std::int64_t col = g.cols > 0 ? static_cast<std::int64_t>(i) % g.cols : 0;
                const std::int64_t row
                    = g.cols > 0 && g.rows > 0 ? (static_cast<std::int64_t>(i) / g.cols) % g.rows : 0;
                g.rowBegin = std::min(g.rowBegin, row);
                g.rowEnd = std::max(g.rowEnd, row + 1);
                g.colBegin = std::min(g.colBegin, col);
                g.colEnd = std::max(g.colEnd, col + 1);
                ++g.elements;
            }
            if (g.elements)
                td.region = g;
            td.earlierVarying = varyingSoFar;
            varyingSoFar.push_back(pos);
            if (!rep.firstVarying)
                rep.firstVarying = pos;
        }
        rep.tensors.push_back(std::move(td));
    }
    return rep;
}

namespace {

std::string tensorLabel(const TensorDeterminism &t)
{
    return t.programOutput ? fmt::format("program output {}", t.occurrence)
                           : fmt::format("op #{} ({})", t.instructionId, t.name);
}

std::string regionText(const TensorDeterminism &t)
{
    if (!t.region)
        return {};
    const VaryingRegion &g = *t.region;
    return fmt::format(" in a {}×{} tile (rows {}–{}, cols {}–{} of {}×{}; {} element{})", g.rowEnd - g.rowBegin,
        g.colEnd - g.colBegin, g.rowBegin, g.rowEnd - 1, g.colBegin, g.colEnd - 1, g.rows, g.cols, g.elements,
        g.elements == 1 ? "" : "s");
}

} // namespace

std::string determinismSentence(const DeterminismReport &r)
{
    if (!r.firstVarying)
        return fmt::format("deterministic: all {} logged tensors are bit-exact over {} runs", r.tensors.size(), r.runs);
    const TensorDeterminism &t = r.tensors[*r.firstVarying];
    return fmt::format("{} varies on run{} {}{}", tensorLabel(t), t.runsDiffer.size() == 1 ? "" : "s",
        joinRuns(t.runsDiffer), regionText(t));
}

std::string determinismText(const DeterminismReport &r)
{
    std::string out = determinismSentence(r) + '\n';
    int maxBits = 0;
    bool allFloat = true;
    std::size_t varying = 0;
    for (const auto &t : r.tensors)
        if (t.varies()) {
            ++varying;
            maxBits = std::max(maxBits, t.bits);
            allFloat = allFloat && isFloatType(t.dtype);
        }
    // Rounding differences (reordered float sums) touch the last few mantissa bits; beyond
    // kRoundingBits a result is different, not just rounded differently.
    constexpr int kRoundingBits = 8;
    if (varying && allFloat && maxBits <= kRoundingBits)
        out += fmt::format(
            "{} of {} logged tensors vary, deterministic within {} bit{} (the lowest {} of the mantissa)\n", varying,
            r.tensors.size(), maxBits, maxBits == 1 ? "" : "s", maxBits);
    else if (varying)
        out += fmt::format("{} of {} logged tensors vary, beyond rounding: up to {} differing low-order bits\n",
            varying, r.tensors.size(), maxBits);
    for (const auto &w : r.warnings)
        out += "warning: " + w + '\n';
    out += fmt::format("\n{:>4} {:<44} {:<22} {:>8} {:>6}  {:<24} {:>10} {:>10} {:>10} {:>5}\n", "#", "tensor", "shape",
        "distinct", "differ", "runs that differ", "max |Δ|", "mean |Δ|", "max rel", "bits");
    for (const auto &t : r.tensors) {
        out += fmt::format("{:>4} {:<44} {:<22} {:>8} {:>6}  {:<24} {:>10} {:>10} {:>10} {:>5}\n", t.position,
            tensorLabel(t), describeShape(t.dtype, t.sizes), t.distinct, t.runsDiffer.size(), joinRuns(t.runsDiffer, 6),
            significantText(t.maxAbs, 3), significantText(t.meanAbs, 3), significantText(t.maxRel, 3), t.bits);
        if (t.varies() && t.region)
            out += fmt::format("     {}\n", regionText(t).substr(1));
    }
    return out;
}

std::string determinismJson(const DeterminismReport &r)
{
    using Json = nlohmann::ordered_json;
    Json j;
    j["runs"] = r.runs;
    j["run_sources"] = r.runSources;
    j["sentence"] = determinismSentence(r);
    j["first_varying"] = r.firstVarying ? Json(*r.firstVarying) : Json(nullptr);
    Json ts = Json::array();
    for (const auto &t : r.tensors) {
        Json o { { "position", t.position }, { "instruction_id", t.instructionId }, { "name", t.name },
            { "occurrence", t.occurrence }, { "program_output", t.programOutput }, { "dtype", scalarTypeName(t.dtype) },
            { "sizes", t.sizes }, { "distinct", t.distinct }, { "reference_run", t.referenceRun },
            { "runs_differ", t.runsDiffer }, { "max_abs", t.maxAbs }, { "mean_abs", t.meanAbs },
            { "max_rel", t.maxRel }, { "mean_rel", t.meanRel }, { "max_ulp", t.maxUlp }, { "bits", t.bits },
            { "earlier_varying", t.earlierVarying } };
        if (t.region)
            o["region"] = { { "row_begin", t.region->rowBegin }, { "row_end", t.region->rowEnd },
                { "col_begin", t.region->colBegin }, { "col_end", t.region->colEnd }, { "rows", t.region->rows },
                { "cols", t.region->cols }, { "elements", t.region->elements } };
        else
            o["region"] = nullptr;
        ts.push_back(std::move(o));
    }
    j["tensors"] = std::move(ts);
    j["warnings"] = r.warnings;
    return jsonDocument(j);
}

Result<VaryingMap> varyingMap(ScalarType dtype, const std::vector<std::int64_t> &sizes,
    std::span<const std::uint8_t> reference, const std::vector<std::span<const std::uint8_t>> &differing,
    std::int64_t maxSide)
{
    auto es = elementSize(dtype);
    if (!es)
        return makeError(
            ErrorCode::Unsupported, {}, fmt::format("varying map: no element size for {}", scalarTypeName(dtype)));
    VaryingMap m;
    m.cols = sizes.empty() ? 1 : sizes.back();
    m.rows = sizes.size() >= 2 ? sizes[sizes.size() - 2] : 1;
    std::int64_t n = 1;
    for (std::int64_t s : sizes)
        n *= s;
    if (n < 0 || m.rows < 0 || m.cols < 0 || maxSide < 1)
        return makeError(ErrorCode::InvalidArgument, {}, "varying map: negative sizes");
    if (reference.size() != static_cast<std::size_t>(n) * *es)
        return makeError(ErrorCode::InvalidArgument, {},
            fmt::format("varying map: {} bytes for {} elements of {}", reference.size(), n, scalarTypeName(dtype)));
    for (const auto &d : differing)
        if (d.size() != reference.size())
            return makeError(ErrorCode::InvalidArgument, {}, "varying map: runs of different sizes");
    m.leading = (m.rows * m.cols) != 0 ? n / (m.rows * m.cols) : 0;
    m.cellRows = std::max<std::int64_t>(1, (m.rows + maxSide - 1) / maxSide);
    m.cellCols = std::max<std::int64_t>(1, (m.cols + maxSide - 1) / maxSide);
    m.gridRows = (m.rows + m.cellRows - 1) / m.cellRows;
    m.gridCols = (m.cols + m.cellCols - 1) / m.cellCols;
    m.runsDiffer = differing.size();
    const auto cells = static_cast<std::size_t>(m.gridRows * m.gridCols);
    m.counts.assign(cells, 0);
    // Per run: the cells where some element differs, then one more run for each of them.
    std::vector<std::uint8_t> touched(cells);
    const std::size_t plane = static_cast<std::size_t>(m.rows * m.cols);
    for (const auto &run : differing) {
        std::fill(touched.begin(), touched.end(), 0);
        for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
            if (std::memcmp(run.data() + i * *es, reference.data() + i * *es, *es) == 0)
                continue;
            const std::size_t inPlane = i % plane;
            const auto row = static_cast<std::int64_t>(inPlane) / m.cols,
                       col = static_cast<std::int64_t>(inPlane) % m.cols;
            touched[static_cast<std::size_t>((row / m.cellRows) * m.gridCols + col / m.cellCols)] = 1;
        }
        for (std::size_t c = 0; c < cells; ++c)
            m.counts[c] += touched[c];
    }
    m.maxCount = m.counts.empty() ? 0 : *std::max_element(m.counts.begin(), m.counts.end());
    return m;
}

Result<VaryingMap> determinismMap(const std::vector<DeterminismInput> &inputs, const DeterminismReport &report,
    std::size_t position, std::int64_t maxSide)
{
    std::vector<std::string> warnings;
    auto runs = collectRuns(inputs, warnings);
    if (!runs)
        return runs.error();
    const std::string file = inputs.empty() ? std::string() : inputs[0].etdump->path;
    if (runs->size() != report.runs || position >= report.tensors.size() || position >= runs->front().tensors.size())
        return makeError(ErrorCode::InvalidArgument, file, "the determinism report is not of these recordings");
    const TensorDeterminism &t = report.tensors[position];
    auto bytesOf = [&](std::size_t run) {
        const Run &r = (*runs)[run];
        return elementsOf(r.tensors[position], *inputs[r.input].debugBuffer);
    };
    auto ref = bytesOf(t.referenceRun);
    if (!ref)
        return ref.error();
    std::vector<Elements> others;
    others.reserve(t.runsDiffer.size());
    for (std::size_t r : t.runsDiffer) {
        auto e = bytesOf(r);
        if (!e)
            return e.error();
        others.push_back(std::move(*e));
    }
    std::vector<std::span<const std::uint8_t>> spans;
    for (const Elements &e : others)
        spans.push_back(e.bytes);
    auto m = varyingMap(ref->dtype, t.sizes, ref->bytes, spans, maxSide);
    if (!m)
        return makeError(m.error().code, file, m.error().reason);
    m->position = position;
    m->runs = report.runs;
    return m;
}

std::string varyingMapCaption(const VaryingMap &m)
{
    std::string s = fmt::format("{}×{}", m.rows, m.cols);
    if (m.leading != 1)
        s += fmt::format(" (× {} leading slices, folded)", m.leading);
    s += m.pooled() ? fmt::format(", pooled into {}×{}-element cells (a cell counts a run if any of its elements "
                                  "differs)",
             m.cellRows, m.cellCols)
                    : std::string(", one cell per element");
    s += fmt::format("; {} of {} runs differ", m.runsDiffer, m.runs);
    return s;
}

} // namespace etscope
