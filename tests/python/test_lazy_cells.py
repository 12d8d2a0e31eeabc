"""The fast paths of Inspector and to_dataframe (docs/inspector-semantics.md §4, docs/performance.md):
`raw` and `start_time` cells are upstream's lists when no row of the frame holds more than 16
runs, else read-only numpy views of the core's numbers that keep the recording alive; Event
objects are made only when a block's events are read, empty cells are shared, and nothing of
that changes a value, a printed table or the TSV.

Expected values come from elsewhere than the cells under test: the statistics and start times
`etscope-cli tsv` prints (numpy's percentile / mean / min / max recomputed here over `raw`), the
Event objects (upstream's list types, built by another code path), and copies taken before the
Inspector is deleted."""

import ast
import gc
import io

import numpy as np
import pandas as pd
import pytest

import etscope
from conftest import cli, data, fixture

FILES = {
    "cnn_mlp_50runs": fixture("runtime/cnn_mlp_50runs/etdump.etdp"),  # one block of 50 merged runs
    "runs_llm": data("analysis/runs_llm.etdp"),  # 4 Execute blocks (runs that do not merge)
    "xnnpack": fixture("runtime/xnnpack_mlp_intermediates/etdump.etdp"),  # delegated events, debug data
}


def cli_rows(path):
    text = cli("tsv", "--etdump", path)
    df = pd.read_csv(io.StringIO(text), sep="\t", index_col=0, keep_default_na=False, dtype=str)
    return df


# Runs per block, from each file's README / generator: the 50-run CNN merges into one block of 50
# runs and runs_llm's 49 decode steps into one (views); the XNNPACK fixture ran once (lists).
CELLS = {"cnn_mlp_50runs": "views", "runs_llm": "views", "xnnpack": "lists"}


@pytest.mark.parametrize("name", FILES)
def test_cells_against_the_cli_table(name):
    """Every printed row: raw gives the CLI's statistics through numpy; start_time is the CLI's
    list of start ticks. The cells are lists of Python numbers (upstream's type) when no row of
    the frame has more than 16 runs (the longest start_time list the CLI prints), else read-only
    float64 / uint64 numpy views."""
    insp = etscope.Inspector(etdump_path=FILES[name])
    df = insp.to_dataframe()
    printed = df[~df["event_name"].str.contains("OPERATOR_CALL")].reset_index(drop=True)
    want = cli_rows(FILES[name])
    assert len(printed) == len(want) > 0
    longest = max(len(ast.literal_eval(t)) for t in want["start_time"])
    assert CELLS[name] == ("lists" if longest <= 16 else "views")
    for (_, got), (_, exp) in zip(printed.iterrows(), want.iterrows()):
        raw, start = got["raw"], got["start_time"]
        if CELLS[name] == "views":
            assert isinstance(raw, np.ndarray) and raw.dtype == np.float64 and raw.ndim == 1
            assert isinstance(start, np.ndarray) and start.dtype == np.uint64 and start.shape == raw.shape
            assert not raw.flags.writeable and not start.flags.writeable
            start = start.tolist()
        else:
            assert type(raw) is list and all(type(x) is float for x in raw)
            assert type(start) is list and all(type(x) is int for x in start) and len(start) == len(raw)
            assert not gc.is_tracked(raw) and not gc.is_tracked(start)
        assert start == ast.literal_eval(exp["start_time"])
        stats = {
            "p10": np.percentile(raw, 10), "p50": np.percentile(raw, 50), "p90": np.percentile(raw, 90),
            "avg": np.mean(raw), "min": np.min(raw), "max": np.max(raw),
        }
        for stat, value in stats.items():
            assert repr(float(value)) == repr(float(exp[f"{stat} (ms)"])), (exp["event_name"], stat)


def test_one_cell_type_per_frame():
    """The rule is the frame's, not the row's: the 50-run CNN's `Default` block (Method::init and
    Program::load_method, one run each) alone gives lists; the Inspector's frame over both blocks
    gives views in every row, the one-run rows too (never a mix within one column)."""
    insp = etscope.Inspector(etdump_path=FILES["cnn_mlp_50runs"])
    default, execute = insp.event_blocks
    assert default.name == "Default" and execute.name == "Execute"
    small = default.to_dataframe()
    assert len(small) == 2 and all(type(c) is list and len(c) == 1 for c in small["raw"])
    assert all(type(c) is list for c in small["start_time"])
    whole = insp.to_dataframe()
    assert {type(c) for c in whole["raw"]} == {np.ndarray} and {type(c) for c in whole["start_time"]} == {np.ndarray}
    assert list(whole["raw"][0]) == small["raw"][0] and list(whole["start_time"][0]) == small["start_time"][0]
    assert all(len(c) == 50 for c in execute.to_dataframe()["raw"])


@pytest.mark.parametrize("name", FILES)
def test_events_are_made_lazily_and_agree_with_the_cells(name):
    insp = etscope.Inspector(etdump_path=FILES[name])
    assert all(b._events is None for b in insp.event_blocks)  # no Event object at construction
    df = insp.to_dataframe()
    assert all(b._events is None for b in insp.event_blocks)  # nor for the frame
    # repr and len come from the core's counts without making Events
    counts = [int(repr(b).rsplit("events=", 1)[1].rstrip(")")) for b in insp.event_blocks]
    assert all(b._events is None for b in insp.event_blocks)
    events = [e for b in insp.event_blocks for e in b.events]  # now made, block by block
    assert [len(b.events) for b in insp.event_blocks] == counts
    assert len(events) == len(df)
    for e, raw, start in zip(events, df["raw"], df["start_time"]):
        assert type(e.perf_data.raw) is list and type(e.start_time) is list  # upstream's types
        assert list(raw) == e.perf_data.raw  # exact: the same doubles
        assert list(start) == e.start_time


def test_views_outlive_the_inspector():
    """The cells hold the recording: deleting the Inspector (and collecting) keeps them valid."""
    insp = etscope.Inspector(etdump_path=FILES["cnn_mlp_50runs"])
    df = insp.to_dataframe()
    copies = [(np.array(r, copy=True), np.array(s, copy=True)) for r, s in zip(df["raw"], df["start_time"])]
    block_views = insp.event_blocks[-1].to_dataframe()["raw"]
    del insp
    gc.collect()
    _ = [np.ones(1000) for _ in range(1000)]  # reuse freed memory, if any was freed
    for (r, s), raw, start in zip(copies, df["raw"], df["start_time"]):
        np.testing.assert_array_equal(raw, r)
        np.testing.assert_array_equal(start, s)
    assert all(len(v) > 0 for v in block_views)
    with pytest.raises(ValueError):
        df["raw"][0][0] = 1.0  # read-only: the core's numbers cannot be changed through the frame


def test_frames_stay_valid_after_other_frames_die():
    insp = etscope.Inspector(etdump_path=FILES["cnn_mlp_50runs"])
    first = insp.to_dataframe()
    expected = [r.copy() for r in first["raw"]]
    del first
    gc.collect()
    second = insp.to_dataframe()
    for r, e in zip(second["raw"], expected):
        np.testing.assert_array_equal(r, e)


def test_empty_cells_equal_upstreams_and_are_shared():
    """Empty op_types / debug_data are [] and stack_traces / module_hierarchy {} (upstream's
    values); one object per column serves every empty cell of a frame (documented)."""
    df = etscope.Inspector(etdump_path=FILES["cnn_mlp_50runs"]).to_dataframe()
    for col, empty in (("op_types", []), ("debug_data", []), ("stack_traces", {}), ("module_hierarchy", {})):
        cells = list(df[col])
        assert all(c == empty and type(c) is type(empty) for c in cells)
        assert len({id(c) for c in cells}) == 1
    other = etscope.Inspector(etdump_path=FILES["cnn_mlp_50runs"]).to_dataframe()
    assert other["op_types"][0] is not df["op_types"][0]  # never shared between frames


def test_linked_cells_are_not_shared():
    """With an ETRecord, linked events get their own lists and dicts (upstream's values)."""
    insp = etscope.Inspector(etdump_path=fixture("runtime/cnn_mlp_50runs/etdump.etdp"),
                             etrecord=data("analysis/cnn_mlp_runtime_etrecord.bin"))
    df = insp.to_dataframe()
    events = [e for b in insp.event_blocks for e in b.events]
    for e, ops, stacks, modules in zip(events, df["op_types"], df["stack_traces"], df["module_hierarchy"]):
        assert ops == e.op_types and stacks == e.stack_traces and modules == e.module_hierarchy
    assert any(len(s) for s in df["stack_traces"])


@pytest.mark.parametrize("name", FILES)
def test_pandas_rendered_table_prints_start_times_as_lists(name):
    """The pandas route of save_data_to_tsv (delegate metadata columns) prints start_time as
    upstream's lists, from view cells (50 runs) and list cells (one run) alike: the same bytes as
    the core's TSV."""
    path = FILES[name]
    insp = etscope.Inspector(etdump_path=path)
    out = io.StringIO()
    insp._prepare_dataframe().to_csv(out, sep="\t")
    assert out.getvalue() == cli("tsv", "--etdump", path)


def test_run_output_read_on_first_use():
    insp = etscope.Inspector(etdump_path=FILES["xnnpack"], debug_buffer_path=None)
    execute = [b for b in insp.event_blocks if b.name == "Execute"][0]
    assert execute._run_output is not None and not isinstance(execute._run_output, list)  # not read yet
    out = execute.run_output
    assert isinstance(out, list) and out and isinstance(out[0], np.ndarray)
    assert execute.run_output is out  # read once
    execute.run_output = ["mine"]
    assert execute.run_output == ["mine"]


def test_event_objects_from_the_core():
    """Events made from the core's tuples (slots unpacked, no copies) carry upstream's types and
    the CLI's numbers; their lists of numbers and names are off the cycle collector's lists
    (docs/inspector-semantics.md §4) and still behave as lists."""
    path = FILES["runs_llm"]
    insp = etscope.Inspector(etdump_path=path)
    want = cli_rows(path)
    events = [e for b in insp.event_blocks for e in b.events if "OPERATOR_CALL" not in e.name]
    assert len(events) == len(want)
    for e, (_, exp) in zip(events, want.iterrows()):
        assert isinstance(e, etscope.Event) and isinstance(e.perf_data, etscope.PerfData)
        assert e.name == exp["event_name"]
        assert repr(float(e.perf_data.p50)) == repr(float(exp["p50 (ms)"]))
        assert repr(float(np.mean(e.perf_data.raw))) == repr(float(exp["avg (ms)"]))
        assert e.start_time == ast.literal_eval(exp["start_time"])
        assert e._run_count == len(e.perf_data.raw)
        for cell in (e.perf_data.raw, e.start_time, e.op_types, e.raw_delegate_debug_metadatas):
            assert type(cell) is list and not gc.is_tracked(cell)
    raw = events[0].perf_data.raw
    raw.append(1.5)  # still an ordinary list
    assert raw[-1] == 1.5 and len(raw) == events[0]._run_count + 1


def test_exit_with_live_recordings():
    """At interpreter exit a recording still held (by an Inspector, a frame's views, Events) is
    left to the operating system instead of being freed: the process ends cleanly, its output
    complete, whichever object goes last."""
    import subprocess
    import sys

    script = (
        "import sys, warnings; warnings.simplefilter('ignore'); import etscope\n"
        "insp = etscope.Inspector(etdump_path=sys.argv[1])\n"
        "df = insp.to_dataframe()\n"
        "views = list(df['raw'])\n"
        "events = insp.event_blocks[-1].events\n"
        "other = etscope.Inspector(etdump_path=sys.argv[1]).to_dataframe()\n"
        "del insp\n"
        "print(len(df), float(views[-1][0]) == float(events[-1].perf_data.raw[0]), flush=False)\n"
    )
    p = subprocess.run([sys.executable, "-c", script, FILES["runs_llm"]], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    rows = len(etscope.Inspector(etdump_path=FILES["runs_llm"]).to_dataframe())
    assert p.stdout == f"{rows} True\n"


def test_pandas_prefetch_is_harmless():
    """The Inspector imports pandas on a thread while the native load runs (docs/performance.md):
    a script that exits right after constructing one ends cleanly with pandas fully imported (the
    thread is joined at exit, before the script's own exit handler registered earlier runs), and
    with ETSCOPE_NO_PANDAS_PREFETCH=1 no thread is started and pandas stays unimported."""
    import os
    import subprocess
    import sys

    script = (
        "import sys, warnings, atexit; warnings.simplefilter('ignore'); import etscope\n"
        "assert 'pandas' not in sys.modules\n"
        "atexit.register(lambda: print(hasattr(sys.modules.get('pandas'), 'DataFrame')))\n"
        "insp = etscope.Inspector(etdump_path=sys.argv[1])\n"
        "print(len(insp.event_blocks))\n"
    )
    blocks = len(etscope.Inspector(etdump_path=FILES["runs_llm"]).event_blocks)
    p = subprocess.run([sys.executable, "-c", script, FILES["runs_llm"]], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    assert p.stdout.splitlines() == [str(blocks), "True"]
    env = dict(os.environ, ETSCOPE_NO_PANDAS_PREFETCH="1")
    p = subprocess.run([sys.executable, "-c", script, FILES["runs_llm"]], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == [str(blocks), "False"]
