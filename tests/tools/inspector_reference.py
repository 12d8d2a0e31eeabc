#!/usr/bin/env python3
"""Independent reference for etscope's Inspector table: decodes an ETDump with flatc
(--json on our schema), applies the grouping rules of shared/docs/inspector-semantics.md
§1-§4 in plain Python, computes statistics with numpy, and renders the table with pandas +
tabulate exactly as print_data_tabular / save_data_to_tsv do. The C++ code is not used.

Usage: inspector_reference.py SCHEMA ETDUMP OUT_PREFIX [SOURCE_SCALE TARGET_SCALE]
Writes OUT_PREFIX.table.txt and OUT_PREFIX.tsv. Needs flatc, numpy, pandas, tabulate
(generator only; the tests read the committed outputs).
"""
import io
import json
import os
import subprocess
import sys
import tempfile
from collections import OrderedDict

import numpy as np
import pandas as pd
from tabulate import tabulate

FACTORS = {"ns": 10**9, "us": 10**6, "ms": 10**3, "s": 1, "cycles": 1}
MAX_U32 = 2**32 - 1


def decode(schema, path):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["flatc", "--json", "--strict-json", "--raw-binary", "--size-prefixed",
                        "--defaults-json", "-o", d, schema, "--", path], check=True)
        name = os.path.splitext(os.path.basename(path))[0] + ".json"
        with open(os.path.join(d, name)) as f:
            return json.load(f)


def elapsed(s, e):
    if s > e:
        if s > MAX_U32 or e > MAX_U32:
            raise ValueError("wrap")
        return (MAX_U32 - s) + e
    return e - s


def populated(ev):
    for k in ("profile_event", "debug_event", "allocation_event"):
        if ev.get(k) is not None:
            return k, ev[k]
    return None, None


def is_output(dbg):
    entry = dbg.get("debug_entry") or {}
    out = entry.get("output")
    return bool(out and out.get("bool_val"))


def part_sig(p):
    return (p.get("name") or "",
            p["instruction_id"] if p["instruction_id"] != -1 else None,
            p["delegate_debug_id_int"] if p["delegate_debug_id_int"] != -1 else None,
            p.get("delegate_debug_id_str") or None)


def event_blocks(doc, scale):
    groups = OrderedDict()
    for run in doc.get("run_data", []):
        events = run.get("events")
        if events is None:
            continue
        inst = OrderedDict()
        for ev in events:
            kind, p = populated(ev)
            if kind == "allocation_event":
                raise RuntimeError("the Inspector cannot read allocation events")
            key = (p["instruction_id"], p["chain_index"], p["delegate_debug_id_int"],
                   p.get("delegate_debug_id_str") or "")
            ie = inst.setdefault(key, {"profile": None, "debug": None})
            if kind == "profile_event":
                ie["profile"] = (ie["profile"] or []) + [p]
            elif not is_output(p):
                ie["debug"] = (ie["debug"] or []) + [p]
        sigs = OrderedDict()
        for key, ie in inst.items():
            if ie["profile"] is None and ie["debug"] is None:
                continue
            dsig = part_sig(ie["debug"][0]) if ie["debug"] else None
            if ie["profile"] is None:
                sigs[(key[0], None, dsig)] = (None, ie["debug"])
            else:
                for pe in ie["profile"]:
                    sigs[(key[0], part_sig(pe), dsig)] = (pe, ie["debug"])
        rsig = (run.get("name"), tuple(sigs.keys()), run.get("bundled_input_index", -1))
        grp = groups.setdefault(rsig, OrderedDict())
        for s, v in sigs.items():
            grp.setdefault(s, []).append(v)
    blocks = []
    for rsig, grp in groups.items():
        evs = []
        for s, runs in grp.items():
            name, delegated = "", None
            for part in (s[1], s[2]):
                if part is None:
                    continue
                pid = part[2] if part[2] is not None else (part[3] or None)
                d = pid is not None
                n = str(pid) if d else part[0]
                if n:
                    name = n
                delegated = d
            raw, start = [], []
            for pe, _ in runs:
                if pe is None:
                    continue
                if delegated:
                    cs, ce = pe["start_time"] / scale, pe["end_time"] / scale
                    raw.append(elapsed(cs, ce))
                else:
                    raw.append(float(elapsed(pe["start_time"], pe["end_time"])) / scale)
                start.append(pe["start_time"])
            evs.append({"name": name, "raw": raw, "start": start or None, "delegated": delegated})
        blocks.append((rsig[0], evs))
    return blocks


def dataframe(blocks, unit):
    frames = []
    u = " (" + unit + ")"
    for bname, evs in blocks:
        rows = []
        for e in evs:
            has = len(e["raw"]) > 0
            r = e["raw"]
            rows.append(pd.DataFrame({
                "event_name": e["name"],
                "raw": [r if has else None],
                "p10" + u: np.percentile(r, 10) if has else None,
                "p50" + u: np.percentile(r, 50) if has else None,
                "p90" + u: np.percentile(r, 90) if has else None,
                "avg" + u: np.mean(r) if has else None,
                "min" + u: min(r) if has else None,
                "max" + u: max(r) if has else None,
                "op_types": [[]],
                "delegate_debug_identifier": None,
                "stack_traces": [{}],
                "module_hierarchy": [{}],
                "is_delegated_op": e["delegated"],
                "delegate_backend_name": None,
                "debug_data": [[]],
                "start_time": [e["start"]],
            }))
        df = pd.concat(rows, ignore_index=True)
        df.insert(0, "event_block_name", np.asarray([bname for _ in evs]), allow_duplicates=True)
        frames.append(df)
    df = pd.concat(frames, ignore_index=True)
    df = df.drop(columns=["raw", "delegate_debug_identifier", "stack_traces", "module_hierarchy", "debug_data"])
    df = df[~df["event_name"].str.contains("OPERATOR_CALL")]
    df.reset_index(drop=True, inplace=True)
    return df


def main():
    schema, etdump, prefix = sys.argv[1:4]
    src, tgt = (sys.argv[4], sys.argv[5]) if len(sys.argv) > 5 else ("ns", "ms")
    scale = FACTORS[src] / FACTORS[tgt]
    df = dataframe(event_blocks(decode(schema, etdump), scale), tgt)
    with open(prefix + ".table.txt", "w") as f:
        print(tabulate(df, headers="keys", tablefmt="fancy_grid"), file=f)
    s = io.StringIO()
    df.to_csv(s, sep="\t")
    with open(prefix + ".tsv", "w") as f:
        f.write(s.getvalue())


if __name__ == "__main__":
    main()
