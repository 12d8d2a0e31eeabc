#!/usr/bin/python3
"""Expected aggregated statistics for tests/export/tst_recordings.cpp, independent of etscope:
decode add_pte_50runs and add_pte_intermediates with flatc (the repository's schema), pool the
per-run durations of each (run name, event name) over both files in that order, in ms as the
Inspector computes them ((end - start) / 1e6), and print numpy's statistics.

  python3 tests/tools/gen_recordings_expected.py SHARED_DIR > tests/data/export/add_pte_pooled.json
"""
import json
import os
import subprocess
import sys
import tempfile
import numpy as np

SCHEMA = os.path.join(os.path.dirname(__file__), "..", "..", "core", "etdump", "etdump.fbs")


def decode(path):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["flatc", "--json", "--strict-json", "--raw-binary", "--size-prefixed", "-o", d, SCHEMA, "--",
                        path], check=True)
        with open(os.path.join(d, "etdump.json")) as f:
            return json.load(f)


pooled = {}
for fx in ["add_pte_50runs", "add_pte_intermediates"]:
    doc = decode(os.path.join(sys.argv[1], "fixtures", "runtime", fx, "etdump.etdp"))
    for run in doc["run_data"]:
        for e in run.get("events", []):
            p = e.get("profile_event")
            if p and p.get("name") != "OPERATOR_CALL":
                pooled.setdefault(run["name"] + "|" + p["name"], []).append(
                    (int(p["end_time"]) - int(p["start_time"])) / 1e6)
out = {}
for k, v in pooled.items():
    a = np.array(v, dtype=np.float64)
    out[k] = {"runs": len(v), "p10": np.percentile(a, 10), "p50": np.percentile(a, 50), "p90": np.percentile(a, 90),
              "avg": np.mean(a), "min": min(v), "max": max(v)}
json.dump(out, sys.stdout, indent=1)
print()
