#!/usr/bin/python3
"""Per-tensor determinism truth of a recording with several Execute runs of the same program on
the same input (tests/data/runtime/determinism_repeat, determinism_corrupt).

Independent of etscope: the ETDump is decoded by flatc --json (core/etdump/etdump.fbs, or the
upstream etdump_schema_flatcc.fbs with --et), each debug event's tensor is read with NumPy from
debug_output.bin at the event's offset, and the program JSON next to the recording names the
operator of each instruction.

For every debug-event position k of an Execute block (the k-th logged tensor of each run; all
blocks log the same sequence), across the runs:
  instruction_id, op         the instruction and its operator (program JSON), or "program output"
  shape, dtype
  distinct_count             number of bitwise-distinct values among the runs
  reference_run              first run holding the most common value (the modal value)
  differing_runs             runs (0-based among Execute blocks) whose tensor differs from it
  max_abs_deviation          max over runs and elements of |run - reference| (float64)
  per_run_max_abs_deviation  {run: max |run - reference|} for the differing runs
  differing_elements         number of elements that differ in at least one run
  tile                       for 2-D tensors: the bounding box {"rows": [r0, r1], "cols": [c0, c1]}
                             (inclusive) of those elements; null when none differ
Written as JSON (default: determinism.truth.json in the fixture folder).

Usage:
  /usr/bin/python3 tests/tools/gen_determinism_truth.py tests/data/runtime/determinism_corrupt \
      [--program det_mlp.program.json] [--et /work/rt/executorch] [--out FILE]
"""

import argparse
import glob
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runtime_fixture_lib as lib  # noqa: E402


def op_names(program):
    plan = program["execution_plan"][0]
    names = []
    for ins in plan["chains"][0]["instructions"]:
        if ins["instr_args_type"] == "KernelCall":
            op = plan["operators"][ins["instr_args"]["op_index"]]
            names.append(f"{op['name']}.{op['overload']}" if op.get("overload") else op["name"])
        else:
            names.append(ins["instr_args_type"])
    return names


def truth(folder, program_path, et):
    doc = lib.decode_etdump(lib.etdump_schema(et), os.path.join(folder, "etdump.etdp"))
    with open(os.path.join(folder, "debug_output.bin"), "rb") as f:
        buf = f.read()
    with open(program_path) as f:
        ops = op_names(json.load(f))
    blocks = lib.execute_blocks(doc)
    per_run = [lib.debug_tensors(b, buf) for b in blocks]
    counts = {len(t) for t in per_run}
    assert len(counts) == 1, f"runs log different numbers of tensors: {sorted(counts)}"
    tensors = []
    for k in range(counts.pop()):
        events = [run[k][0] for run in per_run]
        values = [run[k][1] for run in per_run]
        iid = events[0]["instruction_id"]
        assert all(e["instruction_id"] == iid for e in events), f"position {k}: instruction differs between runs"
        is_output = bool(events[0]["debug_entry"].get("output", {}).get("bool_val", False))
        keys = [v.tobytes() for v in values]
        distinct = list(dict.fromkeys(keys))
        modal = max(distinct, key=lambda b: (keys.count(b), -keys.index(b)))
        ref_run = keys.index(modal)
        ref = values[ref_run].astype(np.float64)
        differing = [r for r, b in enumerate(keys) if b != modal]
        dev = {r: float(np.max(np.abs(values[r].astype(np.float64) - ref))) for r in differing}
        mask = np.zeros(ref.shape, dtype=bool)
        for r in differing:
            mask |= values[r] != values[ref_run]
        tile = None
        if mask.any() and mask.ndim == 2:
            rows, cols = np.nonzero(mask.any(axis=1))[0], np.nonzero(mask.any(axis=0))[0]
            tile = {"rows": [int(rows[0]), int(rows[-1])], "cols": [int(cols[0]), int(cols[-1])]}
        tensors.append({
            "event_index": k,
            "instruction_id": iid,
            "op": "program output" if is_output else ops[iid],
            "shape": list(values[0].shape),
            "dtype": str(values[0].dtype),
            "distinct_count": len(distinct),
            "reference_run": ref_run,
            "differing_runs": differing,
            "max_abs_deviation": max(dev.values()) if dev else 0.0,
            "per_run_max_abs_deviation": {str(r): v for r, v in dev.items()},
            "differing_elements": int(mask.sum()),
            "tile": tile,
        })
    run_index = [i for i, r in enumerate(doc["run_data"]) if r.get("name") == "Execute"]
    return {"fixture": os.path.basename(os.path.normpath(folder)),
            "derived_by": "tests/tools/gen_determinism_truth.py (flatc --json of etdump.etdp + NumPy "
                          "over debug_output.bin)",
            "execute_runs": len(blocks),
            "execute_run_data_index": run_index,
            "tensors_per_run": len(tensors),
            "tensors": tensors}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--program", help="program JSON (default: the *.program.json in the folder)")
    ap.add_argument("--et", help="ExecuTorch checkout: decode with its etdump_schema_flatcc.fbs")
    ap.add_argument("--out", help="output JSON (default FOLDER/determinism.truth.json)")
    args = ap.parse_args()
    program = args.program or glob.glob(os.path.join(args.folder, "*.program.json"))[0]
    t = truth(args.folder, program, args.et)
    out = args.out or os.path.join(args.folder, "determinism.truth.json")
    with open(out, "w") as f:
        json.dump(t, f, indent=1)
        f.write("\n")
    for x in t["tensors"]:
        print(f"[{x['event_index']}] instr {x['instruction_id']} {x['op']:<16} distinct {x['distinct_count']} "
              f"differing runs {x['differing_runs']} max dev {x['max_abs_deviation']:.6g} tile {x['tile']}")
    print(f"{out}: {t['execute_runs']} runs, {t['tensors_per_run']} tensors per run")


if __name__ == "__main__":
    main()
