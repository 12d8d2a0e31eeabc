#include "events/eventblockbuilder.h"

#include "common/memory.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <span>
#include <unordered_map>

namespace etscope {

namespace {

constexpr std::uint64_t kMaxU32 = 0xffffffffull;

// Bounded so that a hostile file cannot produce millions of identical messages.
void addWarning(std::vector<std::string> &warnings, std::string text)
{
    constexpr std::size_t kMaxWarnings = 50;
    if (warnings.size() < kMaxWarnings)
        warnings.push_back(std::move(text));
    else if (warnings.size() == kMaxWarnings)
        warnings.push_back("further warnings suppressed");
}

// Inspector's InstructionEventSignature: raw ids, chain as stored.
struct InstructionKey {
    std::int32_t instructionId;
    ChainIndex chain;
    std::int32_t delegateInt;
    StringPool::Id delegateStr;
    bool operator==(const InstructionKey &) const = default;
};

// Profile/DebugEventSignature: -1 and "" turned into "none". Encoded with sentinels:
// an optional int is (present, value).
struct PartSignature {
    bool present = false;
    StringPool::Id name = 0;
    bool hasInstr = false;
    std::int32_t instr = 0;
    bool hasDelegateInt = false;
    std::int32_t delegateInt = 0;
    StringPool::Id delegateStr = 0; // 0 = none
};

struct EventSignature {
    std::int32_t instructionId;
    PartSignature profile;
    PartSignature debug;
};

inline void hashMix(std::size_t &h, std::uint64_t v)
{
    h ^= std::hash<std::uint64_t> {}(v) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
}

struct InstructionKeyHash {
    std::size_t operator()(const InstructionKey &k) const
    {
        std::size_t h = 0;
        hashMix(h, static_cast<std::uint32_t>(k.instructionId));
        hashMix(h, k.chain.bits ^ (k.chain.negative ? 0x5555ull : 0));
        hashMix(h, static_cast<std::uint32_t>(k.delegateInt));
        hashMix(h, k.delegateStr);
        return h;
    }
};

PartSignature profilePart(const ProfileEventRecord &p)
{
    PartSignature s;
    s.present = true;
    s.name = p.name;
    s.hasInstr = p.instructionId != -1;
    s.instr = s.hasInstr ? p.instructionId : 0;
    s.hasDelegateInt = p.delegateDebugIdInt != -1;
    s.delegateInt = s.hasDelegateInt ? p.delegateDebugIdInt : 0;
    s.delegateStr = p.delegateDebugIdStr;
    return s;
}

PartSignature debugPart(const DebugEventRecord &d)
{
    PartSignature s;
    s.present = true;
    s.name = d.name;
    s.hasInstr = d.instructionId != -1;
    s.instr = s.hasInstr ? d.instructionId : 0;
    s.hasDelegateInt = d.delegateDebugIdInt != -1;
    s.delegateInt = s.hasDelegateInt ? d.delegateDebugIdInt : 0;
    s.delegateStr = d.delegateDebugIdStr;
    return s;
}

constexpr std::uint32_t kNone = 0xffffffffu; // no entry, no sample column

// One Event of a run: the profile record chosen for it and the first (non-output) debug record
// of its instruction key, -1 when absent. The two records determine its EventSignature, so runs
// are compared record against record instead of through signatures interned for every event.
struct Entry {
    std::int32_t profile = -1;
    std::int32_t debug = -1;
    std::uint32_t slot = 0; // instruction key within the run (Collation)
};

EventSignature signatureOf(const RunData &run, const Entry &e)
{
    EventSignature s {};
    if (e.profile >= 0) {
        const ProfileEventRecord &p = run.profileEvents[std::size_t(e.profile)];
        s.instructionId = p.instructionId;
        s.profile = profilePart(p);
    }
    if (e.debug >= 0) {
        const DebugEventRecord &d = run.debugEvents[std::size_t(e.debug)];
        if (e.profile < 0)
            s.instructionId = d.instructionId; // a key's records share its instruction id
        s.debug = debugPart(d);
    }
    return s;
}

// Signature equality on the raw fields: -1/"" -> none is one-to-one, and the instruction id is
// compared through whichever record is present.
template <typename Record> bool samePart(const Record &a, const Record &b)
{
    return a.name == b.name && a.instructionId == b.instructionId && a.delegateDebugIdInt == b.delegateDebugIdInt
        && a.delegateDebugIdStr == b.delegateDebugIdStr;
}

// A hash consistent with sameSignature, from the same raw fields.
std::uint64_t entryHash(const RunData &run, const Entry &e)
{
    std::uint64_t h = 0x9e3779b97f4a7c15ull ^ (std::uint64_t(e.profile >= 0) | std::uint64_t(e.debug >= 0) << 1);
    auto mix = [&h](std::uint64_t v) {
        h = (h ^ v) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    };
    auto part = [&mix](const auto &rec) {
        mix(std::uint64_t(rec.name) << 32 | rec.delegateDebugIdStr);
        mix(std::uint64_t(std::uint32_t(rec.instructionId)) << 32 | std::uint32_t(rec.delegateDebugIdInt));
    };
    if (e.profile >= 0)
        part(run.profileEvents[std::size_t(e.profile)]);
    if (e.debug >= 0)
        part(run.debugEvents[std::size_t(e.debug)]);
    return h;
}

bool sameSignature(const RunData &ra, const Entry &a, const RunData &rb, const Entry &b)
{
    if ((a.profile < 0) != (b.profile < 0) || (a.debug < 0) != (b.debug < 0))
        return false;
    if (a.profile >= 0 && !samePart(ra.profileEvents[std::size_t(a.profile)], rb.profileEvents[std::size_t(b.profile)]))
        return false;
    return a.debug < 0 || samePart(ra.debugEvents[std::size_t(a.debug)], rb.debugEvents[std::size_t(b.debug)]);
}

// §1.1 for one run: its profile and non-output debug records grouped by instruction key, keys
// numbered in order of first appearance. A record is coded 2p (profile p) or 2d+1 (debug d).
// Records of a key are nearly always adjacent in the file; otherwise a counting sort groups
// them, keeping file order within a key. Buffers are reused from run to run.
class Collation
{
public:
    void collate(const RunData &run)
    {
        m_keyIndex.clear();
        m_slotOf.clear();
        m_records.clear();
        m_slotOf.reserve(run.events.size());
        m_records.reserve(run.events.size());
        ++m_stamp;
        std::uint32_t slots = 0;
        bool grouped = true;
        for (const EventRef &ref : run.events) {
            InstructionKey key;
            std::uint32_t code;
            bool output = false;
            if (ref.kind == EventRef::Kind::Profile) {
                const auto &p = run.profileEvents[ref.index];
                key = { p.instructionId, ChainIndex::fromSigned(p.chainIndex), p.delegateDebugIdInt,
                    p.delegateDebugIdStr };
                code = ref.index << 1;
            } else if (ref.kind == EventRef::Kind::Debug) {
                const auto &d = run.debugEvents[ref.index];
                key = { d.instructionId, ChainIndex::fromUnsigned(d.chainIndex), d.delegateDebugIdInt,
                    d.delegateDebugIdStr };
                code = (ref.index << 1) | 1u;
                output = d.value.isOutput; // opens its key but is not one of its records
            } else {
                continue; // allocation events are summarised separately
            }
            const std::uint32_t slot = slotOf(key, slots);
            if (output)
                continue;
            grouped = grouped && (m_slotOf.empty() || slot >= m_slotOf.back());
            m_slotOf.push_back(slot);
            m_records.push_back(code);
        }
        m_begin.assign(std::size_t(slots) + 1, 0);
        for (const std::uint32_t s : m_slotOf)
            ++m_begin[s + 1];
        for (std::size_t s = 0; s < slots; ++s)
            m_begin[s + 1] += m_begin[s];
        if (!grouped) {
            m_cursor.assign(m_begin.begin(), m_begin.end() - 1);
            m_sorted.resize(m_records.size());
            for (std::size_t i = 0; i < m_records.size(); ++i)
                m_sorted[m_cursor[m_slotOf[i]]++] = m_records[i];
            m_records.swap(m_sorted);
        }
    }

    std::uint32_t slots() const { return static_cast<std::uint32_t>(m_begin.size() - 1); }
    std::span<const std::uint32_t> records(std::uint32_t slot) const
    {
        return { m_records.data() + m_begin[slot], m_begin[slot + 1] - m_begin[slot] };
    }

    void release() { *this = Collation(); }

private:
    // Plain kernel events (chain 0, no delegate id) are looked up by instruction id directly;
    // only unusual keys go through the hash map.
    std::uint32_t slotOf(const InstructionKey &key, std::uint32_t &slots)
    {
        const bool direct = !key.chain.negative && key.chain.bits == 0 && key.delegateInt == -1
            && key.delegateStr == StringPool::Empty && key.instructionId >= 0 && key.instructionId < kDirectIds;
        if (!direct) {
            const auto [it, fresh] = m_keyIndex.try_emplace(key, slots);
            slots += fresh ? 1 : 0;
            return it->second;
        }
        const auto id = static_cast<std::size_t>(key.instructionId);
        if (id >= m_directStamp.size()) {
            m_directStamp.resize(id + 1, 0);
            m_directValue.resize(id + 1, 0);
        }
        if (m_directStamp[id] != m_stamp) {
            m_directStamp[id] = m_stamp;
            m_directValue[id] = slots++;
        }
        return m_directValue[id];
    }

    static constexpr std::int32_t kDirectIds = 1 << 20;
    std::unordered_map<InstructionKey, std::uint32_t, InstructionKeyHash> m_keyIndex;
    std::vector<std::uint32_t> m_directStamp, m_directValue; // per instruction id: run stamp, slot
    std::uint32_t m_stamp = 0;
    std::vector<std::uint32_t> m_slotOf, m_records, m_begin, m_cursor, m_sorted;
};

// §1.2 for one run: the Events in order, a signature seen again replacing the earlier entry at
// its first position. Equal signatures have equal instruction ids, so an entry is compared only
// with the earlier ones of its id (a chain per id; a hash map once an id has many).
class RunEntries
{
public:
    std::vector<Entry> entries;

    void build(const RunData &run, const Collation &c)
    {
        entries.clear();
        m_previous.clear();
        m_other.clear();
        m_crowded.clear();
        entries.reserve(run.profileEvents.size() + 1);
        m_previous.reserve(run.profileEvents.size() + 1);
        ++m_stamp;
        for (std::uint32_t s = 0; s < c.slots(); ++s) {
            const auto records = c.records(s);
            std::int32_t debug = -1;
            bool anyProfile = false;
            for (const std::uint32_t code : records) {
                if (code & 1u) {
                    if (debug < 0)
                        debug = static_cast<std::int32_t>(code >> 1);
                } else {
                    anyProfile = true;
                }
            }
            if (!anyProfile) {
                if (debug >= 0)
                    add(run, { -1, debug, s });
                continue; // else: only program outputs under this key
            }
            for (const std::uint32_t code : records)
                if (!(code & 1u))
                    add(run, { static_cast<std::int32_t>(code >> 1), debug, s });
        }
    }

    void release() { *this = RunEntries(); }

private:
    struct IdChain {
        std::uint32_t stamp = 0;
        std::uint32_t last = kNone; // newest entry of the id; older ones through m_previous
        std::uint32_t count = 0;
    };

    IdChain &chainOf(std::int32_t id)
    {
        IdChain *c;
        if (id >= 0 && id < kDirectIds) {
            if (std::size_t(id) >= m_direct.size())
                m_direct.resize(std::size_t(id) + 1);
            c = &m_direct[std::size_t(id)];
        } else {
            c = &m_other[id];
        }
        if (c->stamp != m_stamp)
            *c = { m_stamp, kNone, 0 };
        return *c;
    }

    void add(const RunData &run, const Entry &e)
    {
        const std::int32_t id = e.profile >= 0 ? run.profileEvents[std::size_t(e.profile)].instructionId
                                               : run.debugEvents[std::size_t(e.debug)].instructionId;
        IdChain &chain = chainOf(id);
        const auto position = static_cast<std::uint32_t>(entries.size());
        if (chain.count > kMaxChain) {
            const std::uint64_t h = entryHash(run, e);
            for (auto [it, end] = m_crowded.equal_range(h); it != end; ++it)
                if (sameSignature(run, entries[it->second], run, e)) {
                    entries[it->second] = e;
                    return;
                }
            m_crowded.emplace(h, position);
        } else {
            for (std::uint32_t q = chain.last; q != kNone; q = m_previous[q])
                if (sameSignature(run, entries[q], run, e)) {
                    entries[q] = e;
                    return;
                }
        }
        entries.push_back(e);
        m_previous.push_back(chain.last);
        chain.last = position;
        if (++chain.count == kMaxChain + 1) // from now on by hash: index the chain's entries
            for (std::uint32_t q = chain.last; q != kNone; q = m_previous[q])
                m_crowded.emplace(entryHash(run, entries[q]), q);
    }

    static constexpr std::int32_t kDirectIds = 1 << 20;
    static constexpr std::uint32_t kMaxChain = 16;
    std::vector<IdChain> m_direct;
    std::unordered_map<std::int32_t, IdChain> m_other;
    std::vector<std::uint32_t> m_previous; // per entry: the previous entry of its instruction id
    std::unordered_multimap<std::uint64_t, std::uint32_t> m_crowded; // entryHash -> entry
    std::uint32_t m_stamp = 0;
};

// The runs merged into one EventBlock. Per-run samples are collected run-major (one row of
// `perfEvents` values per run) and laid out per Event in the store when the build ends; a
// block of one run (profiles whose events do not merge) keeps its ticks as they are and its
// one sample per Event in the statistics.
struct Group {
    std::size_t firstRun = 0;
    std::vector<Entry> entries; // of the first run: what other runs must match
    std::size_t runs = 0;
    EventBlock block;
    std::vector<std::uint32_t> perfSlot; // per event: column in the run-major rows, or none
    std::uint32_t perfEvents = 0;
    std::vector<double> durations; // [run][perfSlot]
    std::vector<std::uint64_t> ticks; // [run][perfSlot] start, end
    std::vector<std::uint32_t> eventOfSlot; // per perfSlot: the event
    std::vector<std::pair<std::size_t, StringPool::Id>> metadata; // non-empty ones at run * perfEvents + slot
    std::vector<bool> anyMetadata; // per perfSlot
    std::vector<bool> haveDebug; // per event
    bool haveOutputs = false;
};

class Builder
{
public:
    Builder(const ETDumpFile &f, const InspectorOptions &o, double scale)
        : m_file(f)
        , m_opt(o)
        , m_scale(scale)
    { }

    std::vector<EventBlock> run()
    {
        Collation collation;
        RunEntries runEntries;
        for (std::size_t r = 0; r < m_file.runs.size(); ++r) {
            const RunData &run = m_file.runs[r];
            if (!run.hasEvents)
                continue; // the Inspector skips blocks without an events vector
            collation.collate(run);
            runEntries.build(run, collation);

            // §1.3: group by run signature (name, bundled input, event signatures in order).
            Group &g = groupFor(r, runEntries.entries);
            g.block.runIndices.push_back(r);
            ++g.runs;
            const std::vector<Entry> &entries = g.runs == 1 ? g.entries : runEntries.entries;
            for (std::size_t k = 0; k < entries.size(); ++k)
                addRun(g, k, run, entries[k], collation);
            collectOutputs(g, run);
            collectAllocations(g, run);
        }

        // The per-run bookkeeping is done with: give its memory back before the statistics
        // are allocated (for a profile whose runs do not merge it is as large as the model).
        collation.release();
        runEntries.release();
        m_groupIndex = {};
        for (Group &g : m_groups)
            std::vector<Entry>().swap(g.entries);
        releaseFreeMemory(); // the freed scratch space lies below the blocks on the heap

        std::vector<EventBlock> blocks;
        blocks.reserve(m_groups.size());
        for (Group &g : m_groups) {
            finishSamples(g);
            blocks.push_back(std::move(g.block));
        }
        return blocks;
    }

private:
    // The group whose first run has this run's signature, or a new one that takes the entries.
    Group &groupFor(std::size_t r, std::vector<Entry> &entries)
    {
        const RunData &run = m_file.runs[r];
        std::uint64_t h = std::hash<std::string> {}(run.name);
        hashMix(h, static_cast<std::uint32_t>(run.bundledInputIndex));
        for (const Entry &e : entries)
            hashMix(h, entryHash(run, e));
        for (auto [it, end] = m_groupIndex.equal_range(h); it != end; ++it) {
            Group &g = m_groups[it->second];
            const RunData &first = m_file.runs[g.firstRun];
            if (first.name != run.name || first.bundledInputIndex != run.bundledInputIndex
                || g.entries.size() != entries.size())
                continue;
            bool same = true;
            for (std::size_t k = 0; same && k < entries.size(); ++k)
                same = sameSignature(first, g.entries[k], run, entries[k]);
            if (same) {
                if (g.runs == 1)
                    reserveSamples(g, r);
                return g;
            }
        }
        m_groupIndex.emplace(h, static_cast<std::uint32_t>(m_groups.size()));
        Group &g = m_groups.emplace_back();
        g.firstRun = r;
        g.entries = std::move(entries);
        entries = {};
        g.block.name = run.name;
        g.block.bundledInputIndex = run.bundledInputIndex;
        g.block.sourceTimeScale = m_opt.time.source;
        g.block.targetTimeScale = m_opt.time.target;
        g.block.store = m_store;
        const std::size_t n = g.entries.size();
        g.block.events.resize(n);
        g.perfSlot.resize(n, kNone);
        g.haveDebug.resize(n, false);
        for (std::size_t k = 0; k < n; ++k) {
            initEvent(g.block.events[k], run, g.entries[k]);
            if (g.entries[k].profile >= 0) {
                g.perfSlot[k] = g.perfEvents++;
                g.eventOfSlot.push_back(static_cast<std::uint32_t>(k));
            }
        }
        g.anyMetadata.resize(g.perfEvents, false);
        g.durations.reserve(g.perfEvents);
        g.ticks.reserve(2 * std::size_t(g.perfEvents));
        return g;
    }

    // A group's second run: room for the samples of every later run that could still join it
    // (same name and bundled input), so that the run-major rows are not copied while doubling.
    // The reservations of all groups together stay within twice the file's profile events.
    void reserveSamples(Group &g, std::size_t r)
    {
        if (m_laterRuns.empty()) {
            std::unordered_map<std::string, std::size_t> seen; // name + bundled input -> runs from here on
            m_laterRuns.resize(m_file.runs.size());
            for (std::size_t i = m_file.runs.size(); i-- > 0;) {
                const RunData &run = m_file.runs[i];
                m_laterRuns[i] = ++seen[run.name + '\0' + std::to_string(run.bundledInputIndex)];
                m_reserveBudget += 2 * run.profileEvents.size();
            }
        }
        const std::size_t want = (1 + m_laterRuns[r]) * std::size_t(g.perfEvents);
        if (want > m_reserveBudget)
            return;
        m_reserveBudget -= want;
        g.durations.reserve(want);
        g.ticks.reserve(2 * want);
    }

    std::string_view internName(StringPool::Id id)
    {
        if (id >= m_names.size())
            m_names.resize(id + 1);
        if (m_names[id].data() == nullptr)
            m_names[id] = m_store->intern(m_file.strings.str(id));
        return m_names[id];
    }

    // Inspector's _populate_event_signature_fields, profile part then debug part.
    void applySignature(Event &ev, const PartSignature &sig, DelegateDebugId &id)
    {
        if (!sig.present)
            return;
        DelegateDebugId sid;
        if (sig.hasDelegateInt)
            sid = static_cast<std::int64_t>(sig.delegateInt);
        else if (sig.delegateStr != StringPool::Empty)
            sid = m_file.strings.str(sig.delegateStr);
        const bool delegated = !std::holds_alternative<std::monostate>(sid);
        std::string_view name;
        if (sig.hasDelegateInt)
            name = m_store->intern(std::to_string(sig.delegateInt));
        else if (delegated)
            name = internName(sig.delegateStr);
        else
            name = internName(sig.name);
        if (!name.empty())
            ev.name = name;
        id = std::move(sid);
        ev.isDelegatedOp = delegated;
    }

    void initEvent(Event &ev, const RunData &run, const Entry &entry)
    {
        const EventSignature sig = signatureOf(run, entry);
        ev.instructionId = sig.instructionId;
        ev.name = internName(StringPool::Empty);
        DelegateDebugId id;
        applySignature(ev, sig.profile, id);
        applySignature(ev, sig.debug, id);
        if (!std::holds_alternative<std::monostate>(id))
            m_store->extra(ev).delegateDebugIdentifier = std::move(id);
    }

    double duration(const Event &ev, const ProfileEventRecord &p, std::vector<std::string> &warnings) const
    {
        const std::uint64_t s = p.startTime, e = p.endTime;
        if (ev.isDelegatedOp) {
            const double cs = m_opt.delegateTimeConverter ? m_opt.delegateTimeConverter(ev.name, s)
                                                          : static_cast<double>(s) / m_scale;
            const double ce = m_opt.delegateTimeConverter ? m_opt.delegateTimeConverter(ev.name, e)
                                                          : static_cast<double>(e) / m_scale;
            if (cs <= ce)
                return ce - cs;
            if (cs > static_cast<double>(kMaxU32) || ce > static_cast<double>(kMaxU32)) {
                addWarning(warnings, wrapWarning(ev, s, e));
                return std::numeric_limits<double>::quiet_NaN();
            }
            return (static_cast<double>(kMaxU32) - cs) + ce;
        }
        std::uint64_t elapsed;
        if (s <= e) {
            elapsed = e - s;
        } else {
            if (s > kMaxU32 || e > kMaxU32) {
                addWarning(warnings, wrapWarning(ev, s, e));
                return std::numeric_limits<double>::quiet_NaN();
            }
            elapsed = (kMaxU32 - s) + e; // the Inspector's 32-bit wrap formula (one tick short)
        }
        return static_cast<double>(elapsed) / m_scale;
    }

    static std::string wrapWarning(const Event &ev, std::uint64_t s, std::uint64_t e)
    {
        return fmt::format("event '{}' ends ({}) before it starts ({}) and the values do not fit a 32-bit "
                           "wrap-around; its duration is shown as NaN",
            ev.name, e, s);
    }

    void addRun(Group &g, std::size_t k, const RunData &run, const Entry &entry, const Collation &collation)
    {
        Event &ev = g.block.events[k];
        if (entry.profile >= 0) {
            const auto &p = run.profileEvents[static_cast<std::size_t>(entry.profile)];
            const std::uint32_t slot = g.perfSlot[k];
            if (g.runs == 1)
                ev.chainIndex = p.chainIndex;
            g.durations.push_back(duration(ev, p, g.block.warnings));
            g.ticks.push_back(p.startTime);
            g.ticks.push_back(p.endTime);
            if (p.delegateDebugMetadata != StringPool::Empty) {
                g.anyMetadata[slot] = true;
                g.metadata.push_back({ (g.runs - 1) * g.perfEvents + slot, p.delegateDebugMetadata });
            }
        }
        if (entry.debug < 0)
            return; // no debug events under this key
        // The key's debug records, in file order (profile records are even codes).
        const auto records = collation.records(entry.slot);
        auto debugs = [&records, &run](auto &&visit) {
            for (const std::uint32_t code : records)
                if ((code & 1u) && !visit(run.debugEvents[code >> 1]))
                    return;
        };
        if (!g.haveDebug[k]) {
            g.haveDebug[k] = true;
            EventExtra &x = m_store->extra(ev);
            debugs([&x](const DebugEventRecord &d) {
                x.debugData.push_back(d.value);
                return true;
            });
            x.debugEventsPerRun = x.debugData.size();
            if (entry.profile < 0)
                ev.chainIndex = static_cast<std::int64_t>(run.debugEvents[std::size_t(entry.debug)].chainIndex);
            return;
        }
        if (ev.debugDataDiffersAcrossRuns)
            return;
        const auto &first = ev.debugData();
        std::size_t i = 0;
        bool same = true;
        debugs([&](const DebugEventRecord &d) {
            same = i < first.size() && valuesEqual(first[i], d.value);
            ++i;
            return same;
        });
        if (!same || i != first.size()) {
            ev.debugDataDiffersAcrossRuns = true;
            addWarning(g.block.warnings,
                fmt::format("debug data of event '{}' (instruction {}) differs between runs; showing the first run's",
                    ev.name, ev.instructionId));
        }
    }

    // Lays the run-major samples out per Event (durations, then start and end ticks) and
    // computes the statistics.
    void finishSamples(Group &g)
    {
        const std::size_t R = g.runs, P = g.perfEvents;
        if (P == 0)
            return;
        const double *dur;
        const std::uint64_t *tick;
        if (R == 1) {
            dur = g.durations.data(); // one sample: it is every statistic, so raw points at p10
        } else {
            double *d = m_store->allocateDoubles(R * P);
            for (std::size_t r = 0; r < R; ++r)
                for (std::size_t j = 0; j < P; ++j)
                    d[j * R + r] = g.durations[r * P + j];
            std::vector<double>().swap(g.durations);
            dur = d;
        }
        if (R == 1) {
            tick = m_store->adoptTicks(std::move(g.ticks)); // start, end per event: already per Event
        } else {
            std::uint64_t *t = m_store->allocateTicks(2 * R * P);
            for (std::size_t r = 0; r < R; ++r)
                for (std::size_t j = 0; j < P; ++j) {
                    t[j * 2 * R + r] = g.ticks[2 * (r * P + j)];
                    t[j * 2 * R + R + r] = g.ticks[2 * (r * P + j) + 1];
                }
            std::vector<std::uint64_t>().swap(g.ticks);
            tick = t;
        }
        EventPerf *perfs = m_store->allocatePerfs(P);
        for (std::size_t k = 0; k < g.block.events.size(); ++k) {
            const std::uint32_t j = g.perfSlot[k];
            if (j == kNone)
                continue;
            Event &ev = g.block.events[k];
            EventPerf &perf = perfs[j];
            static_cast<PerfStats &>(perf) = PerfStats::of({ dur + j * R, R });
            perf.raw = R == 1 ? std::span<const double>(&perf.p10, 1) : std::span<const double>(dur + j * R, R);
            ev.perfData = &perf;
            ev.ticks = tick + j * 2 * R;
            if (g.anyMetadata[j])
                m_store->extra(ev).delegateDebugMetadatas.resize(R);
        }
        std::vector<double>().swap(g.durations);
        for (const auto &[at, id] : g.metadata) // run-major order: run at / P, slot at % P
            if (const std::uint32_t k = g.eventOfSlot[at % P]; k != kNone)
                m_store->extra(g.block.events[k]).delegateDebugMetadatas[at / P] = m_file.strings.str(id);
    }

    // Value equality as the Inspector checks it: same kind and shape, equal contents. Contents are
    // compared byte-wise through the debug buffer when there is one (zeros otherwise).
    bool valuesEqual(const RuntimeValue &a, const RuntimeValue &b) const
    {
        if (a.kind != b.kind || a.tensors.size() != b.tensors.size())
            return false;
        switch (a.kind) {
        case RuntimeValue::Kind::Int:
            return a.intValue == b.intValue;
        case RuntimeValue::Kind::Bool:
            return a.boolValue == b.boolValue;
        case RuntimeValue::Kind::Float:
        case RuntimeValue::Kind::Double:
            return a.doubleValue == b.doubleValue;
        default:
            break;
        }
        for (std::size_t i = 0; i < a.tensors.size(); ++i) {
            const TensorRef &x = a.tensors[i], &y = b.tensors[i];
            if (x.dtype != y.dtype || x.sizes != y.sizes)
                return false;
            if (!m_opt.debugBuffer || x.offset == y.offset)
                continue;
            auto bx = m_opt.debugBuffer->bytes(x);
            auto by = m_opt.debugBuffer->bytes(y);
            if (!bx || !by)
                return !bx && !by;
            if (x.strides == y.strides) {
                if (bx->size() != by->size() || !std::equal(bx->begin(), bx->end(), by->begin()))
                    return false;
            } else {
                auto dx = m_opt.debugBuffer->read(x);
                auto dy = m_opt.debugBuffer->read(y);
                if (!dx || !dy || dx->values != dy->values)
                    return false;
            }
        }
        return true;
    }

    void collectOutputs(Group &g, const RunData &run) const
    {
        std::vector<RuntimeValue> outputs;
        for (const auto &d : run.debugEvents)
            if (d.value.isOutput)
                outputs.push_back(d.value);
        if (!g.haveOutputs) {
            g.haveOutputs = !outputs.empty();
            g.block.runOutput = std::move(outputs);
            return;
        }
        if (g.block.runOutputDiffersAcrossRuns)
            return;
        bool same = outputs.size() == g.block.runOutput.size();
        for (std::size_t i = 0; same && i < outputs.size(); ++i)
            same = valuesEqual(g.block.runOutput[i], outputs[i]);
        if (!same) {
            g.block.runOutputDiffersAcrossRuns = true;
            addWarning(g.block.warnings,
                "program outputs differ between the runs merged into this block; "
                "showing the first run's");
        }
    }

    static void collectAllocations(Group &g, const RunData &run)
    {
        if (run.allocationEvents.empty() && run.allocators.empty())
            return;
        auto &allocs = g.block.allocators;
        if (allocs.size() < run.allocators.size())
            allocs.resize(run.allocators.size());
        for (std::size_t i = 0; i < run.allocators.size(); ++i)
            if (allocs[i].name.empty())
                allocs[i].name = run.allocators[i];
        for (const auto &a : run.allocationEvents) {
            ++g.block.allocationEventCount;
            if (a.allocatorId < 1 || static_cast<std::size_t>(a.allocatorId) > allocs.size()) {
                addWarning(g.block.warnings,
                    fmt::format("allocation event names allocator {} but the block registers {}", a.allocatorId,
                        run.allocators.size()));
                continue;
            }
            AllocatorSummary &s = allocs[static_cast<std::size_t>(a.allocatorId - 1)];
            ++s.allocationCount;
            s.totalBytes += a.allocationSize;
            s.maxBytes = std::max(s.maxBytes, a.allocationSize);
        }
    }
    const ETDumpFile &m_file;
    const InspectorOptions &m_opt;
    const double m_scale;
    std::vector<Group> m_groups;
    std::unordered_multimap<std::uint64_t, std::uint32_t> m_groupIndex; // run signature hash -> group
    std::shared_ptr<EventStore> m_store = std::make_shared<EventStore>(); // shared by all blocks
    std::vector<std::string_view> m_names; // StringPool id -> interned name
    std::vector<std::size_t> m_laterRuns; // per run: runs from it on with its name and bundled input
    std::size_t m_reserveBudget = 0; // samples still allowed to be reserved ahead
};

} // namespace

Result<std::vector<EventBlock>> buildEventBlocks(const ETDumpFile &etdump, const InspectorOptions &options)
{
    auto scale = options.time.scaleFactor();
    if (!scale)
        return Error { scale.error().code, etdump.path, scale.error().reason };
    Builder builder(etdump, options, *scale);
    return builder.run();
}

} // namespace etscope
