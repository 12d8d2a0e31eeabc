#!/usr/bin/env python3
"""Independent reference for etscope's memory-plan analysis (core/program/memoryplan.cpp),
computed from the program JSON a .pte was compiled from, with the standard library only and
deliberately naive algorithms (fixpoint loop widening, all-pairs sharing checks).

Rules (issue 24): a planned tensor (allocation_info present) lives from the first instruction
that touches it (KernelCall/DelegateCall args, Move from/to, JumpFalse condition, Free value; a
TensorList argument touches its items) to the last; inputs from instruction 0, outputs to the
last instruction; a backward JumpFalse at k to d makes [d, k] a loop, and a lifetime that meets
a loop covers all of it (repeated until nothing changes). Live bytes per instruction; the peak is
the first instruction with the most; waste = arena size - peak live bytes of that arena.

Usage: memory_plan_reference.py NAME=PROGRAM.json ... > expected_memory.json
"""
import json
import sys

ELEMENT_SIZE = {"BYTE": 1, "CHAR": 1, "SHORT": 2, "INT": 4, "LONG": 8, "HALF": 2, "FLOAT": 4, "DOUBLE": 8,
                "BOOL": 1, "QINT8": 1, "QUINT8": 1, "QINT32": 4, "BFLOAT16": 2, "QUINT4X2": 1, "QUINT2X4": 1}


def touched(instr, values):
    kind = instr["instr_args_type"]
    a = instr["instr_args"]
    if kind in ("KernelCall", "DelegateCall"):
        direct = a.get("args", [])
    elif kind == "MoveCall":
        direct = [a.get("move_from", 0), a.get("move_to", 0)]
    elif kind == "JumpFalseCall":
        direct = [a.get("cond_value_index", 0)]
    elif kind == "FreeCall":
        direct = [a.get("value_index", 0)]
    else:
        direct = []
    out = []
    for v in direct:
        out.append(v)
        ev = values[v]
        if ev.get("val_type") in ("TensorList", "OptionalTensorList"):
            out.extend(i for i in ev["val"].get("items", []) if i >= 0)
    return out


def analyse(plan):
    values = plan["values"]
    instrs = plan["chains"][0]["instructions"]
    n = len(instrs)
    tensors = {}
    for i, ev in enumerate(values):
        if ev.get("val_type") != "Tensor" or "allocation_info" not in ev["val"]:
            continue
        t = ev["val"]
        nbytes = ELEMENT_SIZE[t["scalar_type"]]
        for s in t.get("sizes", []):
            nbytes *= s
        ai = t["allocation_info"]
        offset = ai.get("memory_offset_low", 0) + (ai.get("memory_offset_high", 0) << 32)
        tensors[i] = {"value": i, "arena": ai.get("memory_id", 0), "offset": offset, "nbytes": nbytes,
                      "first": -1, "last": -1}
    for k, ins in enumerate(instrs):
        for v in touched(ins, values):
            if v in tensors:
                t = tensors[v]
                if t["first"] < 0:
                    t["first"] = k
                t["last"] = k
    if n:
        for v in plan.get("inputs", []):
            if v in tensors:
                tensors[v]["first"] = 0
                tensors[v]["last"] = max(tensors[v]["last"], 0)
        for v in plan.get("outputs", []):
            if v in tensors:
                if tensors[v]["first"] < 0:
                    tensors[v]["first"] = n - 1
                tensors[v]["last"] = n - 1
    loops = [(ins["instr_args"].get("destination_instruction", 0), k) for k, ins in enumerate(instrs)
             if ins["instr_args_type"] == "JumpFalseCall" and ins["instr_args"].get("destination_instruction", 0) <= k]
    changed = True
    while changed:
        changed = False
        for t in tensors.values():
            if t["first"] < 0:
                continue
            for b, e in loops:
                if t["first"] <= e and t["last"] >= b and (t["first"] > b or t["last"] < e):
                    t["first"] = min(t["first"], b)
                    t["last"] = max(t["last"], e)
                    changed = True
    ts = [tensors[v] for v in sorted(tensors)]

    def live_at(k, arena=None):
        return sum(t["nbytes"] for t in ts if t["first"] >= 0 and t["first"] <= k <= t["last"]
                   and (arena is None or t["arena"] == arena))

    live = [live_at(k) for k in range(n)]
    peak = max(live) if live else 0
    peak_instruction = live.index(peak) if live else -1
    sizes = plan.get("non_const_buffer_sizes", [])
    arenas = []
    for aid in range(1, len(sizes)):
        if any(t["arena"] == aid and t["first"] >= 0 for t in ts):
            per = [live_at(k, aid) for k in range(n)]
            apeak = max(per)
            ainstr = per.index(apeak)
        else:
            apeak, ainstr = 0, -1
        arenas.append({"id": aid, "size": sizes[aid], "peak_live_bytes": apeak, "peak_instruction": ainstr,
                       "wasted_bytes": max(sizes[aid] - apeak, 0)})
    for t in ts:
        others = [u for u in ts if u is not t and u["arena"] == t["arena"] and u["nbytes"] > 0]
        t["shares_memory"] = t["nbytes"] > 0 and any(
            u["offset"] < t["offset"] + t["nbytes"] and t["offset"] < u["offset"] + u["nbytes"] for u in others)
        t["could_share"] = (not t["shares_memory"] and t["nbytes"] > 0 and t["first"] >= 0 and any(
            u["first"] >= 0 and (u["last"] < t["first"] or u["first"] > t["last"]) for u in others))
    planned = sum(sizes[1:])
    return {"name": plan["name"], "instructions": n, "arenas": arenas, "tensors": ts, "live_bytes": live,
            "planned_bytes": planned, "peak_live_bytes": peak, "peak_instruction": peak_instruction,
            "live_at_peak": [t["value"] for t in ts if t["first"] >= 0 and t["first"] <= peak_instruction <= t["last"]],
            "wasted_bytes": max(planned - peak, 0),
            "loops": [list(loop) for loop in sorted(set(loops))]}


def main():
    out = {}
    for arg in sys.argv[1:]:
        name, path = arg.split("=", 1)
        with open(path) as f:
            prog = json.load(f)
        out[name] = [analyse(p) for p in prog["execution_plan"]]
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
