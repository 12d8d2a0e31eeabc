#!/usr/bin/python3
"""Truth for the scope tests on the real two-method fixture (tests/data/runtime/llm_decoder/
profile): tests/data/scope/llm_decoder_scopes.json.

From `flatc --json` of profile/etdump.etdp over our schema (core/etdump/etdump.fbs) and the
runner's log (profile/runs.truth.json: the method of each Execute run), with numpy, no etscope:
  - per scope (method decode_forward; method prefill_forward) every event's statistics over the
    runs of that method, as the Inspector computes them (np.percentile 10/50/90, np.mean, min,
    max of end - start in ms), keyed by (event name, instruction id, occurrence);
  - per instruction of decode_forward, its kernel's (native_call_*) mean time over the decode runs
    and its share of the sum over every instruction (what the graph overlay shows per node);
  - the five slowest kernels by mean per scope (top events);
  - an altered copy of the recording for `diff` (tests/data/scope/llm_decoder_slower/etdump.etdp,
    written as flatc JSON and compiled with flatc): every decode run's native_call_mm.out lasts 1.5 times as long (its end
    moved, its OPERATOR_CALL's end with it; nothing else moves), and the per-method totals the
    diff must give: per method, the sum over its kernels of the median duration (A and B).
Execute run N of the log is run_data entry N + 2 (the README: two Default blocks first).

    /usr/bin/python3 tests/tools/gen_scope_expected.py
"""
import json
import os
import subprocess
import tempfile

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
FIX = os.path.join(ROOT, "tests", "data", "runtime", "llm_decoder", "profile")
OUT = os.path.join(ROOT, "tests", "data", "scope", "llm_decoder_scopes.json")


def decode(path):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["flatc", "--json", "--strict-json", "--raw-binary", "--size-prefixed", "--defaults-json",
                        "-o", d, os.path.join(ROOT, "core", "etdump", "etdump.fbs"), "--", path], check=True)
        with open(os.path.join(d, "etdump.json")) as f:
            return json.load(f)


def stats(x):
    return {"p10": float(np.percentile(x, 10)), "p50": float(np.percentile(x, 50)),
            "p90": float(np.percentile(x, 90)), "avg": float(np.mean(x)),
            "min": float(np.min(x)), "max": float(np.max(x))}


def main():
    doc = decode(os.path.join(FIX, "etdump.etdp"))
    methods = [r["method"] for r in json.load(open(os.path.join(FIX, "runs.truth.json")))]
    runs = doc["run_data"][2:]
    assert len(runs) == len(methods)
    out = {"source": "flatc --json of profile/etdump.etdp + profile/runs.truth.json, numpy", "scopes": {}}
    for method in ("decode_forward", "prefill_forward"):
        sel = [r for r, m in zip(runs, methods) if m == method]
        rows = {}
        for run in sel:
            seen = {}
            for ev in run["events"]:
                p = ev["profile_event"]
                key = (p["name"], int(p["instruction_id"]))
                k = seen.get(key, 0)
                seen[key] = k + 1
                rows.setdefault((p["name"], int(p["instruction_id"]), k), []).append(
                    (int(p["end_time"]) - int(p["start_time"])) / 1e6)
        events = [{"event_name": n, "instruction_id": i, "occurrence": k, **stats(np.array(v))}
                  for (n, i, k), v in rows.items()]
        kernels = [e for e in events if e["event_name"].startswith("native_call_")]
        total = sum(e["avg"] for e in kernels)
        shares = {str(e["instruction_id"]): e["avg"] / total for e in kernels}
        top = sorted(kernels, key=lambda e: -e["avg"])[:5]
        out["scopes"][method] = {"runs": len(sel), "events": events, "instruction_shares": shares,
                                 "top_kernels": [[e["event_name"], e["instruction_id"], e["avg"]] for e in top]}
    # The altered copy (B) and the diff's per-method totals.
    slower = json.loads(json.dumps(doc))
    for run, m in zip(slower["run_data"][2:], methods):
        if m != "decode_forward":
            continue
        evs = [e["profile_event"] for e in run["events"]]
        for i, p in enumerate(evs):
            if p["name"] == "native_call_mm.out":
                extra = (int(p["end_time"]) - int(p["start_time"])) // 2
                p["end_time"] = int(p["end_time"]) + extra
                call = evs[i + 1]
                assert call["name"] == "OPERATOR_CALL" and call["instruction_id"] == p["instruction_id"]
                call["end_time"] = int(call["end_time"]) + extra
    bdir = os.path.join(os.path.dirname(OUT), "llm_decoder_slower")
    os.makedirs(bdir, exist_ok=True)
    with open(os.path.join(bdir, "etdump.json"), "w") as f:
        json.dump(slower, f, separators=(",", ":"))
    subprocess.run(["flatc", "-b", "--size-prefixed", "-o", bdir, os.path.join(ROOT, "core", "etdump", "etdump.fbs"),
                    os.path.join(bdir, "etdump.json")], check=True)
    os.remove(os.path.join(bdir, "etdump.json"))  # 2.8 MB of text: the .etdp is committed, this script remakes both

    def kernel_total(d, method):
        per = {}
        for run, m in zip(d["run_data"][2:], methods):
            if m != method:
                continue
            for ev in run["events"]:
                p = ev["profile_event"]
                if p["name"].startswith("native_call_"):
                    per.setdefault(int(p["instruction_id"]), []).append(
                        (int(p["end_time"]) - int(p["start_time"])) / 1e6)
        return float(sum(np.median(v) for v in per.values()))

    out["diff"] = {label: {"a": kernel_total(doc, m), "b": kernel_total(slower, m)}
                   for label, m in (("prefill_forward · prefill", "prefill_forward"),
                                    ("decode_forward · decode", "decode_forward"))}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
