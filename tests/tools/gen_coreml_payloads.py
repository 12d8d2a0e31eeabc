#!/usr/bin/env python3
"""Authors CoreMLBackend payloads and a program holding them, and writes the truth the decoder
(core/program/delegates/coremlpayload.cpp) is checked against.

Layouts (ExecuTorch commit cff6f4dd32e630945b7188512c1f2b4f102b05ad; docs/formats.md):
  container  the directory CoreMLBackend.preprocess saves (metadata.json, model.mlpackage/...),
             flattened as runtime/inmemoryfs does: each file's bytes at an aligned offset, then
             the file table {"nodes": [...]} as JSON with its characters reversed; children
             before their directory, the root directory last.
  model      the Core ML model spec (apple/coremltools mlmodel/format/Model.proto, MIL.proto,
             NeuralNetwork.proto), encoded here with a small protobuf wire encoder (no
             python3-protobuf), and an ML Program's weight.bin in the MIL blob format
             (mlmodel/src/MILBlob/Blob/StorageFormat.hpp: 64-byte header, 64-byte record with
             sentinel 0xDEADBEEF before each blob's data, 64-byte aligned).
  reference  "CMJR" + JSON {"version", "key", "functionName"} (multimethod weight sharing).

Payloads: an ML Program (conv -> relu -> reshape -> linear, weights in weight.bin, small
parameters inline), a NeuralNetwork model (innerProduct -> ReLU -> innerProduct -> softmax) laid
out with 64-byte alignment and a trailing zero (as the >1 GB path pads), a CMJR reference, a
compiled ML Program (model.mlmodelc: model.mil text and its weights) and a compiled NeuralNetwork
(model.mlmodelc: espresso files). They go into coreml.pte (program.fbs JSON compiled with flatc by
gen_delegate_payloads.write_pte), two in segments, three inline.

The expectation (expected_coreml.json) comes from this script's own plan: the nodes are the
planned ops/layers in order; value ids number the names in the order the encoded spec first
mentions them (function inputs, block outputs, then each op's inputs and outputs); constants are
the planned blobs (their sizes) and inline values (the length of the ImmediateValue this script
encoded) or NeuralNetwork WeightParams (bytes of their data); parts are this script's offsets.

Run: python3 tests/tools/gen_coreml_payloads.py tests/data/program/delegates
"""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_delegate_payloads import program_json, write_outputs, write_pte  # noqa: E402

# ---- protobuf wire encoding ---------------------------------------------------------------


def varint(v):
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def fv(num, v):  # varint field
    return varint(num << 3) + varint(v)


def fb(num, data):  # length-delimited field
    if isinstance(data, str):
        data = data.encode()
    return varint(num << 3 | 2) + varint(len(data)) + data


def packed_varints(num, vals):
    return fb(num, b"".join(varint(v) for v in vals))


# ---- MIL (MIL.proto) ----------------------------------------------------------------------

MIL_DTYPE = {"bool": 1, "string": 2, "fp16": 10, "fp32": 11, "int32": 23}
BLOB_DTYPE = {"fp16": 1, "fp32": 2}


def tensor_type(dtype, shape):
    dims = b"".join(fb(3, fb(1, fv(1, d))) for d in shape)
    return fb(1, fv(1, MIL_DTYPE[dtype]) + fv(2, len(shape)) + dims)  # ValueType.tensorType


def named_value_type(name, dtype, shape):
    return fb(1, name) + fb(2, tensor_type(dtype, shape))


def map_entry(key, value):
    return fb(1, key) + fb(2, value)


def immediate_ints(vals):  # ImmediateValue.tensor(1) -> TensorValue.ints(2) -> values(1) packed
    return fb(1, fb(2, packed_varints(1, vals)))


def immediate_string(s):  # ImmediateValue.tensor(1) -> TensorValue.strings(4) -> values(1)
    return fb(1, fb(4, fb(1, s)))


class MilPlan:
    """An ML Program built op by op; records what the decoder must find."""

    def __init__(self):
        self.ops = []  # encoded Operation messages
        self.nodes = []  # expected nodes (names, resolved to ids later)
        self.blobs = b""  # weight.bin after its header
        self.blob_count = 0
        self.constants = []  # expected constants
        self.types = {}  # name -> (dtype, shape)
        self.const_of = {}  # name -> constant index (1-based)

    def blob_const(self, name, dtype, shape, elem):
        count = 1
        for d in shape:
            count *= d
        data = bytes((i * 37 + len(self.blobs)) & 0xFF for i in range(count * elem))
        rec_off = 64 + len(self.blobs)
        data_off = rec_off + 64
        rec = struct.pack("<IIQQQQQQQ", 0xDEADBEEF, BLOB_DTYPE[dtype], len(data), data_off, 0, 0, 0, 0, 0)
        assert len(rec) == 64
        padded = data + bytes((-len(data)) % 64)
        self.blobs += rec + padded
        self.blob_count += 1
        val = fb(2, tensor_type(dtype, shape)) + fb(5, fb(1, "@model_path/weights/weight.bin") + fv(2, rec_off))
        self._const(name, dtype, shape, val, {"bytes": len(data), "place": "constant_data"})

    def inline_const(self, name, dtype, shape, immediate):
        val = fb(2, tensor_type(dtype, shape)) + fb(3, immediate)
        self._const(name, dtype, shape, val, {"bytes": len(immediate), "place": "inline"})

    def _const(self, name, dtype, shape, val, constant):
        attrs = fb(5, map_entry("name", fb(3, immediate_string(name)))) + fb(5, map_entry("val", val))
        self.ops.append(fb(1, "const") + fb(3, named_value_type(name, dtype, shape)) + attrs)
        self.constants.append(constant)
        self.const_of[name] = len(self.constants)
        self.types[name] = (dtype, shape)
        self.nodes.append({"op": "const", "inputs": [], "outputs": [name]})

    def op(self, op_type, args, out, dtype, shape):
        enc = fb(1, op_type)
        for key, ref in args:
            enc += fb(2, map_entry(key, fb(1, fb(1, ref))))  # Argument.arguments(1) -> Binding.name(1)
        enc += fb(3, named_value_type(out, dtype, shape))
        self.ops.append(enc)
        self.types[out] = (dtype, shape)
        self.nodes.append({"op": op_type, "inputs": [r for _, r in args], "outputs": [out]})


def value_table(first, nodes, types, const_of):
    """Value ids numbering the names in the order `first`, then the planned nodes' inputs and
    outputs mention them; the expected values (name, dtype, shape, constant) and nodes by id."""
    order = list(first)
    for n in nodes:
        for name in n["inputs"] + n["outputs"]:
            if name not in order:
                order.append(name)
    ids = {name: i for i, name in enumerate(order)}
    values = {}
    for name in order:
        dtype, shape = types[name]
        v = {"name": name, "dtype": dtype, "shape": shape}
        if name in const_of:
            v["constant"] = const_of[name]
        values[str(ids[name])] = v
    expected_nodes = [{"op": n["op"], "inputs": [ids[i] for i in n["inputs"]],
                       "outputs": [ids[o] for o in n["outputs"]]} for n in nodes]
    return ids, values, expected_nodes


def ml_program():
    plan = MilPlan()
    x = ("x", "fp32", [1, 3, 8, 8])
    plan.types["x"] = x[1:]
    plan.blob_const("conv_0_weight", "fp32", [4, 3, 3, 3], 4)
    plan.blob_const("conv_0_bias", "fp32", [4], 4)
    plan.inline_const("conv_0_strides", "int32", [2], immediate_ints([1, 1]))
    plan.inline_const("conv_0_pad_type", "string", [], immediate_string("same"))
    plan.op("conv", [("x", "x"), ("weight", "conv_0_weight"), ("bias", "conv_0_bias"), ("strides", "conv_0_strides"),
                     ("pad_type", "conv_0_pad_type")], "conv_0", "fp32", [1, 4, 8, 8])
    plan.op("relu", [("x", "conv_0")], "relu_0", "fp32", [1, 4, 8, 8])
    plan.inline_const("flat_shape", "int32", [2], immediate_ints([1, 256]))
    plan.op("reshape", [("x", "relu_0"), ("shape", "flat_shape")], "flat_0", "fp32", [1, 256])
    plan.blob_const("linear_0_weight", "fp16", [10, 256], 2)
    plan.blob_const("linear_0_bias", "fp16", [10], 2)
    plan.op("linear", [("x", "flat_0"), ("weight", "linear_0_weight"), ("bias", "linear_0_bias")], "y", "fp16",
            [1, 10])
    block = fb(2, "y") + b"".join(fb(3, o) for o in plan.ops)
    function = fb(1, named_value_type(*x)) + fb(2, "CoreML7") + fb(3, map_entry("CoreML7", block))
    program = fv(1, 1) + fb(2, map_entry("main", function))
    # ModelDescription.metadata (100): versionString (2), userDefined (100) as coremltools fills it.
    meta = fb(2, "1.0") + fb(100, map_entry("com.github.apple.coremltools.version", "8.3.0")) + \
        fb(100, map_entry("com.github.apple.coremltools.source", "torch==2.7.0"))
    desc = feature("x", [1, 3, 8, 8], 65568, 1) + feature("y", [1, 10], 65552, 10) + fb(100, meta)
    model = fv(1, 8) + fb(2, desc) + fb(502, program)
    weight_bin = struct.pack("<II", plan.blob_count, 2).ljust(64, b"\0") + plan.blobs

    # Value ids in the order the spec first names them: function input, block output, ops.
    ids, values, nodes = value_table(["x", "y"], plan.nodes, plan.types, plan.const_of)
    spec_id, weights_id = "4A3C1E0B-0000-4000-8000-000000000001", "4A3C1E0B-0000-4000-8000-000000000002"
    manifest = {
        "fileFormatVersion": "1.0.0",
        "itemInfoEntries": {
            spec_id: {"author": "com.apple.CoreML", "description": "CoreML Model Specification",
                      "name": "model.mlmodel", "path": "com.apple.CoreML/model.mlmodel"},
            weights_id: {"author": "com.apple.CoreML", "description": "CoreML Model Weights",
                         "name": "weights", "path": "com.apple.CoreML/weights"},
        },
        "rootModelIdentifier": spec_id,
    }
    identifier = "executorch_6c1d1f5e-2a41-4c0e-9d6b-5f3b7f0e0a01"
    files = {
        "metadata.json": json.dumps({"inputNames": ["x"], "outputNames": ["y"], "identifier": identifier}).encode(),
        "model.mlpackage/Manifest.json": json.dumps(manifest).encode(),
        "model.mlpackage/Data/com.apple.CoreML/model.mlmodel": model,
        "model.mlpackage/Data/com.apple.CoreML/weights/weight.bin": weight_bin,
    }
    expected = {"backend": "CoreML", "decoded": True, "identifier": identifier + " ML Program",
                "version": "specification 8, CoreML7, model version 1.0, coremltools 8.3.0, from torch==2.7.0",
                "nodes": nodes, "values": values,
                "inputs": [ids["x"]], "outputs": [ids["y"]], "constants": plan.constants, "graph_names": ["main"]}
    return files, expected


# ---- NeuralNetwork (NeuralNetwork.proto, FeatureTypes.proto) ------------------------------

def feature(name, shape, array_dtype, field):
    """A ModelDescription input (1) or output (10): FeatureDescription{name, type.multiArrayType}."""
    array = packed_varints(1, shape) + fv(2, array_dtype)
    return fb(field, fb(1, name) + fb(3, fb(5, array)))


def neural_network():
    def floats(n, seed):
        return struct.pack("<%df" % n, *[(seed + i) * 0.25 for i in range(n)])

    # (name, kind, field, inputs, outputs, params bytes, weight byte counts, output tensor dims)
    fc1_w, fc1_b = floats(12, 1), floats(3, 2)
    fc2_w = bytes(range(12))  # float16Value: 3x2 halves
    layers = [
        ("fc1", "innerProduct", 140, ["input"], ["fc1_out"],
         fv(1, 4) + fv(2, 3) + fv(10, 1) + fb(20, fb(1, fc1_w)) + fb(21, fb(1, fc1_b)), [len(fc1_w), len(fc1_b)],
         [1, 3]),
        ("relu1", "activation", 130, ["fc1_out"], ["relu_out"], fb(10, b""), [], None),
        ("fc2", "innerProduct", 140, ["relu_out"], ["fc2_out"], fv(1, 3) + fv(2, 2) + fb(20, fb(2, fc2_w)),
         [len(fc2_w)], None),
        ("prob", "softmax", 175, ["fc2_out"], ["probs"], b"", [], None),
    ]
    enc_layers = b""
    for name, _, field, ins, outs, params, _, dims in layers:
        enc = fb(1, name) + b"".join(fb(2, i) for i in ins) + b"".join(fb(3, o) for o in outs)
        if dims:
            enc += fb(5, fv(1, len(dims)) + packed_varints(2, dims))
        enc += fb(field, params)
        enc_layers += fb(1, enc)
    desc = feature("input", [4], 65568, 1) + feature("probs", [2], 65568, 10)
    model = fv(1, 4) + fb(2, desc) + fb(500, enc_layers)
    order = ["input", "probs"]
    for layer in layers:
        for n in layer[3] + layer[4]:
            if n not in order:
                order.append(n)
    ids = {n: i for i, n in enumerate(order)}
    values = {str(ids["input"]): {"name": "input", "dtype": "fp32", "shape": [4]},
              str(ids["probs"]): {"name": "probs", "dtype": "fp32", "shape": [2]},
              str(ids["fc1_out"]): {"name": "fc1_out", "dtype": "", "shape": [1, 3]},
              str(ids["relu_out"]): {"name": "relu_out", "dtype": "", "shape": []}}
    constants = [{"bytes": n, "place": "inline"} for layer in layers for n in layer[6]]
    nodes = [{"op": kind, "inputs": [ids[i] for i in ins], "outputs": [ids[o] for o in outs]}
             for _, kind, _, ins, outs, _, _, _ in layers]
    identifier = "executorch_0b7e9a52-77c3-4e8e-a0f4-3f0c1d2e4b10"
    files = {
        "metadata.json": json.dumps({"inputNames": ["input"], "outputNames": ["probs"],
                                     "identifier": identifier}).encode(),
        "model.mlpackage/Manifest.json": json.dumps({"fileFormatVersion": "1.0.0", "itemInfoEntries": {
            "A": {"name": "model.mlmodel", "path": "com.apple.CoreML/model.mlmodel"}},
            "rootModelIdentifier": "A"}).encode(),
        "model.mlpackage/Data/com.apple.CoreML/model.mlmodel": model,
    }
    expected = {"backend": "CoreML", "decoded": True, "identifier": identifier + " NeuralNetwork",
                "version": "specification 4", "nodes": nodes, "values": values,
                "inputs": [ids["input"]], "outputs": [ids["probs"]], "constants": constants, "graph_names": []}
    return files, expected


def compiled_model():
    """A compiled ML Program (model.mlmodelc): the program as MIL text (model.mil, as Core ML's
    compiler prints it: `T name = op(param = value, ...)[name = ..., val = ...];`, scalars in
    both spellings, `string("...")` and the older `tensor<string, []>("...")`), its weights in
    weights/weight.bin as MIL blob records. Expected: this plan's ops, names and sizes."""
    blobs, constants, const_of, types, nodes, lines = b"", [], {}, {}, [], []
    blob_count = 0

    def ttype(dtype, shape):
        return "tensor<%s, [%s]>" % (dtype, ", ".join(str(d) for d in shape))

    def blob(name, dtype, shape, elem, old_style):
        nonlocal blobs, blob_count
        blob_count += 1
        count = 1
        for d in shape:
            count *= d
        data = bytes((i * 11 + len(blobs)) & 0xFF for i in range(count * elem))
        rec_off = 64 + len(blobs)
        rec = struct.pack("<IIQQQQQQQ", 0xDEADBEEF, BLOB_DTYPE[dtype], len(data), rec_off + 64, 0, 0, 0, 0, 0)
        blobs += rec + data + bytes((-len(data)) % 64)
        s = (lambda v: 'tensor<string, []>("%s")' % v) if old_style else (lambda v: 'string("%s")' % v)
        off = ("tensor<uint64, []>(%d)" if old_style else "uint64(%d)") % rec_off
        lines.append('%s %s = const()[name = %s, val = %s(BLOBFILE(path = %s, offset = %s))];'
                     % (ttype(dtype, shape), name, s(name), ttype(dtype, shape), s("@model_path/weights/weight.bin"),
                        off))
        constants.append({"bytes": len(data), "place": "constant_data"})
        const_of[name] = len(constants)
        types[name] = (dtype, shape)
        nodes.append({"op": "const", "inputs": [], "outputs": [name]})

    def inline(name, dtype, shape, literal):
        lines.append('%s %s = const()[name = string("%s"), val = %s];' % (ttype(dtype, shape), name, name, literal))
        constants.append({"bytes": len(literal), "place": "inline"})  # the value's characters of text
        const_of[name] = len(constants)
        types[name] = (dtype, shape)
        nodes.append({"op": "const", "inputs": [], "outputs": [name]})

    def op(op_type, args, out, dtype, shape):
        text = ", ".join("%s = %s" % (k, v if isinstance(v, str) else "(" + ", ".join(v) + ")") for k, v in args)
        lines.append('%s %s = %s(%s)[name = string("%s")];' % (ttype(dtype, shape), out, op_type, text, out))
        types[out] = (dtype, shape)
        refs = []
        for _, v in args:
            refs += [v] if isinstance(v, str) else list(v)
        nodes.append({"op": op_type, "inputs": refs, "outputs": [out]})

    types["x"] = ("fp32", [1, 3])
    blob("linear_0_weight", "fp32", [4, 3], 4, False)
    blob("linear_0_bias", "fp32", [4], 4, True)
    op("linear", [("bias", "linear_0_bias"), ("weight", "linear_0_weight"), ("x", "x")], "linear_0", "fp32", [1, 4])
    op("relu", [("x", "linear_0")], "relu_0", "fp32", [1, 4])
    inline("axis_0", "int32", [], "int32(1)")
    inline("interleave_0", "bool", [], "bool(false)")
    op("concat", [("axis", "axis_0"), ("interleave", "interleave_0"), ("values", ("relu_0", "linear_0"))], "y",
       "fp32", [1, 8])
    mil = ("program(1.3)\n"
           '[buildInfo = dict<string, string>({{"coremlc-component-MIL", "3402.3.1"}, '
           '{"coremltools-version", "8.3.0"}})]\n'
           "{\n    func main<ios18>(%s x) {\n" % ttype("fp32", [1, 3])
           + "".join("            %s\n" % line for line in lines)
           + "    } -> (y);\n}\n")
    files = {
        "metadata.json": json.dumps({"inputNames": ["x"], "outputNames": ["y"],
                                     "identifier": "executorch_compiled"}).encode(),
        "model.mlmodelc/coremldata.bin": bytes(range(96)),
        "model.mlmodelc/model.mil": mil.encode(),
        "model.mlmodelc/weights/weight.bin": struct.pack("<II", blob_count, 2).ljust(64, b"\0") + blobs,
    }
    # Value ids in the order the text first names them: the function's input, then each op's
    # arguments and outputs.
    ids, values, expected_nodes = value_table(["x"], nodes, types, const_of)
    expected = {"backend": "CoreML", "decoded": True, "identifier": "executorch_compiled compiled model",
                "version": "MIL text 1.3, ios18", "nodes": expected_nodes, "values": values, "inputs": [ids["x"]],
                "outputs": [ids["y"]], "constants": constants, "graph_names": ["main"]}
    return files, expected


def compiled_neural_network():
    """A compiled NeuralNetwork (model.mlmodelc without model.mil): model.espresso.net (JSON
    "layers": type, name, bottom/top joined by commas, blob_* naming weight blobs),
    model.espresso.shape ("layer_shapes": n/k/w/h per value) and model.espresso.weights (u64
    count, count x {u64 key, u64 size}, then the blobs in that order). Layout facts from
    lutzroeder/netron source/espresso.js. Expected: this plan's layers, names, blob sizes."""
    blobs = [(1, 4 * 3 * 4), (3, 4 * 4), (5, 2 * 4 * 4)]  # (key, size): fc1 weights, fc1 biases, fc2 weights
    layers = [
        {"type": "inner_product", "name": "fc1", "bottom": "x", "top": "h", "nB": 3, "nC": 4, "has_biases": 1,
         "blob_weights": 1, "blob_biases": 3},
        {"type": "activation", "name": "relu1", "bottom": "h", "top": "h_relu", "mode": 0},
        {"type": "inner_product", "name": "fc2", "bottom": "h_relu", "top": "y", "nB": 4, "nC": 2, "has_biases": 0,
         "blob_weights": 5},
        {"type": "concat", "name": "cat", "bottom": "y,h_relu", "top": "out"},
    ]
    shapes = {"x": (1, 3, 1, 1), "h": (1, 4, 1, 1), "h_relu": (1, 4, 1, 1), "y": (1, 2, 1, 1), "out": (1, 6, 1, 1)}
    net = {"format_version": 200, "storage": "model.espresso.weights", "layers": layers}
    shape = {"layer_shapes": {n: {"n": v[0], "k": v[1], "w": v[2], "h": v[3], "_rank": 4} for n, v in shapes.items()}}
    weights = struct.pack("<Q", len(blobs)) + b"".join(struct.pack("<QQ", k, n) for k, n in blobs)
    weights += b"".join(bytes((i * 7 + k) & 0xFF for i in range(n)) for k, n in blobs)
    files = {
        "metadata.json": json.dumps({"inputNames": ["x"], "outputNames": ["out"],
                                     "identifier": "executorch_compiled_nn"}).encode(),
        "model.mlmodelc/coremldata.bin": bytes(range(64)),
        "model.mlmodelc/model.espresso.net": json.dumps(net).encode(),
        "model.mlmodelc/model.espresso.shape": json.dumps(shape).encode(),
        "model.mlmodelc/model.espresso.weights": weights,
    }
    order = []
    for layer in layers:
        for name in layer["bottom"].split(",") + layer["top"].split(","):
            if name not in order:
                order.append(name)
    ids = {n: i for i, n in enumerate(order)}
    size = dict(blobs)
    constants = [{"bytes": size[layer[k]], "place": "constant_data"} for layer in layers
                 for k in sorted(layer) if k.startswith("blob_")]
    expected = {"backend": "CoreML", "decoded": True, "identifier": "executorch_compiled_nn compiled model",
                "version": "espresso format 200",
                "nodes": [{"op": layer["type"], "inputs": [ids[n] for n in layer["bottom"].split(",")],
                           "outputs": [ids[n] for n in layer["top"].split(",")]} for layer in layers],
                "values": {str(ids[n]): {"name": n, "dtype": "", "shape": [],
                                         "text": "n %d, k %d, w %d, h %d" % shapes[n]} for n in order},
                "constants": constants, "graph_names": []}
    return files, expected


# ---- the inmemoryfs container -------------------------------------------------------------

def flatten(files, alignment=1, trailing=0):
    """Lays the files out as the inmemoryfs serializer does (depth-first, children before
    their directory, each file at the next aligned offset), then the reversed file table.
    Returns the payload and its parts."""
    tree = {}
    for path in files:
        node = tree
        parts = path.split("/")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = path
    nodes, data = [], bytearray()
    layout = []

    def populate(name, item):
        if isinstance(item, str):
            content = files[item]
            offset = (len(data) + alignment - 1) // alignment * alignment
            data.extend(bytes(offset - len(data)))
            data.extend(content)
            layout.append((offset, item, len(content)))
            nodes.append({"name": name, "kind": 0, "dataRegion": {"offset": offset, "size": len(content)},
                          "children": {}})
            return len(nodes) - 1
        children = {}
        for child in sorted(item):
            children[child] = populate(child, item[child])
        nodes.append({"name": name, "kind": 1, "dataRegion": {"offset": 0, "size": 0}, "children": children})
        return len(nodes) - 1

    populate("lowered_module", tree)
    table_at = (len(data) + alignment - 1) // alignment * alignment
    parts = []
    pos = 0
    for offset, path, size in sorted(layout):
        if offset > pos:
            parts.append(("padding", offset - pos))
        parts.append((path, size))
        pos = offset + size
    if table_at > pos:
        parts.append(("padding", table_at - pos))
    data.extend(bytes(table_at - len(data)))
    table = json.dumps({"nodes": nodes}, separators=(",", ":"), sort_keys=True)[::-1].encode()
    data.extend(table)
    parts.append(("inmemoryfs file table", len(table)))
    if trailing:
        data.extend(bytes(trailing))
        parts.append(("padding", trailing))
    return bytes(data), [{"name": n, "bytes": b} for n, b in parts]


def main():
    out = sys.argv[1]
    payloads, expected = [], []
    compiled = compiled_model()
    compiled_files = compiled[0]
    for (files, exp), alignment, trailing in [(ml_program(), 1, 0), (neural_network(), 64, 1), (compiled, 1, 0),
                                              (compiled_neural_network(), 1, 0)]:
        blob, parts = flatten(files, alignment, trailing)
        exp["bytes"] = len(blob)
        exp["parts"] = parts
        payloads.append(blob)
        expected.append(exp)
    key = "coreml_executorch_6c1d1f5e-2a41-4c0e-9d6b-5f3b7f0e0a01"
    reference = b"CMJR" + json.dumps({"version": 1, "key": key, "functionName": "forward"}).encode()
    ref_expected = {"backend": "CoreML", "decoded": True, "identifier": "CMJR", "version": "reference version 1",
                    "bytes": len(reference), "nodes": [], "graph_names": ["forward"],
                    "constants": [{"bytes": 0, "place": "named_data"}],
                    "parts": [{"name": "magic", "bytes": 4}, {"name": "JSON reference", "bytes": len(reference) - 4}]}
    mlprog, nn, compiled, compiled_nn = payloads
    # Delegates: ML Program (segment 0), NeuralNetwork (segment 1), reference (inline 0),
    # compiled ML Program (inline 1), compiled NeuralNetwork (inline 2); the reference's key names
    # segment 2 (the ML Program again).
    prog = program_json(["CoreMLBackend"] * 5,
                        [("SEGMENT", 0), ("SEGMENT", 1), ("INLINE", 0), ("INLINE", 1), ("INLINE", 2)],
                        [reference, compiled, compiled_nn], [mlprog, nn, mlprog], [(key, 2)])
    write_pte(os.path.join(out, "coreml.pte"), prog, [mlprog, nn, mlprog])
    all_expected = {"coreml.pte": [expected[0], expected[1], ref_expected, expected[2], expected[3]]}
    # The compiled program's model.mil alone: the seed of fuzz_mil_text.
    with open(os.path.join(out, "payloads", "compiled.mil"), "wb") as f:
        f.write(compiled_files["model.mlmodelc/model.mil"])
    payload_files = [("mlprogram.coreml", mlprog), ("neuralnetwork.coreml", nn), ("reference.coreml", reference),
                     ("compiled.coreml", compiled), ("compiled_nn.coreml", compiled_nn)]
    write_outputs(out, payload_files, "expected_coreml.json", all_expected)


if __name__ == "__main__":
    main()
