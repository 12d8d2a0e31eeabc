"""Inspector.backend_events(): etscope's decoding of backends' own events as a DataFrame with the
fields of `etscope-cli backend-events --json`. Expected values by hand from upstream's logging
code at ExecuTorch cff6f4dd32e630945b7188512c1f2b4f102b05ad and the authored recordings' generator
(tests/tools/gen_backend_etdumps.py; tests/data/backend/*/README.md), and the real XNNPACK fixture's
README (XNNProfiler.cpp names "<operator> (<layout>[, <dtypes>])[ <microkernel>] #<n>")."""

import json
import math

import etscope
from conftest import cli, data, fixture

VULKAN = data("backend/vulkan_stem/etdump.etdp")
CNN_ETRECORD = data("etrecord/cnn_mlp_etrecord.bin")


def test_vulkan_rows_by_hand():
    df = etscope.Inspector(etdump_path=VULKAN, etrecord=CNN_ETRECORD).backend_events(method="encode")
    assert list(df.columns) == list(etscope.Inspector._BACKEND_EVENT_COLUMNS)
    assert df.attrs["unit"] == "ms"
    # VulkanBackend.cpp execute: COPY_INPUTS, COMPUTE_GRAPH_EXECUTE, 4 dispatches, COPY_OUTPUTS, EXECUTE.
    assert len(df) == 8
    assert list(df["kind"]) == ["phase", "phase"] + ["dispatch"] * 4 + ["phase", "phase"]
    assert list(df["backend_op"]) == [
        "phase: copy inputs", "phase: compute graph execute",
        "staging copy (nchw_to_image_texture3d_float_float)", "aten.convolution.default", "aten.relu.default",
        "staging copy (image_to_nchw_texture3d_float_float)", "phase: copy outputs", "phase: execute",
    ]  # fmt: skip
    conv = df.iloc[3]
    assert conv["event"] == 3 and conv["block"] == 1 and conv["block_name"] == "Execute"
    assert conv["op"] == "aten.convolution.default" and conv["kernel"] == "conv2d_float"
    assert (conv["operator_id"], conv["dispatch_id"], conv["delegate_node_id"]) == (1, 1, 0)
    # GPU times 41600, 40560, 42120 ns: avg 41426.667 ns, p50 41600 ns.
    assert math.isclose(conv["avg"], 0.041426666666666667, rel_tol=1e-12)
    assert math.isclose(conv["p50"], 0.0416, rel_tol=1e-9)  # GPU clock ~7.35e9 ns: float rounding
    assert conv["runs"] == 3
    # Logging.cpp make_arg_json: the input texture first, the output last.
    assert conv["args"][0] == {"type": "TENSOR", "value_ref": 2, "dtype": "Float", "sizes": [1, 3, 16, 16],
                               "storage": "TEXTURE_3D", "packed_dim": 2}  # fmt: skip
    assert conv["args"][-1]["value_ref"] == 9
    # delegate_map of encode: {"0": [1], "12": [1, 2], "1": [2]}.
    assert conv["node"] == {"identifier": "0", "debug_handles": [1], "nodes": ["aten_convolution_default_"],
                            "op_types": ["aten.convolution.default"], "exact": True}  # fmt: skip
    staging = df.iloc[5]
    assert staging["staging_copy"] is True and staging["op"] is None and staging["node"] is None
    assert df.iloc[7]["whole_call"] is True and df.iloc[0]["whole_call"] is False
    calls = df.attrs["delegate_calls"]
    assert len(calls) == 1 and calls[0]["event"] == 8 and calls[0]["whole_call"]["name"] == "ETVK_EXECUTE"
    assert calls[0]["work"] == [2, 3, 4, 5]


def test_equals_the_cli_json():
    """Row for row, field for field, what `etscope-cli backend-events --json` writes."""
    for etdump, extra, kw in (
        (VULKAN, ["--etrecord", CNN_ETRECORD, "--method", "encode"], {"etrecord": CNN_ETRECORD}),
        (data("backend/vgf_conv/etdump.etdp"), [], {}),
        (data("backend/neutron_kernels/etdump.etdp"), [], {}),
        (fixture("runtime/xnnpack_mlp_intermediates/etdump.etdp"), [], {}),
    ):
        method = "encode" if extra else "forward"
        out = json.loads(cli("backend-events", "--etdump", etdump, *extra, "--json"))
        df = etscope.Inspector(etdump_path=etdump, **kw).backend_events(method=method)
        assert len(df) == len(out["events"]), etdump
        for row, expected in zip(df.to_dict("records"), out["events"]):
            assert {k: v for k, v in row.items() if v is not None} == expected, (etdump, expected["event"])
        assert df.attrs["delegate_calls"] == out["delegate_calls"]


def test_neutron_and_xnnpack_by_hand():
    # NeutronBackend.cpp: running index = delegate id, 1 byte of metadata = function code;
    # test_profiling.py names code 0 "Profiling dump". Authored profile: codes 5, 12, 5, then 0.
    df = etscope.Inspector(etdump_path=data("backend/neutron_kernels/etdump.etdp")).backend_events()
    first = df[df["block"] == 1]
    assert list(first["kernel_index"]) == [0, 1, 2, 3]
    assert list(first["function_code"]) == [5, 12, 5, 0]
    assert list(first["backend_op"]) == ["Neutron kernel 5", "Neutron kernel 12", "Neutron kernel 5", "Profiling dump"]
    # Kernel 0: 100 -> 950 Neutron ticks in both runs.
    assert math.isclose(first.iloc[0]["avg"], 850e-6, rel_tol=1e-12)

    df = etscope.Inspector(etdump_path=fixture("runtime/xnnpack_mlp_intermediates/etdump.etdp")).backend_events()
    gemm = df[df["name"] == "Fully Connected (NC, F32) GEMM #2"]
    assert len(gemm) == 2  # one per delegate call (instructions 0 and 2)
    assert list(gemm["instruction_id"]) == [0, 2]
    row = gemm.iloc[0]
    assert (row["op"], row["layout"], row["dtype"], row["variant"], row["instance"]) == (
        "Fully Connected", "NC", "F32", "GEMM", 2)
    assert set(df["backend"]) == {"XNNPACK"}
    assert df["payload_node"].isna().all()  # no program: no payload to place them on

    # With the program: on the nodes of the payloads, by order (README: the events of each call in
    # the order of its XNNGraph's nodes, xnn_mlp.xnnpack_graphs.json).
    df = etscope.Inspector(etdump_path=fixture("runtime/xnnpack_mlp_intermediates/etdump.etdp"),
                           program=fixture("runtime/xnnpack_mlp_intermediates/xnn_mlp.pte")).backend_events()
    nodes = [(r["instruction_id"], r["payload_node"]["node"], r["payload_node"]["op"]) for _, r in df.iterrows()]
    assert nodes == [(0, 0, "FullyConnected"), (0, 1, "FullyConnected"), (0, 2, "Add"), (0, 3, "Gelu"),
                     (2, 0, "FullyConnected"), (2, 1, "Tanh"), (2, 2, "FullyConnected"), (2, 3, "Softmax")]
    assert {r["placed_by"] for r in df["payload_node"]} == {"runtime order and kind"}
    assert df["payload_node"].iloc[0]["details"][0] == "XNNPACK FullyConnected node 0 (of 4)"


def test_no_backend_events():
    df = etscope.Inspector(etdump_path=fixture("runtime/cnn_mlp_50runs/etdump.etdp")).backend_events()
    assert len(df) == 0 and list(df.columns) == list(etscope.Inspector._BACKEND_EVENT_COLUMNS)
