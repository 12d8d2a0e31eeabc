#!/usr/bin/env python3
"""Authors delegated programs for the payload decoders' tests and writes the truth they are
checked against.

Each payload is written the way the backend's own serializer lays it out, from JSON compiled
with flatc:
  XNNPACK  XNNGraph JSON -> flatc -b (schema: upstream's backends/xnnpack/serialization/
           schema.fbs when --upstream-schemas DIR is given, else our transcription
           core/program/delegates/xnnpack.fbs) -> "XH00" header + flatbuffer + constant data,
           16-byte aligned (xnnpack_graph_serialize.py).
  Vulkan   VkGraph JSON -> flatc -b -> "VH00" header + flatbuffer + bytes.
  Ethos-U  Vela's block stream built per backends/arm/arm_vela.py.
  opaque   a QNN-named payload of arbitrary bytes, and an XNNPACK payload whose header points
           past its end.
The programs around them are program.fbs JSON compiled with flatc; payloads go to segments
after an inserted extended header ("eh00", as the runtime reads it), or inline.

The expected decoding (expected_delegates.json) is derived here from the authored JSON itself:
each node's op is its union type without "XNN", its inputs/outputs are its *_id fields in the
order listed in NODE_IDS below (UINT32_MAX = absent), and the parts are this script's own
layout arithmetic. When --upstream-schemas is given, every compiled payload is also decoded
back with `flatc --json` against upstream's schema and compared with the authored JSON.

Run: python3 tests/tools/gen_delegate_payloads.py tests/data/program/delegates \\
        [--upstream-schemas DIR_WITH_xnnpack_schema.fbs_AND_vulkan_schema.fbs]
     python3 tests/tools/gen_delegate_payloads.py --bench OUT_DIR   (the benchmark's programs)
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUR_XNN = os.path.join(ROOT, "core/program/delegates/xnnpack.fbs")
OUR_VK = os.path.join(ROOT, "core/program/delegates/vulkan.fbs")
PROGRAM_FBS = os.path.join(ROOT, "core/program/program.fbs")
NONE_ID = 0xFFFFFFFF

# Value-id fields of each node table, inputs then outputs, in the order the decoder lists them.
NODE_IDS = {
    "_XNNNode2x1": (["input1_id", "input2_id"], ["output_id"]),
    "_XNNNode1x1": (["input_id"], ["output_id"]),
    "XNNFullyConnected": (["input1_id", "filter_id", "bias_id"], ["output_id"]),
    "_XNNNodeConv": (["input1_id", "filter_id", "bias_id"], ["output_id"]),
    "_XNNPooling2D": (["input_id"], ["output_id"]),
    "XNNStaticReshape": (["input_id"], ["output_id"]),
    "XNNStaticTranspose": (["input_id"], ["output_id"]),
}
TABLE_OF = {"XNNAdd": "_XNNNode2x1", "XNNMultiply": "_XNNNode2x1", "XNNSubtract": "_XNNNode2x1",
            "XNNFullyConnected": "XNNFullyConnected", "XNNConv2d": "_XNNNodeConv",
            "XNNDepthwiseConv2d": "_XNNNodeConv", "XNNMaxPooling2d": "_XNNPooling2D",
            "XNNAvgPooling2d": "_XNNPooling2D", "XNNStaticReshape": "XNNStaticReshape",
            "XNNStaticTranspose": "XNNStaticTranspose"}
for unary in ["XNNConvert", "XNNSoftmax", "XNNSigmoid", "XNNClamp", "XNNGelu", "XNNTanh", "XNNHardswish",
              "XNNGlobalAvgPooling2d", "XNNAbs", "XNNCopy"]:
    TABLE_OF[unary] = "_XNNNode1x1"


def align(n, a=16):
    return (n + a - 1) // a * a


def flatc_binary(schema, obj, name):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, name + ".json")
        with open(path, "w") as f:
            json.dump(obj, f)
        subprocess.run(["flatc", "-b", "-o", d, schema, path], check=True)
        (binary,) = [f for f in os.listdir(d) if f != name + ".json"]
        with open(os.path.join(d, binary), "rb") as f:
            return f.read()


def flatc_decode(schema, data, name):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, name + ".bin")
        with open(path, "wb") as f:
            f.write(data)
        subprocess.run(["flatc", "--json", "--strict-json", "--raw-binary", "--defaults-json", "-o", d, schema,
                        "--", path], check=True)
        with open(os.path.join(d, name + ".json")) as f:
            return json.load(f)


def segmented(magic, fb, data):
    """The 30-byte header of XNNPACK/Vulkan payloads, padded to 32, then the flatbuffer and the
    constant bytes, each 16-byte aligned."""
    header_len = 32
    fb_off = header_len
    data_off = fb_off + align(len(fb))
    header = struct.pack("<4s4sHIIIQ", b"\0\0\0\0", magic, 30, fb_off, len(fb), data_off, len(data))
    out = header.ljust(header_len, b"\0") + fb.ljust(align(len(fb)), b"\0") + data
    parts = [("header", header_len), ("graph", len(fb))]
    if align(len(fb)) > len(fb):
        parts.append(("padding", align(len(fb)) - len(fb)))
    parts.append(("constant data", len(data)))
    return out, parts


# ---- XNNPACK graphs -------------------------------------------------------------------------

def tv(dtype, dims, idx, const=0, flags=0, external=NONE_ID):
    return {"datatype": "xnn_datatype_" + dtype, "num_dims": len(dims), "dims": dims,
            "constant_buffer_idx": const, "external_id": external, "flags": flags, "id_out": idx}


def plain(dtype, dims, idx, **kw):
    return {"xvalue_union_type": "XNNTensorValue", "xvalue_union": tv(dtype, dims, idx, **kw)}


def quant(dtype, dims, idx, qtype, qparams, **kw):
    return {"xvalue_union_type": "XNNQuantizedTensorValue",
            "xvalue_union": {"tensor_value": tv(dtype, dims, idx, **kw), "quant_params_type": qtype,
                             "quant_params": qparams}}


def node(op, body, handle):
    return {"xnode_union_type": op, "xnode_union": body, "debug_handle": handle}


def constants_layout(sizes, named=None):
    """constant_data entries (entry 0 reserved) and the constant bytes they point into."""
    named = named or {}
    entries = [{"offset": 0, "size": 0}]
    data = b""
    for i, size in enumerate(sizes, start=1):
        if i in named:
            entries.append({"offset": 0xFFFFFFFFFFFFFFFF, "size": size, "named_key": named[i]})
            continue
        off = len(data)
        entries.append({"offset": off, "size": size})
        data += bytes((i * 7 + k) & 0xFF for k in range(size))
        data = data.ljust(align(len(data)), b"\0")
    return entries, data


def xnn_int8():
    """Dynamic int8 linear (qd8 activations x qc8w weights), a qc4w blockwise linear, a qint8
    per-tensor add: what XNNPACK's int8 recipes write."""
    values = [
        plain("fp32", [1, 32], 0, flags=1, external=0),
        quant("qdint8", [1, 32], 1, "PerTokenDynamicQuant", {"num_nonbatch_dims": 1}),
        quant("qcint8", [16, 32], 2, "PerChannelQuant",
              {"scale": [0.01 * (c + 1) for c in range(16)], "channel_dim": 0}, const=1),
        plain("fp32", [16], 3, const=2),
        plain("fp32", [1, 16], 4),
        quant("qcint4", [8, 16], 5, "PerChannelGroupQuant",
              {"scale": [0.5] * 8, "channel_dim": 0, "group_size": 16}, const=3),
        plain("fp32", [1, 8], 6),
        quant("qint8", [1, 8], 7, "PerTensorQuant", {"scale": 0.125, "zero_point": -3}),
        quant("qint8", [1, 8], 8, "PerTensorQuant", {"scale": 0.0625, "zero_point": 2}, const=4),
        quant("qint8", [1, 8], 9, "PerTensorQuant", {"scale": 0.25, "zero_point": 0}, flags=2, external=1),
    ]
    nodes = [
        node("XNNConvert", {"input_id": 0, "output_id": 1, "flags": 0}, 1),
        node("XNNFullyConnected", {"input1_id": 1, "filter_id": 2, "bias_id": 3, "output_id": 4, "flags": 0}, 2),
        node("XNNFullyConnected", {"input1_id": 4, "filter_id": 5, "bias_id": NONE_ID, "output_id": 6,
                                   "flags": 0}, 3),
        node("XNNConvert", {"input_id": 6, "output_id": 7, "flags": 0}, 4),
        node("XNNAdd", {"input1_id": 7, "input2_id": 8, "output_id": 9, "flags": 0}, 5),
    ]
    entries, data = constants_layout([16 * 32, 16 * 4, 8 * 16 // 2, 8], named={3: "linear2.weight.qc4w"})
    graph = {"version": "1", "xnodes": nodes, "xvalues": values, "num_externs": 2, "input_ids": [0],
             "output_ids": [9], "constant_data": entries}
    return graph, data, {"linear2.weight.qc4w": bytes(range(64))}


def xnn_fp16():
    """fp16 conv -> max pool -> reshape -> fully connected -> softmax."""
    values = [
        plain("fp16", [1, 8, 8, 3], 0, flags=1, external=0),
        plain("fp16", [4, 3, 3, 3], 1, const=1),
        plain("fp16", [4], 2, const=2),
        plain("fp16", [1, 8, 8, 4], 3),
        plain("fp16", [1, 4, 4, 4], 4),
        plain("fp16", [1, 64], 5),
        plain("fp16", [10, 64], 6, const=3),
        plain("fp16", [1, 10], 7),
        plain("fp16", [1, 10], 8, flags=2, external=1),
    ]
    conv = {k: 0 for k in ["padding_top", "padding_right", "padding_bottom", "padding_left", "adjustment_height",
                           "adjustment_width", "flags"]}
    conv.update({"padding_top": 1, "padding_right": 1, "padding_bottom": 1, "padding_left": 1,
                 "kernel_height": 3, "kernel_width": 3, "subsampling_height": 1, "subsampling_width": 1,
                 "dilation_height": 1, "dilation_width": 1, "group_input_channels": 3,
                 "group_output_channels": 4, "groups": 1, "input1_id": 0, "filter_id": 1, "bias_id": 2,
                 "output_id": 3})
    pool = {"padding_top": 0, "padding_right": 0, "padding_bottom": 0, "padding_left": 0, "pooling_height": 2,
            "pooling_width": 2, "stride_height": 2, "stride_width": 2, "dilation_height": 1, "dilation_width": 1,
            "input_id": 3, "output_id": 4, "flags": 0}
    nodes = [
        node("XNNConv2d", conv, 1),
        node("XNNMaxPooling2d", pool, 2),
        node("XNNStaticReshape", {"num_dims": 2, "new_shape": [1, 64], "input_id": 4, "output_id": 5, "flags": 0}, 3),
        node("XNNFullyConnected", {"input1_id": 5, "filter_id": 6, "bias_id": NONE_ID, "output_id": 7, "flags": 0}, 4),
        node("XNNSoftmax", {"input_id": 7, "output_id": 8, "flags": 0}, 5),
    ]
    entries, data = constants_layout([4 * 27 * 2, 4 * 2, 640 * 2])
    graph = {"version": "1", "xnodes": nodes, "xvalues": values, "num_externs": 2, "input_ids": [0],
             "output_ids": [8], "constant_data": entries}
    return graph, data, {}


def xnn_many(count):
    """A long chain: alternating tanh / add-with-constant / sigmoid, one constant."""
    values = [plain("fp32", [1, 4], 0, flags=1, external=0), plain("fp32", [1, 4], 1, const=1)]
    nodes = []
    cur = 0
    ops = ["XNNTanh", "XNNAdd", "XNNSigmoid"]
    for i in range(count):
        nid = len(values)
        last = i == count - 1
        values.append(plain("fp32", [1, 4], nid, flags=2 if last else 0, external=1 if last else NONE_ID))
        op = ops[i % 3]
        if op == "XNNAdd":
            body = {"input1_id": cur, "input2_id": 1, "output_id": nid, "flags": 0}
        else:
            body = {"input_id": cur, "output_id": nid, "flags": 0}
        nodes.append(node(op, body, i + 1))
        cur = nid
    entries, data = constants_layout([16])
    graph = {"version": "1", "xnodes": nodes, "xvalues": values, "num_externs": 2, "input_ids": [0],
             "output_ids": [cur], "constant_data": entries}
    return graph, data, {}


def xnn_expected(graph, data, blob_len, parts):
    vals = {}
    for v in graph["xvalues"]:
        t = v["xvalue_union"]["tensor_value"] if v["xvalue_union_type"] == "XNNQuantizedTensorValue" \
            else v["xvalue_union"]
        e = {"dtype": t["datatype"][len("xnn_datatype_"):], "shape": t["dims"]}
        if t.get("constant_buffer_idx", 0):
            e["constant"] = t["constant_buffer_idx"]
        if v["xvalue_union_type"] == "XNNQuantizedTensorValue":
            qt = v["xvalue_union"]["quant_params_type"]
            qp = v["xvalue_union"]["quant_params"]
            e["quant"] = {"PerTensorQuant": "per_tensor", "PerChannelQuant": "per_channel",
                          "PerTokenDynamicQuant": "per_token_dynamic", "PerChannelGroupQuant": "blockwise"}[qt]
            if qt == "PerTensorQuant":
                e["scale"], e["zero_point"] = qp["scale"], qp["zero_point"]
            if "scale" in qp and isinstance(qp["scale"], list):
                e["scale_count"] = len(qp["scale"])
            if "group_size" in qp:
                e["group_size"] = qp["group_size"]
        vals[str(t["id_out"])] = e
    nodes = []
    for n in graph["xnodes"]:
        table = TABLE_OF[n["xnode_union_type"]]
        ins, outs = NODE_IDS[table]
        body = n["xnode_union"]
        nodes.append({"op": n["xnode_union_type"][3:],
                      "inputs": [body[k] for k in ins if body.get(k, NONE_ID) != NONE_ID],
                      "outputs": [body[k] for k in outs if body.get(k, NONE_ID) != NONE_ID],
                      "debug_handle": n["debug_handle"]})
    consts = [{"bytes": c["size"], "place": "named_data" if "named_key" in c else "constant_data"}
              for c in graph["constant_data"][1:]]
    return {"backend": "XNNPACK", "decoded": True, "version": graph["version"], "bytes": blob_len,
            "nodes": nodes, "values": vals, "inputs": graph["input_ids"], "outputs": graph["output_ids"],
            "constants": consts, "parts": [{"name": n, "bytes": b} for n, b in parts]}


# ---- Vulkan -------------------------------------------------------------------------------

def vk_graph():
    def tensor(dims, dtype="FLOAT32", const=-1, mem=-1):
        return {"value_type": "VkTensor",
                "value": {"datatype": dtype, "dims": dims, "constant_id": const, "mem_obj_id": mem,
                          "storage_type": "TEXTURE_3D", "memory_layout": "TENSOR_CHANNELS_PACKED"}}
    values = [
        tensor([1, 3, 8, 8], mem=0),                                   # 0 input
        tensor([4, 3, 3, 3], const=0),                                 # 1 weight
        tensor([4], const=1),                                          # 2 bias
        {"value_type": "IntList", "value": {"items": [1, 1]}},         # 3 stride
        {"value_type": "IntList", "value": {"items": [1, 1]}},         # 4 padding
        {"value_type": "Int", "value": {"int_val": 1}},                # 5 groups
        tensor([1, 4, 8, 8], mem=1),                                   # 6 conv out
        tensor([1, 4, 8, 8], mem=2),                                   # 7 relu out
        {"value_type": "Null", "value": {}},                           # 8 none
    ]
    chain = [{"node_id": 0, "name": "aten.convolution.default", "args": [0, 1, 2, 3, 4, 5, 8, 6]},
             {"node_id": 1, "name": "aten.relu.default", "args": [6, 7]}]
    data = bytes(range(256))[: 4 * 27 * 4 % 256] * 2
    data = data[:432].ljust(432, b"\1") + bytes(16)
    graph = {"version": "0", "chain": chain, "values": values, "input_ids": [0], "output_ids": [7],
             "constants": [{"offset": 0, "length": 432}, {"offset": 432, "length": 16}], "shaders": []}
    return graph, data


def vk_expected(graph, blob_len, parts):
    nodes = [{"op": c["name"], "inputs": c["args"], "outputs": []} for c in graph["chain"]]
    return {"backend": "Vulkan", "decoded": True, "version": graph["version"], "bytes": blob_len, "nodes": nodes,
            "inputs": graph["input_ids"], "outputs": graph["output_ids"],
            "constants": [{"bytes": c["length"], "place": "constant_data"} for c in graph["constants"]],
            "parts": [{"name": n, "bytes": b} for n, b in parts]}


# ---- Ethos-U ------------------------------------------------------------------------------

def vela_stream():
    def io(shapes, elem, offsets):
        out = struct.pack("<i", len(shapes))
        for s, o in zip(shapes, offsets):
            out += struct.pack("<9i", *s, elem, o, 1)
        return out
    cmd = b"COP1" + bytes(range(60)) * 3
    weights = bytes((i * 13) & 0xFF for i in range(300))
    blocks = [("vela_bin_stream", b""), ("cmd_data", cmd), ("weight_data", weights),
              ("scratch_size", struct.pack("<I", 12288)),
              ("inputs", io([[1, 1, 16, 16, 3, 1]], 1, [0])),
              ("outputs", io([[1, 1, 1, 1, 10, 1], [1, 1, 1, 1, 1, 1]], 1, [768, 784])),
              ("vela_end_stream", b"")]
    out = b""
    parts = []
    for name, data in blocks:
        header = struct.pack("<16sIB11s", name.encode()[:15].ljust(16, b"\0"), len(data), 0, bytes(11))
        padded = data + b"\0" * (15 - (len(data) - 1) % 16) if data else b""
        out += header + padded
        parts.append((name + " block", len(header) + len(padded)))
    expected = {"backend": "Ethos-U", "decoded": True, "bytes": len(out), "nodes": [],
                "command_stream_bytes": len(cmd), "weight_bytes": len(weights), "scratch_bytes": 12288,
                "values": {"0": {"dtype": "1-byte", "shape": [1, 1, 16, 16, 3, 1]},
                           "1": {"dtype": "1-byte", "shape": [1, 1, 1, 1, 10, 1]},
                           "2": {"dtype": "1-byte", "shape": [1, 1, 1, 1, 1, 1]}},
                "inputs": [0], "outputs": [1, 2], "parts": [{"name": n, "bytes": b} for n, b in parts]}
    return out, expected


# ---- The programs around the payloads -----------------------------------------------------

def program_json(backend_ids, locations, inline_blobs, segments, named):
    values = [{"val_type": "Tensor", "val": {"scalar_type": "FLOAT", "storage_offset": 0, "sizes": [1, 4],
                                             "dim_order": [0, 1], "requires_grad": False, "layout": 0,
                                             "shape_dynamism": "STATIC",
                                             "allocation_info": {"memory_id": 1, "memory_offset_low": 16 * i,
                                                                 "memory_offset_high": 0}}}
              for i in range(len(backend_ids) + 1)]
    instrs = [{"instr_args_type": "DelegateCall", "instr_args": {"delegate_index": d, "args": [d, d + 1]}}
              for d in range(len(backend_ids))]
    delegates = [{"id": b, "processed": {"location": loc, "index": idx}, "compile_specs": []}
                 for b, (loc, idx) in zip(backend_ids, locations)]
    plan = {"name": "forward", "values": values, "inputs": [0], "outputs": [len(backend_ids)],
            "chains": [{"inputs": [0], "outputs": [len(backend_ids)], "instructions": instrs}],
            "operators": [], "delegates": delegates, "non_const_buffer_sizes": [0, 16 * (len(backend_ids) + 1)]}
    prog = {"version": 0, "execution_plan": [plan],
            "backend_delegate_data": [{"data": list(b)} for b in inline_blobs]}
    if segments:
        prog["segments"] = [{"offset": 0, "size": 0}] * len(segments)  # patched below
    if named:
        prog["named_data"] = [{"key": k, "segment_index": i} for k, i in named]
    return prog


def write_pte(path, prog, segments):
    """flatc the program; with segments, insert the extended header after the identifier and
    append the segments 16-byte aligned (offsets relative to the segment base)."""
    if segments:
        off = 0
        for i, s in enumerate(segments):
            prog["segments"][i] = {"offset": off, "size": len(s)}
            off = align(off + len(s))
    fb = flatc_binary(PROGRAM_FBS, prog, "prog")
    if segments:
        insert = 32
        program_size = len(fb) + insert
        base = align(program_size)
        root = struct.unpack_from("<I", fb, 0)[0] + insert
        header = struct.pack("<4sIQQ", b"eh00", 24, program_size, base).ljust(insert, b"\0")
        fb = struct.pack("<I", root) + fb[4:8] + header + fb[8:]
        fb = fb.ljust(base, b"\0")
        for s in segments:
            fb += s
            fb = fb.ljust(align(len(fb)), b"\0")
    with open(path, "wb") as f:
        f.write(fb)
    return fb


def diff_builds(out):
    """Three builds of one model (x[1,32] -> linear 32->16 -> relu -> linear 16->8 -> y[1,8]) for
    program-diff: fp32 in one XNNPACK delegate; fp32 split into two delegates with the relu on
    the portable kernel between them; int8 (qd8 activations x qc8w weights) in one delegate."""
    def fc(i, w, b, o, h):
        return node("XNNFullyConnected", {"input1_id": i, "filter_id": w, "bias_id": b, "output_id": o,
                                          "flags": 0}, h)

    def payload(values, nodes, sizes, inputs, outputs, name):
        entries, data = constants_layout(sizes)
        graph = {"version": "1", "xnodes": nodes, "xvalues": values, "num_externs": len(inputs) + len(outputs),
                 "input_ids": inputs, "output_ids": outputs, "constant_data": entries}
        return segmented(b"XH00", flatc_binary(OUR_XNN, graph, name), data)[0]

    def tensor_value(sizes, offset):
        return {"val_type": "Tensor", "val": {"scalar_type": "FLOAT", "storage_offset": 0, "sizes": sizes,
                                              "dim_order": list(range(len(sizes))), "requires_grad": False,
                                              "layout": 0, "shape_dynamism": "STATIC",
                                              "allocation_info": {"memory_id": 1, "memory_offset_low": offset,
                                                                  "memory_offset_high": 0}}}

    def program(values, instrs, delegates, operators, blobs, path):
        plan = {"name": "forward", "values": values, "inputs": [0], "outputs": [len(values) - 1],
                "chains": [{"inputs": [0], "outputs": [len(values) - 1], "instructions": instrs}],
                "operators": operators, "delegates": delegates, "non_const_buffer_sizes": [0, 512]}
        prog = {"version": 0, "execution_plan": [plan], "segments": [{}] * len(blobs)}
        write_pte(path, prog, blobs)

    def dcall(d, args):
        return {"instr_args_type": "DelegateCall", "instr_args": {"delegate_index": d, "args": args}}

    def xnn(index):
        return {"id": "XnnpackBackend", "processed": {"location": "SEGMENT", "index": index}, "compile_specs": []}

    # fp32, one delegate: FC, Clamp (relu), FC.
    v = [plain("fp32", [1, 32], 0, flags=1, external=0), plain("fp32", [16, 32], 1, const=1),
         plain("fp32", [16], 2, const=2), plain("fp32", [1, 16], 3), plain("fp32", [1, 16], 4),
         plain("fp32", [8, 16], 5, const=3), plain("fp32", [1, 8], 6, flags=2, external=1)]
    n = [fc(0, 1, 2, 3, 1), node("XNNClamp", {"input_id": 3, "output_id": 4, "flags": 0}, 2), fc(4, 5, NONE_ID, 6, 3)]
    b = payload(v, n, [2048, 64, 512], [0], [6], "diff_fp32")
    program([tensor_value([1, 32], 0), tensor_value([1, 8], 128)], [dcall(0, [0, 1])], [xnn(0)], [], [b],
            os.path.join(out, "diff_fp32.pte"))

    # fp32, two delegates around a portable relu.
    v1 = [plain("fp32", [1, 32], 0, flags=1, external=0), plain("fp32", [16, 32], 1, const=1),
          plain("fp32", [16], 2, const=2), plain("fp32", [1, 16], 3, flags=2, external=1)]
    b1 = payload(v1, [fc(0, 1, 2, 3, 1)], [2048, 64], [0], [3], "diff_split1")
    v2 = [plain("fp32", [1, 16], 0, flags=1, external=0), plain("fp32", [8, 16], 1, const=1),
          plain("fp32", [1, 8], 2, flags=2, external=1)]
    b2 = payload(v2, [fc(0, 1, NONE_ID, 2, 3)], [512], [0], [2], "diff_split2")
    values = [tensor_value([1, 32], 0), tensor_value([1, 16], 128), tensor_value([1, 16], 192),
              tensor_value([1, 8], 256)]
    program(values, [dcall(0, [0, 1]),
                     {"instr_args_type": "KernelCall", "instr_args": {"op_index": 0, "args": [1, 2, 2]}},
                     dcall(1, [2, 3])], [xnn(0), xnn(1)], [{"name": "aten::relu", "overload": "out"}], [b1, b2],
            os.path.join(out, "diff_fp32_split.pte"))

    # int8: Convert to qd8, qc8w linear, clamp, Convert, qc8w linear.
    def pc(c):
        return {"scale": [0.02] * c, "channel_dim": 0}
    v = [plain("fp32", [1, 32], 0, flags=1, external=0),
         quant("qdint8", [1, 32], 1, "PerTokenDynamicQuant", {"num_nonbatch_dims": 1}),
         quant("qcint8", [16, 32], 2, "PerChannelQuant", pc(16), const=1), plain("fp32", [16], 3, const=2),
         plain("fp32", [1, 16], 4), plain("fp32", [1, 16], 5),
         quant("qdint8", [1, 16], 6, "PerTokenDynamicQuant", {"num_nonbatch_dims": 1}),
         quant("qcint8", [8, 16], 7, "PerChannelQuant", pc(8), const=3), plain("fp32", [1, 8], 8, flags=2, external=1)]
    n = [node("XNNConvert", {"input_id": 0, "output_id": 1, "flags": 0}, 1), fc(1, 2, 3, 4, 1),
         node("XNNClamp", {"input_id": 4, "output_id": 5, "flags": 0}, 2),
         node("XNNConvert", {"input_id": 5, "output_id": 6, "flags": 0}, 3), fc(6, 7, NONE_ID, 8, 3)]
    b = payload(v, n, [512, 64, 128], [0], [8], "diff_int8")
    program([tensor_value([1, 32], 0), tensor_value([1, 8], 128)], [dcall(0, [0, 1])], [xnn(0)], [], [b],
            os.path.join(out, "diff_int8.pte"))


def bench(out):
    """The speed benchmark's inputs (tools/run-benchmarks.sh): a ~3 MB XNNPACK program (two
    payloads of 24 fully connected 128x128 layers, 64 KB of weights each, in segments) and a
    program whose one payload has 100,000 nodes."""
    os.makedirs(out, exist_ok=True)
    blobs = []
    for part in range(2):
        values = [plain("fp32", [1, 128], 0, flags=1, external=0)]
        nodes, sizes = [], []
        cur = 0
        for layer in range(24):
            w = len(values)
            values.append(plain("fp32", [128, 128], w, const=len(sizes) + 1))
            sizes.append(128 * 128 * 4)
            o = len(values)
            last = layer == 23
            values.append(plain("fp32", [1, 128], o, flags=2 if last else 0, external=1 if last else NONE_ID))
            nodes.append(node("XNNFullyConnected", {"input1_id": cur, "filter_id": w, "bias_id": NONE_ID,
                                                    "output_id": o, "flags": 0}, layer + 1))
            cur = o
        entries, data = constants_layout(sizes)
        graph = {"version": "1", "xnodes": nodes, "xvalues": values, "num_externs": 2, "input_ids": [0],
                 "output_ids": [cur], "constant_data": entries}
        blob, _ = segmented(b"XH00", flatc_binary(OUR_XNN, graph, "bench%d" % part), data)
        blobs.append(blob)
    prog = program_json(["XnnpackBackend", "XnnpackBackend"], [("SEGMENT", 0), ("SEGMENT", 1)], [], blobs, [])
    write_pte(os.path.join(out, "bench_xnnpack_3mb.pte"), prog, blobs)
    gm, dm, _ = xnn_many(100000)
    bm, _ = segmented(b"XH00", flatc_binary(OUR_XNN, gm, "bench_many"), dm)
    prog = program_json(["XnnpackBackend"], [("SEGMENT", 0)], [], [bm], [])
    write_pte(os.path.join(out, "bench_xnnpack_100k_nodes.pte"), prog, [bm])


def main():
    if sys.argv[1] == "--bench":
        bench(sys.argv[2])
        return
    out = sys.argv[1]
    upstream = None
    if "--upstream-schemas" in sys.argv:
        upstream = sys.argv[sys.argv.index("--upstream-schemas") + 1]
    xnn_schema = os.path.join(upstream, "xnnpack_schema.fbs") if upstream else OUR_XNN
    vk_schema = os.path.join(upstream, "vulkan_schema.fbs") if upstream else OUR_VK
    os.makedirs(out, exist_ok=True)
    expected = {}

    def xnn_payload(graph, data, name):
        fb = flatc_binary(xnn_schema, graph, name)
        if upstream:  # the compiled graph decodes back to the authored JSON
            back = flatc_decode(xnn_schema, fb, name)
            assert [n["xnode_union_type"] for n in back["xnodes"]] == [n["xnode_union_type"] for n in graph["xnodes"]]
            assert len(back["xvalues"]) == len(graph["xvalues"])
        blob, parts = segmented(b"XH00", fb, data)
        return blob, xnn_expected(graph, data, len(blob), parts)

    # 1. int8 (two XNNPACK payloads in segments + a named constant), 2. fp16, 3. a long chain.
    g8, d8, named8 = xnn_int8()
    b8, e8 = xnn_payload(g8, d8, "xnn_int8")
    g16, d16, _ = xnn_fp16()
    b16, e16 = xnn_payload(g16, d16, "xnn_fp16")
    segs = [b8, b16, named8["linear2.weight.qc4w"]]
    prog = program_json(["XnnpackBackend", "XnnpackBackend"], [("SEGMENT", 0), ("SEGMENT", 1)], [], segs,
                        [("linear2.weight.qc4w", 2)])
    write_pte(os.path.join(out, "xnn_int8_fp16.pte"), prog, segs)
    expected["xnn_int8_fp16.pte"] = [e8, e16]
    with open(os.path.join(out, "xnn_int8.xnngraph.json"), "w") as f:
        json.dump(g8, f, indent=1)
    with open(os.path.join(out, "xnn_fp16.xnngraph.json"), "w") as f:
        json.dump(g16, f, indent=1)

    gm, dm, _ = xnn_many(400)
    bm, em = xnn_payload(gm, dm, "xnn_many")
    prog = program_json(["XnnpackBackend"], [("SEGMENT", 0)], [], [bm], [])
    write_pte(os.path.join(out, "xnn_many.pte"), prog, [bm])
    expected["xnn_many.pte"] = [em]

    # Vulkan in a segment, Ethos-U inline, two opaque ones inline.
    gv, dv = vk_graph()
    fbv = flatc_binary(vk_schema, gv, "vk")
    if upstream:
        back = flatc_decode(vk_schema, fbv, "vk")
        assert [c["name"] for c in back["chain"]] == [c["name"] for c in gv["chain"]]
    bv, pv = segmented(b"VH00", fbv, dv)
    vela, ev = vela_stream()
    qnn = b"\x11\x22QNNCTX" + bytes((i * 31) & 0xFF for i in range(200))
    # A QNN payload as QnnCustomProtocol.cpp writes it: magic, signature, binary size, padding to
    # 256, then the (here made-up) context binary.
    qnn_ctx = struct.pack("<IqQ", 0x5678ABCD, 1234567, 300).ljust(256, b"\0") + bytes(range(256)) + bytes(44)
    damaged = bytearray(b8[:64])  # header says the flatbuffer is longer than what is left
    prog = program_json(["VulkanBackend", "EthosUBackend", "QnnBackend", "XnnpackBackend", "QnnBackend"],
                        [("SEGMENT", 0), ("INLINE", 0), ("INLINE", 1), ("INLINE", 2), ("INLINE", 3)],
                        [vela, qnn, bytes(damaged), qnn_ctx], [bv], [])
    write_pte(os.path.join(out, "mixed_backends.pte"), prog, [bv])
    with open(os.path.join(out, "vk_conv.vkgraph.json"), "w") as f:
        json.dump(gv, f, indent=1)
    expected["mixed_backends.pte"] = [
        vk_expected(gv, len(bv), pv), ev,
        {"backend": "opaque", "decoded": False, "bytes": len(qnn), "nodes": []},
        {"backend": "opaque", "decoded": False, "bytes": len(damaged), "nodes": []},
        {"backend": "QNN", "decoded": False, "bytes": len(qnn_ctx), "nodes": [], "version": "signature 1234567",
         "parts": [{"name": "header", "bytes": 256}, {"name": "context binary", "bytes": 300}]},
    ]
    # The real fixture: its payloads located from its program JSON and extended header, the
    # XH00 header read here, the graph decoded with flatc and compared with the JSON it was
    # built from; the expectation comes from that JSON.
    fixture = os.path.join(ROOT, "..", "shared", "fixtures", "runtime", "xnnpack_mlp_intermediates")
    if not os.path.isdir(fixture):
        fixture = os.path.join(ROOT, "tests/data/shared/fixtures/runtime/xnnpack_mlp_intermediates")
    with open(os.path.join(fixture, "xnn_mlp.pte"), "rb") as f:
        pte = f.read()
    with open(os.path.join(fixture, "xnn_mlp.program.json")) as f:
        pjson = json.load(f)
    with open(os.path.join(fixture, "xnn_mlp.xnnpack_graphs.json")) as f:
        graphs = json.load(f)
    assert pte[8:12] == b"eh00"
    base = struct.unpack_from("<Q", pte, 24)[0]
    fixture_expected = []
    for d, dele in enumerate(pjson["execution_plan"][0]["delegates"]):
        seg = pjson["segments"][dele["processed"]["index"]]
        blob = pte[base + seg["offset"]: base + seg["offset"] + seg["size"]]
        assert blob[4:8] == b"XH00"
        fb_off, fb_size, c_off, c_size = struct.unpack_from("<IIIQ", blob, 10)
        graph = graphs["delegate_%d" % d]
        if upstream:
            back = flatc_decode(xnn_schema, blob[fb_off:fb_off + fb_size], "fixture%d" % d)
            assert [n["xnode_union_type"] for n in back["xnodes"]] == [n["xnode_union_type"] for n in graph["xnodes"]]
            assert [n["xnode_union"] for n in back["xnodes"]] == [n["xnode_union"] for n in graph["xnodes"]]
        parts = [("header", fb_off), ("graph", fb_size)]
        if c_off > fb_off + fb_size:
            parts.append(("padding", c_off - fb_off - fb_size))
        parts.append(("constant data", c_size))
        if len(blob) > c_off + c_size:
            parts.append(("trailing bytes", len(blob) - c_off - c_size))
        fixture_expected.append(xnn_expected(graph, None, len(blob), parts))
    expected["xnn_mlp.pte"] = fixture_expected

    diff_builds(out)

    # Raw payloads: the fuzz targets' seeds (tests/fuzz/fuzz_<backend>_payload).
    write_outputs(out, [("int8.xnnpack", b8), ("fp16.xnnpack", b16), ("damaged.xnnpack", bytes(damaged)),
                        ("conv.vulkan", bv), ("stream.ethosu", vela), ("context.qnn", qnn_ctx)],
                  "expected_delegates.json", expected)


def write_outputs(out, seeds, expected_name, expected):
    """The raw payloads under out/payloads (fuzz seeds) and the expectation JSON."""
    os.makedirs(os.path.join(out, "payloads"), exist_ok=True)
    for name, blob in seeds:
        with open(os.path.join(out, "payloads", name), "wb") as f:
            f.write(blob)
    with open(os.path.join(out, expected_name), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
