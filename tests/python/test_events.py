"""Event and EventBlock fields against the CLI's JSON (`etscope-cli table --all --json`) and
the fixtures' documented facts."""

import json

import numpy as np
import pytest

import etscope
from conftest import cli, data, fixture, sample


def cli_rows(*args):
    return json.loads(cli("table", "--all", "--json", *args))


@pytest.mark.parametrize(
    "args",
    [
        ("runtime/cnn_mlp_50runs/etdump.etdp", None, None),
        ("runtime/xnnpack_mlp_intermediates/etdump.etdp", "runtime/xnnpack_mlp_intermediates/debug_output.bin", None),
        ("runtime/cnn_mlp_intermediates/etdump.etdp",
         "runtime/cnn_mlp_intermediates/debug_output.bin",
         "etrecord/cnn_mlp_etrecord.bin"),
    ],
    ids=["cnn", "xnnpack", "cnn_etrecord"],
)
def test_event_fields_equal_cli_json(args):
    etdump, buf, rec = args
    kw = {}
    cli_args = ["--etdump", fixture(etdump)]
    if buf:
        kw["debug_buffer_path"] = fixture(buf)
        cli_args += ["--debug-buffer", fixture(buf)]
    if rec:
        kw["etrecord"] = data(rec)
        cli_args += ["--etrecord", data(rec)]
    insp = etscope.Inspector(etdump_path=fixture(etdump), **kw)
    rows = cli_rows(*cli_args)
    events = [(b, e) for b in insp.event_blocks for e in b.events]
    assert len(events) == len(rows)
    for (b, e), r in zip(events, rows):
        assert r["event_block_name"] == b.name
        assert r["event_name"] == e.name
        assert r["is_delegated_op"] == e.is_delegated_op
        assert r["op_types"] == e.op_types
        assert (r["delegate_backend_name"] or None) == e.delegate_backend_name
        for stat in ("p10", "p50", "p90", "avg", "min", "max"):
            assert r[stat] == getattr(e.perf_data, stat)
        assert r["unit"] == b.target_time_scale.value
        assert r["start_time"] == e.start_time
        assert r["instruction_id"] == e._instruction_id
        assert r["runs"] == len(e.perf_data.raw)
        handles = e.debug_handles
        assert r["debug_handles"] == ([handles] if isinstance(handles, int) else handles)


def test_xnnpack_event_details():
    """The XNNPACK sample (fixtures/runtime/xnnpack_mlp_intermediates/README): delegated events
    are named by their delegate debug identifier; tensors are read-only numpy views."""
    insp = etscope.Inspector(
        etdump_path=sample("xnnpack_mlp/etdump.etdp"),
        debug_buffer_path=sample("xnnpack_mlp/debug_output.bin"),
        etrecord=sample("xnnpack_mlp/etrecord.bin"),
    )
    execute = [b for b in insp.event_blocks if b.name == "Execute"][0]
    delegated = [e for e in execute.events if e.is_delegated_op]
    assert delegated, "the XNNPACK run logs per-operator delegate events"
    for e in delegated:
        assert e.name == str(e.delegate_debug_identifier)
        assert e.delegate_backend_name == "XnnpackBackend"
    calls = [e for e in execute.events if e.name == "DELEGATE_CALL"]
    assert len(calls) == 2
    tensors = [t for e in execute.events for t in e.debug_data if isinstance(t, np.ndarray)]
    assert tensors and all(not t.flags.writeable for t in tensors)
    assert {t.dtype for t in tensors} == {np.dtype(np.float32), np.dtype(np.int64)}
    argmax = [e for e in execute.events if e.name == "native_call_argmax.out"][0]
    assert argmax.debug_data[-1].dtype == np.int64  # argmax logs its int64 index
    assert execute.run_output and isinstance(execute.run_output[0], np.ndarray)
    # the program output is the last DELEGATE_CALL's debug output
    np.testing.assert_array_equal(execute.run_output[0], calls[-1].debug_data[-1])
    assert all(isinstance(e.stack_traces, dict) for e in execute.events)
    linked = [e for e in execute.events if e.stack_traces]
    assert linked and all(isinstance(v, (str, type(None))) for e in linked for v in e.stack_traces.values())


def test_perf_data_numpy_statistics():
    """PerfData's statistics are numpy's (percentile, mean) of raw, recomputed here."""
    insp = etscope.Inspector(etdump_path=fixture("runtime/cnn_mlp_50runs/etdump.etdp"))
    for b in insp.event_blocks:
        for e in b.events:
            raw = np.asarray(e.perf_data.raw)
            assert e.perf_data.p10 == np.percentile(raw, 10)
            assert e.perf_data.p50 == np.percentile(raw, 50)
            assert e.perf_data.p90 == np.percentile(raw, 90)
            assert e.perf_data.avg == np.mean(raw)
            assert e.perf_data.min == raw.min() and e.perf_data.max == raw.max()
    execute = [b for b in insp.event_blocks if b.name == "Execute"][0]
    method = [e for e in execute.events if e.name == "Method::execute"][0]
    assert len(method.perf_data.raw) == 50  # 50 runs (fixture README)


def test_find_total_for_module_matches_rule():
    """Upstream's rule, re-implemented here over the events' module_hierarchy: sum of avg over
    events other than OPERATOR_CALL with a module key containing the name."""
    insp = etscope.Inspector(
        etdump_path=sample("cnn_mlp_50runs/etdump.etdp"), etrecord=sample("cnn_mlp_50runs/etrecord.bin")
    )
    keys = {k for b in insp.event_blocks for e in b.events for h in e.module_hierarchy.values() if h for k in h}
    assert keys
    for name in sorted(keys) + ["no_such_module"]:
        want = 0.0
        for b in insp.event_blocks:
            for e in b.events:
                if e.name == "OPERATOR_CALL":
                    continue
                if any(h and any(name in k for k in h) for h in e.module_hierarchy.values()) and e.perf_data:
                    want += e.perf_data.avg
        assert insp.find_total_for_module(name) == pytest.approx(want, rel=1e-12, abs=0)
    assert insp.find_total_for_module("no_such_module") == 0.0


def test_etrecord_object_and_exported_program():
    rec = etscope.parse_etrecord(sample("cnn_mlp_50runs/etrecord.bin"))
    insp = etscope.Inspector(etdump_path=sample("cnn_mlp_50runs/etdump.etdp"), etrecord=rec)
    ep = insp.get_exported_program()
    assert ep is not None and ep.nodes
    text = str(ep)
    assert text + "\n" == cli("graph", sample("cnn_mlp_50runs/etrecord.bin"))
    assert insp.get_exported_program("no/such/graph") is None
    assert etscope.Inspector(etdump_path=sample("cnn_mlp_50runs/etdump.etdp")).get_exported_program() is None


def test_delegate_callbacks():
    """delegate_time_scale_converter converts delegated events' timestamps (upstream: the
    duration is converter(end) - converter(start)); delegate_metadata_parser parses metadata."""
    path = fixture("runtime/xnnpack_mlp_intermediates/etdump.etdp")
    plain = etscope.Inspector(etdump_path=path)
    calls = []

    def conv(name, t):
        calls.append(name)
        return t * 2.0

    doubled = etscope.Inspector(etdump_path=path, delegate_time_scale_converter=conv)
    assert calls
    for b0, b1 in zip(plain.event_blocks, doubled.event_blocks):
        for e0, e1 in zip(b0.events, b1.events):
            if e0.is_delegated_op:
                # default conversion is t / 1e6 (ns -> ms); ours is t * 2 -> ratio 2e6
                assert e1.perf_data.raw == pytest.approx([x * 2e6 for x in e0.perf_data.raw], rel=1e-9)
            else:
                assert e1.perf_data.raw == e0.perf_data.raw

    def boom(name, t):
        raise KeyError("converter failed")

    with pytest.raises(KeyError):
        etscope.Inspector(etdump_path=path, delegate_time_scale_converter=boom)

    parsed = etscope.Inspector(etdump_path=path, delegate_metadata_parser=lambda m: {"count": len(m)})
    for b in parsed.event_blocks:
        for e in b.events:
            if e.is_delegated_op:
                assert e.delegate_debug_metadatas == {"count": len(e.raw_delegate_debug_metadatas)}


def test_reference_output_from_etrecord():
    """EventBlock.reference_output is the ETRecord's reference_outputs['forward'][bundled_input_index]
    (-1: the last set). The ETRecord was generated for this run's program and inputs
    (tests/tools/gen_etrecord_fixtures.py), so compare_results finds them close."""
    insp = etscope.Inspector(
        etdump_path=fixture("runtime/cnn_mlp_intermediates/etdump.etdp"),
        debug_buffer_path=fixture("runtime/cnn_mlp_intermediates/debug_output.bin"),
        etrecord=data("analysis/cnn_mlp_runtime_etrecord.bin"),
    )
    execute = [b for b in insp.event_blocks if b.name == "Execute"][0]
    ref, run = execute.reference_output, execute.run_output
    assert ref is not None and len(ref) == len(run)
    assert ref[0].shape == run[0].shape
    result = etscope.compare_results(ref, run)
    assert list(result) == ["snr", "mse", "cosine_similarity"]
    # recomputed with numpy on float32 casts, rounded like upstream
    r, o = np.asarray(ref[0], np.float32).astype(np.float64), np.asarray(run[0], np.float32).astype(np.float64)
    assert result["mse"][0] == round(float(np.mean((r - o) ** 2)), 2)
    cos = float(np.sum(r * o) / (np.sqrt(np.sum(r * r)) * np.sqrt(np.sum(o * o))))
    assert result["cosine_similarity"][0] == round(cos, 2)
    assert etscope.Inspector(etdump_path=fixture("runtime/cnn_mlp_50runs/etdump.etdp")
                             ).event_blocks[0].reference_output is None
