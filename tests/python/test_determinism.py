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
    return etscope.Inspector(etdump_path=data(f"determinism/{stem}.etdp"), debug_buffer_path=data(f"determinism/{stem}.bin"))


def test_tile_named_as_numpy_says():
    truth = expected()["tile"]
    frame = inspector("tile").determinism()
    assert list(frame.distinct) == [t["distinct"] for t in truth]
    assert [list(r) for r in frame.runs_differ] == [t["runs_differ"] for t in truth]
    row = frame.iloc[13]
    assert row.instruction_id == 12 and row["name"] == "native_call_permute_copy.out"
    assert row.region == {"row_begin": 32, "row_end": 64, "col_begin": 0, "col_end": 64, "rows": 256, "cols": 64,
                          "elements": 2048}
    assert frame.attrs["sentence"].startswith("op #12 (native_call_permute_copy.out) varies on runs 1, 4 in a 32×64 tile")


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
