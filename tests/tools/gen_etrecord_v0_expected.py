#!/usr/bin/python3
"""Expected facts about the real upstream ETRecord shared/fixtures/upstream/example_etrecord_v0.bin,
read with Python's zipfile/json only (independent of etscope). Writes
tests/data/etrecord/example_etrecord_v0_expected.json.

    python3 tests/tools/gen_etrecord_v0_expected.py [/work/shared]
"""
import json
import os
import sys
import zipfile

shared = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared")
z = zipfile.ZipFile(os.path.join(shared, "fixtures", "upstream", "example_etrecord_v0.bin"))


def nodes(entry):
    doc = json.loads(z.read(entry))
    out = []
    for n in doc["graph_module"]["graph"]["nodes"]:
        outs = [o for o in n["outputs"] if o.get("as_tensor")]
        md = n.get("metadata", {})
        out.append({
            # 2023 files have no node name: the node is named after its single tensor output.
            "name": n.get("name") or outs[0]["as_tensor"]["name"],
            "target": n["target"],
            "debug_handle": int(md["debug_handle"]) if "debug_handle" in md else None,
            "stack_trace": md.get("stack_trace"),
            "source_fn_stack": md.get("source_fn_stack"),
            "inputs": [i["name"] for i in n["inputs"]],
        })
    return {"nodes": out,
            "graph_inputs": [a["as_tensor"]["name"] for a in doc["graph_module"]["graph"]["inputs"]],
            "tensor_shapes": {k: [s["as_int"] for s in v["meta"]["sizes"]]
                              for k, v in doc["graph_module"]["graph"]["tensor_values"].items()},
            "schema_version": doc["schema_version"]}


expected = {
    "entries": [[i.filename, i.file_size] for i in z.infolist()],
    "programs": {e: nodes(e) for e in ("aten_dialect_output/forward", "edge_dialect_exported_program")},
    "debug_handle_map": json.loads(z.read("debug_handle_map")),
    "delegate_map": json.loads(z.read("delegate_map")),
}
out = os.path.join(os.path.dirname(__file__), "..", "data", "etrecord", "example_etrecord_v0_expected.json")
with open(out, "w") as f:
    json.dump(expected, f, indent=1)
    f.write("\n")
