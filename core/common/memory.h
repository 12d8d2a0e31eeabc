#pragma once

namespace etscope {

// Returns the allocator's free pages to the system (glibc's malloc_trim; no-op elsewhere).
// Called where a large scratch space has just been freed and a large result is about to be
// allocated, so that the peak is the larger of the two, not their sum.
void releaseFreeMemory();

// Re-executes the program once with glibc malloc tunables that suit loading large profiles,
// unless the user set GLIBC_TUNABLES or ETSCOPE_NO_REEXEC (set ETSCOPE_NO_REEXEC=1 to debug or
// profile the process you started: gdb, perf, valgrind). Off glibc (macOS, Windows, musl) it
// does nothing. Call first thing in main().
void reexecWithHeapTunables(char **argv);

} // namespace etscope
