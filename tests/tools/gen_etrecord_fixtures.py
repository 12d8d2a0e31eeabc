#!/usr/bin/python3
"""Writes the ETRecord / torch.save fixtures under tests/data/etrecord/.

Run with Debian's PyTorch 1.13 (apt-get install python3-torch):
    /usr/bin/python3 tests/tools/gen_etrecord_fixtures.py

Every torch.save blob is written by real PyTorch. Expected values that the C++ tests compare
against are written next to the fixtures as JSON by this script, computed with PyTorch /
Python (tensor.tolist(), zipfile listings), never by etscope. Tests never run Python.
"""
import collections
import io
import json
import os
import pickle
import sys
import traceback
import zipfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.fx.experimental.proxy_tensor import make_fx

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "etrecord")


def write(name, data):
    path = os.path.join(OUT, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def torch_bytes(obj):
    buf = io.BytesIO()
    torch.save(obj, buf)  # "archive/" prefix, as inside an ETRecord
    return buf.getvalue()


def describe(v):
    """JSON description of a value, for the C++ test to compare against."""
    if isinstance(v, torch.Tensor):
        return {
            "kind": "tensor",
            "dtype": str(v.dtype).replace("torch.", ""),
            "sizes": list(v.shape),
            "strides": list(v.stride()),
            "offset": v.storage_offset(),
            "parameter": isinstance(v, torch.nn.Parameter),
            "values": [float(x) for x in v.detach().to(torch.float64).flatten().tolist()],
        }
    if v is None:
        return {"kind": "None"}
    if isinstance(v, bool):
        return {"kind": "bool", "value": v}
    if isinstance(v, int):
        if -(2**63) <= v < 2**63:
            return {"kind": "int", "value": v}
        return {"kind": "int", "big": True}
    if isinstance(v, float):
        # Non-finite floats as text: strict JSON readers (QJsonDocument) reject Infinity.
        return {"kind": "float", "value": v} if abs(v) < float("inf") else {"kind": "float", "text": repr(v)}
    if isinstance(v, str):
        return {"kind": "str", "value": v}
    if isinstance(v, bytes):
        return {"kind": "bytes", "hex": v.hex()}
    if isinstance(v, tuple):
        return {"kind": "tuple", "items": [describe(x) for x in v]}
    if isinstance(v, list):
        return {"kind": "list", "items": [describe(x) for x in v]}
    if isinstance(v, dict):
        return {"kind": "dict", "items": [[describe(k), describe(x)] for k, x in v.items()]}
    raise TypeError(type(v))


def gen_torchsave():
    torch.manual_seed(7)
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6) / 8 - 1
    sd = collections.OrderedDict()
    sd["conv.weight"] = torch.nn.Parameter(torch.randn(2, 3, 1, 1))
    sd["f32"] = base
    sd["transposed"] = base.t()                 # shares storage, strides (1, 6)
    sd["slice"] = base[1:3, 2:5]                # storage offset 8, non-contiguous
    sd["f16"] = torch.tensor([0.5, -2.0, 65504.0, 1e-4], dtype=torch.float16)
    sd["bf16"] = torch.tensor([1.0, -3.140625, 256.0], dtype=torch.bfloat16)
    sd["f64"] = torch.tensor([[1e300, -0.0]], dtype=torch.float64)
    sd["i64"] = torch.tensor([-(2**40), 7, 0], dtype=torch.int64)
    sd["i32"] = torch.tensor([-5, 2**31 - 1], dtype=torch.int32)
    sd["i8"] = torch.tensor([-128, 127], dtype=torch.int8)
    sd["u8"] = torch.tensor([0, 255], dtype=torch.uint8)
    sd["b"] = torch.tensor([True, False, True])
    sd["scalar"] = torch.tensor(3.5)
    sd["empty"] = torch.zeros(0, 3)
    sd["expanded"] = torch.tensor([1.0, 2.0]).expand(3, 2)  # stride 0
    write("torchsave_tensors.pt", torch_bytes(sd))

    containers = {
        "ints": [0, 1, -1, 255, 256, 65535, 65536, -(2**31), 2**31 - 1, 2**40, -(2**63), 2**63 - 1],
        "big": 2**70,
        "floats": (0.5, -1e-300, float("inf")),
        "text": "hé ✓",
        "bytes": b"\x00\xffab",
        "empty_bytes": b"",
        "flags": [True, False, None],
        "nested": {"t": (1,), "l": [[], {}], 3: "int key"},
        "od": collections.OrderedDict([("z", 1), ("a", 2)]),
        "shared": [base[0], base[0]],
    }
    write("torchsave_containers.pt", torch_bytes(containers))

    expected = {
        "torchsave_tensors.pt": describe(dict(sd)),
        "torchsave_containers.pt": describe(containers),
    }
    with open(os.path.join(OUT, "torchsave_expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=False)
        f.write("\n")


class _Evil:
    def __init__(self, fn, arg):
        self.fn, self.arg = fn, arg

    def __reduce__(self):
        return (self.fn, (self.arg,))


def torchsave_like(pkl):
    """A zip shaped like a torch.save archive around an arbitrary pickle."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for name, data in (("archive/data.pkl", pkl), ("archive/byteorder", b"little"), ("archive/version", b"3\n")):
            z.writestr(zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0)), data)
    return buf.getvalue()


def gen_hostile():
    # Pickles that would run code under pickle.load; they are only written, never loaded.
    write("hostile_os_system.pt", torchsave_like(pickle.dumps(_Evil(os.system, "echo pwned"), protocol=2)))
    write("hostile_builtins_eval.pt", torchsave_like(pickle.dumps(_Evil(eval, "1+1"), protocol=4)))
    write("hostile_builtin_eval_p2.pt", torchsave_like(pickle.dumps(_Evil(eval, "1+1"), protocol=2)))
    # A storage claiming more elements than its data entry holds.
    good = torch_bytes({"w": torch.ones(4)})
    z = zipfile.ZipFile(io.BytesIO(good))
    pkl = z.read("archive/data.pkl")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as w:
        for info in z.infolist():
            data = z.read(info.filename)
            if info.filename == "archive/data/0":
                data = data[:8]  # 2 floats left for a 4-element tensor
            w.writestr(zipfile.ZipInfo(info.filename, date_time=(2026, 1, 1, 0, 0, 0)), data)
    write("hostile_short_storage.pt", out.getvalue())
    assert pkl


# ---------------------------------------------------------------------------------------------
# ETRecords (current layout, formats.md §3): real models traced with make_fx, serialized to the
# exported-program JSON of §3.4 with stack_trace / nn_module_stack / debug_handle / from_node.
THIS_FILE = os.path.abspath(__file__)
SHOWN_FILE = "/home/dev/models/cnn_mlp.py"  # path shown in stack traces (what a user would see)
EDGE = "executorch.exir.dialects.edge.ops."
JSON_DTYPE = {torch.uint8: 1, torch.int8: 2, torch.int16: 3, torch.int32: 4, torch.int64: 5,
              torch.float16: 6, torch.float32: 7, torch.float64: 8, torch.bool: 12, torch.bfloat16: 13}


class Stem(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        return F.relu(self.conv(x))


class Block(nn.Module):
    """conv -> folded batch norm (mul/add) -> relu -> depthwise conv + residual."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 16, 3, padding=1)
        self.bn_scale = nn.Parameter(torch.rand(1, 16, 1, 1) + 0.5)
        self.bn_shift = nn.Parameter(torch.randn(1, 16, 1, 1) * 0.1)
        self.dw = nn.Conv2d(16, 16, 3, padding=1, groups=16, bias=False)

    def forward(self, x):
        y = F.relu(self.conv(x) * self.bn_scale + self.bn_shift)
        return self.dw(y) + y


class Fc2(nn.Module):
    """Linear written as mm + add (the program has permute_copy, mm, add)."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(32, 64) * 0.1)
        self.bias = nn.Parameter(torch.randn(32) * 0.1)

    def forward(self, x):
        return x @ self.weight.t() + self.bias


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(256, 64)
        self.norm = nn.LayerNorm(64)
        self.fc2 = Fc2()

    def forward(self, x):
        h = F.relu(self.norm(self.fc1(x)))
        return torch.tanh(self.fc2(h)) * 0.5


class CnnMlp(nn.Module):
    """Mirrors the 28-instruction program of shared/fixtures/runtime/cnn_mlp_50runs."""

    def __init__(self):
        super().__init__()
        self.stem = Stem()
        self.blocks = nn.Sequential(Block())
        self.head = Head()
        self.classifier = nn.Linear(48, 10)

    def forward(self, x):
        x = self.stem(x)
        x, _ = F.max_pool2d(x, 2, return_indices=True)
        x = self.blocks(x)
        g = F.gelu(x, approximate="tanh")
        p = F.avg_pool2d(g, 2)
        h = self.head(p.view(1, 256))
        m = g.mean(dim=[2, 3])
        z = torch.clamp(torch.cat([h, m], 1), -2.0, 2.0)
        probs = torch.softmax(self.classifier(z), 1)
        return probs, torch.argmax(probs, 1)


class XnnMlp(nn.Module):
    """Mirrors shared/fixtures/runtime/xnnpack_mlp_intermediates (2 XNNPACK partitions)."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 128)
        self.fc2 = nn.Linear(128, 128)
        self.norm = nn.LayerNorm(128)
        self.fc3 = nn.Linear(128, 64)
        self.fc4 = nn.Linear(64, 10)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        h = F.gelu(self.fc2(h) + h)
        h = self.norm(h)
        probs = torch.softmax(self.fc4(torch.tanh(self.fc3(h))), 1)
        return probs, torch.argmax(probs, 1)


def module_expr(path):
    expr = "L['self']"
    for part in path.split("."):
        expr = f"getattr({expr}, '{part}')" if part.isdigit() else f"{expr}.{part}"
    return expr


def trace(model, example):
    """make_fx trace recording, per node, the module stack and the user's stack trace."""
    stack = []
    hooks = []
    for path, mod in model.named_modules():
        if not path:
            continue
        entry = ("L__self___" + path.replace(".", "_"), module_expr(path),
                 f"{type(mod).__module__.replace('__main__', 'cnn_mlp')}.{type(mod).__qualname__}")
        hooks.append(mod.register_forward_pre_hook(lambda m, a, e=entry: stack.append(e)))
        hooks.append(mod.register_forward_hook(lambda m, a, o: (stack.pop(), None)[1]))
    original = torch.fx.Graph.create_node

    def create_node(self, op, target, args=None, kwargs=None, name=None, type_expr=None):
        node = original(self, op, target, args, kwargs, name, type_expr)
        node.meta["etscope_module_stack"] = list(stack)
        frames = [f for f in traceback.extract_stack() if f.filename == THIS_FILE and f.name == "forward"]
        node.meta["etscope_stack_trace"] = "".join(
            f'  File "{SHOWN_FILE}", line {f.lineno}, in {f.name}\n    {f.line}\n' for f in frames)
        return node

    torch.fx.Graph.create_node = create_node
    try:
        with torch.no_grad():
            gm = make_fx(model)(example)
    finally:
        torch.fx.Graph.create_node = original
        for h in hooks:
            h.remove()
    return gm


def tensor_meta(t):
    return {"dtype": JSON_DTYPE[t.dtype], "sizes": [{"as_int": int(s)} for s in t.shape],
            "requires_grad": False, "device": {"type": "cpu"},
            "strides": [{"as_int": int(s)} for s in t.stride()], "storage_offset": {"as_int": 0}, "layout": 7}


def serialize(gm, model, dialect, graph_id, method_handles=True):
    """Exported-program JSON (schema 5.3) of a make_fx graph; returns (json, node records)."""
    params = {p.data_ptr(): n for n, p in model.named_parameters()}
    names, metas = {}, {}
    inputs, input_specs = [], []
    user_inputs = []
    for n in gm.graph.nodes:
        if n.op == "get_attr":
            t = getattr(gm, n.target)
            pname = params[t.data_ptr()]
            names[n] = "p_" + pname.replace(".", "_")
            metas[names[n]] = tensor_meta(t)
            inputs.append({"as_tensor": {"name": names[n]}})
            input_specs.append({"parameter": {"arg": {"name": names[n]}, "parameter_name": pname}})
        elif n.op == "placeholder":
            names[n] = "x"
            metas["x"] = tensor_meta(n.meta["tensor_meta"] and torch.empty(n.meta["tensor_meta"].shape))
            user_inputs.append({"as_tensor": {"name": "x"}})
            input_specs_user = {"user_input": {"arg": {"as_tensor": {"name": "x"}}}}
    inputs += user_inputs
    input_specs.append(input_specs_user)

    records, nodes, handle, last_linear = [], [], 0, None
    for n in gm.graph.nodes:
        if n.op != "call_function" or n.target.__name__ == "getitem":
            continue
        op = n.target  # OpOverload
        opname = op._schema.name.split("::")[1]
        overload = op._overloadname
        if dialect == "edge":
            if opname == "t":
                opname, overload = "permute_copy", "default"
            elif opname == "view":
                opname = "view_copy"
            elif opname == "mul" and not isinstance(n.args[1], torch.fx.Node):
                overload = "Scalar"
            target = f"{EDGE}aten.{opname}.{overload}"
        else:
            target = f"torch.ops.aten.{opname}.{overload}"
        mstack = n.meta["etscope_module_stack"]
        # Nodes decomposed from one nn.Linear call (t + addmm) share a handle, like Edge does
        # for nodes with a common root ancestor.
        inner = mstack[-1] if mstack else None
        if opname in ("addmm", "mm") and last_linear is not None and inner is not None \
                and inner[2].endswith(".Linear") and last_linear[0] == inner:
            h = last_linear[1]
        else:
            handle += 1
            h = handle
        last_linear = (inner, h) if opname in ("t", "permute_copy") else None
        stem_name = f"aten_{opname}_{overload}".lower()
        dup = sum(1 for r in records if r["name"] == stem_name or r["name"].startswith(stem_name + "_"))
        node_name = n.name if dialect != "edge" else stem_name + (f"_{dup}" if dup else "")
        users = [u for u in n.users if u.op == "call_function" and u.target.__name__ == "getitem"]
        if users:
            by_index = {u.args[1]: u for u in users}
            count = max(by_index) + 1
            if opname == "native_layer_norm":
                count = 3
            outs = []
            for i in range(count):
                if i in by_index:
                    names[by_index[i]] = by_index[i].name
                    metas[by_index[i].name] = tensor_meta(torch.empty(by_index[i].meta["tensor_meta"].shape,
                                                                      dtype=by_index[i].meta["tensor_meta"].dtype))
                    outs.append({"as_tensor": {"name": by_index[i].name}})
                else:
                    outs.append({"as_tensor": {"name": f"{n.name}_unused_{i}"}})
        else:
            names[n] = node_name
            tm = n.meta.get("tensor_meta")
            if tm is not None:
                metas[node_name] = tensor_meta(torch.empty(tm.shape, dtype=tm.dtype))
            outs = [{"as_tensor": {"name": node_name}}]

        def arg(a):
            if isinstance(a, torch.fx.Node):
                return {"as_tensor": {"name": names[a]}}
            if isinstance(a, bool):
                return {"as_bool": a}
            if isinstance(a, int):
                return {"as_int": a}
            if isinstance(a, float):
                return {"as_float": a}
            if a is None:
                return {"as_none": []}
            if isinstance(a, (list, tuple)):
                if all(isinstance(x, torch.fx.Node) for x in a):
                    return {"as_tensors": [{"name": names[x]} for x in a]}
                if all(isinstance(x, bool) for x in a):
                    return {"as_bools": list(a)}
                if all(isinstance(x, int) for x in a):
                    return {"as_ints": list(a)}
            raise TypeError(a)

        schema_args = op._schema.arguments
        ins = []
        for i, a in enumerate(n.args):
            ins.append({"name": schema_args[i].name, "arg": arg(a), "kind": 1})
        if dialect == "edge" and opname == "permute_copy":
            ins.append({"name": "dims", "arg": {"as_ints": [1, 0]}, "kind": 1})
            ins = [x for x in ins if x["name"] != "dims" or x["arg"] == {"as_ints": [1, 0]}]
        md = {"stack_trace": n.meta["etscope_stack_trace"]}
        if mstack:
            md["nn_module_stack"] = ";".join(",".join(e) for e in mstack)
        if dialect == "edge":
            md["debug_handle"] = str(h)
            target = f"aten.{op._schema.name.split('::')[1]}.{op._overloadname}"
            md["from_node"] = json.dumps([{"name": n.name, "target": target,
                                           "graph_id": graph_id, "pass_name": "to_edge", "action": "create",
                                           "from_node": []}])
        nodes.append({"name": node_name, "target": target, "inputs": ins, "outputs": outs, "metadata": md})
        records.append({"name": node_name, "op": target[len(EDGE):] if dialect == "edge" else f"{opname}.{overload}",
                        "handle": h, "module_keys": [e[0] for e in mstack], "module_stack": mstack,
                        "stack_trace": md["stack_trace"]})
    out_node = [n for n in gm.graph.nodes if n.op == "output"][0]
    results = out_node.args[0] if isinstance(out_node.args[0], (list, tuple)) else [out_node.args[0]]
    outputs = [{"as_tensor": {"name": names[a]}} for a in results]
    doc = {
        "graph_module": {
            "graph": {"inputs": inputs, "outputs": outputs, "nodes": nodes, "tensor_values": metas,
                      "sym_int_values": {}, "sym_bool_values": {}, "is_single_tensor_return": False,
                      "custom_obj_values": {}},
            "signature": {"input_specs": input_specs,
                          "output_specs": [{"user_output": {"arg": o}} for o in outputs]},
            "module_call_graph": [],
        },
        "opset_version": {"aten": 10},
        "range_constraints": {"s0": {"min_val": 2, "max_val": float("inf")}},
        "schema_version": {"major": 5, "minor": 3},
        "verifiers": ["EXIREdgeDialectVerifier"] if dialect == "edge" else [],
        "dialect": "EDGE" if dialect == "edge" else "ATEN",
    }
    return json.dumps(doc), records


def etrecord_zip(path, entries, compression=zipfile.ZIP_STORED):
    with zipfile.ZipFile(os.path.join(OUT, path), "w", compression) as z:
        for name, data in entries:
            # Fixed timestamps keep regenerated fixtures byte-identical.
            z.writestr(zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0)), data, compress_type=compression)


def program_entries(base, text, model, example):
    return [(base, text),
            (base + "_state_dict", torch_bytes({k: v.detach() for k, v in model.state_dict().items()})),
            (base + "_constants", torch_bytes({})),
            (base + "_example_inputs", torch_bytes(((example,), {})))]


def gen_etrecords():
    torch.manual_seed(3)
    graph_id = 140234567890123

    # --- cnn_mlp: matches the 28 instructions of cnn_mlp_50runs/etdump.etdp -------------------
    model = CnnMlp().eval()
    x = torch.sin(torch.arange(3 * 16 * 16, dtype=torch.float32) * 0.37 + 1.3 * 0).reshape(1, 3, 16, 16)
    gm = trace(model, x)
    edge, records = serialize(gm, model, "edge", graph_id)
    aten, _ = serialize(gm, model, "aten", graph_id)
    program_ops = ["convolution", "relu", "max_pool2d_with_indices", "convolution", "mul", "add", "relu",
                   "convolution", "add", "gelu", "avg_pool2d", "view_copy", "permute_copy", "addmm",
                   "native_layer_norm", "relu", "permute_copy", "mm", "add", "tanh", "mul", "mean", "cat",
                   "clamp", "permute_copy", "addmm", "_softmax", "argmax"]
    got = [r["op"].split(".")[1] for r in records]
    assert got == program_ops, got
    dhm_forward = {str(i): r["handle"] for i, r in enumerate(records)}

    # Second method "encode": the stem only, lowered whole to a Vulkan-like delegate with
    # generated integer identifiers (JSON keys "0", "12", "1": order matters for the quirk).
    stem = nn.Sequential(model.stem)
    stem_gm = trace(stem, x)
    stem_edge, stem_records = serialize(stem_gm, stem, "edge", graph_id + 1)
    assert [r["op"] for r in stem_records] == ["aten.convolution.default", "aten.relu.default"], stem_records
    dhm_encode = {"0": [1, 2]}
    delegate_encode = {"0": {"name": "VulkanBackend", "delegate_map": {"0": [1], "12": [1, 2], "1": [2]}}}

    probs, cls = model(x)
    entries = [("ETRECORD_V0", b"")]
    entries += program_entries("exported_program", aten, model, x)
    entries += [("export_graph_id", json.dumps(graph_id))]
    entries += program_entries("edge_dialect_exported_program/forward", edge, model, x)
    entries += program_entries("edge_dialect_exported_program/encode", stem_edge, stem, x)
    entries += [
        ("debug_handle_map", json.dumps({"forward": dhm_forward, "encode": dhm_encode})),
        ("delegate_map", json.dumps({"forward": {}, "encode": delegate_encode})),
        ("instruction_id_to_num_outs_map", json.dumps({"forward": {}, "encode": {"0": 1}})),
        ("reference_outputs", torch_bytes({"forward": [[probs.detach(), cls]]})),
        ("representative_inputs", torch_bytes([x])),
        ("etscope_unknown_note", b"an entry no ExecuTorch version writes"),
    ]
    etrecord_zip("cnn_mlp_etrecord.bin", entries)

    # --- xnn_mlp: matches xnnpack_mlp_intermediates (instructions 0 and 2 are XNNPACK calls) ---
    xmodel = XnnMlp().eval()
    xx = torch.sin(torch.arange(64, dtype=torch.float32) * 0.37).reshape(1, 64)
    xgm = trace(xmodel, xx)
    xedge, xrecords = serialize(xgm, xmodel, "edge", graph_id + 2)
    ops = [r["op"] for r in xrecords]
    ln = ops.index("aten.native_layer_norm.default")
    am = ops.index("aten.argmax.default")
    part0 = [r["handle"] for r in xrecords[:ln]]
    part1 = [r["handle"] for r in xrecords[ln + 1:am]]
    xdhm = {"forward": {"0": part0, "1": xrecords[ln]["handle"], "2": part1, "3": xrecords[am]["handle"]}}
    xentries = [("ETRECORD_V0", b"")]
    xentries += program_entries("edge_dialect_exported_program/forward", xedge, xmodel, xx)
    xentries += [
        ("debug_handle_map", json.dumps(xdhm)),
        ("delegate_map", json.dumps({"forward": {"0": {"name": "XnnpackBackend", "delegate_map": {}},
                                                 "2": {"name": "XnnpackBackend", "delegate_map": {}}}})),
        ("instruction_id_to_num_outs_map", json.dumps({"forward": {"0": 1, "2": 1}})),
    ]
    etrecord_zip("xnn_mlp_etrecord.bin", xentries)
    # The same, deflated (readers must accept it), with a pre-2026-03 raw-pickle reference_outputs.
    legacy = pickle.dumps({"forward": [[torch.ones(2)]]}, protocol=4)
    etrecord_zip("xnn_mlp_etrecord_deflated_legacy.bin", xentries +
                 [("reference_outputs", legacy)], zipfile.ZIP_DEFLATED)

    expected = {
        "cnn_mlp_etrecord.bin": {
            "entries": [n for n, _ in entries],
            "forward_nodes": records,
            "encode_nodes": stem_records,
            "debug_handle_map": {"forward": dhm_forward, "encode": dhm_encode},
            "reference_outputs": {"probs": probs.detach().tolist()[0], "class": cls.tolist()},
        },
        "xnn_mlp_etrecord.bin": {"forward_nodes": xrecords, "debug_handle_map": xdhm},
    }
    with open(os.path.join(OUT, "etrecord_expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")

    # Hostile ETRecords: each must give a clear error or a marked gap, never a crash.
    etrecord_zip("hostile_malformed_json_etrecord.bin", [
        ("ETRECORD_V0", b""), ("edge_dialect_exported_program/forward", b'{"graph_module": {"graph": [1, 2'),
        ("debug_handle_map", b"{}"), ("delegate_map", b"{}")])
    etrecord_zip("hostile_bad_map_etrecord.bin", [
        ("ETRECORD_V0", b""), ("edge_dialect_exported_program/forward", xedge.encode()),
        ("debug_handle_map", b'{"forward": {"0": [1, 2'), ("delegate_map", b"{}")])
    etrecord_zip("hostile_dangling_handle_etrecord.bin", [
        ("ETRECORD_V0", b""), ("edge_dialect_exported_program/forward", xedge.encode()),
        ("debug_handle_map", json.dumps({"forward": {"1": 999, "3": "eleven", "x": 1}}).encode()),
        ("delegate_map", b"{}")])


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    what = sys.argv[1:] or ["torchsave", "hostile", "etrecord"]
    if "torchsave" in what:
        gen_torchsave()
    if "hostile" in what:
        gen_hostile()
    if "etrecord" in what and "gen_etrecords" in globals():
        gen_etrecords()  # noqa: F821
