#include "program/memoryplan.h"

#include "common/printable.h"
#include "etdump/etdumpfile.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <map>

namespace etscope {

namespace {

// Backward JumpFalses, merged where they overlap: a tensor that meets one must stay live over
// the merged range (an iteration may come back to any instruction of it).
std::vector<ProgramLoop> programLoops(const ProgramMethod &method, std::size_t n)
{
    std::vector<ProgramLoop> loops;
    for (std::size_t k = 0; k < n; ++k) {
        const ProgramInstruction ins = method.instruction(k);
        if (ins.kind == InstructionKind::JumpFalse && std::size_t(ins.destination) <= k)
            loops.push_back({ ins.destination, std::int32_t(k) });
    }
    std::sort(loops.begin(), loops.end(), [](const ProgramLoop &a, const ProgramLoop &b) { return a.begin < b.begin; });
    std::vector<ProgramLoop> merged;
    for (const ProgramLoop &l : loops) {
        if (!merged.empty() && l.begin <= merged.back().end)
            merged.back().end = std::max(merged.back().end, l.end);
        else
            merged.push_back(l);
    }
    return merged;
}

void widenOverLoops(PlannedTensor &t, const std::vector<ProgramLoop> &loops)
{
    if (t.first < 0 || loops.empty())
        return;
    // Loops are disjoint and sorted: visit those that end at or after the tensor's start.
    auto it = std::lower_bound(
        loops.begin(), loops.end(), t.first, [](const ProgramLoop &l, std::int32_t first) { return l.end < first; });
    const std::int32_t originalLast = t.last;
    for (; it != loops.end() && it->begin <= originalLast; ++it) {
        t.first = std::min(t.first, it->begin);
        t.last = std::max(t.last, it->end);
    }
}

// Marks tensors whose bytes overlap another's, and those that share nothing although some
// tensor of the same arena is never live at the same time.
void findSharing(std::vector<PlannedTensor> &tensors)
{
    std::map<std::uint32_t, std::vector<std::size_t>> byArena;
    for (std::size_t i = 0; i < tensors.size(); ++i)
        if (tensors[i].nbytes > 0)
            byArena[tensors[i].arena].push_back(i);
    for (auto &[arena, idx] : byArena) {
        std::sort(idx.begin(), idx.end(),
            [&tensors](std::size_t a, std::size_t b) { return tensors[a].offset < tensors[b].offset; });
        std::uint64_t maxEnd = 0;
        for (std::size_t k = 0; k < idx.size(); ++k) {
            PlannedTensor &t = tensors[idx[k]];
            if (k > 0 && t.offset < maxEnd)
                t.sharesMemory = true; // overlaps an earlier one
            if (k + 1 < idx.size() && tensors[idx[k + 1]].offset < t.offset + t.nbytes)
                t.sharesMemory = true; // overlaps the next one
            maxEnd = std::max(maxEnd, t.offset + t.nbytes);
        }
        // Some tensor is never live with t when one ends before t starts or starts after t ends.
        std::int32_t minLast = INT32_MAX, maxFirst = INT32_MIN;
        std::size_t used = 0;
        for (std::size_t i : idx)
            if (tensors[i].first >= 0) {
                minLast = std::min(minLast, tensors[i].last);
                maxFirst = std::max(maxFirst, tensors[i].first);
                ++used;
            }
        for (std::size_t i : idx) {
            PlannedTensor &t = tensors[i];
            if (t.sharesMemory || t.first < 0 || used < 2)
                continue;
            t.couldShare = minLast < t.first || maxFirst > t.last;
        }
    }
}

} // namespace

const PlannedTensor *MemoryPlan::tensorOfValue(std::int32_t value) const
{
    auto it = std::lower_bound(
        tensors.begin(), tensors.end(), value, [](const PlannedTensor &t, std::int32_t v) { return t.value < v; });
    return it != tensors.end() && it->value == value ? &*it : nullptr;
}

MemoryPlan analyzeMemoryPlan(const ProgramMethod &method)
{
    MemoryPlan plan;
    plan.method = method.name();
    const std::size_t n = method.instructionCount();
    plan.instructionCount = n;
    plan.externalTensors = method.externalCount();
    plan.externalBytes = method.externalBytes();
    const auto &sizes = method.arenaSizes();
    for (std::size_t id = 1; id < sizes.size(); ++id) {
        plan.arenas.push_back({ std::uint32_t(id), std::uint64_t(sizes[id]), 0, -1, 0, method.arenaDevices()[id] });
        plan.plannedBytes += std::uint64_t(sizes[id]);
    }

    const std::size_t nValues = method.valueCount();
    std::vector<std::int32_t> slot(nValues, -1); // value -> index into plan.tensors
    for (std::size_t v = 0; v < nValues; ++v) {
        const ProgramValue pv = method.value(v);
        if (pv.kind != ProgramValueKind::Tensor)
            continue;
        if (pv.tensor.isPlanned()) {
            slot[v] = std::int32_t(plan.tensors.size());
            PlannedTensor t;
            t.value = std::int32_t(v);
            t.arena = pv.tensor.arena;
            t.offset = pv.tensor.offset;
            t.nbytes = pv.tensor.nbytes;
            t.external = pv.tensor.external;
            t.device = pv.tensor.device;
            plan.tensors.push_back(t);
        } else if (pv.tensor.isConstant()) {
            ++plan.constantTensors;
        } else {
            ++plan.unplannedTensors;
        }
    }

    auto touch = [&](std::int32_t v, std::int32_t k) {
        const std::int32_t s = slot[std::size_t(v)];
        if (s < 0)
            return;
        PlannedTensor &t = plan.tensors[std::size_t(s)];
        if (t.first < 0)
            t.first = k;
        t.last = k;
    };
    for (std::size_t k = 0; k < n; ++k) {
        const ProgramInstruction ins = method.instruction(k);
        for (std::int32_t v : ins.valuesUsed()) {
            touch(v, std::int32_t(k));
            const ProgramValue pv = method.value(std::size_t(v));
            for (std::int32_t item : pv.valueIndices) // tensor lists name their tensors
                if (item >= 0)
                    touch(item, std::int32_t(k));
        }
    }
    if (n > 0) {
        for (std::int32_t v : method.inputs())
            if (const std::int32_t s = slot[std::size_t(v)]; s >= 0) {
                PlannedTensor &t = plan.tensors[std::size_t(s)];
                t.isInput = true;
                t.last = std::max(t.last, 0);
                t.first = 0;
            }
        for (std::int32_t v : method.outputs())
            if (const std::int32_t s = slot[std::size_t(v)]; s >= 0) {
                PlannedTensor &t = plan.tensors[std::size_t(s)];
                t.isOutput = true;
                if (t.first < 0)
                    t.first = std::int32_t(n - 1);
                t.last = std::int32_t(n - 1);
            }
    }
    plan.loops = programLoops(method, n);
    for (PlannedTensor &t : plan.tensors)
        widenOverLoops(t, plan.loops);
    findSharing(plan.tensors);

    // Live bytes per instruction, total and per arena, from +nbytes at first / −nbytes after last.
    std::vector<std::int64_t> delta(n + 1, 0);
    std::map<std::uint32_t, std::vector<std::int64_t>> arenaDelta;
    for (const PlannedTensor &t : plan.tensors) {
        if (t.first < 0)
            continue;
        delta[std::size_t(t.first)] += std::int64_t(t.nbytes);
        delta[std::size_t(t.last) + 1] -= std::int64_t(t.nbytes);
        auto &ad = arenaDelta[t.arena];
        if (ad.empty())
            ad.assign(n + 1, 0);
        ad[std::size_t(t.first)] += std::int64_t(t.nbytes);
        ad[std::size_t(t.last) + 1] -= std::int64_t(t.nbytes);
    }
    plan.liveBytes.resize(n);
    std::int64_t live = 0;
    for (std::size_t k = 0; k < n; ++k) {
        live += delta[k];
        plan.liveBytes[k] = std::uint64_t(live);
        if (plan.peakInstruction < 0 || plan.liveBytes[k] > plan.peakLiveBytes) {
            plan.peakLiveBytes = plan.liveBytes[k];
            plan.peakInstruction = std::int32_t(k);
        }
    }
    for (ArenaUsage &a : plan.arenas) {
        auto it = arenaDelta.find(a.id);
        if (it != arenaDelta.end()) {
            std::int64_t al = 0;
            for (std::size_t k = 0; k < n; ++k) {
                al += it->second[k];
                if (a.peakInstruction < 0 || std::uint64_t(al) > a.peakLiveBytes) {
                    a.peakLiveBytes = std::uint64_t(al);
                    a.peakInstruction = std::int32_t(k);
                }
            }
        }
        a.wastedBytes = a.size > a.peakLiveBytes ? a.size - a.peakLiveBytes : 0;
    }
    plan.wastedBytes = plan.plannedBytes > plan.peakLiveBytes ? plan.plannedBytes - plan.peakLiveBytes : 0;
    for (std::size_t i = 0; i < plan.tensors.size(); ++i) {
        const PlannedTensor &t = plan.tensors[i];
        if (t.isLive(plan.peakInstruction))
            plan.liveAtPeak.push_back(i);
        plan.sharingTensors += t.sharesMemory;
        plan.couldShareTensors += t.couldShare;
    }
    return plan;
}

std::vector<AllocatorUsage> allocatorUsage(const ETDumpFile &etdump)
{
    std::vector<AllocatorUsage> out;
    for (std::size_t r = 0; r < etdump.runs.size(); ++r) {
        const RunData &run = etdump.runs[r];
        if (run.allocationEvents.empty())
            continue;
        const std::size_t base = out.size();
        for (const std::string &name : run.allocators)
            out.push_back({ r, run.name, name });
        for (const AllocationEventRecord &a : run.allocationEvents) {
            const std::size_t id = std::size_t(a.allocatorId);
            if (id == 0 || id > run.allocators.size())
                continue; // names no allocator of the run: nothing to attribute it to
            AllocatorUsage &u = out[base + id - 1];
            ++u.count;
            u.totalBytes += a.allocationSize;
            u.largestBytes = std::max(u.largestBytes, a.allocationSize);
        }
    }
    return out;
}

namespace {

// Why the ETDump's operator-level events do not fit this method, or empty when they do.
std::string mismatch(const ProgramMethod &m, const ETDumpFile &etdump, std::size_t &checked)
{
    checked = 0;
    const std::size_t n = m.instructionCount();
    for (const RunData &run : etdump.runs)
        for (const ProfileEventRecord &e : run.profileEvents) {
            if (e.chainIndex < 0)
                continue; // method-level events (Method::execute, …)
            const std::string &name = etdump.strings.str(e.name);
            const bool delegated = e.delegateDebugIdInt != -1 || e.delegateDebugIdStr != 0;
            if (e.chainIndex != 0 || e.instructionId < 0 || std::size_t(e.instructionId) >= n)
                return fmt::format("event '{}' is at chain {} instruction {} but method '{}' has {} instructions",
                    printable(name, 60), e.chainIndex, e.instructionId, printable(m.name(), 60), n);
            const ProgramInstruction ins = m.instruction(std::size_t(e.instructionId));
            ++checked;
            auto expect = [&](InstructionKind kind) -> std::string {
                if (ins.kind == kind)
                    return {};
                return fmt::format("event '{}' at instruction {} but the program has a {} there ({})",
                    printable(name, 60), e.instructionId, instructionKindName(ins.kind),
                    printable(m.instructionLabel(std::size_t(e.instructionId)), 60));
            };
            std::string why;
            if (delegated || name == "DELEGATE_CALL")
                why = expect(InstructionKind::DelegateCall);
            else if (name == "OPERATOR_CALL")
                why = expect(InstructionKind::KernelCall);
            else if (name == "JF_CALL")
                why = expect(InstructionKind::JumpFalse);
            else if (name == "MOVE_CALL")
                why = expect(InstructionKind::Move);
            else if (name == "FREE_CALL")
                why = expect(InstructionKind::Free);
            else if (name.starts_with("native_call_")) {
                why = expect(InstructionKind::KernelCall);
                if (why.empty()) {
                    const std::string kernel = m.operators()[std::size_t(ins.operatorIndex)].kernelName();
                    if (name.compare(12, std::string::npos, kernel) != 0)
                        why = fmt::format("kernel '{}' at instruction {} but the program calls {} there",
                            printable(name, 60), e.instructionId, kernel);
                }
            }
            if (!why.empty())
                return why;
        }
    return {};
}

} // namespace

ProgramPairing pairProgramWithETDump(const Program &program, const ETDumpFile &etdump)
{
    ProgramPairing p;
    if (program.methods().empty()) {
        p.reason = "the program has no methods";
        return p;
    }
    for (const ProgramMethod &m : program.methods()) {
        std::size_t checked = 0;
        std::string why = mismatch(m, etdump, checked);
        if (why.empty()) {
            if (checked == 0) {
                p.reason = "the ETDump has no instruction events to compare";
                return p;
            }
            p.method = &m;
            p.checkedEvents = checked;
            p.reason.clear();
            return p;
        }
        if (p.reason.empty())
            p.reason = std::move(why);
    }
    return p;
}

std::vector<std::pair<std::string, std::string>> instructionDetails(const ProgramMethod &m, std::size_t k)
{
    std::vector<std::pair<std::string, std::string>> rows;
    if (k >= m.instructionCount())
        return rows;
    const ProgramInstruction ins = m.instruction(k);
    rows.emplace_back("instruction", fmt::format("{} ({})", k, instructionKindName(ins.kind)));
    if (ins.kind == InstructionKind::KernelCall && ins.operatorIndex >= 0
        && std::size_t(ins.operatorIndex) < m.operators().size()) {
        const ProgramOperator &op = m.operators()[std::size_t(ins.operatorIndex)];
        rows.emplace_back("operator", op.name);
        rows.emplace_back("overload", op.overload);
    } else if (ins.kind == InstructionKind::DelegateCall) {
        rows.emplace_back("backend", m.instructionLabel(k));
    }
    const auto values = ins.valuesUsed();
    for (std::size_t i = 0; i < values.size(); ++i)
        rows.emplace_back(fmt::format("argument {}", i),
            fmt::format("%{} {}", values[i], describeValueWithPlace(m.value(std::size_t(values[i])))));
    return rows;
}

} // namespace etscope
