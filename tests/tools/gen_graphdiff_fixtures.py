#!/usr/bin/python3
"""Writes the graph-against-graph fixture tests/data/analysis/graphdiff_etrecord.bin and the
expected per-layer values tests/data/analysis/graphdiff_expected.json, with real PyTorch
(Debian python3-torch 1.13).

One small float model (linear, relu, layer norm, linear, gelu, linear, log_softmax) is traced
with make_fx three times and packed into one ETRecord with four graphs:
  exported_program                 the float model, ATen dialect, no debug handles, no from_node
  edge_dialect_exported_program/   the same graph in Edge spelling (nodes renamed aten_<name>),
    forward                        debug handles 1..N, from_node -> the ATen node (export_graph_id)
  edge_after_transform/forward     the model fake-quantized after the relu with plain ATen ops:
                                   clamp(round(h * (1/S)), -128, 127) * S, S = 0.05. The four
                                   inserted nodes carry new debug handles and no from_node; every
                                   other node keeps the Edge node's handle and a from_node chain
                                   -> Edge node -> ATen node.
  edge_swapped/forward             the float model with one op changed: silu where the model has
                                   gelu; handles and from_node as above (the silu node descends
                                   from the gelu node).
  edge_unrelated/forward           neg(abs(x)): no operator, debug handle or from_node in common
                                   with the others (graph-diff refuses the pair).
All graphs share the weights; representative_inputs holds one [4, 16] input;
graphdiff_inputs.pt another ("with_inputs_file" in the expected values).

Also written: upstream_v0_inputs.pt, two float32 [3, 2] tensors for the real upstream 2023 ETRecord
(shared fixtures upstream/example_etrecord_v0.bin: one aten.mul.Tensor node in both its graphs,
no representative_inputs), so that graph-diff runs on a file written by ExecuTorch itself.

Expected values are PyTorch's: every node of every graph is run with torch.fx.Interpreter, and
for each comparison listed in COMPARISONS the generator pairs the nodes it built to correspond
(it knows them by construction, not by etscope's rules), computes MSE, SNR and MAXABS in float64
with torch, and judges each against the noise rule of docs/inspector-semantics.md §9.4
(float32: tau = sqrt(2^-23); MSE noise (tau * rms(a))^2, MAXABS tau * max|a|, SNR -20 log10 tau).

Run: /usr/bin/python3 tests/tools/gen_graphdiff_fixtures.py
"""
import json
import math
import os
import sys
import zipfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.fx.experimental.proxy_tensor import make_fx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_eval_fixtures as g  # noqa: E402  (serializer and capture of the evaluator fixtures)

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "analysis")
EXPORT_GID = 140234567890300
EDGE_GID = 140234567890301
SCALE = 0.05
TAU = math.sqrt(2.0 ** -23)


class Net(nn.Module):
    def __init__(self, variant="float"):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.ln = nn.LayerNorm(32)
        self.fc2 = nn.Linear(32, 32)
        self.fc3 = nn.Linear(32, 8)
        self.variant = variant

    def forward(self, x):
        h = F.relu(self.fc1(x))
        if self.variant == "fakequant":
            h = torch.clamp(torch.round(h * (1.0 / SCALE)), -128, 127) * SCALE
        h = self.ln(h)
        h = self.fc2(h)
        h = F.silu(h) if self.variant == "swapped" else F.gelu(h)
        return F.log_softmax(self.fc3(h), -1)


def call_nodes(gm):
    return [n for n in gm.graph.nodes if n.op == "call_function" and getattr(n.target, "__name__", "") != "getitem"]


def rename(doc, mapping):
    """Renames nodes and the tensors they produce everywhere in the serialized graph."""
    def walk(v):
        if isinstance(v, dict):  # {"name": schema argument, "arg": ...} keeps its argument name
            return {k: (mapping.get(x, x) if k == "name" and isinstance(x, str) and "arg" not in v else walk(x))
                    for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x) for x in v]
        return v
    graph = doc["graph_module"]["graph"]
    graph["tensor_values"] = {mapping.get(k, k): v for k, v in graph["tensor_values"].items()}
    return walk(doc)


def produced(node_json):
    names = [node_json["name"]]
    for o in node_json["outputs"]:
        if "as_tensor" in o:
            names.append(o["as_tensor"]["name"])
        for t in o.get("as_tensors", []):
            names.append(t["name"])
    return names


def from_node(chain):
    """from_node metadata (JSON text) for a chain of (name, target, graph_id), nearest first."""
    entry = []
    for name, target, gid in reversed(chain):
        entry = [{"name": name, "target": target, "graph_id": gid, "pass_name": "to_edge", "action": "create",
                  "from_node": entry}]
    return json.dumps(entry)


def trace(variant, state, x):
    torch.manual_seed(0)
    m = Net(variant)
    m.load_state_dict(state)
    m.eval()
    with torch.enable_grad():
        gm = make_fx(m)(x)
    return m, gm


def main():
    torch.manual_seed(31)
    base = Net()
    state = base.state_dict()
    x = torch.randn(4, 16)
    graphs = {}
    for variant in ("float", "fakequant", "swapped"):
        m, gm = trace(variant, state, x)
        text, st, consts, expected = g.serialize(gm, m, [x], "aten" if variant == "float" else "edge")
        graphs[variant] = {"doc": json.loads(text), "state": st, "consts": consts, "expected": expected, "gm": gm,
                           "nodes": call_nodes(gm)}

    # The float graph: ATen (names as traced, no handles) and Edge (renamed, handles, from_node).
    fl = graphs["float"]
    aten = fl["doc"]
    aten_nodes = aten["graph_module"]["graph"]["nodes"]
    aten_target = {}
    for n in aten_nodes:
        n["metadata"].pop("debug_handle")
        aten_target[n["name"]] = n["target"].replace("torch.ops.", "")
    edge = json.loads(json.dumps(aten))
    edge["dialect"] = "EDGE"
    edge["verifiers"] = ["EXIREdgeDialectVerifier"]
    emap = {}
    for n in edge["graph_module"]["graph"]["nodes"]:
        for t in produced(n):
            emap[t] = "aten_" + t
    edge_handle, edge_name = {}, {}
    for k, n in enumerate(edge["graph_module"]["graph"]["nodes"]):
        n["target"] = g.EDGE + n["target"].replace("torch.ops.", "")
        n["metadata"]["debug_handle"] = str(k + 1)
        n["metadata"]["from_node"] = from_node([(n["name"], aten_target[n["name"]], EXPORT_GID)])
        edge_handle[n["name"]] = k + 1
        edge_name[n["name"]] = "aten_" + n["name"]
    edge = rename(edge, emap)
    n_float = len(aten_nodes)

    # Transformed graphs: node k of the float graph corresponds to the variant's node with the
    # same target in sequence; the variant's other nodes are the inserted ones.
    def transformed(variant):
        gv = graphs[variant]
        doc = gv["doc"]
        nodes = doc["graph_module"]["graph"]["nodes"]
        corr, inserted, k = {}, [], 0  # variant node name -> float node name
        for n in nodes:
            t = n["target"].replace(g.EDGE, "")
            if k < n_float and (t == aten_target[aten_nodes[k]["name"]] or len(nodes) == n_float):
                corr[n["name"]] = aten_nodes[k]["name"]
                k += 1
            else:
                inserted.append(n["name"])
        assert k == n_float, (variant, k, n_float)
        vmap, extra, final_of = {}, n_float, {}
        for n in nodes:
            if n["name"] in corr:
                f = corr[n["name"]]
                same = n["target"].replace(g.EDGE, "") == aten_target[f]
                new = edge_name[f] if same else "aten_" + n["name"]
                final_of[f] = new
                n["metadata"]["debug_handle"] = str(edge_handle[f])
                n["metadata"]["from_node"] = from_node(
                    [(new, aten_target[f], EDGE_GID), (f, aten_target[f], EXPORT_GID)])
            else:
                extra += 1
                new = "aten_" + n["name"] + "_fq"
                n["metadata"]["debug_handle"] = str(extra)
            for t in produced(n):
                vmap[t] = new if t == n["name"] else new + \
                    t[len(n["name"]):] if t.startswith(n["name"]) else "aten_" + t + "_v"
        names_before = {n["name"]: n["name"] for n in nodes}
        doc = rename(doc, vmap)
        return doc, final_of, [vmap[i] for i in inserted], {vmap[k]: v for k, v in names_before.items()}

    fq_doc, fq_corr, fq_inserted, fq_fx = transformed("fakequant")
    gt_doc, gt_corr, gt_inserted, gt_fx = transformed("swapped")
    assert not gt_inserted

    # Per-node PyTorch values by final node name, per graph: those of the representative input
    # (serialize's), or of another input file (graphdiff_inputs.pt, a second seed, 3x the scale).
    x2 = torch.randn(4, 16, generator=torch.Generator().manual_seed(77)) * 3

    def values(variant, fx_of, inputs=None):
        exp = graphs[variant]["expected"]
        if inputs is not None:
            run = g.capture(graphs[variant]["gm"], inputs)
            exp = {n.name: [t for t in v if t is not None] if isinstance(v, (tuple, list)) else [v]
                   for n, v in run.items()}
        return {final: exp[fx] for final, fx in fx_of.items()}
    float_fx = {n["name"]: n["name"] for n in aten_nodes}

    def all_values(inputs=None):
        return {
            "exported_program": values("float", float_fx, inputs),
            "edge_dialect_exported_program/forward": values("float", {"aten_" + k: k for k in float_fx}, inputs),
            "edge_after_transform/forward": values("fakequant", fq_fx, inputs),
            "edge_swapped/forward": values("swapped", gt_fx, inputs),
        }
    val = all_values()
    order = {
        "exported_program": [n["name"] for n in aten_nodes],
        "edge_dialect_exported_program/forward": ["aten_" + n["name"] for n in aten_nodes],
        "edge_after_transform/forward": [n["name"] for n in fq_doc["graph_module"]["graph"]["nodes"]],
        "edge_swapped/forward": [n["name"] for n in gt_doc["graph_module"]["graph"]["nodes"]],
    }
    # The construction's correspondence: float node name -> node name in each graph.
    of_float = {
        "exported_program": {f: f for f in float_fx},
        "edge_dialect_exported_program/forward": {f: "aten_" + f for f in float_fx},
        "edge_after_transform/forward": fq_corr,
        "edge_swapped/forward": gt_corr,
    }
    inserted = {"edge_after_transform/forward": fq_inserted}

    def metrics(a, b):
        a, b = a.to(torch.float64), b.to(torch.float64)
        d = a - b
        mse = float((d * d).mean())
        sig = float((a * a).mean())
        snr = math.inf if mse == 0 and sig != 0 else (math.nan if mse == 0 else 10 * math.log10(sig / mse))
        maxabs = float(d.abs().max())
        rms = math.sqrt(sig)
        noise = {"MSE": (TAU * rms) ** 2, "SNR": -20 * math.log10(TAU), "MAXABS": TAU * float(a.abs().max())}
        flagged = mse > noise["MSE"]
        return {"MSE": mse, "SNR": snr, "MAXABS": maxabs}, noise, flagged

    def text(v):
        return v if math.isfinite(v) else repr(v)

    def compare(a_name, b_name, by, val):
        rows = []
        first = None
        # Execution order of graph a: the float graph's nodes, or every node of a graph compared
        # with itself.
        pairs = [(n, n) for n in order[a_name]] if a_name == b_name else \
            [(of_float[a_name][f], of_float[b_name][f]) for f in float_fx]
        for an, bn in pairs:
            va, vb = val[a_name][an], val[b_name][bn]
            per = [metrics(ta, tb) for ta, tb in zip(va, vb)]
            flagged = any(p[2] for p in per)
            if flagged and first is None:
                first = an
            rows.append({"a_node": an, "b_node": bn, "aligned_by": by,
                         "MSE": [text(p[0]["MSE"]) for p in per], "SNR": [text(p[0]["SNR"]) for p in per],
                         "MAXABS": [text(p[0]["MAXABS"]) for p in per],
                         "noise_MSE": [p[1]["MSE"] for p in per], "flagged": flagged})
        return {"a": a_name, "b": b_name, "rows": rows, "first_parting": first,
                "unaligned_a": [], "unaligned_b": inserted.get(b_name, []) if a_name != b_name else []}

    comparisons = {}
    for a_name, b_name, by in [
        ("exported_program", "edge_dialect_exported_program/forward", "from_node"),
        ("exported_program", "edge_after_transform/forward", "from_node"),
        ("edge_dialect_exported_program/forward", "edge_after_transform/forward", "debug_handle"),
        ("exported_program", "edge_swapped/forward", "from_node"),
        ("edge_after_transform/forward", "edge_after_transform/forward", "debug_handle"),
    ]:
        comparisons[f"{a_name} vs {b_name}"] = compare(a_name, b_name, by, val)
    with_inputs = compare("exported_program", "edge_after_transform/forward", "from_node", all_values([x2]))
    torch.save((x2,), os.path.join(OUT, "graphdiff_inputs.pt"))
    gv0 = torch.Generator().manual_seed(5)
    torch.save((torch.randn(3, 2, generator=gv0), torch.randn(3, 2, generator=gv0)),
               os.path.join(OUT, "upstream_v0_inputs.pt"))

    # A graph with nothing to align with the others: operators the float model does not use,
    # debug handles from 101, no from_node.
    class Unrelated(nn.Module):
        def forward(self, x):
            return torch.neg(torch.abs(x))
    with torch.enable_grad():
        ugm = make_fx(Unrelated())(x)
    utext, _, _, _ = g.serialize(ugm, Unrelated(), [x], "edge")
    unrelated = json.loads(utext)
    for n in unrelated["graph_module"]["graph"]["nodes"]:
        n["metadata"]["debug_handle"] = str(100 + int(n["metadata"]["debug_handle"]))

    def pack(doc):
        return json.dumps(doc).encode()
    st = g.torch_bytes(fl["state"])
    cs = g.torch_bytes(fl["consts"])
    entries = [("ETRECORD_V0", b"")]
    for name, doc in [("exported_program", aten), ("edge_dialect_exported_program/forward", edge),
                      ("edge_after_transform/forward", fq_doc), ("edge_swapped/forward", gt_doc),
                      ("edge_unrelated/forward", unrelated)]:
        entries += [(name, pack(doc)), (name + "_state_dict", st), (name + "_constants", cs),
                    (name + "_example_inputs", g.torch_bytes(((x,), {})))]
    entries += [("export_graph_id", json.dumps(EXPORT_GID).encode()),
                ("representative_inputs", g.torch_bytes([x]))]
    path = os.path.join(OUT, "graphdiff_etrecord.bin")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            z.writestr(zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0)), data, compress_type=zipfile.ZIP_DEFLATED)
    summary = {"generator": "tests/tools/gen_graphdiff_fixtures.py", "torch": torch.__version__, "scale": SCALE,
               "tau": TAU, "order": order, "comparisons": comparisons,
               "with_inputs_file": {"inputs": "graphdiff_inputs.pt", **with_inputs}}
    with open(os.path.join(OUT, "graphdiff_expected.json"), "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    for k, c in comparisons.items():
        print(k, "first parting:", c["first_parting"], "unaligned b:", c["unaligned_b"])


if __name__ == "__main__":
    main()
