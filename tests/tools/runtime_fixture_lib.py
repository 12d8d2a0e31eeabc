"""Shared pieces of the generators of tests/data/runtime/{determinism_*,xnnpack_int8,
vulkan_lavapipe}: authoring a program as program.fbs JSON and laying it out as a .pte with segments, and
decoding what the real runtime wrote (flatc --json of the ETDump, tensors read from the debug
buffer at the offsets the debug events give). Nothing here is taken from the code under test.

Layout rules (ExecuTorch commit cff6f4dd32e630945b7188512c1f2b4f102b05ad):
  exir/_serialize/_program.py serialize_pte_binary: constant tensors go to a constant segment
  (constant_buffer[0] is the empty placeholder, each tensor padded to 16 bytes), delegate
  payloads to their own segments; segments aligned to 128 after the flatbuffer; an extended
  header 'eh00' (length 32, program_size, segment_base_offset, segment_data_size; padded to the
  schema's largest force_align, 16) inserted after the root offset and file identifier, the
  root offset moved by its length.
"""

import json
import os
import struct
import subprocess
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLAN_ALIGNMENT = 16
CONSTANT_ALIGNMENT = 16
SEGMENT_ALIGNMENT = 128
EH_LENGTH = 32

DTYPES = {  # program.fbs / etdump.fbs ScalarType name -> (numpy dtype, element size)
    "BYTE": (np.uint8, 1), "CHAR": (np.int8, 1), "INT": (np.int32, 4), "LONG": (np.int64, 8),
    "FLOAT": (np.float32, 4), "BOOL": (np.bool_, 1),
}


def align(n, a):
    return (n + a - 1) // a * a


class Plan:
    """One execution plan, built instruction by instruction like exir/emit lays it out: memory
    planned tensors in memory_id 1 without buffer reuse, constants in the constant segment."""

    def __init__(self, name, constants):
        self.name = name
        self.values, self.instrs, self.ops, self.delegates = [], [], [], []
        self.offset = 0
        self.constants = constants  # shared list of numpy arrays (constant buffer 1..n)
        self.shape = {}

    def add(self, v):
        self.values.append(v)
        return len(self.values) - 1

    def _tensor(self, sizes, dtype, extra):
        t = {"scalar_type": dtype, "storage_offset": 0, "sizes": list(sizes),
             "dim_order": list(range(len(sizes))), "requires_grad": False, "layout": 0,
             "shape_dynamism": "STATIC"}
        t.update(extra)
        idx = self.add({"val_type": "Tensor", "val": t})
        self.shape[idx] = list(sizes)
        return idx

    def tensor(self, sizes, dtype="FLOAT"):
        nbytes = int(np.prod(sizes)) * DTYPES[dtype][1]
        extra = {"allocation_info": {"memory_id": 1, "memory_offset_low": self.offset,
                                     "memory_offset_high": 0}}
        self.offset += align(nbytes, PLAN_ALIGNMENT)
        return self._tensor(sizes, dtype, extra)

    def const(self, arr):
        self.constants.append(np.ascontiguousarray(arr, dtype=np.float32))
        return self._tensor(arr.shape, "FLOAT", {"data_buffer_idx": len(self.constants)})

    def int(self, v):
        return self.add({"val_type": "Int", "val": {"int_val": v}})

    def bool(self, v):
        return self.add({"val_type": "Bool", "val": {"bool_val": v}})

    def null(self):
        return self.add({"val_type": "Null", "val": {}})

    def call(self, op, args, out_sizes, dtype="FLOAT"):
        name, overload = op.split(".")
        key = {"name": "aten::" + name, "overload": overload}
        if key not in self.ops:
            self.ops.append(key)
        out = self.tensor(out_sizes, dtype)
        self.instrs.append({"instr_args_type": "KernelCall",
                            "instr_args": {"op_index": self.ops.index(key), "args": args + [out, out]}})
        return out

    def delegate(self, segment_index, args):
        """A DELEGATE_CALL of XnnpackBackend whose payload is program segment segment_index."""
        self.delegates.append({"id": "XnnpackBackend",
                               "processed": {"location": "SEGMENT", "index": segment_index},
                               "compile_specs": []})
        self.instrs.append({"instr_args_type": "DelegateCall",
                            "instr_args": {"delegate_index": len(self.delegates) - 1, "args": args}})

    def to_json(self, inputs, outputs):
        return {"name": self.name, "values": self.values, "inputs": inputs, "outputs": outputs,
                "chains": [{"inputs": inputs, "outputs": outputs, "instructions": self.instrs}],
                "operators": self.ops, "delegates": self.delegates,
                "non_const_buffer_sizes": [0, self.offset]}


def flatc_binary(schema, doc, stem):
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, stem + ".json")
        with open(src, "w") as f:
            json.dump(doc, f)
        subprocess.run(["flatc", "-b", "-o", d, schema, src], check=True)
        out = [n for n in os.listdir(d) if n != stem + ".json"]
        with open(os.path.join(d, out[0]), "rb") as f:
            return f.read()


def program_schema(et):
    return os.path.join(et, "schema", "program.fbs") if et else os.path.join(ROOT, "core", "program", "program.fbs")


def build_pte(schema, plans, constants, delegate_payloads=()):
    """plans: execution plan JSONs. Segment 0 = the constant segment, then one segment per
    delegate payload (the plans' delegates refer to them by index 1..n). Returns (program JSON,
    .pte bytes)."""
    const_data, offsets = bytearray(), [0]
    for i, arr in enumerate(constants):
        offsets.append(len(const_data))
        const_data += arr.tobytes()
        if i < len(constants) - 1:
            const_data += b"\0" * (align(len(const_data), CONSTANT_ALIGNMENT) - len(const_data))
    blobs = [bytes(const_data)] + [bytes(p) for p in delegate_payloads]
    segments, data = [], bytearray()
    for b in blobs:
        prev_end = segments[-1]["offset"] + segments[-1]["size"] if segments else 0
        off = align(prev_end, SEGMENT_ALIGNMENT)
        data += b"\0" * (off - len(data)) + b
        segments.append({"offset": off, "size": len(b)})
    program = {"version": 0, "execution_plan": plans, "constant_buffer": [],
               "backend_delegate_data": [], "segments": segments,
               "constant_segment": {"segment_index": 0, "offsets": offsets}}
    fb = flatc_binary(schema, program, "program")
    padded = align(EH_LENGTH, 16)
    program_size = padded + len(fb)
    base = align(program_size, SEGMENT_ALIGNMENT)
    header = (b"eh00" + struct.pack("<IQQQ", EH_LENGTH, program_size, base, len(data))).ljust(padded, b"\0")
    root = struct.unpack_from("<I", fb, 0)[0]
    out = struct.pack("<I", root + padded) + fb[4:8] + header + fb[8:]
    assert len(out) == program_size
    return program, out.ljust(base, b"\0") + bytes(data)


def write_json(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


# ---- reading what the runtime wrote ------------------------------------------------------
def etdump_schema(et):
    if et:
        return os.path.join(et, "devtools", "etdump", "etdump_schema_flatcc.fbs")
    return os.path.join(ROOT, "core", "etdump", "etdump.fbs")


def decode_etdump(schema, path):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["flatc", "--json", "--strict-json", "--raw-binary", "--size-prefixed",
                        "--defaults-json", "-o", d, schema, "--", path], check=True)
        with open(os.path.join(d, os.path.splitext(os.path.basename(path))[0] + ".json")) as f:
            return json.load(f)


def execute_blocks(doc):
    return [r for r in doc.get("run_data", []) if r.get("name") == "Execute"]


def debug_tensors(block, debug_buffer):
    """The debug events of one run_data block, in file order: (event, numpy array)."""
    out = []
    for ev in block.get("events") or []:
        de = ev.get("debug_event")
        if not de:
            continue
        entry = de["debug_entry"]
        t = entry.get("tensor")
        if not t:
            continue
        dt, size = DTYPES[t["scalar_type"]]
        n = int(np.prod(t["sizes"])) if t["sizes"] else 1
        arr = np.frombuffer(debug_buffer, dtype=dt, count=n, offset=int(t["offset"]))
        out.append((de, arr.reshape(t["sizes"])))
    return out
