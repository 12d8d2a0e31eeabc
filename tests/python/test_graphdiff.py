"""Inspector.graph_diff / ETRecord.graph_diff: two graphs of one ETRecord compared layer by layer.

Expected values: tests/data/analysis/graphdiff_expected.json, written by
tests/tools/gen_graphdiff_fixtures.py with PyTorch 1.13 (per-layer MSE / SNR / MAXABS of
torch.fx.Interpreter values, flags by the noise rule of inspector-semantics.md §9.4). Row for
row the DataFrame equals `etscope-cli graph-diff --tsv`.
"""

import csv
import io
import json
import math

import numpy as np
import pytest

import etscope
from conftest import cli, data, fixture

ETRECORD = data("analysis/graphdiff_etrecord.bin")


def expected(a, b):
    return json.load(open(data("analysis/graphdiff_expected.json")))["comparisons"][f"{a} vs {b}"]


def close(got, want):
    want = float(want)  # "inf" / "nan" as text
    if math.isnan(want):
        return math.isnan(got)
    if math.isinf(want):
        return got == want
    return abs(got - want) <= 1e-12 + 1e-4 * abs(want)


@pytest.mark.parametrize("metric", ["MSE", "SNR", "MAXABS"])
def test_float_against_fake_quant_equals_pytorch(metric):
    insp = etscope.Inspector(
        etdump_path=fixture("runtime/cnn_mlp_intermediates/etdump.etdp"), etrecord=ETRECORD
    )
    df = insp.graph_diff(a="exported_program", b="edge_after_transform", distance=metric)
    want = expected("exported_program", "edge_after_transform/forward")
    assert len(df) == len(want["rows"]) == 12
    for (_, r), w in zip(df.iterrows(), want["rows"]):
        assert (r["a_node"], r["b_node"], r["aligned_by"]) == (w["a_node"], w["b_node"], "from_node")
        assert r["error"] == ""
        assert len(r["gap"]) == len(w[metric])
        for got, exp in zip(r["gap"], w[metric]):
            assert close(got, exp), (r["a_node"], got, exp)
        if metric == "MSE":
            assert bool(r["flagged"]) == w["flagged"]
    assert df.attrs["first_parting"] == 5
    assert df.attrs["verdict"].startswith("the graphs part at layer 5 a:native_layer_norm / b:aten_native_layer_norm")
    assert [u["node"] for u in df.attrs["unaligned_b"]] == want["unaligned_b"]
    assert df.attrs["unaligned_a"] == []


def test_outputs_are_arrays_and_the_gap_recomputes_with_numpy():
    """The DataFrame's own outputs give the same MSE with numpy (mean of squared difference)."""
    df = etscope.parse_etrecord(ETRECORD).graph_diff("exported_program", "edge_swapped")
    row = df[df["a_node"] == "gelu"].iloc[0]
    assert row["b_node"] == "aten_silu" and row["a_op"] == "aten.gelu.default" and row["b_op"] == "aten.silu.default"
    a, b = np.asarray(row["a_output"], dtype=np.float64), np.asarray(row["b_output"], dtype=np.float64)
    assert a.shape == b.shape == (4, 32)
    assert math.isclose(row["gap"][0], float(np.mean((a - b) ** 2)), rel_tol=1e-12)
    assert df.attrs["first_parting"] == 8  # gelu: the swapped op itself


def test_self_diff_is_exact_and_equals_cli():
    df = etscope.parse_etrecord(ETRECORD).graph_diff("edge_after_transform", "edge_after_transform")
    assert len(df) == 16
    assert all(g == [0.0] * len(g) for g in df["gap"])
    assert not df["flagged"].any()
    assert set(df["aligned_by"]) == {"debug_handle"}
    assert df.attrs["verdict"] == "the graphs agree within noise at every aligned layer"
    assert df.attrs["first_parting"] is None
    rows = list(csv.DictReader(io.StringIO(cli(
        "graph-diff", "--etrecord", ETRECORD, "--a", "edge_after_transform", "--b", "edge_after_transform",
        "--tsv", "-")), delimiter="\t"))
    assert [r["b_node"] for r in rows] == list(df["b_node"])
    assert [[float(x) for x in r["gap_MSE"].split(";")] for r in rows] == list(df["gap"])


def test_threshold():
    rec = etscope.parse_etrecord(ETRECORD)
    df = rec.graph_diff("exported_program", "edge_after_transform", threshold=1.0)
    assert not df["flagged"].any()
    assert df.attrs["verdict"] == "the graphs agree within the threshold 1 at every aligned layer"


def test_bad_inputs():
    rec = etscope.parse_etrecord(ETRECORD)
    with pytest.raises(ValueError, match="no graph named 'nope'; the ETRecord has: exported_program"):
        rec.graph_diff("exported_program", "nope")
    unrelated = "no node of 'exported_program' aligns with a node of 'edge_unrelated/forward'"
    with pytest.raises(ValueError, match=unrelated):
        rec.graph_diff("exported_program", "edge_unrelated")
    with pytest.raises(ValueError, match="Unsupported distance metric"):
        rec.graph_diff("exported_program", "edge_after_transform", distance="nope")
    insp = etscope.Inspector(etdump_path=fixture("runtime/cnn_mlp_intermediates/etdump.etdp"))
    with pytest.raises(ValueError, match="needs an ETRecord"):
        insp.graph_diff()


def test_inputs_file_is_used():
    """inputs= replaces representative_inputs: the values are PyTorch's on that other input."""
    want = json.load(open(data("analysis/graphdiff_expected.json")))["with_inputs_file"]
    insp = etscope.Inspector(etdump_path=fixture("runtime/cnn_mlp_intermediates/etdump.etdp"), etrecord=ETRECORD)
    df = insp.graph_diff("exported_program", "edge_after_transform", inputs=data("analysis/" + want["inputs"]))
    assert len(df) == len(want["rows"])
    for (_, r), w in zip(df.iterrows(), want["rows"]):
        assert r["a_node"] == w["a_node"]
        for got, exp in zip(r["gap"], w["MSE"]):
            assert close(got, exp), (r["a_node"], got, exp)
        assert bool(r["flagged"]) == w["flagged"]
    default = insp.graph_diff("exported_program", "edge_after_transform")
    assert df["gap"][4] != default["gap"][4]
