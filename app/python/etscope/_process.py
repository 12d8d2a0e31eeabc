"""Everything the package does to the Python process rather than to one object, in one place,
each with the switch that turns it off:

- `_no_gc()`: the cyclic garbage collector is paused while a DataFrame's cells are made (millions
  of fresh lists that cannot form a cycle); always on, scoped to that call.
- `_prefetch_pandas()`: pandas is imported on a thread while the native load runs with the GIL
  released; `ETSCOPE_NO_PANDAS_PREFETCH=1` turns it off.
- The exit policy of the native module (`etscope._native`), all of it in
  app/python/native/process.cpp: a native Session freed while Python is finalizing leaves its
  recording to the operating system (freeing a million events one by one only delays the exit),
  and the module's reference to numpy.broadcast_to (the zeros for tensors without a debug buffer)
  is never released, since a static one would be released after the interpreter is gone (a crash
  at exit on Python 3.13). No switch: both act only while the interpreter ends.

A leaf module: it imports nothing of etscope, so `_inspector` and the modules it uses import it at
the top without a cycle."""

import contextlib
import gc
import os
import sys


@contextlib.contextmanager
def _no_gc():
    """Millions of fresh lists and dicts (one per cell) would run the cyclic collector over and
    over while they are made; none of them can form a cycle, so it is paused meanwhile."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


_prefetch = None  # the thread importing pandas, once started


def _prefetch_pandas():
    """Starts importing pandas on a thread, once per process, while the native load runs with the
    GIL released: nearly every script asks an Inspector for a DataFrame next, and importing pandas
    costs about as much CPU as loading a million events (docs/performance.md). The second core
    overlaps the two; `_pandas()` then finds the module imported, or waits for the import under
    Python's per-module import lock. ETSCOPE_NO_PANDAS_PREFETCH=1 turns it off (A/B benchmarks)."""
    global _prefetch
    if _prefetch is not None or "pandas" in sys.modules or os.environ.get("ETSCOPE_NO_PANDAS_PREFETCH"):
        return
    import atexit
    import threading

    def run():
        try:
            import pandas  # noqa: F401
        except Exception:  # reported by _pandas() when a DataFrame is asked for
            pass

    _prefetch = threading.Thread(target=run, name="etscope-pandas-prefetch", daemon=True)
    _prefetch.start()
    atexit.register(_prefetch.join)  # never leave an import half done at interpreter exit


def _pandas():
    try:
        import pandas
    except ImportError as e:  # pragma: no cover - pandas is a Depends of the package
        raise ImportError("this method returns a pandas DataFrame; install python3-pandas") from e
    return pandas
