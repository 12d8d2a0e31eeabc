"""Many recordings: one row per (file, block, event, occurrence), picklable per-file results,
and pooled statistics (per key the runs of every file, then numpy's percentiles)."""

import os

from . import _native
from ._process import _pandas
from ._units import _scale_value

_COLUMNS = [
    "file",
    "block_index",
    "block",
    "event",
    "occurrence",
    "instruction_id",
    "op_types",
    "unit",
    "runs",
    "min",
    "p10",
    "p50",
    "p90",
    "max",
    "avg",
    "delegated",
    "delegate_debug_id",
    "delegate_backend",
    "module",
    "raw",
]


def read_recording(etdump, debug_buffer="", etrecord=None, source_time_scale="ns", target_time_scale="ms"):
    """One recording summarised as a plain dict (picklable: ship it through any pool or
    scheduler). A file that cannot be read has `error` set and no events."""

    return _native.summarize_recording(
        os.fspath(etdump),
        debug_buffer or "",
        os.fspath(etrecord) if etrecord else "",
        _scale_value(source_time_scale),
        _scale_value(target_time_scale),
    )


def _stats(raw):
    import numpy as np

    a = np.asarray(raw, dtype=float)
    return {
        "runs": len(raw),
        "min": float(min(raw)),
        "p10": float(np.percentile(a, 10)),
        "p50": float(np.percentile(a, 50)),
        "p90": float(np.percentile(a, 90)),
        "max": float(max(raw)),
        "avg": float(np.mean(a)),
    }


def _rows(summary):
    for e in summary["events"]:
        row = {"file": summary["file"], "unit": summary["unit"], **e}
        if e["raw"] is not None:
            row.update(_stats(e["raw"]))
        else:
            row.update(runs=0, min=None, p10=None, p50=None, p90=None, max=None, avg=None)
        yield row


def read_recordings(paths_or_globs, jobs=None, etrecord=None, source_time_scale="ns", target_time_scale="ms"):
    """Files, directories (searched for *.etdp) and globs → a DataFrame with one row per (file,
    block, event, occurrence): the `--format jsonl` columns plus `raw` (per-run durations).
    Files are read on `jobs` threads (the core releases the GIL). Files that cannot be read are
    listed in df.attrs["errors"]."""

    _pandas()  # before any file is read: without pandas, the ImportError comes first
    if isinstance(paths_or_globs, (str, os.PathLike)):
        paths_or_globs = [paths_or_globs]
    inputs = _native.expand_recordings([os.fspath(p) for p in paths_or_globs])
    from concurrent.futures import ThreadPoolExecutor  # here: `import etscope` stays light

    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        summaries = list(
            pool.map(lambda fb: read_recording(fb[0], fb[1], etrecord, source_time_scale, target_time_scale), inputs)
        )
    return recordings_dataframe(summaries)


def recordings_dataframe(summaries):
    """The DataFrame of read_recordings from per-file summaries (e.g. gathered from a cluster)."""

    pd = _pandas()
    df = pd.DataFrame([r for s in summaries for r in _rows(s)], columns=_COLUMNS)
    df.attrs["errors"] = [f"{s['file']}: {s['error']}" if s["error"] else "" for s in summaries if s["error"]]
    return df


def pooled_statistics(df):
    """Per (block, event, occurrence): the per-run durations of every file concatenated in file
    order, then the Inspector's statistics over them (what `etscope-cli tsv DIR` writes in its
    `(all N files)` rows)."""

    pd = _pandas()
    pooled = {}
    for row in df.itertuples(index=False):
        if row.raw is None:
            continue
        key = (row.block, row.event, row.occurrence)
        pooled.setdefault(key, []).extend(row.raw)
    out = [{"block": k[0], "event": k[1], "occurrence": k[2], **_stats(raw)} for k, raw in pooled.items()]
    return pd.DataFrame(out, columns=["block", "event", "occurrence", "runs", "min", "p10", "p50", "p90", "max", "avg"])
