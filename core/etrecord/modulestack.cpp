#include "etrecord/modulestack.h"

#include <string>

namespace etscope {

namespace {
// Splits on `sep` at nesting depth 0, outside quotes.
std::vector<std::string_view> splitTopLevel(std::string_view s, char sep)
{
    std::vector<std::string_view> parts;
    int depth = 0;
    char quote = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (quote) {
            if (c == '\\')
                ++i;
            else if (c == quote)
                quote = 0;
            continue;
        }
        if (c == '\'' || c == '"')
            quote = c;
        else if (c == '(' || c == '[' || c == '{')
            ++depth;
        else if ((c == ')' || c == ']' || c == '}') && depth > 0)
            --depth;
        else if (c == sep && depth == 0) {
            parts.push_back(s.substr(start, i - start));
            start = i + 1;
        }
    }
    parts.push_back(s.substr(start));
    return parts;
}
} // namespace

std::vector<ModuleFrame> decodeModuleStack(std::string_view text)
{
    std::vector<ModuleFrame> frames;
    if (text.empty())
        return frames;
    for (std::string_view entry : splitTopLevel(text, ';')) {
        if (entry.empty())
            continue;
        // key has no commas; type is the last top-level field; the path is everything between.
        ModuleFrame f;
        const auto fields = splitTopLevel(entry, ',');
        f.key = std::string(fields.front());
        if (fields.size() >= 3) {
            const std::size_t pathStart = fields[0].size() + 1;
            const std::size_t typeLen = fields.back().size();
            f.path = std::string(entry.substr(pathStart, entry.size() - pathStart - typeLen - 1));
            f.type = std::string(fields.back());
        } else if (fields.size() == 2) {
            f.path = std::string(fields[1]);
        }
        bool replaced = false;
        for (ModuleFrame &g : frames)
            if (g.key == f.key) {
                g = f;
                replaced = true;
                break;
            }
        if (!replaced)
            frames.push_back(std::move(f));
    }
    return frames;
}

std::string normalizeModulePath(std::string_view path)
{
    // Rewrite getattr(X, 'n') as X.n, innermost first, then drop the L['self']. / self. roots.
    std::string s(path);
    for (;;) {
        const std::size_t g = s.rfind("getattr(");
        if (g == std::string::npos)
            break;
        const std::size_t close = s.find(')', g);
        const std::size_t comma = s.find(", ", g);
        if (close == std::string::npos || comma == std::string::npos || comma > close)
            break;
        std::string inner = s.substr(g + 8, comma - g - 8);
        std::string attr = s.substr(comma + 2, close - comma - 2);
        if (attr.size() >= 2 && (attr.front() == '\'' || attr.front() == '"'))
            attr = attr.substr(1, attr.size() - 2);
        s = s.substr(0, g) + inner + "." + attr + s.substr(close + 1);
    }
    for (std::string_view root : { "L['self'].", "L[\"self\"].", "self." })
        if (s.starts_with(root))
            s.erase(0, root.size());
    if (s == "L['self']" || s == "self")
        s.clear();
    return s;
}

std::string moduleDisplayName(std::string_view path)
{
    std::string s = normalizeModulePath(path);
    return s.empty() ? std::string("(model)") : s;
}

} // namespace etscope
