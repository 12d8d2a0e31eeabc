#pragma once

// One loop over independent items on a few threads: workers take the next index until none is
// left, so a slow item does not hold up the others. fn(i) must not throw.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace etscope {

// Calls fn(i) for i in [0, count) on up to `threads` threads (0: all cores), the caller's among them.
template <typename Fn> void forEachIndex(std::size_t count, unsigned threads, Fn &&fn)
{
    unsigned n = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
    n = static_cast<unsigned>(std::min<std::size_t>(n, count));
    std::atomic<std::size_t> next { 0 };
    auto work = [&] {
        for (std::size_t i; (i = next.fetch_add(1)) < count;)
            fn(i);
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < n; ++t)
        pool.emplace_back(work);
    work();
    for (auto &t : pool)
        t.join();
}

} // namespace etscope
