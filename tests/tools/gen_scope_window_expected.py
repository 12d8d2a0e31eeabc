#!/usr/bin/env python3
"""Independent truth for the window's scope (issue 35, tests/app/tst_scope.cpp): what the graph
overlay and Top events must show for the decode runs of the real two-method LLM fixture
(tests/data/runtime/llm_decoder/profile). The C++ code is not used:

  * the ETDump is decoded with flatc --json on our schema transcription (core/etdump/etdump.fbs);
  * which method each Execute run executed is the runner's own log (runs.truth.json);
  * per instruction, the kernel's (native_call_<op>) mean and median duration over each method's
    runs, in ms (end − start of the profile event, nanosecond timestamps), with numpy; per method
    the sum of the medians (a compare's operator total, docs/user-guide.md "Compare").

  python3 tests/tools/gen_scope_window_expected.py core/etdump/etdump.fbs \\
      tests/data/runtime/llm_decoder/profile > tests/data/app/llm_scope_expected.json
  python3 tests/tools/gen_scope_window_expected.py core/etdump/etdump.fbs \\
      tests/data/runtime/llm_decoder/intermediates > tests/data/app/llm_scope_intermediates_expected.json

Run with Debian's /usr/bin/python3 (numpy); flatc on PATH.
"""
import json
import os
import sys

import numpy as np

from gen_runs_expected import decode  # flatc --json of an ETDump on our schema


def main():
    schema, folder = sys.argv[1], sys.argv[2]
    doc = decode(schema, os.path.join(folder, "etdump.etdp"))
    with open(os.path.join(folder, "runs.truth.json")) as f:
        truth = [r["method"] for r in json.load(f)]
    # Execute runs: the run_data entries holding Method::execute, in file order.
    runs = []
    for run in doc.get("run_data", []):
        profiles = [ev["profile_event"] for ev in run.get("events") or [] if ev.get("profile_event")]
        if any(p.get("name") == "Method::execute" for p in profiles):
            runs.append(profiles)
    assert len(runs) == len(truth), (len(runs), len(truth))
    out = {"runs": len(runs), "methods": {}}
    for method in sorted(set(truth)):
        chosen = [runs[i] for i, m in enumerate(truth) if m == method]
        per = {}  # instruction id -> (name, [ms per run])
        for profiles in chosen:
            for p in profiles:
                name = p.get("name") or ""
                if not name.startswith("native_call_"):
                    continue  # framework events and OPERATOR_CALL wrappers carry no time of their own
                ms = (int(p["end_time"]) - int(p["start_time"])) / 1e6
                per.setdefault(p["instruction_id"], (name, []))[1].append(ms)
        kernels = [{"instruction_id": i, "name": n, "runs": len(v), "mean_ms": float(np.mean(v)),
                    "p50_ms": float(np.median(v))}
                   for i, (n, v) in sorted(per.items())]
        total = float(np.sum([k["mean_ms"] for k in kernels]))
        for k in kernels:
            k["share"] = k["mean_ms"] / total
        by_op = {}
        for k in kernels:
            by_op[k["name"]] = by_op.get(k["name"], 0.0) + k["share"]
        top = sorted(kernels, key=lambda k: -k["mean_ms"])[:12]
        out["methods"][method] = {
            "runs": len(chosen),
            "total_ms": total,
            "total_p50_ms": float(np.sum([k["p50_ms"] for k in kernels])),
            "kernels": kernels,
            "op_shares": dict(sorted(by_op.items(), key=lambda kv: -kv[1])),
            "top12": [{"instruction_id": k["instruction_id"], "name": k["name"], "mean_ms": k["mean_ms"]} for k in top],
        }
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
