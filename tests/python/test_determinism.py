"""Inspector.determinism() on the recordings of tests/data/determinism (written by
tests/tools/gen_determinism_fixtures.py from the real cnn_mlp_intermediates run; truth by numpy)."""

import json

import pytest

import etscope
from conftest import data, fixture


def expected():
    with open(data("determinism/determinism_expected.json")) as f:
        return json.load(f)


def inspector(stem):
    return etscope.Inspector(etdump_path=data(f"determinism/{stem}.etdp"),
                             debug_buffer_path=data(f"determinism/{stem}.bin"))


def test_tile_named_as_numpy_says():
    truth = expected()["tile"]
    frame = inspector("tile").determinism()
    assert list(frame.distinct) == [t["distinct"] for t in truth]
    assert [list(r) for r in frame.runs_differ] == [t["runs_differ"] for t in truth]
    row = frame.iloc[13]
    assert row.instruction_id == 12 and row["name"] == "native_call_permute_copy.out"
    assert row.region == {"row_begin": 32, "row_end": 64, "col_begin": 0, "col_end": 64, "rows": 256, "cols": 64,
                          "elements": 2048}
    assert frame.attrs["sentence"].startswith(
        "op #12 (native_call_permute_copy.out) varies on runs 1, 4 in a 32×64 tile")


def test_two_recordings_and_deterministic():
    frame = inspector("tile_a").determinism(others=[(data("determinism/tile_b.etdp"), data("determinism/tile_b.bin"))])
    assert frame.attrs["runs"] == 6 and frame.attrs["first_varying"] == 13
    assert inspector("repeat").determinism().attrs["sentence"] == \
        "deterministic: all 33 logged tensors are bit-exact over 3 runs"


def test_needs_a_debug_buffer():
    with pytest.warns(UserWarning):
        i = etscope.Inspector(etdump_path=fixture("runtime/cnn_mlp_50runs/etdump.etdp"))
    with pytest.raises(ValueError):
        i.determinism()


def real(folder):
    """The real runtime's 20-run recordings of det_mlp (tests/data/runtime/determinism_*), with the
    truth that tests/tools/gen_determinism_truth.py derived by numpy from flatc's decoding."""
    base = data(f"runtime/{folder}")
    with open(f"{base}/determinism.truth.json") as f:
        truth = json.load(f)
    frame = etscope.Inspector(etdump_path=f"{base}/etdump.etdp",
                              debug_buffer_path=f"{base}/debug_output.bin").determinism()
    return frame, truth


def test_real_runtime_repeat_is_deterministic():
    frame, truth = real("determinism_repeat")
    assert frame.attrs["runs"] == truth["execute_runs"] == 20
    assert len(frame) == len(truth["tensors"])
    assert list(frame.distinct) == [t["distinct_count"] for t in truth["tensors"]] == [1] * len(frame)
    assert frame.attrs["sentence"].startswith("deterministic")


def test_real_runtime_corrupt_names_op_runs_and_tile():
    # The runner's stand-in mm kernel (instruction 2) perturbs rows 0-31 x cols 32-63 of its output
    # on Execute runs 3, 7 and 19 (README.txt); numpy found the same in the debug buffer.
    frame, truth = real("determinism_corrupt")
    assert len(frame) == len(truth["tensors"])
    for (_, row), t in zip(frame.iterrows(), truth["tensors"]):
        assert row.instruction_id == t["instruction_id"]
        assert row.distinct == t["distinct_count"]
        assert list(row.runs_differ) == t["differing_runs"]
        if t["tile"]:
            assert (row.region["row_begin"], row.region["row_end"] - 1) == tuple(t["tile"]["rows"])
            assert (row.region["col_begin"], row.region["col_end"] - 1) == tuple(t["tile"]["cols"])
    first = next(t for t in truth["tensors"] if t["differing_runs"])
    assert first["instruction_id"] == 2
    assert frame.attrs["sentence"].startswith("op #2 ")
    assert "runs 3, 7, 19" in frame.attrs["sentence"] and "32×32 tile" in frame.attrs["sentence"]
