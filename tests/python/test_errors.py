"""Upstream's argument errors; bad files raise one-line ValueError/OSError, never crash."""

import os
import random

import pytest

import etscope
from conftest import data, fixture


def test_exactly_one_etdump():
    with pytest.raises(ValueError, match="Expecting exactly one of etdump_path or etdump_data to be specified."):
        etscope.Inspector()
    blob = open(fixture("upstream/docs_tutorial.etdp"), "rb").read()
    with pytest.raises(ValueError, match="Expecting exactly one"):
        etscope.Inspector(etdump_path=fixture("upstream/docs_tutorial.etdp"), etdump_data=blob)


def test_cycles_on_one_side_only():
    msg = "For TimeScale in cycles both the source and target time scale have to be in cycles."
    with pytest.raises(RuntimeError, match=msg):
        etscope.Inspector(etdump_path="x", source_time_scale=etscope.TimeScale.CYCLES)
    with pytest.raises(RuntimeError, match=msg):
        etscope.Inspector(etdump_path="x", target_time_scale=etscope.TimeScale.CYCLES)


def test_unsupported_etrecord_type():
    with pytest.raises(TypeError, match="Unsupported ETRecord type"):
        etscope.Inspector(etdump_path=fixture("upstream/docs_tutorial.etdp"), etrecord=42)


def test_time_scale_members():
    assert [t.value for t in etscope.TimeScale] == ["ns", "us", "ms", "s", "cycles"]
    assert etscope.TimeScale("us") is etscope.TimeScale.US


def test_missing_file_is_oserror_naming_it(tmp_path):
    missing = str(tmp_path / "nope.etdp")
    with pytest.raises(OSError) as e:
        etscope.Inspector(etdump_path=missing)
    assert missing in str(e.value) and "\n" not in str(e.value)


def test_bad_debug_buffer_and_etrecord(tmp_path):
    bad = tmp_path / "short.bin"
    bad.write_bytes(b"\0" * 16)
    with pytest.raises(ValueError) as e:
        etscope.Inspector(
            etdump_path=fixture("runtime/cnn_mlp_intermediates/etdump.etdp"), debug_buffer_path=str(bad)
        )
    assert str(bad) in str(e.value) and "not the debug buffer" in str(e.value)
    with pytest.raises(ValueError) as e:
        etscope.parse_etrecord(data("etrecord/hostile_malformed_json_etrecord.bin"))
    assert "hostile_malformed_json_etrecord.bin" in str(e.value)
    with pytest.raises(OSError):
        etscope.parse_etrecord(str(tmp_path / "missing.bin"))


def test_files_are_not_written(tmp_path):
    path = fixture("runtime/cnn_mlp_50runs/etdump.etdp")
    before = os.stat(path).st_mtime_ns
    etscope.Inspector(etdump_path=path).to_dataframe()
    assert os.stat(path).st_mtime_ns == before


def test_garbage_and_truncated_etdump_data():
    """3,000 inputs: random bytes, truncations and byte flips of real ETDumps. Each either
    loads or raises ValueError with a one-line message; the process never crashes."""
    rng = random.Random(20)
    seeds = [
        open(fixture(p), "rb").read()
        for p in (
            "upstream/docs_tutorial.etdp",
            "runtime/cnn_mlp_50runs/etdump.etdp",
            "runtime/xnnpack_mlp_intermediates/etdump.etdp",
        )
    ]
    loaded = refused = 0
    for i in range(3000):
        kind = i % 3
        if kind == 0:
            blob = bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 256)))
        else:
            s = seeds[rng.randrange(len(seeds))]
            if kind == 1:
                blob = s[: rng.randrange(0, len(s))]
            else:
                b = bytearray(s)
                for _ in range(rng.randrange(1, 8)):
                    b[rng.randrange(len(b))] = rng.getrandbits(8)
                blob = bytes(b)
        try:
            insp = etscope.Inspector(etdump_data=blob)
            insp.to_dataframe()
            loaded += 1
        except ValueError as e:
            msg = str(e)
            assert msg and "\n" not in msg, msg
            refused += 1
    assert refused > 1000 and loaded + refused == 3000
