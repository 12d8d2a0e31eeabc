"""etscope.Program: the .pte with each delegate's payload decoded, and its size. Truth: the
XNNPACK fixture's xnn_mlp.xnnpack_graphs.json (the graphs its payloads were compiled from) and
tests/data/program/delegates/expected_delegates.json (tests/tools/gen_delegate_payloads.py)."""
import json
import os

import pytest

import etscope
from conftest import SHARED, TEST_DATA

XNN = os.path.join(SHARED, "fixtures", "runtime", "xnnpack_mlp_intermediates")


def test_xnnpack_delegates_have_their_nodes():
    program = etscope.Program(os.path.join(XNN, "xnn_mlp.pte"))
    with open(os.path.join(XNN, "xnn_mlp.xnnpack_graphs.json")) as f:
        graphs = json.load(f)
    delegates = program.delegates
    assert [d.backend_id for d in delegates] == ["XnnpackBackend", "XnnpackBackend"]
    for i, d in enumerate(delegates):
        graph = graphs["delegate_%d" % i]
        assert d.decoded
        assert [n["op"] for n in d.nodes] == [x["xnode_union_type"][3:] for x in graph["xnodes"]]
        dims = {v["xvalue_union"]["id_out"]: v["xvalue_union"]["dims"] for v in graph["xvalues"]}
        for node in d.nodes:
            for v in node["inputs"] + node["outputs"]:
                assert v["shape"] == dims[v["id"]]


def test_ethos_u_budget_and_opaque():
    program = etscope.Program(os.path.join(TEST_DATA, "program", "delegates", "mixed_backends.pte"))
    with open(os.path.join(TEST_DATA, "program", "delegates", "expected_delegates.json")) as f:
        expected = json.load(f)["mixed_backends.pte"]
    ethos = program.delegates[1]
    assert ethos.backend_id == "EthosUBackend"
    assert ethos.scratch_bytes == expected[1]["scratch_bytes"]
    assert ethos.command_stream_bytes == expected[1]["command_stream_bytes"]
    assert ethos.weight_bytes == expected[1]["weight_bytes"]
    assert not program.delegates[2].decoded
    assert program.delegates[2].payload["summary"].startswith("opaque: 208 bytes")


def test_size_adds_up():
    size = etscope.Program(os.path.join(XNN, "xnn_mlp.pte")).size()
    assert size["file_bytes"] == os.path.getsize(os.path.join(XNN, "xnn_mlp.pte"))
    assert sum(p["bytes"] for p in size["parts"]) == size["file_bytes"]


def test_bad_file_is_a_value_error(tmp_path):
    bad = tmp_path / "bad.pte"
    bad.write_bytes(b"not a program at all")
    with pytest.raises(ValueError, match="bad.pte"):
        etscope.Program(str(bad))
