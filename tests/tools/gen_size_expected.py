#!/usr/bin/env python3
"""Hand count of the top-level parts of every fixture program, for `etscope-cli size`.

For each .pte under ../shared/fixtures, tests/data and resources/samples: the flatbuffer ends at
the extended header's program_size (bytes 16..23 after "eh00" at 8; the whole file without it),
the segments are read from `flatc --json` of the program (Program.segments, offsets relative to
the extended header's segment base at 24..31), and everything between them is padding. The
result is the list of top-level byte counts in file order (zero-length segments and padding
left out), written to tests/data/program/expected_size.json as {relative path: [bytes, ...]}.

Run: python3 tests/tools/gen_size_expected.py tests/data/program/expected_size.json
"""
import glob
import json
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCHEMA = os.path.join(ROOT, "core/program/program.fbs")


def segments(path):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["flatc", "--json", "--strict-json", "--raw-binary", "-o", d, SCHEMA, "--", path],
                       check=True, capture_output=True)
        (name,) = os.listdir(d)
        with open(os.path.join(d, name)) as f:
            return json.load(f).get("segments", [])


def count(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[8:12] == b"eh00":
        program_size, base = struct.unpack_from("<QQ", data, 16)
    else:
        program_size, base = len(data), 0
    parts = [program_size]
    pos = program_size
    for s in sorted(segments(path), key=lambda s: int(s.get("offset", 0))):
        begin, size = base + int(s.get("offset", 0)), int(s.get("size", 0))
        if size == 0 or begin < pos:
            continue
        if begin > pos:
            parts.append(begin - pos)
        parts.append(size)
        pos = begin + size
    if pos < len(data):
        parts.append(len(data) - pos)
    return parts


def main():
    shared = os.path.join(ROOT, "..", "shared", "fixtures")
    found = {}
    for base, pattern in [(shared, "**/*.pte"), (os.path.join(ROOT, "tests/data"), "**/*.pte"),
                          (os.path.join(ROOT, "resources/samples"), "**/*.pte")]:
        for path in sorted(glob.glob(os.path.join(base, pattern), recursive=True)):
            key = os.path.relpath(path, shared if base == shared else ROOT)
            key = ("shared:" if base == shared else "") + key
            found[key] = count(path)
    with open(sys.argv[1], "w") as f:
        json.dump(found, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
