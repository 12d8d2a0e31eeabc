#include "common/pathnames.h"

#include <algorithm>

namespace etscope {

namespace {

std::vector<std::string> components(std::string p)
{
    std::replace(p.begin(), p.end(), '\\', '/');
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= p.size()) {
        const std::size_t end = std::min(p.find('/', start), p.size());
        if (end > start)
            out.push_back(p.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

// The last `n` components joined with '/'.
std::string tail(const std::vector<std::string> &c, std::size_t n)
{
    std::string s;
    for (std::size_t i = c.size() - std::min(n, c.size()); i < c.size(); ++i)
        s += (s.empty() ? "" : "/") + c[i];
    return s;
}

} // namespace

std::vector<std::string> distinguishingNames(const std::vector<std::string> &paths)
{
    std::vector<std::vector<std::string>> parts;
    parts.reserve(paths.size());
    for (const std::string &p : paths)
        parts.push_back(components(p));
    std::vector<std::string> out(paths.size());
    for (std::size_t i = 0; i < paths.size(); ++i) {
        const auto &mine = parts[i];
        std::size_t n = 1;
        for (; n < mine.size(); ++n) {
            // Unique once no *different* path shares the last n components.
            const bool clash = std::any_of(parts.begin(), parts.end(), [&](const std::vector<std::string> &other) {
                return other != mine && other.size() >= n && tail(other, n) == tail(mine, n);
            });
            if (!clash)
                break;
        }
        out[i] = tail(mine, n);
    }
    return out;
}

} // namespace etscope
