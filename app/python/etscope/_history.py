"""History of many recordings: per-operator p50 series ordered by label and their change points
(E-divisive means with a permutation test; docs/history.md). The work is native
(core/analysis/history.h); this turns its JSON into DataFrames."""

import collections
import json
import os
import warnings

from . import _native
from ._process import _pandas

HistoryResult = collections.namedtuple("HistoryResult", ["frame", "change_points"])

_CHANGE_COLUMNS = [
    "name", "program", "index", "label", "file", "label_before", "file_before", "before", "before_ci95",
    "after", "after_ci95", "change_percent", "p", "qhat", "permutations", "text",
]


def _labels(labels):
    """labels: None, a CSV path (file,label[,order]), or a mapping / sequence of pairs file -> label
    (history order = the mapping's order)."""
    if labels is None:
        return "", []
    if isinstance(labels, (str, os.PathLike)):
        return os.fspath(labels), []
    items = labels.items() if hasattr(labels, "items") else labels
    return "", [(os.fspath(f), str(l), float(i)) for i, (f, l) in enumerate(items)]


def history(paths, labels=None, by="operator", alpha=0.001, permutations=999, min_segment=3, seed=None,
            jobs=0, source_time_scale="ns", target_time_scale="ms"):
    """The history of many recordings of one program.

    paths: ETDump files, directories (searched for *.etdp) or globs (one or a list).
    Returns HistoryResult(frame, change_points): `frame` has one row per (recording, series) —
    index, label, file, program, series, p10, p50, p90 (in target_time_scale) — in history
    order; `change_points` one row per significant change (name, index of the first recording
    after it, label, before/after means with 95 % CI half-widths, change_percent, p, ...).
    Recordings that cannot be read, recordings of several programs, unlabelled recordings:
    warnings.warn."""
    pd = _pandas()
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    csv, pairs = _labels(labels)
    doc = json.loads(_native.history([os.fspath(p) for p in paths], csv, pairs, by, alpha, permutations, min_segment,
                                     seed, jobs, source_time_scale, target_time_scale))
    for line in doc["errors"] + doc["warnings"]:
        warnings.warn(line, stacklevel=2)
    recs = doc["recordings"]
    by_program = collections.defaultdict(list)
    for r in recs:
        by_program[r["program"]].append(r)
    rows = []
    for s in doc["series"]:
        for r, p10, p50, p90 in zip(by_program[s["program"]], s["p10"], s["p50"], s["p90"]):
            rows.append((r["index"], r["label"], r["file"], r["program"], s["name"], p10, p50, p90))
    frame = pd.DataFrame(rows, columns=["index", "label", "file", "program", "series", "p10", "p50", "p90"])
    frame = frame.sort_values(["index"], kind="stable").reset_index(drop=True)
    frame.attrs["unit"] = doc["unit"]
    changes = pd.DataFrame([{k: c[k] for k in _CHANGE_COLUMNS} for c in doc["change_points"]], columns=_CHANGE_COLUMNS)
    changes.attrs["unit"] = doc["unit"]
    changes.attrs["method"] = doc["method"]
    return HistoryResult(frame, changes)
