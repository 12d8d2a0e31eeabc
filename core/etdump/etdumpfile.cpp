#include "etdump/etdumpfile.h"
#include "common/alignedbytes.h"
#include "common/littleendian.h"

#include "common/printable.h"

#include "etdump_generated.h"

#include <fmt/format.h>

#include <cstring>
#include <limits>
#include <optional>

namespace etscope {

namespace {

constexpr char kIdentifier[] = "ED00";

// The verifier checks a vector's length field for 4-byte alignment only, so a crafted file can
// place int64 elements at an address that is 4 mod 8: copy the bytes instead of loading longs.
std::vector<std::int64_t> copyInt64s(const flatbuffers::Vector<std::int64_t> *v)
{
    std::vector<std::int64_t> out;
    if (v && v->size()) {
        out.resize(v->size());
        std::memcpy(out.data(), v->Data(), v->size() * sizeof(std::int64_t));
    }
    return out;
}

TensorRef toTensorRef(const fb::Tensor *t)
{
    TensorRef ref;
    ref.dtype = static_cast<ScalarType>(t->scalar_type());
    ref.sizes = copyInt64s(t->sizes());
    ref.strides = copyInt64s(t->strides());
    ref.offset = t->offset();
    return ref;
}

RuntimeValue toRuntimeValue(const fb::Value *v)
{
    RuntimeValue out;
    out.isOutput = v->output() && v->output()->bool_val();
    switch (v->val()) {
    case fb::ValueType::Int:
        out.kind = RuntimeValue::Kind::Int;
        out.intValue = v->int_value() ? v->int_value()->int_val() : 0;
        break;
    case fb::ValueType::Bool:
        out.kind = RuntimeValue::Kind::Bool;
        out.boolValue = v->bool_value() && v->bool_value()->bool_val();
        break;
    case fb::ValueType::Float:
        out.kind = RuntimeValue::Kind::Float;
        out.doubleValue = v->float_value() ? v->float_value()->float_val() : 0.0;
        break;
    case fb::ValueType::Double:
        out.kind = RuntimeValue::Kind::Double;
        out.doubleValue = v->double_value() ? v->double_value()->double_val() : 0.0;
        break;
    case fb::ValueType::Tensor:
        // A Tensor-typed value without its table carries nothing we can show.
        if (v->tensor()) {
            out.kind = RuntimeValue::Kind::Tensor;
            out.tensors.push_back(toTensorRef(v->tensor()));
        }
        break;
    case fb::ValueType::TensorList:
        out.kind = RuntimeValue::Kind::TensorList;
        if (v->tensor_list() && v->tensor_list()->tensors())
            for (const auto *t : *v->tensor_list()->tensors())
                if (t)
                    out.tensors.push_back(toTensorRef(t));
        break;
    case fb::ValueType::String:
        out.kind = RuntimeValue::Kind::String; // the schema has no slot for the text
        break;
    default:
        out.kind = RuntimeValue::Kind::None;
        break;
    }
    return out;
}

// The runtime stores a fresh copy of every event name, so a 1M-event file interns 1M strings
// drawn from a few hundred distinct ones. A direct-mapped cache in front of the pool's hash map
// answers most of them with one memcmp.
class InternCache
{
public:
    explicit InternCache(StringPool &pool)
        : m_pool(pool)
        , m_slots(kSlots)
    { }

    StringPool::Id intern(std::string_view s)
    {
        std::uint64_t h = s.size() * 0x9E3779B97F4A7C15ull;
        if (!s.empty()) {
            std::uint64_t head = 0, tail = 0;
            std::memcpy(&head, s.data(), std::min<std::size_t>(8, s.size()));
            std::memcpy(
                &tail, s.data() + s.size() - std::min<std::size_t>(8, s.size()), std::min<std::size_t>(8, s.size()));
            h ^= head * 0xC2B2AE3D27D4EB4Full ^ (tail + 0x165667B19E3779F9ull) * 0x27D4EB2F165667C5ull;
        }
        Slot &slot = m_slots[(h >> 20) & (kSlots - 1)];
        if (slot.valid && slot.text == s)
            return slot.id;
        slot.id = m_pool.intern(s);
        slot.text = m_pool.str(slot.id); // the pool's storage is stable
        slot.valid = true;
        return slot.id;
    }

private:
    static constexpr std::size_t kSlots = 4096;
    struct Slot {
        std::string_view text;
        StringPool::Id id = 0;
        bool valid = false;
    };
    StringPool &m_pool;
    std::vector<Slot> m_slots;
};

// readETDump refuses files with more events than an EventRef can index.
EventRef makeRef(EventRef::Kind kind, std::size_t index)
{
    EventRef ref;
    ref.kind = kind;
    ref.index = static_cast<std::uint32_t>(index) & EventRef::kMaxIndex;
    return ref;
}

StringPool::Id internOpt(InternCache &cache, const flatbuffers::String *s)
{
    return s ? cache.intern(std::string_view(s->data(), s->size())) : StringPool::Empty;
}

} // namespace

std::int64_t TensorRef::numel() const
{
    std::int64_t n = 1;
    for (const std::int64_t s : sizes) {
        if (s < 0)
            return -1;
        if (s != 0 && n > std::numeric_limits<std::int64_t>::max() / s)
            return -1;
        n *= s;
    }
    return n;
}

std::size_t ETDumpFile::eventCount() const
{
    std::size_t n = 0;
    for (const auto &r : runs)
        n += r.events.size();
    return n;
}

const char *etdumpSchemaDescription()
{
    return "ETDump ED00 (flatcc schema, Dec 2023+ layout with TensorList, DebugEvent delegate ids and name)";
}

bool looksLikeETDump(const std::uint8_t *data, std::size_t size)
{
    if (size >= 12 && std::memcmp(data + 8, kIdentifier, 4) == 0)
        return true;
    return size >= 8 && std::memcmp(data + 4, kIdentifier, 4) == 0;
}

Result<std::shared_ptr<const ETDumpFile>> readETDump(const std::string &path, const ETDumpReadOptions &options)
{
    auto file = MappedFile::open(path);
    if (!file)
        return file.error();
    return readETDump(**file, options);
}

Result<std::shared_ptr<const ETDumpFile>> readETDump(const MappedFile &file, const ETDumpReadOptions &options)
{
    const std::string &path = file.path();
    const std::uint8_t *data = file.data();
    const std::size_t size = file.size();
    if (size == 0)
        return makeError(ErrorCode::Empty, path, "file is empty (0 bytes), not an ETDump");

    // Normal case: 4-byte size prefix, then the flatbuffer whose identifier sits at bytes 8..11.
    // Accept an un-prefixed buffer too (identifier at 4..7), which some tools write.
    const std::uint8_t *fbData = nullptr;
    std::size_t fbSize = 0;
    bool sizePrefixed = false;
    if (size >= 12 && std::memcmp(data + 8, kIdentifier, 4) == 0) {
        const std::uint64_t claimed = readLe32(data);
        if (claimed + 4 > size)
            return makeError(ErrorCode::Truncated, path,
                fmt::format("truncated ETDump: header claims {} bytes but the file has {}", claimed + 4, size));
        if (claimed < 8)
            return makeError(
                ErrorCode::Corrupt, path, fmt::format("corrupt ETDump: size prefix {} is too small", claimed));
        // Verify from the file start: flatcc aligns relative to the prefixed buffer.
        fbData = data;
        fbSize = static_cast<std::size_t>(claimed) + 4;
        sizePrefixed = true;
    } else if (size >= 8 && std::memcmp(data + 4, kIdentifier, 4) == 0) {
        fbData = data;
        fbSize = size;
    } else if (size < 12) {
        return makeError(ErrorCode::Truncated, path,
            fmt::format("not an ETDump: {} bytes is too short for the header and ED00 identifier", size));
    } else {
        const std::string id = printable(std::string_view(reinterpret_cast<const char *>(data) + 8, 4));
        return makeError(
            ErrorCode::BadIdentifier, path, fmt::format("not an ETDump: file identifier is '{}', expected 'ED00'", id));
    }

    // Every event is at least two tables, so the default max_tables (1M) is far too low for
    // real files; bound it by what the bytes could possibly hold instead.
    file.prefault(); // verification reads every byte
    const auto maxTables = static_cast<flatbuffers::uoffset_t>(
        std::min<std::size_t>(fbSize / 4 + 16, std::numeric_limits<flatbuffers::uoffset_t>::max()));
    flatbuffers::Verifier verifier(fbData, fbSize, 64, maxTables);
    const bool valid = sizePrefixed ? fb::VerifySizePrefixedETDumpBuffer(verifier) : fb::VerifyETDumpBuffer(verifier);
    std::optional<AlignedBytes> payload;
    if (!valid && sizePrefixed) {
        // The other layout of a size-prefixed ETDump: a flatbuffer built for its own start with
        // the 4-byte prefix put in front afterwards (upstream's Python serializer,
        // devtools/etdump/serialize.py serialize_to_etdump_flatcc, and `flatc -b` + a prefix):
        // its 8-byte fields sit 4 bytes off the file's alignment. Upstream reads it with
        // `flatc --size-prefixed`; here it is checked and read from an aligned copy of the payload.
        payload.emplace(fbData + 4, fbSize - 4);
        flatbuffers::Verifier plain(payload->data(), payload->size(), 64, maxTables);
        if (!fb::VerifyETDumpBuffer(plain))
            return makeError(ErrorCode::Corrupt, path, "corrupt ETDump: the flatbuffer failed verification");
    } else if (!valid) {
        return makeError(ErrorCode::Corrupt, path, "corrupt ETDump: the flatbuffer failed verification");
    }

    const fb::ETDump *root = payload ? fb::GetETDump(payload->data())
        : sizePrefixed               ? fb::GetSizePrefixedETDump(fbData)
                                     : fb::GetETDump(fbData);
    auto out = std::make_shared<ETDumpFile>();
    out->path = path;
    out->fileSize = size;
    out->version = root->version();
    const auto *runs = root->run_data();
    if (!runs)
        return std::shared_ptr<const ETDumpFile>(std::move(out));

    std::uint64_t totalEvents = 0;
    for (const auto *run : *runs)
        if (run && run->events())
            totalEvents += run->events()->size();
    if (totalEvents > options.maxEvents || totalEvents > EventRef::kMaxIndex)
        return makeError(ErrorCode::LimitExceeded, path,
            fmt::format("ETDump holds {} events, more than the limit of {}", totalEvents,
                std::min<std::uint64_t>(options.maxEvents, EventRef::kMaxIndex)));

    InternCache pool(out->strings);
    out->runs.reserve(runs->size());
    for (const auto *run : *runs) {
        RunData rd;
        if (!run) {
            out->runs.push_back(std::move(rd));
            continue;
        }
        if (run->name())
            rd.name.assign(run->name()->data(), run->name()->size());
        rd.bundledInputIndex = run->bundled_input_index();
        if (const auto *allocs = run->allocators())
            for (const auto *a : *allocs)
                rd.allocators.emplace_back(a && a->name() ? a->name()->str() : std::string());
        if (const auto *events = run->events()) {
            rd.hasEvents = true;
            rd.events.reserve(events->size());
            rd.profileEvents.reserve(events->size());
            for (const auto *ev : *events) {
                EventRef ref;
                if (!ev) {
                    rd.events.push_back(ref);
                    continue;
                }
                if (const auto *pe = ev->profile_event()) {
                    ProfileEventRecord r;
                    r.name = internOpt(pool, pe->name());
                    r.chainIndex = pe->chain_index();
                    r.instructionId = pe->instruction_id();
                    r.delegateDebugIdInt = pe->delegate_debug_id_int();
                    r.delegateDebugIdStr = internOpt(pool, pe->delegate_debug_id_str());
                    if (const auto *md = pe->delegate_debug_metadata(); md && md->size())
                        r.delegateDebugMetadata
                            = pool.intern(std::string_view(reinterpret_cast<const char *>(md->data()), md->size()));
                    r.startTime = pe->start_time();
                    r.endTime = pe->end_time();
                    ref = makeRef(EventRef::Kind::Profile, rd.profileEvents.size());
                    rd.profileEvents.push_back(r);
                } else if (const auto *de = ev->debug_event()) {
                    DebugEventRecord r;
                    r.chainIndex = de->chain_index();
                    r.instructionId = de->instruction_id();
                    r.delegateDebugIdInt = de->delegate_debug_id_int();
                    r.delegateDebugIdStr = internOpt(pool, de->delegate_debug_id_str());
                    r.name = internOpt(pool, de->name());
                    if (const auto *v = de->debug_entry()) {
                        r.hasEntry = true;
                        r.value = toRuntimeValue(v);
                    }
                    ref = makeRef(EventRef::Kind::Debug, rd.debugEvents.size());
                    rd.debugEvents.push_back(std::move(r));
                } else if (const auto *ae = ev->allocation_event()) {
                    ref = makeRef(EventRef::Kind::Allocation, rd.allocationEvents.size());
                    rd.allocationEvents.push_back({ ae->allocator_id(), ae->allocation_size() });
                }
                rd.events.push_back(ref);
            }
        }
        out->runs.push_back(std::move(rd));
    }
    return std::shared_ptr<const ETDumpFile>(std::move(out));
}

} // namespace etscope
