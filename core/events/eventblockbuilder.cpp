#include "events/eventblockbuilder.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
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
    bool operator==(const PartSignature &) const = default;
};

struct EventSignature {
    std::int32_t instructionId;
    PartSignature profile;
    PartSignature debug;
    bool operator==(const EventSignature &) const = default;
};

inline void hashMix(std::size_t &h, std::uint64_t v)
{
    h ^= std::hash<std::uint64_t>{}(v) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
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

// Open addressing over indices into the signature list: no node per signature, which matters
// when a profile's runs do not merge and every event brings a new one.
class SignatureTable
{
public:
    std::uint32_t intern(const EventSignature &sig, std::vector<EventSignature> &list)
    {
        if ((list.size() + 1) * 2 > m_slots.size())
            grow(list);
        const std::size_t mask = m_slots.size() - 1;
        for (std::size_t i = slotHash(sig) & mask;; i = (i + 1) & mask) {
            const std::uint32_t v = m_slots[i];
            if (v == kEmpty) {
                m_slots[i] = static_cast<std::uint32_t>(list.size());
                list.push_back(sig);
                return m_slots[i];
            }
            if (list[v] == sig)
                return v;
        }
    }

    void reserve(std::size_t n, const std::vector<EventSignature> &list)
    {
        if (n * 2 > m_slots.size()) {
            std::size_t size = 64;
            while (size < n * 2)
                size *= 2;
            rehash(size, list);
        }
    }

private:
    // The combined hash keeps sequential instruction ids sequential: spread them over the slots.
    static std::size_t slotHash(const EventSignature &sig)
    {
        std::uint64_t h = 0x9e3779b97f4a7c15ull;
        auto mix = [&h](std::uint64_t v) {
            h = (h ^ v) * 0xff51afd7ed558ccdull;
            h ^= h >> 32;
        };
        mix(static_cast<std::uint32_t>(sig.instructionId));
        for (const PartSignature *p : { &sig.profile, &sig.debug }) {
            mix((std::uint64_t(p->present) << 33) | (std::uint64_t(p->hasInstr) << 32) | static_cast<std::uint32_t>(p->instr));
            mix((std::uint64_t(p->name) << 32) | p->delegateStr);
            mix((std::uint64_t(p->hasDelegateInt) << 32) | static_cast<std::uint32_t>(p->delegateInt));
        }
        return static_cast<std::size_t>(h);
    }
    void grow(const std::vector<EventSignature> &list) { rehash(std::max<std::size_t>(64, m_slots.size() * 2), list); }
    void rehash(std::size_t size, const std::vector<EventSignature> &list)
    {
        m_slots.assign(size, kEmpty);
        const std::size_t mask = m_slots.size() - 1;
        for (std::uint32_t v = 0; v < list.size(); ++v) {
            std::size_t i = slotHash(list[v]) & mask;
            while (m_slots[i] != kEmpty)
                i = (i + 1) & mask;
            m_slots[i] = v;
        }
    }
    static constexpr std::uint32_t kEmpty = 0xffffffffu;
    std::vector<std::uint32_t> m_slots;
};

struct RunSignature {
    std::string name;
    std::vector<std::uint32_t> events; // interned EventSignature ids, in order
    std::int32_t bundledInputIndex;
    bool operator==(const RunSignature &) const = default;
};

struct RunSignatureHash {
    std::size_t operator()(const RunSignature &s) const
    {
        std::size_t h = std::hash<std::string>{}(s.name);
        hashMix(h, static_cast<std::uint32_t>(s.bundledInputIndex));
        for (auto e : s.events)
            hashMix(h, e);
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

// Inspector's _populate_event_signature_fields: the identity a signature part gives an Event.
struct EventIdentity {
    std::string_view name;
    DelegateDebugId delegateId;
    bool delegated = false;
};

// Record indices of one instruction key: nearly always one or two (a kernel's native call
// and its OPERATOR_CALL), kept inline so that a run of 250k instructions allocates nothing.
class IndexList
{
public:
    struct Iterator {
        const IndexList *list;
        std::size_t i;
        std::uint32_t operator*() const { return (*list)[i]; }
        Iterator &operator++()
        {
            ++i;
            return *this;
        }
        bool operator!=(const Iterator &o) const { return i != o.i; }
    };
    void clear()
    {
        m_size = 0;
        if (m_more)
            m_more->clear();
    }
    void push_back(std::uint32_t v)
    {
        if (m_size < kInline) {
            m_inline[m_size] = v;
        } else {
            if (!m_more)
                m_more = std::make_unique<std::vector<std::uint32_t>>();
            m_more->push_back(v);
        }
        ++m_size;
    }
    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    std::uint32_t front() const { return m_inline[0]; }
    std::uint32_t operator[](std::size_t i) const { return i < kInline ? m_inline[i] : (*m_more)[i - kInline]; }
    Iterator begin() const { return { this, 0 }; }
    Iterator end() const { return { this, m_size }; }

private:
    static constexpr std::size_t kInline = 2;
    std::uint32_t m_inline[kInline] = {};
    std::uint32_t m_size = 0;
    std::unique_ptr<std::vector<std::uint32_t>> m_more; // rare: more than two records
};

// One InstructionEvent of a run (indices into the run's record vectors).
struct InstructionEvent {
    InstructionKey key;
    IndexList profiles;
    IndexList debugs; // non-output debug events
};

// The runs merged into one EventBlock. Per-run samples are collected run-major (one row of
// `perfEvents` values per run) and laid out per Event in the store when the build ends; a
// block of one run (profiles whose events do not merge) is adopted as is.
struct Group {
    std::size_t firstRun = 0;
    std::size_t runs = 0;
    EventBlock block;
    std::vector<std::uint32_t> perfSlot;       // per event: column in the run-major rows, or none
    std::uint32_t perfEvents = 0;
    std::vector<double> durations;             // [run][perfSlot]
    std::vector<std::uint64_t> ticks;          // [run][perfSlot] start, end
    std::vector<std::uint32_t> eventOfSlot;    // per perfSlot: the event
    std::vector<std::pair<std::size_t, StringPool::Id>> metadata; // non-empty ones at run * perfEvents + slot
    std::vector<bool> anyMetadata;             // per perfSlot
    std::vector<bool> haveDebug;               // per event
    bool haveOutputs = false;
};

constexpr std::uint32_t kNoSlot = 0xffffffffu;

class Builder
{
public:
    Builder(const ETDumpFile &f, const InspectorOptions &o, double scale) : m_file(f), m_opt(o), m_scale(scale) {}

    std::vector<EventBlock> run()
    {
        std::vector<InstructionEvent> instructionEvents;
        std::unordered_map<InstructionKey, std::uint32_t, InstructionKeyHash> keyIndex;
        // Per run: ordered event signatures with the chosen profile event and the debug list.
        struct RunEntry {
            std::uint32_t sigId;
            std::int64_t profileIdx; // -1 none
            std::uint32_t instructionEvent;
        };
        std::vector<RunEntry> entries;
        // Position of a signature within the current run, valid when its stamp equals the run
        // number: O(1) without clearing a hash map per run.
        std::vector<std::uint32_t> sigPosStamp, sigPosValue;
        // Plain kernel events (chain 0, no delegate id) are looked up by instruction id directly;
        // only unusual keys go through the hash map.
        std::vector<std::uint32_t> directStamp, directValue;
        std::uint32_t stamp = 0;

        for (std::size_t r = 0; r < m_file.runs.size(); ++r) {
            const RunData &run = m_file.runs[r];
            if (!run.hasEvents)
                continue; // the Inspector skips blocks without an events vector
            // Reuse the per-instruction vectors across runs: a 1M-event file has ~1M of them.
            std::size_t usedInstructionEvents = 0;
            keyIndex.clear();
            entries.clear();
            ++stamp;

            // §1.1: collate by instruction signature, in order of first appearance.
            for (const EventRef &ref : run.events) {
                InstructionKey key;
                if (ref.kind == EventRef::Kind::Profile) {
                    const auto &p = run.profileEvents[ref.index];
                    key = {p.instructionId, ChainIndex::fromSigned(p.chainIndex), p.delegateDebugIdInt,
                           p.delegateDebugIdStr};
                } else if (ref.kind == EventRef::Kind::Debug) {
                    const auto &d = run.debugEvents[ref.index];
                    key = {d.instructionId, ChainIndex::fromUnsigned(d.chainIndex), d.delegateDebugIdInt,
                           d.delegateDebugIdStr};
                } else {
                    continue; // allocation events are summarised separately
                }
                std::uint32_t slot;
                bool inserted;
                const bool direct = !key.chain.negative && key.chain.bits == 0 && key.delegateInt == -1 &&
                                    key.delegateStr == StringPool::Empty && key.instructionId >= 0 &&
                                    key.instructionId < (1 << 20);
                if (direct) {
                    const auto id = static_cast<std::size_t>(key.instructionId);
                    if (id >= directStamp.size()) {
                        directStamp.resize(id + 1, 0);
                        directValue.resize(id + 1, 0);
                    }
                    inserted = directStamp[id] != stamp;
                    if (inserted) {
                        directStamp[id] = stamp;
                        directValue[id] = static_cast<std::uint32_t>(usedInstructionEvents);
                    }
                    slot = directValue[id];
                } else {
                    auto [it, fresh] = keyIndex.try_emplace(key, static_cast<std::uint32_t>(usedInstructionEvents));
                    inserted = fresh;
                    slot = it->second;
                }
                if (inserted) {
                    if (usedInstructionEvents == instructionEvents.size())
                        instructionEvents.emplace_back();
                    InstructionEvent &fresh = instructionEvents[usedInstructionEvents++];
                    fresh.key = key;
                    fresh.profiles.clear();
                    fresh.debugs.clear();
                }
                InstructionEvent &ie = instructionEvents[slot];
                if (ref.kind == EventRef::Kind::Profile)
                    ie.profiles.push_back(ref.index);
                else if (!run.debugEvents[ref.index].value.isOutput)
                    ie.debugs.push_back(ref.index);
            }

            // A run that brings more signatures than seen so far (the first run, or a profile whose
            // runs do not merge) gets its room up front instead of by repeated doubling.
            if (m_signatures.size() + usedInstructionEvents > m_signatures.capacity()) {
                const std::size_t want = m_signatures.size() + run.profileEvents.size() + usedInstructionEvents;
                m_signatures.reserve(want);
                sigPosStamp.reserve(want);
                sigPosValue.reserve(want);
                m_signatureIndex.reserve(want, m_signatures);
            }
            entries.reserve(run.events.size());

            // §1.2: event signatures, last occurrence wins at the first position.
            for (std::uint32_t i = 0; i < usedInstructionEvents; ++i) {
                const InstructionEvent &ie = instructionEvents[i];
                if (ie.profiles.empty() && ie.debugs.empty())
                    continue; // only program outputs under this key
                EventSignature sig{ie.key.instructionId, {}, {}};
                if (!ie.debugs.empty())
                    sig.debug = debugPart(run.debugEvents[ie.debugs.front()]);
                auto add = [&](std::int64_t profileIdx) {
                    const std::uint32_t id = internSignature(sig, entries.size());
                    if (id >= sigPosStamp.size()) {
                        sigPosStamp.resize(id + 1, 0);
                        sigPosValue.resize(id + 1, 0);
                    }
                    if (sigPosStamp[id] != stamp) {
                        sigPosStamp[id] = stamp;
                        sigPosValue[id] = static_cast<std::uint32_t>(entries.size());
                        entries.push_back({id, profileIdx, i});
                    } else {
                        entries[sigPosValue[id]] = {id, profileIdx, i};
                    }
                };
                if (ie.profiles.empty()) {
                    add(-1);
                } else {
                    for (const std::uint32_t p : ie.profiles) {
                        sig.profile = profilePart(run.profileEvents[p]);
                        add(p);
                    }
                }
            }

            // §1.3: group by run signature.
            RunSignature rs{run.name, {}, run.bundledInputIndex};
            rs.events.reserve(entries.size());
            for (const auto &e : entries)
                rs.events.push_back(e.sigId);
            auto [git, newGroup] = m_groupIndex.try_emplace(std::move(rs), static_cast<std::uint32_t>(m_groups.size()));
            if (newGroup) {
                Group g;
                g.firstRun = r;
                g.block.name = run.name;
                g.block.bundledInputIndex = run.bundledInputIndex;
                g.block.sourceTimeScale = m_opt.time.source;
                g.block.targetTimeScale = m_opt.time.target;
                g.block.store = m_store;
                g.block.events.resize(entries.size());
                g.perfSlot.resize(entries.size(), kNoSlot);
                g.haveDebug.resize(entries.size(), false);
                for (std::size_t k = 0; k < entries.size(); ++k) {
                    const EventSignature &sig = m_signatures[entries[k].sigId];
                    initEvent(g.block.events[k], sig);
                    if (sig.profile.present) {
                        g.perfSlot[k] = g.perfEvents++;
                        g.eventOfSlot.push_back(static_cast<std::uint32_t>(k));
                    }
                }
                g.anyMetadata.resize(g.perfEvents, false);
                g.durations.reserve(g.perfEvents);
                g.ticks.reserve(2 * std::size_t(g.perfEvents));
                m_groups.push_back(std::move(g));
            }
            Group &g = m_groups[git->second];
            g.block.runIndices.push_back(r);
            ++g.runs;
            for (std::size_t k = 0; k < entries.size(); ++k)
                addRun(g, k, run, entries[k].profileIdx, instructionEvents[entries[k].instructionEvent]);
            collectOutputs(g, run);
            collectAllocations(g, run);
        }

        // The per-run bookkeeping is done with: give its memory back before the statistics
        // are allocated (for a profile whose runs do not merge it is as large as the model).
        std::vector<InstructionEvent>().swap(instructionEvents);
        std::vector<RunEntry>().swap(entries);
        std::vector<std::uint32_t>().swap(sigPosStamp);
        std::vector<std::uint32_t>().swap(sigPosValue);
        std::vector<std::uint32_t>().swap(directStamp);
        std::vector<std::uint32_t>().swap(directValue);
        std::vector<EventSignature>().swap(m_signatures);
        std::vector<std::uint32_t>().swap(m_lastAtPosition);
        m_signatureIndex = {};
        m_groupIndex = {};
        keyIndex = {};

        std::vector<EventBlock> blocks;
        blocks.reserve(m_groups.size());
        for (Group &g : m_groups) {
            finishSamples(g);
            blocks.push_back(std::move(g.block));
        }
        return blocks;
    }

private:
    // Runs of one program repeat the same signatures in the same order, so the signature seen at
    // this position in the previous run is checked before hashing.
    std::uint32_t internSignature(const EventSignature &sig, std::size_t position)
    {
        if (position < m_lastAtPosition.size()) {
            const std::uint32_t last = m_lastAtPosition[position];
            if (last != kNoSignature && m_signatures[last] == sig)
                return last;
        } else {
            m_lastAtPosition.resize(position + 1, kNoSignature);
        }
        const std::uint32_t id = m_signatureIndex.intern(sig, m_signatures);
        m_lastAtPosition[position] = id;
        return id;
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

    void initEvent(Event &ev, const EventSignature &sig)
    {
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

    void addRun(Group &g, std::size_t k, const RunData &run, std::int64_t profileIdx, const InstructionEvent &ie)
    {
        Event &ev = g.block.events[k];
        if (profileIdx >= 0) {
            const auto &p = run.profileEvents[static_cast<std::size_t>(profileIdx)];
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
        if (ie.debugs.empty())
            return;
        if (!g.haveDebug[k]) {
            g.haveDebug[k] = true;
            EventExtra &x = m_store->extra(ev);
            x.debugEventsPerRun = ie.debugs.size();
            x.debugData.reserve(ie.debugs.size());
            for (const std::uint32_t d : ie.debugs)
                x.debugData.push_back(run.debugEvents[d].value);
            if (profileIdx < 0)
                ev.chainIndex = static_cast<std::int64_t>(run.debugEvents[ie.debugs.front()].chainIndex);
            return;
        }
        if (ev.debugDataDiffersAcrossRuns)
            return;
        const auto &first = ev.debugData();
        bool same = ie.debugs.size() == first.size();
        for (std::size_t i = 0; same && i < ie.debugs.size(); ++i)
            same = valuesEqual(first[i], run.debugEvents[ie.debugs[i]].value);
        if (!same) {
            ev.debugDataDiffersAcrossRuns = true;
            addWarning(g.block.warnings, fmt::format(
                "debug data of event '{}' (instruction {}) differs between runs; showing the first run's",
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
        std::vector<double> byEvent;
        if (R == 1) {
            dur = m_store->adoptDoubles(std::move(g.durations));
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
            if (j == kNoSlot)
                continue;
            Event &ev = g.block.events[k];
            EventPerf &perf = perfs[j];
            perf.raw = { dur + j * R, R };
            static_cast<PerfStats &>(perf) = PerfStats::of(perf.raw);
            ev.perfData = &perf;
            ev.ticks = tick + j * 2 * R;
            if (g.anyMetadata[j])
                m_store->extra(ev).delegateDebugMetadatas.resize(R);
        }
        for (const auto &[at, id] : g.metadata) // run-major order: run at / P, slot at % P
            if (const std::uint32_t k = g.eventOfSlot[at % P]; k != kNoSlot)
                m_store->extra(g.block.events[k]).delegateDebugMetadatas[at / P] = m_file.strings.str(id);
    }

    // Value equality as the Inspector checks it: same kind and shape, equal contents. Contents are
    // compared byte-wise through the debug buffer when there is one (zeros otherwise).
    bool valuesEqual(const RuntimeValue &a, const RuntimeValue &b) const
    {
        if (a.kind != b.kind || a.tensors.size() != b.tensors.size())
            return false;
        switch (a.kind) {
        case RuntimeValue::Kind::Int: return a.intValue == b.intValue;
        case RuntimeValue::Kind::Bool: return a.boolValue == b.boolValue;
        case RuntimeValue::Kind::Float:
        case RuntimeValue::Kind::Double: return a.doubleValue == b.doubleValue;
        default: break;
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
            addWarning(g.block.warnings, "program outputs differ between the runs merged into this block; "
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
    static constexpr std::uint32_t kNoSignature = 0xffffffffu;
    std::vector<EventSignature> m_signatures;
    std::vector<std::uint32_t> m_lastAtPosition;
    SignatureTable m_signatureIndex;
    std::vector<Group> m_groups;
    std::shared_ptr<EventStore> m_store = std::make_shared<EventStore>(); // shared by all blocks
    std::vector<std::string_view> m_names; // StringPool id -> interned name
    std::unordered_map<RunSignature, std::uint32_t, RunSignatureHash> m_groupIndex;
};

} // namespace

Result<std::vector<EventBlock>> buildEventBlocks(const ETDumpFile &etdump, const InspectorOptions &options)
{
    auto scale = options.time.scaleFactor();
    if (!scale)
        return Error{scale.error().code, etdump.path, scale.error().reason};
    Builder builder(etdump, options, *scale);
    return builder.run();
}

} // namespace etscope
