"""Time units (upstream's TimeScale and the factors between them) and run ranges of a scope: a
leaf module (no etscope imports), so every other module can use it at import time."""

from enum import Enum

__all__ = ["TimeScale"]


class TimeScale(Enum):
    """Units of the ETDump's timestamps and of the durations shown (upstream's members)."""

    NS = "ns"
    US = "us"
    MS = "ms"
    S = "s"
    CYCLES = "cycles"


_TIME_FACTOR = {"ns": 1e9, "us": 1e6, "ms": 1e3, "s": 1, "cycles": 1}
_SCALES = {t.value: t for t in TimeScale}


def _scale_value(s) -> str:
    if isinstance(s, TimeScale):
        return s.value
    if isinstance(s, str) and s.lower() in _TIME_FACTOR:
        return s.lower()
    raise ValueError(f"unknown time scale {s!r}; one of {[t.value for t in TimeScale]}")


def _run_range(runs):
    """runs= of a scope: "N-M", "N", or a (first, last) pair (inclusive, counted from 0)."""
    if runs is None:
        return ""
    if isinstance(runs, str):
        return runs
    if isinstance(runs, int):
        return str(runs)
    first, last = runs
    return f"{'' if first is None else first}-{'' if last is None else last}"
