#!/usr/bin/python3
"""Expected debug-buffer provenance verdicts (core/etdump/bufferprovenance.h) for every pair of a
real fixture ETDump that logs tensors and a real fixture debug buffer, plus seeded random
buffers. Independent of etscope: the ETDumps are decoded by flatc (to JSON, with our schema
transcription) and the signals computed with numpy from the rule as documented in
docs/formats.md §2.1:

  logged spans  = every tensor's [offset, offset + numel * element size), deduplicated;
  padding       = non-zero bytes of [0, end of the last span) outside every span (the buffer
                  sink zero-fills it);
  zero tensors  = spans whose bytes are all zero; the signal needs >= 3 spans and more than half;
  absurd floats = float32/64 values (every ceil(n / 4096)-th element of a non-zero span) that are
                  finite, non-zero and outside [1e-32, 1e32]; the signal needs >= 16 samples and
                  at least 2 % of them;
  trailing      = a non-zero byte after the last span (the runtime leaves zeros there; every
                  fixture's own buffer has none): a signal of its own.
  verdict       = Consistent (0 signals), Doubtful (1), Mismatch (2 or more).

Writes tests/data/core/buffer_provenance_expected.json and the random buffers it used under
tests/data/core/random_*.bin. Run: /usr/bin/python3 tests/tools/gen_buffer_provenance.py
"""
import glob
import json
import os
import subprocess
import tempfile

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, "..", ".."))
fixtures = os.path.normpath(os.path.join(root, "..", "shared", "fixtures", "runtime"))
outdir = os.path.join(root, "tests", "data", "core")
os.makedirs(outdir, exist_ok=True)

ELEM = {"BYTE": 1, "CHAR": 1, "SHORT": 2, "INT": 4, "LONG": 8, "HALF": 2, "FLOAT": 4, "DOUBLE": 8, "BOOL": 1}


def tensors_of(etdump):
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["flatc", "--json", "--raw-binary", "--size-prefixed", "--strict-json", "-o", tmp,
                        os.path.join(root, "core", "etdump", "etdump.fbs"), "--", etdump], check=True)
        dump = json.load(open(os.path.join(tmp, "etdump.json")))
    out = []
    for run in dump.get("run_data", []):
        for e in run.get("events", []):
            d = e.get("debug_event")
            if not d or "debug_entry" not in d:
                continue
            v = d["debug_entry"]
            ts = [v["tensor"]] if "tensor" in v else v.get("tensor_list", {}).get("tensors", [])
            for t in ts:
                dtype = t.get("scalar_type", "BYTE")
                numel = int(np.prod([int(x) for x in t.get("sizes", [])], dtype=np.int64))
                out.append((int(t.get("offset", 0)), numel * ELEM[dtype], dtype))
    return out


def judge(tensors, buf):
    spans = sorted({(o, o + n, dt) for o, n, dt in tensors if o >= 0 and n > 0})
    if any(e > len(buf) for _, e, _ in spans):
        return {"verdict": "Error"}
    b = np.frombuffer(buf, dtype=np.uint8)
    covered, padding, zero, samples, absurd, seen = 0, 0, 0, 0, 0, set()
    for s, e, dt in spans:
        if (s, e) in seen:
            continue
        seen.add((s, e))
        if s > covered:
            padding += int(np.count_nonzero(b[covered:s]))
        covered = max(covered, e)
        if not b[s:e].any():
            zero += 1
        elif dt in ("FLOAT", "DOUBLE"):
            x = np.frombuffer(buf[s:e], dtype=np.float32 if dt == "FLOAT" else np.float64).astype(np.float64)
            step = max(1, len(x) // 4096)
            x = x[::step]
            samples += len(x)
            with np.errstate(all="ignore"):
                a = np.abs(x)
                absurd += int(np.count_nonzero(np.isfinite(x) & (x != 0) & ((a < 1e-32) | (a > 1e32))))
    n = len(seen)
    strong = int(padding > 0) + int(n >= 3 and zero * 2 > n) + int(samples >= 16 and absurd * 50 >= samples)
    trailing_bytes = int(np.count_nonzero(b[covered:]))
    trailing = trailing_bytes > 0
    score = strong + int(trailing)
    verdict = "Consistent" if score == 0 else ("Doubtful" if score == 1 else "Mismatch")
    return {"verdict": verdict, "logged_tensors": n, "zero_tensors": zero, "padding_nonzero": padding,
            "float_samples": samples, "absurd_floats": absurd, "used_end": covered, "trailing_nonzero": trailing,
            "trailing_nonzero_bytes": trailing_bytes}


etdumps = {
    os.path.basename(
        os.path.dirname(p)): p for p in sorted(
            glob.glob(
                os.path.join(
                    fixtures,
                    "*",
                    "etdump.etdp")))}
buffers = {os.path.basename(os.path.dirname(p)): p
           for p in sorted(glob.glob(os.path.join(fixtures, "*", "debug_output.bin")))}
rng = np.random.default_rng(20261125)
for name, size in (("random_262144", 262144), ("random_300000", 300000)):
    path = os.path.join(outdir, name + ".bin")
    rng.bytes(0)  # keep the stream position explicit
    open(path, "wb").write(rng.integers(0, 256, size, dtype=np.uint8).tobytes())
    buffers[name] = path

pairs = []
for en, ep in etdumps.items():
    ts = tensors_of(ep)
    if not ts:
        continue
    for bn, bp in buffers.items():
        r = judge(ts, open(bp, "rb").read())
        r.update({"etdump": en, "buffer": bn})
        pairs.append(r)
json.dump({"generator": "tests/tools/gen_buffer_provenance.py", "pairs": pairs},
          open(os.path.join(outdir, "buffer_provenance_expected.json"), "w"), indent=1)
print(f"{'ETDump':30} {'buffer':30} {'verdict':10} zero/logged padding absurd/samples trailing")
for p in pairs:
    print(f"{p['etdump']:30} {p['buffer']:30} {p['verdict']:10} {p.get('zero_tensors')}/{p.get('logged_tensors')} "
          f"{p.get('padding_nonzero')} {p.get('absurd_floats')}/{p.get('float_samples')} "
          f"{p.get('trailing_nonzero_bytes')}")
