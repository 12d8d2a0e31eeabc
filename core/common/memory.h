#pragma once

#include <cstddef>

namespace etscope {

// Returns the allocator's free pages to the system (glibc's malloc_trim; no-op elsewhere).
// Called where a large scratch space has just been freed and a large result is about to be
// allocated, so that the peak is the larger of the two, not their sum.
void releaseFreeMemory();

// Asks for transparent huge pages behind [data, data + bytes) (madvise MADV_HUGEPAGE on the
// 2 MiB-aligned part inside it), before it is first written: one fault then zeroes 2 MiB instead
// of 512 faults zeroing 4 KiB each. Meant for large fresh buffers in a process whose heap is not
// huge-paged already (a Python process: the re-exec below serves etscope's own programs only).
// Matters where the system grants huge pages on request (THP "madvise", Debian's default); a
// no-op for a buffer holding no whole aligned 2 MiB page, where THP is "never", and off Linux.
void adviseHugePages(void *data, std::size_t bytes);

// Re-executes the program once with glibc malloc tunables that suit loading large profiles,
// unless the user set GLIBC_TUNABLES or ETSCOPE_NO_REEXEC (set ETSCOPE_NO_REEXEC=1 to debug or
// profile the process you started: gdb, perf, valgrind). Off glibc (macOS, Windows, musl) it
// does nothing. Call first thing in main().
void reexecWithHeapTunables(char **argv);

} // namespace etscope
