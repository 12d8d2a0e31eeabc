#!/usr/bin/python3
"""ETRecords whose weights ARE the weights of the real runtime fixtures, and what numpy expects
when etscope's built-in evaluator is the gap reference (tst_evalgap, CLI tests).

The repository's ETRecords (tests/data/etrecord/cnn_mlp_etrecord.bin, xnn_mlp_etrecord.bin, from
gen_etrecord_fixtures.py) hold the graphs of the fixture programs but randomly initialised
weights, so an evaluated reference could never match the runtime. This script copies them and
replaces only the weight blobs (*_state_dict) with the constants stored in the fixture .pte
files (portable constant segment for cnn_mlp; the XNNPACK payloads' constant data and the
portable constant segment for xnn_mlp), adds representative_inputs (cnn_mlp only) = the
runner's input sin(0.37*j + 0.91) (its formula sin(0.37*j + 0.91*seed + 1.3*input_index) with
seed 1 and input 0, checked against the runtime's first convolution output) and regenerates
reference_outputs. The debug/delegate maps are the repository's; the graph JSON too, except
that cnn_mlp's GELU gets back its approximate='tanh' keyword, which gen_etrecord_fixtures.py's
serializer drops (positional arguments only).

Expected values: the same graphs run in real PyTorch (Debian python3-torch, torch.fx
Interpreter over the make_fx trace of gen_etrecord_fixtures.py's modules), every node's output
kept; the AOT value of a debug handle is the output of the last node carrying it (§8 step 2).
Gaps (MSE, float64, numpy) against the runtime values read from the debug buffers at the
offsets `flatc --json` decodes from the ETDumps:
  * original buffers: every row, expected ~0 (the runtime and torch agree to float rounding);
  * tests/data/analysis/cnn_mlp_perturbed.bin (gen_gap_perturbed.py: instructions 3, 14, 25
    perturbed): accumulated gap per instruction and output;
  * isolated mode: each node evaluated by torch from the runtime values of its inputs (the
    producing node's logged output when it has one, otherwise the node's own isolated value),
    MSE against the perturbed runtime; the instructions whose isolated gap exceeds 1e-9.
Writes tests/data/analysis/{cnn_mlp,xnn_mlp}_runtime_etrecord.bin, xnn_mlp_inputs.pt and
evaluator_gap_expected.json.
Run: /usr/bin/python3 tests/tools/gen_gap_evaluator.py   (needs flatc; reads ../shared)
"""
import io
import json
import os
import struct
import subprocess
import sys
import tempfile
import zipfile

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import gen_etrecord_fixtures as g  # noqa: E402  (models and tracer; its __main__ is not run)

root = os.path.normpath(os.path.join(here, "..", ".."))
shared = os.path.normpath(os.path.join(root, "..", "shared", "fixtures", "runtime"))
outdir = os.path.join(root, "tests", "data", "analysis")
etrdir = os.path.join(root, "tests", "data", "etrecord")


def decode_etdump(path):
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["flatc", "--json", "--raw-binary", "--size-prefixed", "--strict-json", "-o", tmp,
                        os.path.join(root, "core", "etdump", "etdump.fbs"), "--", path], check=True)
        return json.load(open(os.path.join(tmp, os.path.splitext(os.path.basename(path))[0] + ".json")))


DT = {"FLOAT": np.float32, "LONG": np.int64, "INT": np.int32}


def runtime_values(fixture, buffer):
    """instruction id -> list of np arrays (the event's debug_data, intermediates only)."""
    dump = decode_etdump(os.path.join(fixture, "etdump.etdp"))
    data = open(buffer, "rb").read()
    values = {}
    for e in dump["run_data"][1]["events"]:
        d = e.get("debug_event")
        if not d or "output" in d["debug_entry"] or d.get("chain_index", 0) != 0:
            continue
        t = d["debug_entry"]["tensor"]
        n = int(np.prod(t["sizes"]))
        arr = np.frombuffer(data, dtype=DT[t["scalar_type"]], count=n, offset=t.get("offset", 0))
        values.setdefault(d["instruction_id"], []).append(arr.reshape(t["sizes"]).copy())
    return values


def pte_constants(fixture, pte_name):
    """Portable constant segment tensors of a fixture .pte: data_buffer_idx -> np array."""
    program = json.load(open(os.path.join(fixture, pte_name.replace(".pte", ".program.json"))))
    pte = open(os.path.join(fixture, pte_name), "rb").read()
    assert pte[8:12] == b"eh00"
    segment_base = struct.unpack("<Q", pte[24:32])[0]
    cs = program["constant_segment"]
    seg = program["segments"][cs["segment_index"]]
    out = {}
    for v in program["execution_plan"][0]["values"]:
        if v["val_type"] != "Tensor" or v["val"].get("data_buffer_idx", 0) <= 0:
            continue
        idx, sizes = v["val"]["data_buffer_idx"], v["val"]["sizes"]
        off = segment_base + seg["offset"] + cs["offsets"][idx]
        out[idx] = np.frombuffer(pte, np.float32, int(np.prod(sizes)), off).reshape(sizes).copy()
    return program, pte, segment_base, out


def xnn_constants(pte, segment_base, segment, graph):
    """XNNPACK payload (XH00 header + flatbuffer + constant data): constant_buffer_idx -> array."""
    payload = pte[segment_base + segment["offset"]: segment_base + segment["offset"] + segment["size"]]
    assert payload[4:8] == b"XH00"
    const_off = struct.unpack("<I", payload[18:22])[0]
    out = {}
    for xv in graph["xvalues"]:
        v = xv["xvalue_union"]
        idx = v["constant_buffer_idx"]
        if idx > 0:
            cd = graph["constant_data"][idx]
            out[idx] = np.frombuffer(
                payload,
                np.float32,
                cd["size"] //
                4,
                const_off +
                cd["offset"]).reshape(
                v["dims"]).copy()
    return out


def load_params(model, named):
    with torch.no_grad():
        for name, p in model.named_parameters():
            arr = named[name]
            assert tuple(arr.shape) == tuple(p.shape), (name, arr.shape, p.shape)
            p.copy_(torch.from_numpy(arr))


def torch_bytes(obj):
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def rewrite_etrecord(src, dst, replace):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        names = zin.namelist()
        for name in names:
            data = replace.pop(name, None)
            zout.writestr(zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0)),
                          data if data is not None else zin.read(name))
        for name, data in replace.items():  # new entries
            zout.writestr(zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0)), data)


def with_gelu_approximate(text):
    """gen_etrecord_fixtures.serialize() writes positional arguments only, so the tanh GELU of
    cnn_mlp lost its `approximate='tanh'` keyword (the only keyword argument in these graphs);
    put it back, as torch.export serializes it."""
    doc = json.loads(text)
    for n in doc["graph_module"]["graph"]["nodes"]:
        if n["target"].endswith("aten.gelu.default") and not any(i["name"] == "approximate" for i in n["inputs"]):
            n["inputs"].append({"name": "approximate", "arg": {"as_string": "tanh"}, "kind": 2})
    return json.dumps(doc).encode()


def node_outputs(gm, x, override=None):
    """Runs the make_fx graph; returns {node: output}. With `override(node) -> value or None`,
    each node reads override(producer) instead of the producer's computed output."""
    env = {}
    it = iter([x])
    for n in gm.graph.nodes:
        if n.op == "placeholder":
            env[n] = next(it)
        elif n.op == "get_attr":
            env[n] = getattr(gm, n.target)
        elif n.op == "call_function":
            def load(a):
                if isinstance(a, torch.fx.Node):
                    if override is not None and a.op == "call_function":
                        o = override(a)
                        if o is not None:
                            return o
                    return env[a]
                if isinstance(a, (list, tuple)):
                    return type(a)(load(v) for v in a)
                return a
            with torch.no_grad():
                env[n] = n.target(*[load(a) for a in n.args], **{k: load(v) for k, v in n.kwargs.items()})
    return env


def call_nodes(gm):
    return [n for n in gm.graph.nodes if n.op == "call_function" and n.target.__name__ != "getitem"]


def mse(a, b):
    return float(np.mean((np.asarray(a, np.float64) - np.asarray(b, np.float64)) ** 2))


def aot_by_handle(gm, env, records):
    """§8 step 2: handle -> value of the last node with it (tuples become lists)."""
    out = {}
    for n, r in zip(call_nodes(gm), records):
        v = env[n]
        out[r["handle"]] = [t.detach().numpy() for t in v] if isinstance(v, (list, tuple)) else v.detach().numpy()
    return out


def gaps(aot, rt):
    """§8 step 6 for one handle / runtime entry with num_outputs 1 (all our rows)."""
    if isinstance(aot, list):
        return [mse(a, r) for a, r in zip(aot, rt)]
    same = [r for r in rt if r.shape == aot.shape]
    return [mse(aot, same[0] if len(same) == 1 else rt[-1])]


def owner_instructions(dhm):
    owner = {}
    for instr, h in sorted(((int(k), v) for k, v in dhm.items())):
        hs = h if isinstance(h, list) else [h]
        owner[tuple(hs)] = instr  # identical tuples: larger instruction wins
    return owner


def main():
    torch.manual_seed(3)
    x = torch.sin(torch.arange(3 * 16 * 16, dtype=torch.float32) * 0.37 + 0.91).reshape(1, 3, 16, 16)

    # --- cnn_mlp ------------------------------------------------------------------------------
    cnn_dir = os.path.join(shared, "cnn_mlp_intermediates")
    _, _, _, consts = pte_constants(cnn_dir, "cnn_mlp.pte")
    order = ["stem.conv.weight", "stem.conv.bias", "blocks.0.conv.weight", "blocks.0.conv.bias", "blocks.0.bn_scale",
             "blocks.0.bn_shift", "blocks.0.dw.weight", "head.fc1.weight", "head.fc1.bias", "head.norm.weight",
             "head.norm.bias", "head.fc2.weight", "head.fc2.bias", "classifier.weight", "classifier.bias"]
    model = g.CnnMlp().eval()
    load_params(model, {name: consts[i + 1] for i, name in enumerate(order)})
    probs, cls = model(x)
    runtime_probs = [
        0.100996,
        0.0917227,
        0.104787,
        0.106185,
        0.0974972,
        0.0923113,
        0.105854,
        0.0964812,
        0.101155,
        0.103011]
    assert np.allclose(probs.detach().numpy()[0], runtime_probs, atol=2e-6), probs
    gm = g.trace(model, x)
    _, records = g.serialize(gm, model, "edge", 0)
    sd = {k: v.detach().clone() for k, v in model.state_dict().items()}
    stem_sd = {k: v.detach().clone() for k, v in torch.nn.Sequential(model.stem).state_dict().items()}
    src = zipfile.ZipFile(os.path.join(etrdir, "cnn_mlp_etrecord.bin"))
    rewrite_etrecord(os.path.join(etrdir, "cnn_mlp_etrecord.bin"),
                     os.path.join(outdir, "cnn_mlp_runtime_etrecord.bin"), {
        "exported_program": with_gelu_approximate(src.read("exported_program")),
        "edge_dialect_exported_program/forward":
            with_gelu_approximate(src.read("edge_dialect_exported_program/forward")),
        "exported_program_state_dict": torch_bytes(sd),
        "edge_dialect_exported_program/forward_state_dict": torch_bytes(sd),
        "edge_dialect_exported_program/encode_state_dict": torch_bytes(stem_sd),
        "reference_outputs": torch_bytes({"forward": [[probs.detach(), cls]]}),
        "representative_inputs": torch_bytes([x]),
    })
    dhm = json.loads(zipfile.ZipFile(os.path.join(etrdir, "cnn_mlp_etrecord.bin")).read("debug_handle_map"))["forward"]
    owner = owner_instructions(dhm)
    env = node_outputs(gm, x)
    aot = aot_by_handle(gm, env, records)
    orig = runtime_values(cnn_dir, os.path.join(cnn_dir, "debug_output.bin"))
    # The perturbed buffer keeps the first 131072 bytes (all tensors), see gen_gap_perturbed.py.
    pert = runtime_values(cnn_dir, os.path.join(outdir, "cnn_mlp_perturbed.bin"))
    perturbed = json.load(open(os.path.join(outdir, "cnn_mlp_perturbed_expected.json")))["perturbed_instructions"]

    # Isolated mode in torch: a node reads the runtime value of a producer that has one (the last
    # node of a handle whose runtime entry exists); its own isolated value otherwise.
    nodes = call_nodes(gm)
    handle_of = {n: r["handle"] for n, r in zip(nodes, records)}
    last_of_handle = {}
    for n in nodes:
        last_of_handle[handle_of[n]] = n

    def isolated(values):
        rt_by_handle = {hs[-1]: values[instr] for hs, instr in owner.items()}

        def override(p):
            if p.op == "call_function" and p.target.__name__ == "getitem":
                base, idx = p.args
                if last_of_handle.get(handle_of.get(base)) is base and handle_of[base] in rt_by_handle:
                    return torch.from_numpy(rt_by_handle[handle_of[base]][idx].copy())
                return None
            h = handle_of.get(p)
            if isinstance(env[p], (list, tuple)):
                return None  # multi-output: its getitem users read the runtime values
            if h is not None and last_of_handle[h] is p and h in rt_by_handle:
                v = rt_by_handle[h]
                same = [r for r in v if tuple(r.shape) == tuple(env[p].shape)]
                return torch.from_numpy((same[0] if len(same) == 1 else v[-1]).copy())
            return None

        return aot_by_handle(gm, node_outputs(gm, x, override), records)

    iso = isolated(pert)
    rows = []
    for hs, instr in sorted(owner.items(), key=lambda kv: kv[1]):
        h = hs[-1]
        rows.append({"instruction": instr, "handles": list(hs), "gap_mse_original": gaps(aot[h], orig[instr]),
                     "gap_mse_perturbed": gaps(aot[h], pert[instr]),
                     "gap_mse_isolated_perturbed": gaps(iso[h], pert[instr])})
    iso_flagged = sorted(r["instruction"] for r in rows if max(r["gap_mse_isolated_perturbed"]) > 1e-9)
    acc_flagged = sorted(r["instruction"] for r in rows if max(r["gap_mse_perturbed"]) > 1e-9)
    cnn = {"rows": rows, "perturbed_instructions": perturbed, "accumulated_flagged": acc_flagged,
           "isolated_flagged": iso_flagged, "probs": probs.detach().numpy()[0].tolist(), "class": int(cls[0])}

    # --- xnn_mlp ------------------------------------------------------------------------------
    xdir = os.path.join(shared, "xnnpack_mlp_intermediates")
    program, pte, base, xconsts = pte_constants(xdir, "xnn_mlp.pte")
    graphs = json.load(open(os.path.join(xdir, "xnn_mlp.xnnpack_graphs.json")))
    d0 = xnn_constants(pte, base, program["segments"][1], graphs["delegate_0"])
    d1 = xnn_constants(pte, base, program["segments"][2], graphs["delegate_1"])
    xmodel = g.XnnMlp().eval()
    load_params(xmodel, {"fc1.weight": d0[1], "fc1.bias": d0[2], "fc2.weight": d0[3], "fc2.bias": d0[4],
                         "norm.weight": xconsts[1], "norm.bias": xconsts[2],
                         "fc3.weight": d1[1], "fc3.bias": d1[2], "fc4.weight": d1[3], "fc4.bias": d1[4]})
    xx = torch.sin(torch.arange(64, dtype=torch.float32) * 0.37 + 0.91).reshape(1, 64)
    xprobs, xcls = xmodel(xx)
    xruntime = [0.111925, 0.0839255, 0.162096, 0.115408, 0.085449, 0.115379, 0.0949978, 0.0868743, 0.0609794, 0.0829671]
    assert np.allclose(xprobs.detach().numpy()[0], xruntime, atol=2e-6), xprobs
    xgm = g.trace(xmodel, xx)
    _, xrecords = g.serialize(xgm, xmodel, "edge", 0)
    xsd = {k: v.detach().clone() for k, v in xmodel.state_dict().items()}
    rewrite_etrecord(os.path.join(etrdir, "xnn_mlp_etrecord.bin"),
                     os.path.join(outdir, "xnn_mlp_runtime_etrecord.bin"), {
        "edge_dialect_exported_program/forward_state_dict": torch_bytes(xsd),
    })  # no representative_inputs: the tests give them with --inputs
    with open(os.path.join(outdir, "xnn_mlp_inputs.pt"), "wb") as f:
        f.write(torch_bytes((xx,)))
    xdhm = json.loads(zipfile.ZipFile(os.path.join(etrdir, "xnn_mlp_etrecord.bin")).read("debug_handle_map"))["forward"]
    xaot = aot_by_handle(xgm, node_outputs(xgm, xx), xrecords)
    xorig = runtime_values(xdir, os.path.join(xdir, "debug_output.bin"))
    xrows = []
    for hs, instr in sorted(owner_instructions(xdhm).items(), key=lambda kv: kv[1]):
        xrows.append({"instruction": instr, "handles": list(hs), "gap_mse_original": gaps(xaot[hs[-1]], xorig[instr])})

    json.dump({"generator": "tests/tools/gen_gap_evaluator.py", "torch": torch.__version__, "cnn_mlp": cnn,
               "xnn_mlp": {"rows": xrows, "probs": xprobs.detach().numpy()[0].tolist()}},
              open(os.path.join(outdir, "evaluator_gap_expected.json"), "w"), indent=1)
    print("cnn rows", len(rows), "max original MSE", max(max(r["gap_mse_original"]) for r in rows))
    print("accumulated flagged", acc_flagged, "isolated flagged", iso_flagged)
    print("xnn rows", [(r["instruction"], r["gap_mse_original"]) for r in xrows])


if __name__ == "__main__":
    main()
