#!/usr/bin/env python3
"""Per-allocator summary of the allocation events in an ETDump, decoded independently of etscope
with flatc (the ETDump schema in core/etdump/etdump.fbs):

    flatc --json --raw-binary --size-prefixed --strict-json core/etdump/etdump.fbs -- etdump.etdp
    python3 tests/tools/gen_alloc_summary.py etdump.json > tests/data/app/cnn_mlp_alloc_summary.json
"""
import collections
import json
import sys

doc = json.load(open(sys.argv[1]))
out = []
for run in doc.get("run_data", []):
    allocators = [a["name"] for a in run.get("allocators", [])]
    events = [e["allocation_event"] for e in run.get("events", []) if "allocation_event" in e]
    if not events:
        continue
    per = collections.OrderedDict()
    for e in events:
        name = allocators[int(e.get("allocator_id", 0)) - 1]
        size = int(e.get("allocation_size", 0))
        s = per.setdefault(name, {"name": name, "count": 0, "total_bytes": 0, "max_bytes": 0})
        s["count"] += 1
        s["total_bytes"] += size
        s["max_bytes"] = max(s["max_bytes"], size)
    out.append({"block": run["name"], "allocation_events": len(events), "allocators": list(per.values())})
json.dump(out, sys.stdout, indent=1)
print()
