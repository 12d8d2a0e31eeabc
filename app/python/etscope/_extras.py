"""Beyond upstream: latency A/B, Perfetto trace, HTML report and the Jupyter summary."""

import html
import io
import os
import tempfile

from . import _native
from ._process import _pandas
from ._units import _run_range


def _write_atomically(path, text_producer):
    """Writes through a temporary file renamed over `path`, so that a failed export leaves no
    partial file."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".etscope-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            text_producer(f)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def save_trace(inspector, path, block=None, first_run=None, last_run=None):
    _write_atomically(path, lambda f: inspector._native.write_trace(f.write, block, first_run, last_run))


def save_report(inspector, path, decompose=False, graph_diff=None, distance="MSE", threshold=None,
                reference_graph=None, inputs=None, bundled_program=None, test_case=0):
    """decompose=True adds the error decomposition, graph_diff=(a, b) two ETRecord graphs compared
    layer by layer, as `etscope-cli report --decompose --graph-diff A B` does."""
    graph_a = graph_b = ""
    if graph_diff is not None:
        if isinstance(graph_diff, str) or len(graph_diff) != 2:
            raise ValueError(f"graph_diff takes two graph names (a, b), not {graph_diff!r}")
        graph_a, graph_b = (str(g) for g in graph_diff)
    if not isinstance(distance, str):
        raise ValueError(f"Unsupported distance metric {distance!r}")
    text = inspector._native.report_html(
        bool(decompose), graph_a, graph_b, distance.strip().upper(), None if threshold is None else float(threshold),
        reference_graph or "", str(inputs or ""), str(bundled_program or ""), int(test_case),
    )
    _write_atomically(path, lambda f: f.write(text))


def diff(a, b, alpha=0.01, min_change=0.02, all=False, method=None, phase=None, runs=None):

    pd = _pandas()
    # Per method and phase of the runs (rows carry them), within the scope when one is given.
    tsv = _native.diff_tsv_scoped(a._native, b._native, method or "", phase or "", _run_range(runs), alpha, min_change,
                                  all)
    return pd.read_csv(io.StringIO(tsv), sep="\t", keep_default_na=False, na_values=[""])


def summary_html(inspector):
    rows = []
    for b in inspector.event_blocks:
        info = inspector._native.block_info(b._index) if b._native is not None else None
        events = info["event_count"] if info else len(b.events)
        runs = info["run_count"] if info else ""
        rows.append(
            f"<tr><td>{html.escape(b.name)}</td><td>{events}</td><td>{runs}</td>"
            f"<td>{html.escape(b.target_time_scale.value)}</td></tr>"
        )
    warn = "".join(f"<li>{html.escape(w)}</li>" for w in inspector.warnings)
    return (
        f"<div><b>etscope Inspector</b> — {html.escape(str(inspector._paths['etdump'] or '<bytes>'))}"
        "<table><tr><th>block</th><th>events</th><th>runs</th><th>unit</th></tr>"
        + "".join(rows)
        + "</table>"
        + (f"<ul>{warn}</ul>" if warn else "")
        + "</div>"
    )
