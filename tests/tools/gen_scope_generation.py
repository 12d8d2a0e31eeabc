#!/usr/bin/python3
"""Writes tests/data/scope/one_method/: an AUTHORED recording of one method ("forward") used for
the prompt and every decode step, as upstream's Llama export does by default, with its truth.

The recording (64 Execute runs of one method, portable-kernel events as the runtime writes them:
each instruction's native_call_<op> event then its OPERATOR_CALL, chain 0, then Method::execute,
formats.md section 1.5) holds:
  run 0        a warm-up call (every operator about 3x slower: cold caches), before any prompt
  run 1        prefill of generation 0: a 16-token prompt
  runs 2-25    24 decode steps; run 12 is a slow step (every operator 3x: the thread was
               preempted), run 20 a stall in one operator (the first feed-forward mm 40x)
  run 26       prefill of generation 1: a 12-token prompt
  runs 27-46   20 decode steps; run 35 a slow step (every operator 3x)
  run 47       prefill of generation 2: a 20-token prompt
  runs 48-63   16 decode steps
The operators of a Llama-style layer: those whose work grows with the tokens of a call take
base * tokens**0.8 (batched matrix work is cheaper per token), those over the fixed-size KV cache
(the two attention bmm and the softmax) and the last-position output projection take their
base in every call. Durations carry +-1 % of noise (numpy default_rng(35)).

Truth (runs.truth.json), from the construction above, not from etscope: each run's method,
phase (prefill / decode / warmup), generation, outlier flag; and per scope (decode, prefill) the
Inspector's statistics of every event over the runs of that scope (numpy percentile / mean /
min / max of the durations in ms), as the TSV prints them.

    /usr/bin/python3 tests/tools/gen_scope_generation.py
    flatc -b --size-prefixed -o tests/data/scope/one_method core/etdump/etdump.fbs \\
        tests/data/scope/one_method/etdump.json

No torch, no etscope: numpy and JSON.
"""
import json
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "scope", "one_method")

# (operator, base ns of one decode step, grows with the call's tokens)
OPS = [
    ("embedding.out", 2000, True),
    ("mul.out", 1500, True),
    ("mean.out", 1200, True),
    ("rsqrt.out", 800, True),
    ("permute_copy.out", 3000, True),
    ("mm.out", 6000, True),  # wq
    ("mm.out", 6000, True),  # wk
    ("mm.out", 6000, True),  # wv
    ("index_put.out", 2000, True),
    ("bmm.out", 8000, False),  # q k^T over the whole cache
    ("_softmax.out", 4000, False),
    ("bmm.out", 8000, False),  # attention x v over the whole cache
    ("mm.out", 6000, True),  # wo
    ("add.out", 1000, True),
    ("mm.out", 10000, True),  # w1
    ("sigmoid.out", 1000, True),
    ("mul.out", 1000, True),
    ("mm.out", 10000, True),  # w3
    ("mm.out", 10000, True),  # w2
    ("add.out", 1000, True),
    ("slice_copy.Tensor_out", 1000, False),  # the last position only
    ("mm.out", 20000, False),  # output projection of the last position
]
STALL_OP = 14  # w1


def plan():
    """[(phase, generation, tokens, slowdown of every op, stalled op or None, outlier)]"""
    runs = [("warmup", 0, 1, 3.0, None, False)]
    gens = [(16, 24, {10: "slow", 18: "stall"}), (12, 20, {8: "slow"}), (20, 16, {})]
    for g, (prompt, steps, odd) in enumerate(gens):
        runs.append(("prefill", g, prompt, 1.0, None, False))
        for k in range(steps):
            kind = odd.get(k)
            runs.append(("decode", g, 1, 3.0 if kind == "slow" else 1.0,
                         STALL_OP if kind == "stall" else None, kind is not None))
    return runs


def main():
    rng = np.random.default_rng(35)
    runs = plan()
    durations = np.zeros((len(runs), len(OPS)), dtype=np.int64)  # ns
    for r, (_phase, _gen, tokens, slow, stall, _out) in enumerate(runs):
        for i, (_op, base, grows) in enumerate(OPS):
            d = base * (tokens ** 0.8 if grows else 1.0) * slow
            if stall == i:
                d *= 40
            durations[r, i] = int(round(d * (1 + rng.uniform(-0.01, 0.01))))

    blocks = [{"name": "Default", "events": [
        {"profile_event": {"name": "Method::init", "chain_index": -1, "instruction_id": 0,
                           "start_time": 1000, "end_time": 400000}},
        {"profile_event": {"name": "Program::load_method", "chain_index": -1, "instruction_id": 0,
                           "start_time": 500, "end_time": 401000}}]}]
    t = 1_000_000
    execute = []
    op_call = []  # per run, per instruction: OPERATOR_CALL duration
    for r in range(len(runs)):
        start = t
        ev = []
        calls = []
        t += 700  # Method::execute's own set-up
        for i, (op, _base, _grows) in enumerate(OPS):
            k0 = t + 150  # the kernel starts inside its OPERATOR_CALL
            k1 = k0 + int(durations[r, i])
            ev.append({"profile_event": {"name": "native_call_" + op, "chain_index": 0, "instruction_id": i,
                                         "start_time": k0, "end_time": k1}})
            ev.append({"profile_event": {"name": "OPERATOR_CALL", "chain_index": 0, "instruction_id": i,
                                         "start_time": t, "end_time": k1 + 120}})
            calls.append(k1 + 120 - t)
            t = k1 + 120 + 60
        t += 500
        ev.append({"profile_event": {"name": "Method::execute", "chain_index": -1, "instruction_id": 0,
                                     "start_time": start, "end_time": t}})
        execute.append(t - start)
        op_call.append(calls)
        blocks.append({"name": "Execute", "events": ev})
        t += 40_000 if runs[r][0] != "decode" else 5_000  # the runner's work between calls
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "etdump.json"), "w") as f:
        json.dump({"version": 0, "run_data": blocks}, f, separators=(",", ":"))
        f.write("\n")

    # Truth: the plan, and numpy statistics of every event over the runs of a scope.
    ms = durations / 1e6
    ex = np.array(execute) / 1e6
    oc = np.array(op_call) / 1e6

    def stats(x):
        return {"p10": float(np.percentile(x, 10)), "p50": float(np.percentile(x, 50)),
                "p90": float(np.percentile(x, 90)), "avg": float(np.mean(x)),
                "min": float(np.min(x)), "max": float(np.max(x))}

    def scope_rows(sel):
        rows = []
        for i, (op, _b, _g) in enumerate(OPS):
            rows.append({"event_name": "native_call_" + op, "instruction_id": i, **stats(ms[sel, i])})
            rows.append({"event_name": "OPERATOR_CALL", "instruction_id": i, **stats(oc[sel, i])})
        rows.append({"event_name": "Method::execute", "instruction_id": 0, **stats(ex[sel])})
        return {"runs": int(np.sum(sel)), "events": rows}

    phases = np.array([p for p, *_ in runs])
    # The operators' own time per phase (native_call_* only), for the share tables.
    def shares(sel):
        totals = {}
        for i, (op, _b, _g) in enumerate(OPS):
            totals[op] = totals.get(op, 0.0) + float(np.sum(ms[sel, i]))
        whole = sum(totals.values())
        return {op: {"total_ms": v, "share": v / whole} for op, v in totals.items()}

    truth = {
        "runs": [{"index": r, "method": "forward", "phase": p, "generation": g, "tokens": n,
                  "outlier": o} for r, (p, g, n, _s, _st, o) in enumerate(runs)],
        "generations": 3,
        "scopes": {"decode": scope_rows(phases == "decode"), "prefill": scope_rows(phases == "prefill"),
                   "warmup": scope_rows(phases == "warmup")},
        "shares": {"decode": shares(phases == "decode"), "prefill": shares(phases == "prefill")},
        "time_to_first_token_ms": float(ex[1]),
    }
    with open(os.path.join(OUT, "runs.truth.json"), "w") as f:
        json.dump(truth, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
