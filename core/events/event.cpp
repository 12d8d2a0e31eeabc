#include "events/event.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <new>
#include <type_traits>
#include <unordered_map>

namespace etscope {

bool isFrameworkEventName(std::string_view name)
{
    return name == kMethodInit || name == kProgramLoadMethod || name == kMethodExecute;
}

std::string delegateDebugIdText(const DelegateDebugId &id)
{
    if (const auto *i = std::get_if<std::int64_t>(&id))
        return std::to_string(*i);
    if (const auto *s = std::get_if<std::string>(&id))
        return *s;
    return {};
}

void EventExtra::clearLink()
{
    debugHandles.reset();
    debugHandlesIsScalar = false;
    opTypes.clear();
    numOutputs = 1;
    linkedNodes.clear();
    delegateBackendName.reset();
}

namespace {
const EventExtra &noExtra()
{
    static const EventExtra none;
    return none;
}
} // namespace

const DelegateDebugId &Event::delegateDebugIdentifier() const
{
    return (extra ? *extra : noExtra()).delegateDebugIdentifier;
}
const std::vector<std::string> &Event::delegateDebugMetadatas() const
{
    return (extra ? *extra : noExtra()).delegateDebugMetadatas;
}
const std::vector<RuntimeValue> &Event::debugData() const
{
    return (extra ? *extra : noExtra()).debugData;
}
const std::optional<std::vector<std::int64_t>> &Event::debugHandles() const
{
    return (extra ? *extra : noExtra()).debugHandles;
}
const std::vector<std::string> &Event::opTypes() const
{
    return (extra ? *extra : noExtra()).opTypes;
}
const std::vector<LinkedNode> &Event::linkedNodes() const
{
    return (extra ? *extra : noExtra()).linkedNodes;
}
const std::optional<std::string> &Event::delegateBackendName() const
{
    return (extra ? *extra : noExtra()).delegateBackendName;
}

// Numbers live in chunks that are never moved. Chunks grow geometrically so that a small
// profile does not pay for a large one; a large request gets a chunk of its own. A chunk is
// storage only: elements are constructed as they are handed out, so the unused tail of the last
// chunk is never written and its pages never faulted in (for EventPerf, whose members have
// default values, constructing whole chunks of up to 64 MB cost as much as the load's parsing).
template <typename T> class ChunkArena
{
    static_assert(std::is_trivially_destructible_v<T>); // chunks are freed without destructors
    static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);

public:
    T *allocate(std::size_t n)
    {
        if (n == 0)
            return nullptr;
        if (m_used + n > m_capacity) {
            const std::size_t size = std::max(n, std::min(kMaxChunk, std::max<std::size_t>(256, m_capacity * 2)));
            m_chunks.emplace_back(static_cast<T *>(::operator new(size * sizeof(T))));
            m_bytes += size * sizeof(T);
            m_capacity = size;
            m_used = 0;
        }
        T *p = m_chunks.back().get() + m_used;
        std::uninitialized_default_construct_n(p, n);
        m_used += n;
        return p;
    }
    const T *adopt(std::vector<T> v)
    {
        v.shrink_to_fit();
        m_bytes += v.capacity() * sizeof(T);
        return m_adopted.emplace_back(std::move(v)).data();
    }
    std::size_t bytes() const { return m_bytes; }

private:
    struct Free {
        void operator()(T *p) const { ::operator delete(p); }
    };
    static constexpr std::size_t kMaxChunk = 1 << 20; // elements
    std::vector<std::unique_ptr<T, Free>> m_chunks;
    std::vector<std::vector<T>> m_adopted;
    std::size_t m_used = 0, m_capacity = 0, m_bytes = 0;
};

struct EventStore::Impl {
    std::deque<std::string> names;
    std::unordered_map<std::string_view, std::string_view> nameIndex;
    ChunkArena<double> doubles;
    ChunkArena<std::uint64_t> ticks;
    ChunkArena<EventPerf> perfs;
    std::deque<EventExtra> extras;
    std::size_t nameBytes = 0;
    std::vector<std::shared_ptr<const void>> retained;
};

EventStore::EventStore()
    : d(std::make_unique<Impl>())
{ }
EventStore::~EventStore() = default;

std::string_view EventStore::intern(std::string_view s)
{
    if (auto it = d->nameIndex.find(s); it != d->nameIndex.end())
        return it->second;
    const std::string_view v = d->names.emplace_back(s);
    d->nameBytes += s.size() + sizeof(std::string) + 48; // + index entry
    d->nameIndex.emplace(v, v);
    return v;
}

double *EventStore::allocateDoubles(std::size_t n)
{
    return d->doubles.allocate(n);
}

std::uint64_t *EventStore::allocateTicks(std::size_t n)
{
    return d->ticks.allocate(n);
}

void EventStore::setPerf(Event &e, std::span<const double> durations, std::span<const std::uint64_t> starts,
    std::span<const std::uint64_t> ends)
{
    const std::size_t n = durations.size();
    double *raw = allocateDoubles(n);
    std::copy(durations.begin(), durations.end(), raw);
    std::uint64_t *t = allocateTicks(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
        if (t && i < starts.size())
            t[i] = starts[i];
        if (t && i < ends.size())
            t[n + i] = ends[i];
    }
    EventPerf *perf = allocatePerfs(1);
    static_cast<PerfStats &>(*perf) = PerfStats::of(durations);
    perf->raw = { raw, n };
    e.perfData = perf;
    e.ticks = t;
}

EventPerf *EventStore::allocatePerfs(std::size_t n)
{
    return d->perfs.allocate(n);
}

const double *EventStore::adoptDoubles(std::vector<double> v)
{
    return d->doubles.adopt(std::move(v));
}

const std::uint64_t *EventStore::adoptTicks(std::vector<std::uint64_t> v)
{
    return d->ticks.adopt(std::move(v));
}

EventExtra &EventStore::extra(Event &e)
{
    if (e.extra && e.extra->owner == this)
        return const_cast<EventExtra &>(*e.extra); // ours: it was never handed out as const storage
    EventExtra &x = e.extra ? d->extras.emplace_back(*e.extra) : d->extras.emplace_back();
    x.owner = this;
    e.extra = &x;
    return x;
}

void EventStore::retain(std::shared_ptr<const void> other)
{
    d->retained.push_back(std::move(other));
}

std::size_t EventStore::bytes() const
{
    return d->nameBytes + d->doubles.bytes() + d->ticks.bytes() + d->perfs.bytes()
        + d->extras.size() * sizeof(EventExtra);
}

EventStore &EventBlock::storage()
{
    if (!store)
        store = std::make_shared<EventStore>();
    return *store;
}

} // namespace etscope
