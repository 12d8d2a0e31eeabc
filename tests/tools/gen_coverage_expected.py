#!/usr/bin/python3
"""Truth for "how much of the time is seen" (core/analysis/coverage.h): tests/data/analysis/
coverage_expected.json, computed with numpy from `flatc --json` of each recording, without
etscope:

- per Execute run_data entry: the profile events with their [start_time, end_time] (ns); GPU
  dispatches of Vulkan (names that are JSON objects with a "dispatch_id") carry the GPU's clock
  and are left out of the nesting, as are events of zero length (they explain no time, and
  at an interval's boundary would make a bogus parent);
- nesting on the host clock: an event's parent is the smallest earlier-starting event that
  contains it (sorted by start, longer first, equal intervals: the one logged later encloses);
- per event with direct children (and every Method::execute): its length and the length of the
  union of its direct children's intervals; summed per parent name over all runs, in ms;
- per run: Method::execute, the union of its direct children, the OPERATOR_CALL and
  DELEGATE_CALL children's lengths;
- Vulkan: per run, ETVK_COMPUTE_GRAPH_EXECUTE's length against the sum of the dispatches'
  lengths (their own clock).

Recordings: real ones (shared/fixtures/runtime: cnn_mlp_50runs, xnnpack_mlp_intermediates,
add_pte_50runs) and the authored Vulkan recording tests/data/backend/vulkan_stem.

Run: /usr/bin/python3 tests/tools/gen_coverage_expected.py   (needs flatc)
"""
import collections
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from etdump_json import decode, fixture  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, "..", ".."))
RECORDINGS = {
    "cnn_mlp_50runs": fixture("runtime/cnn_mlp_50runs/etdump.etdp"),
    "xnnpack_mlp_intermediates": fixture("runtime/xnnpack_mlp_intermediates/etdump.etdp"),
    "add_pte_50runs": fixture("runtime/add_pte_50runs/etdump.etdp"),
    "vulkan_stem": os.path.join(root, "tests", "data", "backend", "vulkan_stem", "etdump.etdp"),
}


def name_of(p):
    return p.get("name") or p.get("delegate_debug_id_str") or str(p.get("delegate_debug_id_int"))


def is_dispatch(name):
    if not name.startswith("{"):
        return False
    try:
        return "dispatch_id" in json.loads(name)
    except ValueError:
        return False


def union(children, lo, hi):
    segs = sorted((max(s, lo), min(e, hi)) for s, e in children if min(e, hi) > max(s, lo))
    total, cur = 0, None
    for s, e in segs:
        if cur and s <= cur[1]:
            cur[1] = max(cur[1], e)
        else:
            if cur:
                total += cur[1] - cur[0]
            cur = [s, e]
    if cur:
        total += cur[1] - cur[0]
    return total


def analyse(doc):
    lines = collections.defaultdict(lambda: {"parent_time": 0.0, "child_time": 0.0, "instances": 0})
    runs = []
    vk = {"parent_time": 0.0, "child_time": 0.0, "instances": 0}
    for rd in doc["run_data"]:
        evs = []
        for i, e in enumerate(rd.get("events") or []):
            p = e.get("profile_event")
            if not p:
                continue
            evs.append((int(p["start_time"]), int(p["end_time"]), i, name_of(p)))
        if not any(n == "Method::execute" for _, _, _, n in evs):
            continue
        host = [x for x in evs if not is_dispatch(x[3]) and (x[1] > x[0] or x[3] == "Method::execute")]
        order = sorted(range(len(host)), key=lambda k: (host[k][0], -host[k][1], -host[k][2]))
        children = collections.defaultdict(list)
        stack = []
        for k in order:
            s, e = host[k][0], host[k][1]
            while stack and not (s >= host[stack[-1]][0] and e <= host[stack[-1]][1]):
                stack.pop()
            if stack:
                children[stack[-1]].append(k)
            stack.append(k)
        for k in range(len(host)):
            s, e, _, n = host[k]
            if not children[k] and n != "Method::execute":
                continue
            cov = union([(host[c][0], host[c][1]) for c in children[k]], s, e)
            ln = lines[n]
            ln["parent_time"] += (e - s) / 1e6
            ln["child_time"] += cov / 1e6
            ln["instances"] += 1
            if n == "Method::execute":
                runs.append({
                    "execute": (e - s) / 1e6, "explained": cov / 1e6,
                    "operator_calls": sum(host[c][1] - host[c][0]
                                          for c in children[k] if host[c][3] == "OPERATOR_CALL") / 1e6,
                    "delegate_calls": sum(host[c][1] - host[c][0]
                                          for c in children[k] if host[c][3] == "DELEGATE_CALL") / 1e6,
                })
        compute = [x for x in evs if x[3] == "ETVK_COMPUTE_GRAPH_EXECUTE"]
        dispatches = [x for x in evs if is_dispatch(x[3])]
        if compute and dispatches:
            vk["parent_time"] += sum(e - s for s, e, _, _ in compute) / 1e6
            vk["child_time"] += sum(e - s for s, e, _, _ in dispatches) / 1e6
            vk["instances"] += len(compute)
    out = {"lines": dict(lines), "runs": runs,
           "execute": float(np.sum([r["execute"] for r in runs])),
           "explained": float(np.sum([r["explained"] for r in runs]))}
    if vk["instances"]:
        out["vulkan_dispatches"] = vk
    return out


def main():
    expected = {name: analyse(decode(path)) for name, path in RECORDINGS.items()}
    for name, e in expected.items():
        print(name, "%.2f %%" % (100 * e["explained"] / e["execute"]),
              {k: "%.1f %%" % (100 * v["child_time"] / v["parent_time"]) for k, v in e["lines"].items()},
              e.get("vulkan_dispatches"))
    with open(os.path.join(root, "tests", "data", "analysis", "coverage_expected.json"), "w") as f:
        json.dump(expected, f, indent=1)


if __name__ == "__main__":
    main()
