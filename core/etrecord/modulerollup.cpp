#include "etrecord/modulerollup.h"

#include "etrecord/modulestack.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace etscope {

namespace {

bool samePath(const std::vector<ModuleFrame> &a, const std::vector<ModuleFrame> &b)
{
    return a.size() == b.size()
        && std::equal(a.begin(), a.end(), b.begin(), [](const auto &x, const auto &y) { return x.key == y.key; });
}

// Longest common prefix (by module key).
void commonPrefix(std::vector<ModuleFrame> &acc, const std::vector<ModuleFrame> &p)
{
    std::size_t i = 0;
    while (i < acc.size() && i < p.size() && acc[i].key == p[i].key)
        ++i;
    acc.resize(i);
}

} // namespace

std::string modulePathText(const std::vector<ModuleFrame> &path)
{
    if (path.empty())
        return moduleDisplayName({}); // "(model)", as the table and the graph name the root
    const std::string d = normalizeModulePath(path.back().path);
    return d.empty() ? path.back().key : d;
}

std::string callLabel(const Event &e)
{
    if (e.name == kDelegateCall && e.delegateBackendName())
        return fmt::format("{} ({}, instruction {})", e.name, *e.delegateBackendName(), e.instructionId);
    return fmt::format("{} (instruction {})", e.name, e.instructionId);
}

std::vector<ModuleAttribution> attributeToModules(const std::vector<EventBlock> &blocks)
{
    std::vector<ModuleAttribution> out;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        const auto &events = blocks[b].events;
        // A DELEGATE_CALL and the delegate-internal events it logged share chain and instruction.
        std::map<std::pair<std::int64_t, std::int32_t>, std::size_t> callAt; // -> index in out
        std::vector<std::pair<std::size_t, double>> internal; // (event, avg) of linked internal events
        for (std::size_t i = 0; i < events.size(); ++i) {
            const Event &e = events[i];
            if (e.name == kOperatorCall || e.isFramework())
                continue;
            ModuleAttribution a;
            a.block = b;
            a.event = i;
            bool anyModule = false;
            for (const LinkedNode &n : e.linkedNodes()) {
                static const std::vector<ModuleFrame> none;
                const std::vector<ModuleFrame> &p = n.moduleStack ? *n.moduleStack : none;
                anyModule = anyModule || !p.empty();
                if (std::none_of(a.touched.begin(), a.touched.end(), [&](const auto &t) { return samePath(t, p); }))
                    a.touched.push_back(p);
            }
            if (a.touched.empty())
                continue;
            a.inModule = anyModule;
            a.home = a.touched.front();
            for (const auto &t : a.touched)
                commonPrefix(a.home, t);
            a.spanning = a.touched.size() > 1;
            if (e.perfData) {
                a.time = e.perfData->avg;
                a.hasTime = true;
            }
            if (e.name == kDelegateCall)
                callAt.emplace(std::make_pair(e.chainIndex, e.instructionId), out.size());
            if (e.isDelegatedOp && a.hasTime)
                internal.emplace_back(i, a.time);
            out.push_back(std::move(a));
        }
        for (const auto &[i, avg] : internal) {
            const Event &e = events[i];
            if (auto it = callAt.find({ e.chainIndex, e.instructionId }); it != callAt.end())
                out[it->second].time = std::max(0.0, out[it->second].time - avg);
        }
    }
    return out;
}

const ModuleRollupNode *ModuleRollupNode::find(const std::string &k) const
{
    if (key == k)
        return this;
    for (const ModuleRollupNode &c : children)
        if (const ModuleRollupNode *f = c.find(k))
            return f;
    return nullptr;
}

ModuleRollupNode buildModuleRollup(const std::vector<EventBlock> &blocks)
{
    ModuleRollupNode root;
    const std::vector<ModuleAttribution> all = attributeToModules(blocks);
    // First grow the tree (this may move children), then credit by walking it again.
    auto walk = [&root](const std::vector<ModuleFrame> &path, bool grow, auto &&visit) {
        ModuleRollupNode *at = &root;
        visit(*at);
        for (const ModuleFrame &f : path) {
            ModuleRollupNode *next = nullptr;
            for (ModuleRollupNode &c : at->children)
                if (c.key == f.key) {
                    next = &c;
                    break;
                }
            if (!next) {
                if (!grow)
                    return;
                ModuleRollupNode child;
                child.key = f.key;
                child.path = f.path;
                child.displayPath = moduleDisplayName(f.path); // "(model)" for a root frame, never blank
                child.type = f.type;
                at->children.push_back(std::move(child));
                next = &at->children.back();
            }
            at = next;
            visit(*at);
        }
    };
    for (const ModuleAttribution &a : all)
        for (const auto &t : a.touched)
            walk(t, true, [](ModuleRollupNode &) {});
    for (const ModuleAttribution &a : all) {
        if (!a.hasTime || !a.inModule)
            continue;
        const Event &e = blocks[a.block].events[a.event];
        ModuleRollupNode *home = nullptr;
        walk(a.home, false, [&](ModuleRollupNode &n) {
            n.total += a.time;
            ++n.eventCount;
            home = &n;
        });
        if (!a.spanning || !home)
            continue;
        SpanningCall call { callLabel(e), a.time, {} };
        bool ownOps = false; // some nodes sit in the home module itself: listed last
        for (const auto &t : a.touched) {
            if (t.size() == a.home.size())
                ownOps = true;
            else
                call.modules.push_back(modulePathText(t));
        }
        if (ownOps)
            call.modules.push_back(modulePathText(a.home));
        home->spanning.push_back(std::move(call));
        // The modules below the home that ran part of the call: each once.
        std::vector<const ModuleRollupNode *> credited;
        const std::string at = modulePathText(a.home);
        for (const auto &t : a.touched) {
            std::size_t depth = 0;
            walk(t, false, [&](ModuleRollupNode &n) {
                if (depth++ <= a.home.size() || std::find(credited.begin(), credited.end(), &n) != credited.end())
                    return;
                credited.push_back(&n);
                n.sharedTotal += a.time;
                ++n.sharedCount;
                if (n.sharedAt.empty())
                    n.sharedAt = at;
                else if (n.sharedAt != at && !n.sharedAt.starts_with(at + ", ")
                    && n.sharedAt.find(", " + at) == std::string::npos)
                    n.sharedAt += ", " + at;
            });
        }
    }
    return root;
}

} // namespace etscope
