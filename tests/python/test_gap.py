"""calculate_numeric_gap with etscope's evaluator as the reference.

Expected values: tests/data/analysis/evaluator_gap_expected.json (PyTorch 1.13 + numpy,
tests/tools/gen_gap_evaluator.py) and the perturbed debug buffer whose perturbations are known
(instructions 3, 14, 25; tests/tools/gen_gap_perturbed.py). Row for row the DataFrame equals
`etscope-cli gap --tsv`.
"""

import csv
import io
import json
import math

import numpy as np
import pytest

import etscope
from conftest import cli, data, fixture

ETDUMP = fixture("runtime/cnn_mlp_intermediates/etdump.etdp")
BUFFER = fixture("runtime/cnn_mlp_intermediates/debug_output.bin")
PERTURBED = data("analysis/cnn_mlp_perturbed.bin")
ETRECORD = data("analysis/cnn_mlp_runtime_etrecord.bin")


def expected(kind):
    cnn = json.load(open(data("analysis/evaluator_gap_expected.json")))["cnn_mlp"]
    return {r["instruction"]: r[kind] for r in cnn["rows"]}, cnn


def cli_gap(buffer, *extra):
    text = cli("gap", "--etdump", ETDUMP, "--debug-buffer", buffer, "--etrecord", ETRECORD, "--tsv", "-", *extra)
    return list(csv.DictReader(io.StringIO(text), delimiter="\t"))


@pytest.mark.parametrize("isolate", [False, True], ids=["accumulated", "isolated"])
def test_gap_equals_cli_and_numpy(isolate):
    insp = etscope.Inspector(etdump_path=ETDUMP, debug_buffer_path=PERTURBED, etrecord=ETRECORD)
    df = insp.calculate_numeric_gap("MSE", isolate=isolate)
    assert list(df.columns[:6]) == [
        "aot_ops", "aot_intermediate_output", "runtime_ops", "runtime_intermediate_output", "gap", "stacktraces",
    ]
    rows = cli_gap(PERTURBED, *(["--isolate"] if isolate else []))
    assert len(df) == len(rows) > 0
    for (_, r), c in zip(df.iterrows(), rows):
        assert str(r["instruction_id"]) == c["instruction_id"]
        assert ",".join(map(str, r["debug_handles"])) == c["debug_handles"]
        assert [float(x) for x in c["gap_MSE"].split(";") if x] == r["gap"]
    want, cnn = expected("gap_mse_isolated_perturbed" if isolate else "gap_mse_perturbed")
    for _, r in df.iterrows():
        for got, w in zip(r["gap"], want[r["instruction_id"]]):
            assert math.isclose(got, w, rel_tol=1e-4, abs_tol=1e-10), (r["instruction_id"], got, w)
    flagged = {int(r["instruction_id"]) for _, r in df.iterrows() if max(r["gap"]) > 1e-6}
    assert flagged == set(cnn["isolated_flagged" if isolate else "accumulated_flagged"])


def test_l1_snr_and_comparator_object_recomputed_with_numpy():
    """L1/SNR/custom comparators over the same pairs: recomputed here with numpy from the
    DataFrame's own aot/runtime arrays (upstream's formulas: L1 = sum |a-b| (a sum, not a mean);
    SNR = 10 log10(P(a)/P(a-b)))."""
    insp = etscope.Inspector(etdump_path=ETDUMP, debug_buffer_path=PERTURBED, etrecord=ETRECORD)
    l1 = insp.calculate_numeric_gap("l1")
    snr = insp.calculate_numeric_gap(" SNR ")
    for (_, a), (_, s) in zip(l1.iterrows(), snr.iterrows()):
        aot, rt = a["aot_intermediate_output"], a["runtime_intermediate_output"]
        pairs = list(zip(aot, rt)) if isinstance(aot, list) else [(aot, rt)]
        for k, (x, y) in enumerate(pairs):
            x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
            assert math.isclose(a["gap"][k], float(np.sum(np.abs(x - y))), rel_tol=1e-9, abs_tol=1e-15)
            noise = float(np.mean((x - y) ** 2))
            if noise > 0 and np.any(x):
                want = 10 * math.log10(float(np.mean(x**2)) / noise)
                assert math.isclose(s["gap"][k], want, rel_tol=1e-6, abs_tol=1e-9)

    class MaxAbs:
        inspector = None

        def preprocessing(self, mapping):
            self.seen = len(mapping)
            return mapping

        def element_compare(self, a, b):
            return float(np.max(np.abs(np.asarray(a, float) - np.asarray(b, float))))

    class Doubled(etscope.NumericalComparatorBase):
        """upstream-style subclass: preprocessing scales the runtime side"""

        def preprocessing(self, mapping):
            return {k: (h, [2 * x for x in v] if isinstance(v, tuple) else 2 * v) for k, (h, v) in mapping.items()}

        def element_compare(self, a, b):
            return float(np.max(np.abs(np.asarray(b, float) - 2 * np.asarray(a, float))))

    doubled = insp.calculate_numeric_gap(Doubled())
    for (_, r) in doubled.iterrows():  # b = 2·runtime, compared with 2·aot: 2·max|runtime − aot|
        aot, rt = r["aot_intermediate_output"], r["runtime_intermediate_output"]
        pairs = list(zip(aot, rt)) if isinstance(aot, list) else [(aot, rt)]
        assert r["gap"] == [float(np.max(np.abs(np.asarray(y, float) - 2 * np.asarray(x, float)))) for x, y in pairs]

    cmp = MaxAbs()
    custom = insp.calculate_numeric_gap(cmp)
    assert cmp.inspector is insp and cmp.seen == len(custom)
    for (_, r) in custom.iterrows():
        aot, rt = r["aot_intermediate_output"], r["runtime_intermediate_output"]
        pairs = list(zip(aot, rt)) if isinstance(aot, list) else [(aot, rt)]
        assert r["gap"] == [float(np.max(np.abs(np.asarray(x, float) - np.asarray(y, float)))) for x, y in pairs]


def test_gap_errors():
    insp = etscope.Inspector(etdump_path=ETDUMP, debug_buffer_path=BUFFER, etrecord=ETRECORD)
    with pytest.raises(ValueError, match="Unsupported distance metric"):
        insp.calculate_numeric_gap("COSINE_PLUS")
    with pytest.raises(ValueError, match="Missing etrecord"):
        etscope.Inspector(etdump_path=ETDUMP, debug_buffer_path=BUFFER).calculate_numeric_gap("MSE")
    with pytest.raises(ValueError, match="no/such"):
        insp.calculate_numeric_gap("MSE", reference_graph="no/such")


def test_unperturbed_run_is_close_to_reference():
    insp = etscope.Inspector(etdump_path=ETDUMP, debug_buffer_path=BUFFER, etrecord=ETRECORD)
    df = insp.calculate_numeric_gap("MSE")
    assert len(df) > 20
    assert max(max(g) for g in df["gap"]) <= 1e-10
    want, _ = expected("gap_mse_original")
    for _, r in df.iterrows():
        for got, w in zip(r["gap"], want[r["instruction_id"]]):
            assert math.isclose(got, w, rel_tol=1e-4, abs_tol=1e-12)


def test_xnnpack_delegates_with_inputs_file():
    """XNNPACK run, inputs from a torch.save file (beyond upstream: inputs=): a row per
    DELEGATE_CALL and per portable kernel, equal to `etscope-cli gap --inputs … --tsv`; gaps ~0 (the expected gaps of
    gen_gap_evaluator.py are ≤ 1e-10)."""
    etdump = fixture("runtime/xnnpack_mlp_intermediates/etdump.etdp")
    buffer = fixture("runtime/xnnpack_mlp_intermediates/debug_output.bin")
    etrecord = data("analysis/xnn_mlp_runtime_etrecord.bin")
    inputs = data("analysis/xnn_mlp_inputs.pt")
    insp = etscope.Inspector(etdump_path=etdump, debug_buffer_path=buffer, etrecord=etrecord)
    df = insp.calculate_numeric_gap("MSE", inputs=inputs)
    text = cli("gap", "--etdump", etdump, "--debug-buffer", buffer, "--etrecord", etrecord, "--inputs", inputs,
               "--tsv", "-")
    rows = list(csv.DictReader(io.StringIO(text), delimiter="\t"))
    assert len(df) == len(rows) == 4
    for (_, r), c in zip(df.iterrows(), rows):
        assert str(r["instruction_id"]) == c["instruction_id"]
        assert [float(x) for x in c["gap_MSE"].split(";") if x] == r["gap"]
        if r["runtime_ops"] == ["DELEGATE_CALL"]:
            assert r["delegated"] and r["backend"] == "XnnpackBackend"
        assert max(r["gap"]) <= 1e-10
    assert df["delegated"].iloc[0] and df["backend"].iloc[0] == "XnnpackBackend"
    with pytest.raises(ValueError, match="representative_inputs"):
        insp.calculate_numeric_gap("MSE")  # this ETRecord has none: the error lists the ways
