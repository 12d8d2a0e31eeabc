"""print_data_tabular / save_data_to_tsv / to_dataframe on every real fixture.

Expected bytes: tests/data/core/expected/*.{tsv,table.txt}, made by tests/tools/inspector_reference.py
(an independent Python implementation of the Inspector's rules rendered by real pandas and
tabulate), the same files the C++ table test compares with. The CLI must print the same bytes.
"""

import io
import math

import pytest

import etscope
from conftest import cli, data, fixture

CASES = [
    ("upstream/docs_tutorial.etdp", "docs_tutorial", "ms"),
    ("upstream/docs_tutorial.etdp", "docs_tutorial_us", "us"),
    ("runtime/add_pte_50runs/etdump.etdp", "add_pte_50runs", "ms"),
    ("runtime/add_pte_intermediates/etdump.etdp", "add_pte_intermediates", "ms"),
    ("runtime/bundled_program_50runs/etdump.etdp", "bundled_program_50runs", "ms"),
    ("runtime/bundled_program_intermediates/etdump.etdp", "bundled_program_intermediates", "ms"),
    ("runtime/bundled_program_outputs_only/etdump.etdp", "bundled_program_outputs_only", "ms"),
    ("runtime/cnn_mlp_50runs/etdump.etdp", "cnn_mlp_50runs", "ms"),
    ("runtime/cnn_mlp_50runs/etdump.etdp", "cnn_mlp_50runs_s", "s"),
    ("runtime/cnn_mlp_intermediates/etdump.etdp", "cnn_mlp_intermediates", "ms"),
    ("runtime/xnnpack_mlp_intermediates/etdump.etdp", "xnnpack_mlp_intermediates", "ms"),
]


def read(path):
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


@pytest.mark.parametrize("etdump,expected,target", CASES, ids=[c[1] for c in CASES])
def test_tsv_and_table_equal_expected_and_cli(etdump, expected, target):
    insp = etscope.Inspector(etdump_path=fixture(etdump), target_time_scale=etscope.TimeScale(target))
    tsv, table = io.StringIO(newline=""), io.StringIO(newline="")
    insp.save_data_to_tsv(tsv)
    insp.print_data_tabular(table)
    assert tsv.getvalue() == read(data(f"core/expected/{expected}.tsv"))
    assert table.getvalue() == read(data(f"core/expected/{expected}.table.txt"))
    assert tsv.getvalue() == cli("tsv", "--etdump", fixture(etdump), "--target-time-scale", target)
    assert table.getvalue() == cli("table", "--etdump", fixture(etdump), "--target-time-scale", target)


@pytest.mark.parametrize("etdump,expected,target", CASES[:1] + CASES[7:9], ids=["docs", "cnn_ms", "cnn_s"])
def test_dataframe_rows_match_tsv(etdump, expected, target):
    """to_dataframe keeps every event; dropping OPERATOR_CALL and the non-printed columns gives
    the rows of the expected TSV (numbers compared through repr, as pandas writes them)."""
    import pandas as pd

    insp = etscope.Inspector(etdump_path=fixture(etdump), target_time_scale=target)
    df = insp.to_dataframe()
    unit = f" ({target})"
    assert list(df.columns) == [
        "event_block_name", "event_name", "raw", "p10" + unit, "p50" + unit, "p90" + unit, "avg" + unit,
        "min" + unit, "max" + unit, "op_types", "delegate_debug_identifier", "stack_traces", "module_hierarchy",
        "is_delegated_op", "delegate_backend_name", "debug_data", "start_time",
    ]
    assert len(df) == sum(len(b.events) for b in insp.event_blocks)
    printed = df[~df["event_name"].str.contains("OPERATOR_CALL")].reset_index(drop=True)
    expected_df = pd.read_csv(
        data(f"core/expected/{expected}.tsv"),
        sep="\t",
        index_col=0,
        keep_default_na=False,
        dtype=str)
    assert len(printed) == len(expected_df)
    for col in ("p10", "p50", "p90", "avg", "min", "max"):
        got = [repr(float(x)) for x in printed[col + unit]]
        want = [repr(float(x)) for x in expected_df[col + unit]]
        assert got == want, col
    assert list(printed["event_name"]) == list(expected_df["event_name"])
    # raw lists hold the per-run durations whose mean is avg (numpy's mean, independently)
    import numpy as np

    for raw, avg in zip(df["raw"], df["avg" + unit]):
        assert math.isclose(float(np.mean(raw)), avg, rel_tol=1e-15, abs_tol=0)


def test_block_to_dataframe_defaults_to_no_units():
    insp = etscope.Inspector(etdump_path=fixture("upstream/docs_tutorial.etdp"))
    df = insp.event_blocks[0].to_dataframe()
    assert "p50" in df.columns and "avg" in df.columns


@pytest.mark.parametrize("etdump", ["upstream/docs_tutorial.etdp", "runtime/cnn_mlp_50runs/etdump.etdp"])
def test_frame_from_event_objects_equals_frame_from_core(etdump):
    """Once the Event objects are read (and could be changed), to_dataframe is built from them;
    untouched, that frame equals the one built from the core directly."""
    import pandas as pd

    fast = etscope.Inspector(etdump_path=fixture(etdump)).to_dataframe()
    insp = etscope.Inspector(etdump_path=fixture(etdump))
    for b in insp.event_blocks:
        b.events  # materialise
    slow = insp.to_dataframe()
    pd.testing.assert_frame_equal(fast, slow)
    insp.event_blocks[-1].events[0].name = "renamed"
    assert "renamed" in list(insp.to_dataframe()["event_name"])


def test_include_units_false_headers_match_cli_free_rendering():
    insp = etscope.Inspector(etdump_path=fixture("runtime/cnn_mlp_50runs/etdump.etdp"))
    out = io.StringIO()
    insp.save_data_to_tsv(out, include_units=False)
    header = out.getvalue().splitlines()[0].split("\t")
    assert header[3:9] == ["p10", "p50", "p90", "avg", "min", "max"]


def test_delegate_debug_data_columns():
    """XNNPACK logs no delegate debug metadata: include_delegate_debug_data adds no column (as
    upstream) and the TSV is the core's. With a parser, upstream calls it for every delegated
    event (with the empty list here) and adds its dict's keys as columns."""
    path = fixture("runtime/xnnpack_mlp_intermediates/etdump.etdp")
    insp = etscope.Inspector(etdump_path=path)
    plain, extra = io.StringIO(), io.StringIO()
    insp.save_data_to_tsv(plain)
    insp.save_data_to_tsv(extra, include_delegate_debug_data=True)
    assert plain.getvalue() == extra.getvalue()
    assert all(not e.raw_delegate_debug_metadatas for b in insp.event_blocks for e in b.events)

    parsed = etscope.Inspector(etdump_path=path, delegate_metadata_parser=lambda m: {"n": len(m)})
    out = io.StringIO()
    parsed.save_data_to_tsv(out, include_delegate_debug_data=True)
    lines = out.getvalue().splitlines()
    assert lines[0] == plain.getvalue().splitlines()[0] + "\tn"
    df = parsed.to_dataframe(include_delegate_debug_data=True)
    assert list(df.columns)[-1] == "n"
    delegated = df["is_delegated_op"]
    assert set(df.loc[delegated, "n"]) == {0} and df.loc[~delegated, "n"].isna().all()
