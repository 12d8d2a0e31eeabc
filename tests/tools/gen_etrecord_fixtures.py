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
import struct
import sys
import zipfile

import torch

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
        z.writestr("archive/data.pkl", pkl)
        z.writestr("archive/byteorder", "little")
        z.writestr("archive/version", "3\n")
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
            w.writestr(info.filename, data)
    write("hostile_short_storage.pt", out.getvalue())
    assert pkl


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    what = sys.argv[1:] or ["torchsave", "hostile", "etrecord"]
    if "torchsave" in what:
        gen_torchsave()
    if "hostile" in what:
        gen_hostile()
    if "etrecord" in what and "gen_etrecords" in globals():
        gen_etrecords()  # noqa: F821
