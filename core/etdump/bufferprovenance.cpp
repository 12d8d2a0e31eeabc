#include "etdump/bufferprovenance.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace etscope {

namespace {

struct Span {
    std::uint64_t begin = 0, end = 0;
    ScalarType dtype = ScalarType::Float;
};

// Offset of the first non-zero byte in [p, p + n), or n.
std::size_t firstNonZero(const std::uint8_t *p, std::size_t n)
{
    std::size_t i = 0;
    for (; i < n && (reinterpret_cast<std::uintptr_t>(p + i) % sizeof(std::uint64_t)) != 0; ++i)
        if (p[i])
            return i;
    for (; i + sizeof(std::uint64_t) <= n; i += sizeof(std::uint64_t)) {
        std::uint64_t w;
        std::memcpy(&w, p + i, sizeof w);
        if (w)
            break;
    }
    for (; i < n; ++i)
        if (p[i])
            return i;
    return n;
}

std::size_t countNonZero(const std::uint8_t *p, std::size_t n)
{
    return static_cast<std::size_t>(n - static_cast<std::size_t>(std::count(p, p + n, std::uint8_t(0))));
}

// Finite, non-zero and outside [1e-32, 1e32]: no trained model computes such values in bulk,
// while random bytes read as float32 land there about one time in six.
bool absurd(double v)
{
    if (!std::isfinite(v) || v == 0)
        return false;
    const double a = std::fabs(v);
    return a < 1e-32 || a > 1e32;
}

void sampleFloats(const std::uint8_t *p, std::uint64_t nbytes, ScalarType dtype, BufferProvenance &out)
{
    const std::size_t elem = dtype == ScalarType::Float ? 4 : 8;
    const std::uint64_t n = nbytes / elem;
    if (n == 0)
        return;
    const std::uint64_t step = std::max<std::uint64_t>(1, n / kFloatSamplesPerTensor);
    for (std::uint64_t i = 0; i < n; i += step) {
        ++out.floatSamples;
        if (absurd(elementToDouble(dtype, p + i * elem)))
            ++out.absurdFloats;
    }
}

} // namespace

std::string BufferProvenance::reason() const
{
    std::string s;
    for (const std::string &sig : reasons)
        s += (s.empty() ? "" : "; ") + sig;
    return s;
}

Result<BufferProvenance> judgeDebugBuffer(const ETDumpFile &etdump, const DebugBuffer &buffer)
{
    BufferProvenance out;
    // Every tensor must lie inside the buffer (DebugBuffer::bytes names the first that does not).
    // What the runtime wrote for a tensor is its dense payload, numel × element size, at offset.
    std::vector<Span> spans;
    for (const RunData &run : etdump.runs)
        for (const DebugEventRecord &d : run.debugEvents)
            for (const TensorRef &t : d.value.tensors) {
                if (t.offset < 0)
                    continue; // zero-size tensor, nothing in the buffer
                auto bytes = buffer.bytes(t);
                if (!bytes)
                    return bytes.error();
                const auto dense = static_cast<std::uint64_t>(t.numel()) * *elementSize(t.dtype);
                if (dense == 0)
                    continue;
                const auto begin = static_cast<std::uint64_t>(t.offset);
                spans.push_back({ begin, std::min<std::uint64_t>(begin + dense, buffer.size()), t.dtype });
            }
    if (spans.empty())
        return out;
    std::sort(spans.begin(), spans.end(),
        [](const Span &a, const Span &b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
    spans.erase(std::unique(spans.begin(), spans.end(),
                    [](const Span &a, const Span &b) { return a.begin == b.begin && a.end == b.end; }),
        spans.end());

    const std::uint8_t *data = buffer.data();
    // The buffer sink zero-fills the padding before and between the blobs it writes, so every
    // byte of [0, usedEnd) outside a logged tensor is zero in the buffer the ETDump logged into.
    std::uint64_t covered = 0, paddingNonZero = 0, firstPadding = 0;
    for (const Span &s : spans) {
        if (s.begin > covered) {
            const std::size_t n = countNonZero(data + covered, s.begin - covered);
            if (n && !paddingNonZero)
                firstPadding = covered + firstNonZero(data + covered, s.begin - covered);
            paddingNonZero += n;
        }
        covered = std::max(covered, s.end);
        ++out.loggedTensors;
        if (firstNonZero(data + s.begin, s.end - s.begin) == s.end - s.begin)
            ++out.zeroTensors;
        else if (s.dtype == ScalarType::Float || s.dtype == ScalarType::Double)
            sampleFloats(data + s.begin, s.end - s.begin, s.dtype, out);
    }
    out.usedEnd = covered;
    const std::size_t tail = firstNonZero(data + covered, buffer.size() - covered);
    out.trailingNonZero = tail < buffer.size() - covered;
    out.firstTrailingNonZero = covered + tail;
    out.trailingNonZeroBytes
        = out.trailingNonZero ? countNonZero(data + covered + tail, buffer.size() - covered - tail) : 0;

    int signals = 0;
    if (paddingNonZero) {
        ++signals;
        out.reasons.push_back(fmt::format("{} non-zero bytes in the padding between the tensors it logged, which "
                                          "the runtime zero-fills (first at offset {})",
            paddingNonZero, firstPadding));
    }
    if (out.loggedTensors >= 3 && out.zeroTensors * 2 > out.loggedTensors) {
        ++signals;
        out.reasons.push_back(fmt::format("{} of {} logged tensors are all zeros", out.zeroTensors, out.loggedTensors));
    }
    if (out.floatSamples >= 16 && out.absurdFloats * 50 >= out.floatSamples) {
        ++signals;
        out.reasons.push_back(fmt::format("{} of {} sampled float values have absurd magnitudes (below 1e-32 or "
                                          "above 1e32)",
            out.absurdFloats, out.floatSamples));
    }
    // The sink writes nothing after its last blob, and the runners that write the fixtures leave
    // zeros there (every fixture's own buffer, docs/formats.md §2.1), while another run's buffer
    // usually holds its later tensors there: a signal of its own. It stays one signal, so a right
    // buffer whose runner left old bytes in its tail (an uninitialised malloc) is loaded, with the
    // warning saying where the bytes are, and refusal still needs a second signal.
    if (out.trailingNonZero) {
        ++signals;
        out.reasons.push_back(fmt::format("{} non-zero bytes after its last logged tensor, where the runtime leaves "
                                          "zeros unless the runner's buffer held old bytes (first at offset {}; the "
                                          "tensors end at {})",
            out.trailingNonZeroBytes, out.firstTrailingNonZero, out.usedEnd));
    }
    out.verdict = signals >= 2 ? BufferProvenance::Verdict::Mismatch
        : signals == 1         ? BufferProvenance::Verdict::Doubtful
                               : BufferProvenance::Verdict::Consistent;
    return out;
}

} // namespace etscope
