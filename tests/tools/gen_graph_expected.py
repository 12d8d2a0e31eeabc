#!/usr/bin/python3
"""Expected operator graphs for tst_programgraph, counted straight from the serialized JSON of
the ETRecords (zipfile + json only; etscope is not involved).

Per program entry:
* nodes: every serialized graph node except getitem (folded into the node whose output it picks)
  and memory.alloc; placeholders (graph inputs / weights) are not nodes.
* edges: distinct (producer, consumer) pairs where the consumer reads a tensor produced by the
  producer (through a getitem counts as the producer).
* modules: per node the keys of its nn_module_stack, outermost first ("key,path,type;...").
* top_level: what the collapsed view draws: one box per outermost module key plus the nodes
  without a module stack (no delegates in these programs).
* partitions: per delegate instruction of delegate_map, the nodes whose debug_handle is one of
  the instruction's debug handles (debug_handle_map).
* gap_perturbed_nodes: nodes carrying the debug handles of the instructions that
  gen_gap_perturbed.py perturbed (cnn_mlp_perturbed_expected.json, rows with perturbed=true).

Run: /usr/bin/python3 tests/tools/gen_graph_expected.py  -> tests/data/graph/graph_expected.json
"""
import json
import os
import zipfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, "..", ".."))
data = os.path.join(root, "tests", "data")


def active(arg):
    # Argument union: one key, or every member with nulls (older files).
    return {k: v for k, v in arg.items() if v is not None}


def tensor_names(arg):
    out = []
    for k, v in active(arg).items():
        if k == "as_tensor":
            out.append(v["name"])
        elif k == "as_tensors":
            out += [t["name"] for t in v]
        elif k == "as_optional_tensors":
            for t in v:
                t = active(t)
                if "as_tensor" in t:
                    out.append(t["as_tensor"]["name"])
    return out


def program(z, entry):
    doc = json.loads(z.read(entry))
    g = doc["graph_module"]["graph"]
    producer, nodes, edges, modules = {}, [], [], {}
    handles = {}
    for n in g["nodes"]:
        target = n["target"]
        outs = [t for o in n["outputs"] for t in tensor_names(o)]
        ins = [t for a in n["inputs"] for t in tensor_names(a["arg"])]
        if target.endswith("getitem"):
            src = next((producer[t] for t in ins if t in producer), None)
            for t in outs:
                producer.setdefault(t, src)
            continue
        if target.endswith("memory.alloc"):
            continue
        name = n["name"]
        nodes.append(name)
        md = {m["key"]: m["value"] for m in n["metadata"]} if isinstance(n["metadata"], list) else n["metadata"]
        stack = md.get("nn_module_stack")
        modules[name] = [e.split(",")[0] for e in stack.split(";")] if stack else []
        if md.get("debug_handle") is not None:
            handles[name] = int(md["debug_handle"])
        for t in ins:
            p = producer.get(t)
            if p is not None and (p, name) not in edges:
                edges.append((p, name))
        for t in outs:
            producer.setdefault(t, name)
    return nodes, edges, modules, handles


def record(path, entries):
    z = zipfile.ZipFile(path)
    dhm = json.loads(z.read("debug_handle_map")) if "debug_handle_map" in z.namelist() else {}
    dm = json.loads(z.read("delegate_map")) if "delegate_map" in z.namelist() else {}
    out, first_handles = {}, None
    for entry, method in entries:
        nodes, edges, modules, handles = program(z, entry)
        if first_handles is None:
            first_handles = handles
        top = []
        for n in nodes:
            key = modules[n][0] if modules[n] else n
            if key not in top:
                top.append(key)
        parts = []
        for instr, d in sorted((dm.get(method) or {}).items(), key=lambda kv: int(kv[0])):
            hs = dhm[method][instr]
            hs = set(hs if isinstance(hs, list) else [hs])
            parts.append({"instruction": int(instr), "backend": d["name"],
                          "nodes": [n for n in nodes if handles.get(n) in hs]})
        out[entry] = {"nodes": nodes, "edge_count": len(edges), "edges": [list(e) for e in edges],
                      "modules": modules, "top_level_count": len(top), "partitions": parts}
    return out, dhm, first_handles


expected = {}
xnn, _, _ = record(os.path.join(data, "etrecord", "xnn_mlp_etrecord.bin"),
                   [("edge_dialect_exported_program/forward", "forward")])
expected["xnn_mlp_etrecord.bin"] = xnn
cnn, dhm, cnn_handles = record(os.path.join(data, "etrecord", "cnn_mlp_etrecord.bin"),
                               [("edge_dialect_exported_program/forward", "forward"),
                                ("edge_dialect_exported_program/encode", "encode"),
                                ("exported_program", "forward")])
expected["cnn_mlp_etrecord.bin"] = cnn

# Numeric gap: instructions perturbed by gen_gap_perturbed.py -> their debug handles -> nodes.
gap = json.load(open(os.path.join(data, "analysis", "cnn_mlp_perturbed_expected.json")))
perturbed = sorted({r["instruction"] for r in gap["rows"] if r["perturbed"]})
hs = set()
for i in perturbed:
    h = dhm["forward"][str(i)]
    hs |= set(h if isinstance(h, list) else [h])
expected["gap_perturbed_instructions"] = perturbed
expected["gap_perturbed_nodes"] = [n for n in cnn["edge_dialect_exported_program/forward"]["nodes"]
                                   if cnn_handles.get(n) in hs]

os.makedirs(os.path.join(data, "graph"), exist_ok=True)
with open(os.path.join(data, "graph", "graph_expected.json"), "w") as f:
    json.dump(expected, f, indent=1)
    f.write("\n")
print({k: (len(v["nodes"]), v["edge_count"], v["top_level_count"]) for r in (xnn, cnn) for k, v in r.items()},
      expected["gap_perturbed_nodes"])
