"""ETDumps as flatc JSON for the generators: decode a recording without etscope
(`flatc --json --raw-binary --size-prefixed core/etdump/etdump.fbs`), and find the shared real
fixtures (../shared beside the checkout, else the committed copy under tests/data/shared)."""

import json
import os
import subprocess
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCHEMA = os.path.join(ROOT, "core", "etdump", "etdump.fbs")


def fixture(rel):
    """Path of shared/fixtures/<rel>, wherever the fixtures are."""
    for base in (os.path.join(ROOT, "..", "shared"), os.path.join(ROOT, "tests", "data", "shared")):
        p = os.path.join(base, "fixtures", rel)
        if os.path.exists(p):
            return p
    raise SystemExit(f"fixture {rel} not found")


def decode(path):
    """The ETDump at `path` as flatc's JSON (a dict)."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["flatc", "--json", "--strict-json", "--raw-binary", "--size-prefixed", "-o", tmp, SCHEMA,
                        "--", path], check=True)
        with open(os.path.join(tmp, os.path.splitext(os.path.basename(path))[0] + ".json")) as f:
            return json.load(f)


def encode(doc, out_dir, stem):
    """Writes `doc` (flatc JSON) as out_dir/<stem>.etdp, size-prefixed as the runtime writes it."""
    with tempfile.TemporaryDirectory() as tmp:
        js = os.path.join(tmp, stem + ".json")
        with open(js, "w") as f:
            json.dump(doc, f)
        subprocess.run(["flatc", "-b", "--size-prefixed", "-o", out_dir, SCHEMA, js], check=True)
