#include "etdumpwriter.h"

#include "etdump_generated.h"

#include <cstring>
#include <fstream>
#include <stdexcept>

namespace etscope::test {

namespace fbs = etscope::fb;

struct ETDumpWriter::Impl {
    flatbuffers::FlatBufferBuilder b { 1 << 16 };
    struct Run {
        std::string name;
        std::int32_t bundled = -1;
        bool withEvents = true;
        std::vector<flatbuffers::Offset<fbs::Allocator>> allocators;
        std::vector<flatbuffers::Offset<fbs::Event>> events;
    };
    std::vector<flatbuffers::Offset<fbs::RunData>> finished;
    std::optional<Run> current;

    flatbuffers::Offset<flatbuffers::String> optString(const std::optional<std::string> &s)
    {
        return s ? b.CreateString(*s) : flatbuffers::Offset<flatbuffers::String>();
    }

    flatbuffers::Offset<fbs::Tensor> tensor(const TensorSpec &t)
    {
        auto sizes = b.CreateVector(t.sizes);
        std::vector<std::int64_t> strides = t.strides;
        if (strides.empty()) {
            strides.resize(t.sizes.size());
            std::int64_t s = 1;
            for (std::size_t d = t.sizes.size(); d-- > 0;) {
                strides[d] = s;
                s *= t.sizes[d];
            }
        }
        auto st = b.CreateVector(strides);
        return fbs::CreateTensor(b, static_cast<fbs::ScalarType>(t.dtype), sizes, st, t.offset);
    }

    void closeRun()
    {
        if (!current)
            return;
        auto name = b.CreateString(current->name);
        auto allocs = current->allocators.empty() ? 0 : b.CreateVector(current->allocators);
        auto events = current->withEvents || !current->events.empty()
            ? b.CreateVector(current->events)
            : flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fbs::Event>>>();
        fbs::RunDataBuilder rb(b);
        rb.add_name(name);
        rb.add_bundled_input_index(current->bundled);
        if (!current->allocators.empty())
            rb.add_allocators(allocs);
        if (!events.IsNull())
            rb.add_events(events);
        finished.push_back(rb.Finish());
        current.reset();
    }

    Run &run()
    {
        if (!current)
            throw std::logic_error("ETDumpWriter: beginRun() first");
        return *current;
    }
};

ETDumpWriter::ETDumpWriter()
    : d(std::make_unique<Impl>())
{ }
ETDumpWriter::~ETDumpWriter() = default;

void ETDumpWriter::beginRun(const std::string &name, std::int32_t bundledInputIndex, bool withEventsVector)
{
    d->closeRun();
    d->current = Impl::Run { name, bundledInputIndex, withEventsVector, {}, {} };
}

void ETDumpWriter::addAllocator(const std::string &name)
{
    auto n = d->b.CreateString(name);
    d->run().allocators.push_back(fbs::CreateAllocator(d->b, n));
}

void ETDumpWriter::addProfile(const ProfileSpec &p)
{
    auto &b = d->b;
    auto name = d->optString(p.name);
    auto ds = d->optString(p.delegateDebugIdStr);
    flatbuffers::Offset<flatbuffers::Vector<std::uint8_t>> md;
    if (p.delegateDebugMetadata)
        md = b.CreateVector(
            reinterpret_cast<const std::uint8_t *>(p.delegateDebugMetadata->data()), p.delegateDebugMetadata->size());
    auto pe = fbs::CreateProfileEvent(
        b, name, p.chainIndex, p.instructionId, p.delegateDebugIdInt, ds, md, p.startTime, p.endTime);
    d->run().events.push_back(fbs::CreateEvent(b, pe));
}

void ETDumpWriter::addDebug(const DebugSpec &s)
{
    auto &b = d->b;
    flatbuffers::Offset<fbs::Tensor> tensor;
    flatbuffers::Offset<fbs::TensorList> list;
    flatbuffers::Offset<fbs::Int> iv;
    flatbuffers::Offset<fbs::Bool> bv;
    flatbuffers::Offset<fbs::Float> fv;
    flatbuffers::Offset<fbs::Double> dv;
    fbs::ValueType type = fbs::ValueType::Null;
    switch (s.kind) {
    case DebugSpec::Kind::None:
        break;
    case DebugSpec::Kind::Int:
        type = fbs::ValueType::Int;
        iv = fbs::CreateInt(b, s.intValue);
        break;
    case DebugSpec::Kind::Bool:
        type = fbs::ValueType::Bool;
        bv = fbs::CreateBool(b, s.boolValue);
        break;
    case DebugSpec::Kind::Float:
        type = fbs::ValueType::Float;
        fv = fbs::CreateFloat(b, static_cast<float>(s.doubleValue));
        break;
    case DebugSpec::Kind::Double:
        type = fbs::ValueType::Double;
        dv = fbs::CreateDouble(b, s.doubleValue);
        break;
    case DebugSpec::Kind::Tensor:
        type = fbs::ValueType::Tensor;
        tensor = d->tensor(s.tensors.at(0));
        break;
    case DebugSpec::Kind::TensorList: {
        type = fbs::ValueType::TensorList;
        std::vector<flatbuffers::Offset<fbs::Tensor>> ts;
        for (const auto &t : s.tensors)
            ts.push_back(d->tensor(t));
        list = fbs::CreateTensorList(b, b.CreateVector(ts));
        break;
    }
    }
    flatbuffers::Offset<fbs::Bool> out;
    if (s.output)
        out = fbs::CreateBool(b, true);
    auto value = fbs::CreateValue(b, type, tensor, list, iv, fv, dv, bv, out);
    auto ds = d->optString(s.delegateDebugIdStr);
    auto name = d->optString(s.name);
    auto de = fbs::CreateDebugEvent(b, s.chainIndex, s.instructionId, value, s.delegateDebugIdInt, ds, name);
    d->run().events.push_back(fbs::CreateEvent(b, 0, 0, de));
}

void ETDumpWriter::addAllocation(std::int32_t allocatorId, std::uint64_t size)
{
    auto ae = fbs::CreateAllocationEvent(d->b, allocatorId, size);
    d->run().events.push_back(fbs::CreateEvent(d->b, 0, ae));
}

void ETDumpWriter::addKernel(const std::string &op, std::int32_t instructionId, std::uint64_t start,
    std::uint64_t kernelNs, std::uint64_t overheadNs)
{
    // The kernel's scope ends first, so it is stored before its OPERATOR_CALL.
    const std::uint64_t kStart = start + overheadNs / 2;
    addProfile({ "native_call_" + op, 0, instructionId, -1, std::nullopt, std::nullopt, kStart, kStart + kernelNs });
    addProfile(
        { "OPERATOR_CALL", 0, instructionId, -1, std::nullopt, std::nullopt, start, start + kernelNs + overheadNs });
}

std::string ETDumpWriter::finish(std::uint32_t version)
{
    d->closeRun();
    auto &b = d->b;
    auto runs = b.CreateVector(d->finished);
    auto root = fbs::CreateETDump(b, version, runs);
    fbs::FinishSizePrefixedETDumpBuffer(b, root);
    std::string out(reinterpret_cast<const char *>(b.GetBufferPointer()), b.GetSize());
    d = std::make_unique<Impl>();
    return out;
}

DebugBufferWriter::DebugBufferWriter(std::size_t alignment, std::size_t addressBias)
    : m_alignment(alignment)
    , m_bias(addressBias % alignment)
{ }

std::int64_t DebugBufferWriter::append(const void *data, std::size_t size)
{
    // The runtime aligns the absolute address (buffer start + offset); a heap buffer whose start
    // is 16 bytes past a 64-byte boundary puts the first blob at offset 48, as in real files.
    std::size_t off = m_bytes.size();
    while ((off + m_bias) % m_alignment != 0)
        ++off;
    m_bytes.resize(off, '\0');
    m_bytes.append(static_cast<const char *>(data), size);
    return static_cast<std::int64_t>(off);
}

std::string DebugBufferWriter::finish(std::size_t minSize) const
{
    std::string out = m_bytes;
    if (out.size() < minSize)
        out.resize(minSize, '\0');
    return out;
}

std::string writeFile(const std::string &path, const std::string &bytes)
{
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!f)
        throw std::runtime_error("cannot write " + path);
    return path;
}

} // namespace etscope::test
