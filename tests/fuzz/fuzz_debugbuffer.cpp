// Fuzz target: debug-buffer inflation and provenance.
//  * first byte even: the rest is a debug buffer, read through the tensor refs of a fixed small
//    ETDump (written once with the test ETDump writer, then parsed by the real reader), and
//    judged against that ETDump (bufferprovenance.h);
//  * first byte odd: a TensorRef decoded from the input (dtype, up to 8 sizes/strides, offset)
//    is read against the remaining bytes as the buffer.
#include "fuzzinput.h"

#include "etdump/bufferprovenance.h"
#include "etdump/debugbuffer.h"
#include "etdump/etdumpfile.h"
#include "etdumpwriter.h"

#include <cstdlib>
#include <vector>

namespace {

using namespace etscope;

std::shared_ptr<const ETDumpFile> fixedETDump()
{
    test::ETDumpWriter w;
    w.beginRun("Execute");
    const std::vector<test::TensorSpec> tensors = {
        { ScalarType::Float, { 1, 10 }, {}, 48 }, { ScalarType::Double, { 2, 3 }, { 1, 2 }, 128 }, // column-major view
        { ScalarType::Half, { 4, 4 }, {}, 256 }, { ScalarType::BFloat16, { 3, 1, 2 }, {}, 320 },
        { ScalarType::Long, { 5 }, {}, 384 }, { ScalarType::Bool, { 7 }, {}, 448 },
        { ScalarType::Byte, { 2, 2, 2 }, {}, 512 }, { ScalarType::Char, { 0 }, {}, -1 }, // zero-size tensor
        { ScalarType::Int, { 2, 2 }, { 0, 1 }, 576 }, // broadcast stride
        { ScalarType::Short, {}, {}, 640 }, // scalar
    };
    std::int32_t instr = 0;
    for (const auto &t : tensors) {
        test::DebugSpec d;
        d.instructionId = instr++;
        d.kind = test::DebugSpec::Kind::Tensor;
        d.tensors = { t };
        w.addDebug(d);
    }
    test::DebugSpec list;
    list.instructionId = instr;
    list.kind = test::DebugSpec::Kind::TensorList;
    list.tensors = { tensors[0], tensors[2] };
    w.addDebug(list);

    auto file = MappedFile::fromBytes("fixed.etdp", w.finish());
    auto etdump = readETDump(*file);
    if (!etdump)
        std::abort(); // the writer and reader disagree: a bug, not a fuzz finding
    return *etdump;
}

std::vector<TensorRef> refsOf(const ETDumpFile &etdump)
{
    std::vector<TensorRef> refs;
    for (const auto &run : etdump.runs)
        for (const auto &ev : run.debugEvents)
            refs.insert(refs.end(), ev.value.tensors.begin(), ev.value.tensors.end());
    if (refs.size() != 12) // 10 tensors and a list of 2
        std::abort();
    return refs;
}

void judge(const ETDumpFile &etdump, const DebugBuffer &buffer)
{
    auto judged = judgeDebugBuffer(etdump, buffer);
    if (!judged) {
        fuzz::checkErrorMessage(judged.error().message(), "fuzz.bin");
        return;
    }
    // A verdict other than Consistent always says why; counts stay inside what was logged.
    if ((judged->verdict != BufferProvenance::Verdict::Consistent) == judged->reason().empty()
        || judged->zeroTensors > judged->loggedTensors || judged->usedEnd > buffer.size()
        || judged->absurdFloats > judged->floatSamples)
        std::abort();
}

void readAndSummarize(const DebugBuffer &buffer, const TensorRef &ref)
{
    // A broadcast (stride 0) shape must not inflate far beyond the buffer
    // (regressions/fuzz_debugbuffer/oom-stride0-broadcast-134M-elements.bin).
    (void)buffer.bytes(ref);
    auto data = buffer.read(ref);
    if (data) {
        if (static_cast<std::int64_t>(data->values.size()) != ref.numel())
            std::abort(); // inflated element count must match the shape
        (void)summarize(*data);
        (void)describeShape(data->dtype, data->sizes);
    } else {
        fuzz::checkErrorMessage(data.error().message(), "fuzz.bin");
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    static const std::shared_ptr<const ETDumpFile> etdump = fixedETDump();
    static const std::vector<TensorRef> refs = refsOf(*etdump);
    fuzz::ByteReader in(data, size);
    const auto mode = in.take<std::uint8_t>();
    if ((mode & 1) == 0) {
        auto buffer = DebugBuffer::fromFile(fuzz::asFile(in.rest(), in.remaining(), "fuzz.bin"));
        for (const auto &ref : refs)
            readAndSummarize(*buffer, ref);
        judge(*etdump, *buffer);
        return 0;
    }

    TensorRef ref;
    ref.dtype = static_cast<ScalarType>(in.take<std::int8_t>());
    const unsigned ndim = in.take<std::uint8_t>() % 9;
    const bool withStrides = (mode & 2) != 0;
    for (unsigned d = 0; d < ndim; ++d)
        ref.sizes.push_back((mode & 4) ? in.take<std::int64_t>() : in.take<std::int8_t>());
    if (withStrides)
        for (unsigned d = 0; d < ndim; ++d)
            ref.strides.push_back((mode & 8) ? in.take<std::int64_t>() : in.take<std::int8_t>());
    ref.offset = (mode & 16) ? in.take<std::int64_t>() : in.take<std::int16_t>();

    auto numel = checkedNumel(ref, "fuzz.bin");
    auto buffer = DebugBuffer::fromFile(fuzz::asFile(in.rest(), in.remaining(), "fuzz.bin"));
    readAndSummarize(*buffer, ref);
    // Zero substitution allocates the whole shape; only try it for shapes a file could sanely hold.
    if (numel && *numel <= (1 << 20))
        (void)inflate(ref, nullptr);
    return 0;
}
