#!/usr/bin/python3
"""Builds tests/data/framed/: real runtime files re-framed the ways other writers frame them.

Each file holds the same content as a file the ExecuTorch runtime (or its exporter) wrote; only
the framing differs. tests/cli/tst_framedfiles.cpp checks that etscope reads each one to the same
table, TSV and program summary, byte for byte, as the original.

- docs_tutorial.prefixed.etdp, cnn_mlp.prefixed.etdp: the ETDump decoded by `flatc --json
  --size-prefixed` with our schema (core/etdump/etdump.fbs), compiled back by `flatc -b` (a
  flatbuffer laid out for its own start: what upstream's Python serializer,
  devtools/etdump/serialize.py serialize_to_etdump_flatcc at ExecuTorch commit
  cff6f4dd32e630945b7188512c1f2b4f102b05ad, returns), then a 4-byte little-endian size prefix
  put in front. Its 8-byte fields then sit 4 bytes off the file's 8-byte alignment.
- docs_tutorial.plain.etdp: the same flatc output without a prefix.
- cnn_mlp.eh18.pte: the runtime fixture's program with its extended header ("eh00") cut back to
  the 0x18-byte layout ExecuTorch wrote before segment_data_size was added (upstream 0e3d6d3e37,
  2025-09): length field 0x18, the segment_data_size bytes zeroed (they become the header's
  padding; the header stays padded to 32 bytes as exir/_serialize/_program.py pads it).

Usage: /usr/bin/python3 tests/tools/gen_framed_files.py   (from the repository root; needs flatc)
"""

import os
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.path.join(ROOT, "..", "shared", "fixtures")
if not os.path.isdir(SHARED):
    SHARED = os.path.join(ROOT, "tests", "data", "shared", "fixtures")
OUT = os.path.join(ROOT, "tests", "data", "framed")
SCHEMA = os.path.join(ROOT, "core", "etdump", "etdump.fbs")


def flatc_payload(etdump_path):
    """The ETDump's content compiled by flatc for its own start (no prefix)."""
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "in.etdp")
        shutil.copy(etdump_path, src)
        subprocess.run(["flatc", "--json", "--strict-json", "--size-prefixed", "--raw-binary", "-o", d, SCHEMA,
                        "--", src], check=True)
        out = os.path.join(d, "out")  # flatc names its output in.etdp (the schema's file_extension)
        subprocess.run(["flatc", "-b", "-o", out, SCHEMA, os.path.join(d, "in.json")], check=True)
        with open(os.path.join(out, "in.etdp"), "rb") as f:
            return f.read()


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
    print(f"{name}: {len(data)} bytes")


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, src in [("docs_tutorial", os.path.join(SHARED, "upstream", "docs_tutorial.etdp")),
                      ("cnn_mlp", os.path.join(SHARED, "runtime", "cnn_mlp_intermediates", "etdump.etdp"))]:
        payload = flatc_payload(src)
        assert payload[4:8] == b"ED00", payload[:8]
        write(f"{name}.prefixed.etdp", struct.pack("<I", len(payload)) + payload)
        if name == "docs_tutorial":
            write(f"{name}.plain.etdp", payload)

    with open(os.path.join(SHARED, "runtime", "cnn_mlp_intermediates", "cnn_mlp.pte"), "rb") as f:
        pte = bytearray(f.read())
    assert pte[8:12] == b"eh00" and struct.unpack_from("<I", pte, 12)[0] == 0x20
    struct.pack_into("<I", pte, 12, 0x18)
    pte[32:40] = bytes(8)
    write("cnn_mlp.eh18.pte", bytes(pte))


if __name__ == "__main__":
    sys.exit(main())
