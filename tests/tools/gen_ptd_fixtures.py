#!/usr/bin/python3
"""Builds the authored FlatTensor (.ptd) fixtures of tests/data/program/ptd from their JSON.

No runtime here writes a .ptd, so each file is made the way ExecuTorch's serializer makes one
(extension/flat_tensor/serialize/serialize.py at commit
cff6f4dd32e630945b7188512c1f2b4f102b05ad, FlatTensorSerializer.serialize and
exir/_serialize/_program.py _insert_flatbuffer_header), from facts only:

- the FlatTensor flatbuffer is compiled from <name>.flat_tensor.json with flatc and our schema
  core/program/flat_tensor.fbs (upstream also compiles JSON with flatc);
- a 40-byte header -- b"FH01", u32 length 40, u64 flatbuffer offset, u64 flatbuffer size,
  u64 segment base offset, u64 segment data size, little-endian -- padded to 48 bytes (the
  length aligned to 16) is inserted after the first 8 bytes (root offset + "FT01"), and the
  root offset grows by 48;
- flatbuffer offset = 48, flatbuffer size = the size flatc wrote (before the insertion);
- segment base = (flatbuffer size + 48) rounded up to the segment alignment (128);
- the segments follow at their offsets (relative to the base), zero padding between them;
  segment data size = end of the last segment (no trailing padding).

Segment contents: the float32 values 0.5, 1.0, 1.5, ... (k+1)/2 for each segment, numbered
from 0 within the segment, truncated to the segment's size. Nothing in the tests reads them.

The hostile files under ptd/hostile/ are the good file cut or edited as their names say.

Usage: /usr/bin/python3 tests/tools/gen_ptd_fixtures.py   (from the repository root; needs flatc)
"""

import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA = os.path.join(ROOT, "core", "program", "flat_tensor.fbs")
DATA = os.path.join(ROOT, "tests", "data", "program", "ptd")
SEGMENT_ALIGNMENT = 128  # FlatTensorConfig.segment_alignment upstream
HEADER_LENGTH = 40
PADDED_HEADER = 48  # aligned_size(40, 16): _FLATBUFFER_ALIGNMENT


def aligned(n, a):
    return (n + a - 1) // a * a


def flatc(doc):
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "t.flat_tensor.json")
        with open(src, "w") as f:
            json.dump(doc, f)
        subprocess.run(["flatc", "-b", "-o", d, SCHEMA, src], check=True)
        with open(os.path.join(d, "t.flat_tensor.ptd"), "rb") as f:
            return f.read()


def header(fb_size, base, data_size, length=HEADER_LENGTH, magic=b"FH01", fb_offset=PADDED_HEADER):
    return magic + struct.pack("<IQQQQ", length, fb_offset, fb_size, base, data_size)


def build(doc, data_segments=None, **hdr):
    """data_segments: lay the data out for these segments instead of the document's."""
    fb = flatc(doc)
    segs = data_segments or doc["segments"]
    data = bytearray()
    for s in segs:
        data += b"\0" * (s["offset"] - len(data))
        values = b"".join(struct.pack("<f", (k + 1) / 2) for k in range((s["size"] + 3) // 4))
        data += values[: s["size"]]
    base = aligned(len(fb) + PADDED_HEADER, SEGMENT_ALIGNMENT)
    h = header(len(fb), base, len(data), **hdr).ljust(PADDED_HEADER, b"\0")
    root = struct.unpack_from("<I", fb, 0)[0]
    out = struct.pack("<I", root + PADDED_HEADER) + fb[4:8] + h + fb[8:]
    out = out.ljust(base, b"\0") + bytes(data)
    return out


def write(name, data):
    path = os.path.join(DATA, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    print(f"{path}: {len(data)} bytes")


def main():
    if not shutil.which("flatc"):
        sys.exit("flatc not found")
    docs = {}
    for name in ("external", "missing_name", "wrong_size", "delegate_blob"):
        with open(os.path.join(DATA, name + ".flat_tensor.json")) as f:
            docs[name] = json.load(f)
        write(name + ".ptd", build(docs[name]))

    good = build(docs["external"])
    fb_size = struct.unpack_from("<Q", good, 24)[0]
    base = struct.unpack_from("<Q", good, 32)[0]
    data_size = struct.unpack_from("<Q", good, 40)[0]
    write("hostile/truncated_header.ptd", good[:30])
    write("hostile/truncated_flatbuffer.ptd", good[: PADDED_HEADER + 8 + fb_size // 2])
    write("hostile/truncated_segments.ptd", good[:-10])
    write("hostile/bad_identifier.ptd", good[:4] + b"FT99" + good[8:])
    write("hostile/bad_magic.ptd", good[:8] + b"FH99" + good[12:])
    write("hostile/short_header_length.ptd", good[:12] + struct.pack("<I", 16) + good[16:])
    write("hostile/huge_flatbuffer_size.ptd", good[:24] + struct.pack("<Q", 1 << 63) + good[32:])
    write("hostile/segment_base_overflow.ptd", good[:32] + struct.pack("<Q", (1 << 64) - 8) + good[40:])
    write("hostile/segments_in_flatbuffer.ptd", good[:32] + struct.pack("<Q", 16) + good[40:])
    write("hostile/empty.ptd", b"")

    doc = json.loads(json.dumps(docs["external"]))
    doc["segments"][2]["size"] = 4096
    write("hostile/segment_past_data.ptd", build(doc, data_segments=docs["external"]["segments"]))
    doc = json.loads(json.dumps(docs["external"]))
    doc["named_data"][1]["segment_index"] = 9
    write("hostile/segment_index_out_of_range.ptd", build(doc))
    doc = json.loads(json.dumps(docs["external"]))
    doc["named_data"][0]["tensor_layout"]["sizes"] = [30, 4]
    write("hostile/layout_larger_than_segment.ptd", build(doc))
    doc = json.loads(json.dumps(docs["external"]))
    doc["named_data"][2]["key"] = "linear.weight"
    write("hostile/duplicate_key.ptd", build(doc))
    doc = json.loads(json.dumps(docs["external"]))
    doc["named_data"][0]["tensor_layout"]["dim_order"] = [0]
    write("hostile/dim_order_rank.ptd", build(doc))
    doc = json.loads(json.dumps(docs["external"]))
    del doc["named_data"]
    write("hostile/no_named_data.ptd", build(doc))
    # Consistency checks of the good file against the facts above.
    assert base == aligned(fb_size + PADDED_HEADER, SEGMENT_ALIGNMENT) and data_size == 256 + 24


if __name__ == "__main__":
    main()
