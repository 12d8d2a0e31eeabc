#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace etscope {

// Interns strings so that millions of events share one copy of each name. Id 0 is always
// the empty string, which also stands for "absent" (the Inspector treats both alike).
class StringPool
{
public:
    using Id = std::uint32_t;
    static constexpr Id Empty = 0;

    StringPool() { intern({}); }

    Id intern(std::string_view s)
    {
        if (auto it = m_index.find(s); it != m_index.end())
            return it->second;
        const Id id = static_cast<Id>(m_strings.size());
        m_strings.emplace_back(s);
        m_index.emplace(m_strings.back(), id); // deque keeps the key's storage stable
        return id;
    }
    const std::string &str(Id id) const { return m_strings[id]; }
    std::size_t size() const { return m_strings.size(); }

private:
    std::deque<std::string> m_strings;
    std::unordered_map<std::string_view, Id> m_index;
};

} // namespace etscope
