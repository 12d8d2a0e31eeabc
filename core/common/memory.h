#pragma once

#include <cstddef>

namespace etscope {

// Returns the allocator's free pages to the system (glibc's malloc_trim; no-op elsewhere).
// Called where a large scratch space has just been freed and a large result is about to be
// allocated, so that the peak is the larger of the two, not their sum.
void releaseFreeMemory();

// Asks for transparent huge pages behind [data, data + bytes) (madvise MADV_HUGEPAGE on the
// 2 MiB-aligned part inside it), before it is first written: one fault then zeroes 2 MiB instead
// of 512 faults zeroing 4 KiB each. For large buffers this process allocates fresh where the
// heap is not already huge-paged (a Python process: the re-exec below is the programs' only).
// No-op for small buffers, where the system only grants huge pages on request (THP "madvise")
// or never, and off Linux.
void adviseHugePages(void *data, std::size_t bytes);

// Re-executes the program once with glibc malloc tunables that suit loading large profiles,
// unless the user set GLIBC_TUNABLES or ETSCOPE_NO_REEXEC (set ETSCOPE_NO_REEXEC=1 to debug or
// profile the process you started: gdb, perf, valgrind). Off glibc (macOS, Windows, musl) it
// does nothing. Call first thing in main().
void reexecWithHeapTunables(char **argv);

} // namespace etscope
