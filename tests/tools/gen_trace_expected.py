#!/usr/bin/env python3
"""Expected values for the trace export tests (tests/export/tst_chrometrace.cpp), derived from
flatc's JSON decode of each real ETDump with the repository's schema, independently of etscope.

For every fixture: the origin (earliest profile start_time) and every profile event of every
run as [file run index, trace name, start_time, end_time, instruction_id, delegated], where the
trace name is the delegate debug id when there is one (as the Inspector names delegate events),
else the event's name. For add_pte_intermediates it also writes the complete expected "X"
events (pid = order in which block names first appear, which is the block order for this
two-block file; tid by the documented track rule), ts/dur from the raw nanoseconds.

  python3 tests/tools/gen_trace_expected.py SHARED_DIR tests/data/export
"""
import json
import os
import subprocess
import sys
import tempfile

SCHEMA = os.path.join(os.path.dirname(__file__), "..", "..", "core", "etdump", "etdump.fbs")
FIXTURES = ["add_pte_50runs", "add_pte_intermediates", "bundled_program_50runs", "bundled_program_intermediates",
            "bundled_program_outputs_only", "cnn_mlp_50runs", "cnn_mlp_alloc_events", "cnn_mlp_intermediates",
            "xnnpack_mlp_intermediates"]
FRAMEWORK = {"Method::init", "Program::load_method", "Method::execute"}


def decode(path):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["flatc", "--json", "--strict-json", "--raw-binary", "--size-prefixed", "-o", d, SCHEMA, "--",
                        path], check=True)
        with open(os.path.join(d, os.path.splitext(os.path.basename(path))[0] + ".json")) as f:
            return json.load(f)


def profile_events(doc):
    for r, run in enumerate(doc.get("run_data", [])):
        for e in run.get("events", []) or []:
            p = e.get("profile_event")
            if p is None:
                continue
            did_int = p.get("delegate_debug_id_int", -1)
            did_str = p.get("delegate_debug_id_str", "")
            delegated = did_int != -1 or did_str != ""
            name = str(did_int) if did_int != -1 else (did_str if did_str else p.get("name", ""))
            yield r, run.get("name", ""), name, int(p.get("start_time", 0)), int(p.get("end_time", 0)), \
                p.get("instruction_id", -1), delegated, p.get("name", "")


def main():
    shared, out = sys.argv[1], sys.argv[2]
    result = {}
    for fx in FIXTURES:
        doc = decode(os.path.join(shared, "fixtures", "runtime", fx, "etdump.etdp"))
        evs = list(profile_events(doc))
        origin = min(e[3] for e in evs)
        result[fx] = {"origin": origin,
                      "events": [[r, name, s, e, instr, delegated] for r, _, name, s, e, instr, delegated, _ in evs]}
        if fx == "add_pte_intermediates":
            pids, golden = {}, []
            for r, block, name, s, e, instr, delegated, raw in evs:
                pid = pids.setdefault(block, len(pids) + 1)
                tid = 3 if delegated else (1 if raw in FRAMEWORK else 2)
                golden.append({"name": name, "pid": pid, "tid": tid,
                               "ts_ns": s - origin, "dur_ns": e - s,
                               "start_ns": s, "end_ns": e, "instruction_id": instr, "delegated": delegated})
            with open(os.path.join(out, "add_pte_intermediates.golden.json"), "w") as f:
                json.dump(golden, f, indent=1)
                f.write("\n")
    with open(os.path.join(out, "trace_expected.json"), "w") as f:
        json.dump(result, f, indent=0)
        f.write("\n")


if __name__ == "__main__":
    main()
