#include "etrecord/modulerollup.h"

#include "etrecord/modulestack.h"

#include <unordered_set>

namespace etscope {

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
    for (const EventBlock &b : blocks)
        for (const Event &e : b.events) {
            if (e.name == kOperatorCall)
                continue;
            // First grow the tree (this may move children), then credit by walking it again.
            bool any = false;
            for (const LinkedNode &n : e.linkedNodes()) {
                if (!n.moduleStack || n.moduleStack->empty())
                    continue;
                any = true;
                ModuleRollupNode *at = &root;
                for (const ModuleFrame &f : *n.moduleStack) {
                    ModuleRollupNode *next = nullptr;
                    for (ModuleRollupNode &c : at->children)
                        if (c.key == f.key) {
                            next = &c;
                            break;
                        }
                    if (!next) {
                        ModuleRollupNode child;
                        child.key = f.key;
                        child.path = f.path;
                        child.displayPath = normalizeModulePath(f.path);
                        child.type = f.type;
                        at->children.push_back(std::move(child));
                        next = &at->children.back();
                    }
                    at = next;
                }
            }
            if (!any || !e.perfData)
                continue;
            std::unordered_set<const ModuleRollupNode *> done;
            auto credit = [&](ModuleRollupNode &node) {
                if (done.insert(&node).second) {
                    node.total += e.perfData->avg;
                    ++node.eventCount;
                }
            };
            credit(root);
            for (const LinkedNode &n : e.linkedNodes()) {
                if (!n.moduleStack)
                    continue;
                ModuleRollupNode *at = &root;
                for (const ModuleFrame &f : *n.moduleStack) {
                    for (ModuleRollupNode &c : at->children)
                        if (c.key == f.key) {
                            at = &c;
                            break;
                        }
                    credit(*at);
                }
            }
        }
    return root;
}

} // namespace etscope
