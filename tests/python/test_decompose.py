"""calculate_numeric_gap(..., decompose=True): quantization / kernel / total error per op.

Expected values: tests/data/eval/quant_runs_expected.json, the dominant error of every op by
construction (tests/tools/gen_quant_runs.py: kernel where a kernel error was injected into the
authored run, quantization where numpy's MSE of PyTorch's fake-quantized against its float-twin
values exceeds the noise level, noise otherwise). Row for row the DataFrame equals
`etscope-cli gap --decompose --tsv -`.
"""

import csv
import io
import json
import math

import pytest

import etscope
from conftest import cli, data


def files(stem, kind):
    return data(f"eval/{stem}_{kind}.etdp"), data(f"eval/{stem}_{kind}.bin"), data(f"eval/{stem}_etrecord.bin")


@pytest.mark.parametrize("stem", ["qcnn", "qlinear"])
@pytest.mark.parametrize("kind", ["healthy", "kernel"])
def test_dominant_equals_truth_and_cli(stem, kind):
    etdump, buffer, etrecord = files(stem, kind)
    insp = etscope.Inspector(etdump_path=etdump, debug_buffer_path=buffer, etrecord=etrecord)
    df = insp.calculate_numeric_gap("MSE", decompose=True)
    assert list(df.columns[:6]) == ["aot_ops", "runtime_ops", "quant_error", "kernel_error", "total_error", "dominant"]
    truth = json.load(open(data("eval/quant_runs_expected.json")))["models"][stem]["runs"][kind]
    assert [r["dominant"] for r in truth] == list(df["dominant"])
    if kind == "healthy":
        assert "kernel" not in set(df["dominant"])
        assert df.attrs["summary"].startswith("accuracy is lost to quantization at #")
        assert df.attrs["summary"].endswith("kernels agree with the fake-quantized model within noise")
        assert df.attrs["kernel_enters"] is None
    else:
        assert list(df["dominant"]).count("kernel") == 2
    text = cli("gap", "--etdump", etdump, "--debug-buffer", buffer, "--etrecord", etrecord, "--decompose", "--tsv", "-")
    rows = list(csv.DictReader(io.StringIO(text), delimiter="\t"))
    assert len(rows) == len(df)
    for (_, r), c in zip(df.iterrows(), rows):
        assert str(r["instruction_id"]) == c["instruction"]
        assert r["dominant"] == c["dominant"]
        for col in ("quant_error", "kernel_error", "total_error"):
            assert float(c[col]) == r[col] or (math.isnan(float(c[col])) and math.isnan(r[col]))
    summary = cli("gap", "--etdump", etdump, "--debug-buffer", buffer, "--etrecord", etrecord, "--decompose")
    assert summary.splitlines()[0] == df.attrs["summary"]


def test_decompose_refuses_isolate_and_comparators():
    etdump, buffer, etrecord = files("qcnn", "kernel")
    insp = etscope.Inspector(etdump_path=etdump, debug_buffer_path=buffer, etrecord=etrecord)
    with pytest.raises(ValueError, match="isolate"):
        insp.calculate_numeric_gap("MSE", isolate=True, decompose=True)

    class Cmp(etscope.NumericalComparatorBase if hasattr(etscope, "NumericalComparatorBase") else object):
        def element_compare(self, a, b):
            return 0.0

    with pytest.raises(ValueError, match="metric name"):
        insp.calculate_numeric_gap(Cmp(), decompose=True)


@pytest.mark.parametrize("stem", ["qcnn", "qlinear"])
def test_float_twin_reference_gap_is_quantization_error(stem):
    """`gap --float-twin` on the healthy run (runtime = PyTorch's fake-quantized values): each
    row's MSE is the quantization error numpy computed from PyTorch's fake-quantized and
    float-twin values (1%: a requantization may round one element the other way)."""
    etdump, buffer, etrecord = files(stem, "healthy")
    text = cli("gap", "--etdump", etdump, "--debug-buffer", buffer, "--etrecord", etrecord, "--float-twin",
               "--tsv", "-")
    rows = list(csv.DictReader(io.StringIO(text), delimiter="\t"))
    truth = {r["instruction"]: r for r in json.load(
        open(data("eval/quant_runs_expected.json")))["models"][stem]["runs"]["healthy"]}
    assert len(rows) == len(truth)
    for c in rows:
        want = truth[int(c["instruction_id"])]["quant_mse"]
        got = float(c["gap_MSE"])
        assert math.isclose(got, want, rel_tol=1e-2, abs_tol=1e-12), (c["instruction_id"], got, want)
