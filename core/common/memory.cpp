#include "common/memory.h"

#include <cstdlib> // defines __GLIBC__ on glibc

#if defined(__GLIBC__)
#include <malloc.h>
#include <unistd.h>
#endif
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <cstdint>

namespace etscope {

void releaseFreeMemory()
{
#if defined(__GLIBC__)
    ::malloc_trim(0);
#endif
}

void adviseHugePages(void *data, std::size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::uintptr_t kHuge = std::uintptr_t(2) << 20;
    const auto begin = reinterpret_cast<std::uintptr_t>(data);
    const std::uintptr_t first = (begin + kHuge - 1) & ~(kHuge - 1), last = (begin + bytes) & ~(kHuge - 1);
    if (data && last > first)
        ::madvise(reinterpret_cast<void *>(first), last - first, MADV_HUGEPAGE); // advice: failure is harmless
#else
    (void)data;
    (void)bytes;
#endif
}

// A 1M-event ETDump allocates ~100 MB in small pieces; with 4 KiB pages a third of the load
// time went to page faults. glibc (2.35+) can back malloc with transparent huge pages, but
// reads its tunables only at start-up, hence the re-exec. Large blocks stay on the huge-page
// heap instead of getting mmap chunks of their own, which fault in 4 KiB at a time and are
// zeroed afresh whenever scratch space is reused (562k distinct events: tsv 0.30 -> 0.21 s,
// the app's load 0.50 -> 0.10 s); the builder hands its scratch space back before the model's
// statistics are allocated (releaseFreeMemory), so the peak does not grow. Harmless where
// unsupported.
void reexecWithHeapTunables(char **argv)
{
#if defined(__GLIBC__)
    if (std::getenv("GLIBC_TUNABLES") || std::getenv("ETSCOPE_NO_REEXEC"))
        return;
    ::setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=33554432", 1);
    ::setenv("ETSCOPE_NO_REEXEC", "1", 1);
    ::execv("/proc/self/exe", argv);
    ::unsetenv("GLIBC_TUNABLES"); // exec failed: carry on as we are
#else
    (void)argv;
#endif
}

} // namespace etscope
