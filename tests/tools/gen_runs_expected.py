#!/usr/bin/env python3
"""Independent reference for `etscope-cli runs` (core/analysis/runs.h): decodes an ETDump with
flatc (--json on our schema), attributes each Execute run to a method of the program's JSON (the
JSON the .pte is compiled from), and computes every figure with numpy from the raw profile events,
following the rules written in docs/inspector-semantics.md ("Runs over time"). The C++ code is
not used.

  gen_runs_expected.py program OUT.program.json
      writes the two-method LLM-shaped program of the synthetic recording
  gen_runs_expected.py all SCHEMA DATA_DIR SHARED_FIXTURES_DIR
      every committed case: DATA_DIR/runs_expected/<case>.json (see CASES)
  gen_runs_expected.py expect SCHEMA ETDUMP [--program P.program.json] [--truth T.json]
                       [--phase-by method|duration] [--prefill-runs N] [--prompt-tokens N]
                       [--shares-by operator|backend-operator] > OUT.json
      the figures of one recording (checks the attribution against the generator's truth)

Run with Debian's /usr/bin/python3 (numpy); flatc on PATH. To regenerate everything committed:

  python3 tests/tools/gen_runs_expected.py program tests/data/analysis/runs_llm.program.json
  cmake --build build --target gen_runs_etdump
  build/tests/analysis/gen_runs_etdump tests/data/analysis/runs_llm.etdp tests/data/analysis/runs_llm.truth.json
  python3 tests/tools/gen_runs_expected.py all core/etdump/etdump.fbs tests/data ../shared/fixtures
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

WARMUP_FACTOR = 2.0
OUTLIER_Z = 3.5
MAD_FLOOR = 1e-3
PREFILL_DURATION_FACTOR = 3.0
MAX_U32 = 2**32 - 1


# -- the program ----------------------------------------------------------------------------
def tensor(sizes, dtype="FLOAT", arena=1, offset=0):
    t = {"scalar_type": dtype, "storage_offset": 0, "sizes": sizes, "dim_order": list(range(len(sizes))),
         "requires_grad": False, "layout": 0, "shape_dynamism": "STATIC",
         "allocation_info": {"memory_id": arena, "memory_offset_low": offset, "memory_offset_high": 0}}
    return {"val_type": "Tensor", "val": t}


def method(name, tokens, kernels):
    """tokens: prompt length of the input; kernels: per instruction an operator name, or None for
    the XNNPACK DelegateCall."""
    values = [tensor([1, tokens], "LONG", 1, 0)]  # 0: token ids
    operators, instrs = [], []
    for k in kernels:
        values.append(tensor([1, tokens, 64], "FLOAT", 1, 64 + 64 * 4 * tokens * (len(values) % 2)))
        a, b = len(values) - 2, len(values) - 1
        if k is None:
            instrs.append({"instr_args_type": "DelegateCall", "instr_args": {"delegate_index": 0, "args": [a, b]}})
            continue
        name_, overload = k.split(".")
        op = {"name": "aten::" + name_, "overload": overload}
        if op not in operators:
            operators.append(op)
        instrs.append({"instr_args_type": "KernelCall",
                       "instr_args": {"op_index": operators.index(op), "args": [a, b, b]}})
    out = len(values) - 1
    return {"name": name, "values": values, "inputs": [0], "outputs": [out],
            "chains": [{"inputs": [0], "outputs": [out], "instructions": instrs}],
            "operators": operators,
            "delegates": [{"id": "XnnpackBackend", "processed": {"location": "INLINE", "index": 0},
                           "compile_specs": []}],
            "non_const_buffer_sizes": [0, 64 + 2 * 64 * 4 * tokens]}


def llm_program():
    prefill = method("prefill_forward", 8, ["embedding.out", "mul.out", None, "bmm.out", "_softmax.out", "bmm.out",
                                            "slice_scatter.out", "slice_copy.out", "mm.out"])
    decode = method("kv_forward", 1, ["embedding.out", "mul.out", None, "bmm.out", "_softmax.out", "bmm.out",
                                      "index_put.out", "mm.out"])
    return {"version": 0, "execution_plan": [prefill, decode],
            "backend_delegate_data": [{"data": [0, 1, 2, 3]}]}


# -- backend event names (--shares-by backend-operator) ----------------------------------------
# Written from the upstream logging code at ExecuTorch cff6f4dd32e630945b7188512c1f2b4f102b05ad,
# not from etscope: backends/xnnpack/runtime/profiling/XNNProfiler.cpp names an operator
# "<xnn operator name> #<n>", the name being "<op> (<layout>[, <dtypes>])[ <microkernel>]";
# backends/vulkan/runtime/VulkanBackend.cpp names a dispatch with a JSON object (kernel_name,
# operator {name, ...}) and its host phases ETVK_*; backends/arm/runtime/VGFBackend.cpp VGF_*;
# backends/nxp/runtime/NeutronBackend.cpp logs kernels with an integer index and one metadata byte
# (its function code; test_profiling.py reads 0 as "Profiling dump"). Staging copies
# (StagingUtils.cpp shaders nchw_to_* / *_to_nchw*) carry a stale operator: named by their kernel.
XNN_NAME = re.compile(r"^(.+?) \(([A-Z0-9]+)(, [^()]*)?\)( [^#]*)? #([1-9][0-9]*)$")


def backend_event(p):
    """(backend, kind, label) of a delegate event whose name follows a known convention, else None."""
    s = p.get("delegate_debug_id_str")
    if s:
        if s.startswith("{"):
            try:
                j = json.loads(s)
                kernel, op = j["kernel_name"], (j.get("operator") or {}).get("name")
            except ValueError:  # a DOUBLE argument streamed as inf: the plain fields still read
                kernel = re.search(r'"kernel_name": "([^"]*)"', s).group(1)
                m = re.search(r'"operator": \{"name": "([^"]*)"', s)
                op = m.group(1) if m else None
            if kernel.startswith("nchw_to_") or "_to_nchw" in kernel:
                return ("Vulkan", "dispatch", "staging copy (%s)" % kernel)
            return ("Vulkan", "dispatch", op or kernel)
        m = re.match(r"^(ETVK|VGF)_([A-Z0-9_]+)$", s)
        if m:
            return ({"ETVK": "Vulkan", "VGF": "VGF"}[m.group(1)], "phase", m.group(2))
        m = XNN_NAME.match(s)
        return ("XNNPACK", "operator", m.group(1)) if m else None
    md = p.get("delegate_debug_metadata") or []
    if p["delegate_debug_id_int"] >= 0 and len(md) == 1:
        return ("Neutron", "kernel", "Profiling dump" if md[0] == 0 else "Neutron kernel %d" % md[0])
    return None


def wraps(ev, call):
    """Whether host phase `ev` encloses another event of its delegate call `call` (the decoded
    events of the run with its instruction): VulkanBackend.cpp execute opens ETVK_EXECUTE around
    the other phases and waits on the GPU's dispatches inside ETVK_COMPUTE_GRAPH_EXECUTE;
    VGFBackend.cpp / VGFSetup.cpp: VGF_EXECUTE around the call's phases, VGF_DISPATCH_AND_WAIT
    around VGF_QUEUE_SUBMIT_AND_WAIT_FENCE and VGF_TIMESTAMP_QUERY_READBACK, VGF_INIT_TOTAL around
    the other VGF_INIT_*."""
    backend, kind, phase = ev
    if kind != "phase":
        return False
    others = [o for o in call if o is not ev and o[0] == backend]
    if phase == "EXECUTE":
        return any(not (o[1] == "phase" and (o[2] == "EXECUTE" or (backend == "VGF" and o[2].startswith("INIT_"))))
                   for o in others)
    if backend == "Vulkan" and phase == "COMPUTE_GRAPH_EXECUTE":
        return any(o[1] == "dispatch" for o in others)
    if backend == "VGF" and phase == "DISPATCH_AND_WAIT":
        return any(o[1] == "phase" and o[2] in ("QUEUE_SUBMIT_AND_WAIT_FENCE", "TIMESTAMP_QUERY_READBACK")
                   for o in others)
    if backend == "VGF" and phase == "INIT_TOTAL":
        return any(o[1] == "phase" and o[2].startswith("INIT_") for o in others)
    return False


def backend_label(ev):
    backend, kind, label = ev
    return "phase: " + label.lower().replace("_", " ") if kind == "phase" else label


# -- the recording --------------------------------------------------------------------------
def decode(schema, path):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["flatc", "--json", "--strict-json", "--raw-binary", "--size-prefixed", "--defaults-json",
                        "-o", d, schema, "--", path], check=True)
        with open(os.path.join(d, os.path.splitext(os.path.basename(path))[0] + ".json")) as f:
            return json.load(f)


def elapsed(s, e):
    if s > e:
        return (MAX_U32 - s) + e
    return e - s


def runs_of(doc):
    """Every run_data entry holding Method::execute: (its profile events, Method::execute)."""
    out = []
    for run in doc.get("run_data", []):
        profiles = [ev["profile_event"] for ev in run.get("events") or [] if ev.get("profile_event")]
        execs = [p for p in profiles if p.get("name") == "Method::execute"]
        if execs:
            out.append((profiles, execs[-1]))
    return out


def delegated(p):
    return p["delegate_debug_id_int"] != -1 or bool(p.get("delegate_debug_id_str"))


def fits(plan, profiles):
    """Whether every operator-level profile event fits the method's instructions; None when the
    run has none to compare."""
    instrs = plan["chains"][0]["instructions"]
    checked = 0
    for p in profiles:
        if p["chain_index"] < 0:
            continue
        i = p["instruction_id"]
        if p["chain_index"] != 0 or not 0 <= i < len(instrs):
            return False
        kind = instrs[i]["instr_args_type"]
        name = p.get("name") or ""
        if delegated(p) or name == "DELEGATE_CALL":
            ok = kind == "DelegateCall"
        elif name == "OPERATOR_CALL":
            ok = kind == "KernelCall"
        elif name.startswith("native_call_"):
            ok = kind == "KernelCall"
            if ok:
                op = plan["operators"][instrs[i]["instr_args"]["op_index"]]
                ok = name[len("native_call_"):] == op["name"].split("::")[-1] + "." + op["overload"]
        else:
            ok = True
        if not ok:
            return False
        checked += 1
    return True if checked else None


def phase_of_name(name):
    n = name.lower()
    if "prefill" in n:
        return "prefill"
    if "decode" in n or "kv_forward" in n:
        return "decode"
    return ""


def warmups(d):
    w = 0
    while w < (len(d) - 1) // 2 and d[w] > WARMUP_FACTOR * np.median(d[w + 1:]):
        w += 1
    return w


def theil(y):
    """Theil's incomplete method: slopes of the pairs half the sample apart."""
    n = len(y)
    h = (n + 1) // 2
    x = np.arange(n, dtype=float)
    slopes = [(y[i + h] - y[i]) / h for i in range(n - h)]
    b = float(np.median(slopes))
    a = float(np.median(np.asarray(y) - b * x))
    return b, a


def expect(args):
    doc = decode(args.schema, args.etdump)
    runs = runs_of(doc)
    plans = json.load(open(args.program))["execution_plan"] if args.program else None
    rows = []
    for index, (profiles, ex) in enumerate(runs):
        row = {"index": index, "profiles": profiles, "start_ns": ex["start_time"],
               "duration_ms": elapsed(ex["start_time"], ex["end_time"]) / 1e6}
        row["method"], row["candidates"] = None, []
        if plans:
            results = [fits(p, profiles) for p in plans]
            row["candidates"] = [p["name"] for p, r in zip(plans, results) if r]
            if len(row["candidates"]) == 1:
                row["method"] = row["candidates"][0]
        rows.append(row)
    if args.truth:
        truth = json.load(open(args.truth))
        assert len(truth) == len(rows), (len(truth), len(rows))
        for row, t in zip(rows, truth):
            if t["method"] is not None:
                assert row["method"] == t["method"], (row["index"], row["method"], t)
            else:
                assert row["method"] is None, (row["index"], row["candidates"], t)

    # Phases.
    def method_phase(row):
        if row["method"]:
            return phase_of_name(row["method"])
        ph = {phase_of_name(c) for c in row["candidates"]}
        return ph.pop() if len(ph) == 1 else ""

    rule = args.phase_by or ("prefill-runs" if args.prefill_runs is not None else None)
    if rule is None:
        rule = "method" if plans and any(method_phase(r) for r in rows) else "none"
    if rule == "method":
        for r in rows:
            r["phase"] = method_phase(r) or "other"
        if not any(r["phase"] != "other" for r in rows):
            rule = "none"
    elif rule == "prefill-runs":
        for r in rows:
            r["phase"] = "prefill" if r["index"] < args.prefill_runs else "decode"
    elif rule == "duration":
        med = np.median([r["duration_ms"] for r in rows])
        for r in rows:
            r["phase"] = "prefill" if r["duration_ms"] >= PREFILL_DURATION_FACTOR * med else "decode"
        if not any(r["phase"] == "prefill" for r in rows):
            rule = "none"
    if rule == "none":
        for r in rows:
            r["phase"] = "all"

    per_run_prompt = None
    if args.prompt_tokens is None and plans:
        for r in rows:
            if r["phase"] == "prefill" and r["method"]:
                plan = next(p for p in plans if p["name"] == r["method"])
                for v in plan["inputs"]:
                    t = plan["values"][v]
                    if t["val_type"] == "Tensor" and t["val"]["scalar_type"] in ("LONG", "INT"):
                        per_run_prompt = t["val"]["sizes"][-1]
                        break
                break

    phases = {}
    for name in ("prefill", "decode", "other", "all"):
        pr = [r for r in rows if r["phase"] == name]
        if not pr:
            continue
        d_all = np.array([r["duration_ms"] for r in pr])
        w = warmups(d_all)
        d = d_all[w:]
        for i, r in enumerate(pr):
            r["warmup"] = i < w
            r["outlier"] = False
            r["tokens"] = None
        n = len(d)
        f = {"runs": len(pr), "warmup_runs": w, "outlier_runs": 0, "total_ms": float(d.sum()),
             "mean_ms": float(d.mean()), "median_ms": float(np.median(d)), "p90_ms": float(np.percentile(d, 90)),
             "tokens": None, "tokens_per_s": None, "tokens_per_s_p50": None, "tokens_per_s_p90": None,
             "slope_ms_per_position": None, "intercept_ms": None, "drift_pct": None}
        if n >= 2:
            b, a = theil(d)
            f["slope_ms_per_position"], f["intercept_ms"] = b, a
            if n >= 3:
                res = d - (a + b * np.arange(n))
                dev = np.abs(res - np.median(res))
                mad = max(float(np.median(dev)), MAD_FLOOR * f["median_ms"])
                for i in range(n):
                    if mad > 0 and 0.6745 * dev[i] / mad > OUTLIER_Z:
                        pr[w + i]["outlier"] = True
                        f["outlier_runs"] += 1
        if n >= 3:
            k = n // 3
            first, last = np.median(d[:k]), np.median(d[-k:])
            if first > 0:
                f["drift_pct"] = float(100 * (last - first) / first)
        if name == "decode":
            f["tokens"] = n
            for r in pr[w:]:
                r["tokens"] = 1
            f["tokens_per_s"] = n / (f["total_ms"] / 1000)
            f["tokens_per_s_p50"] = 1000 / f["median_ms"]
            f["tokens_per_s_p90"] = 1000 / f["p90_ms"]
        elif name == "prefill":
            if args.prompt_tokens is not None:
                f["tokens"] = args.prompt_tokens
                for r in pr[w:]:
                    r["tokens"] = args.prompt_tokens if n == 1 else (1 if n == args.prompt_tokens else None)
            elif per_run_prompt:
                f["tokens"] = per_run_prompt * n
                for r in pr[w:]:
                    r["tokens"] = per_run_prompt
            if f["tokens"] is not None:
                f["tokens_per_s"] = f["tokens"] / (f["total_ms"] / 1000)
        phases[name] = f

    ttft = None
    for i, r in enumerate(rows):
        if r["phase"] != "prefill" or r["warmup"]:
            continue
        last = r
        for s in rows[i + 1:]:
            if s["phase"] == "prefill":
                last = s
            elif not s["warmup"]:
                break
        ttft = (last["start_ns"] - r["start_ns"]) / 1e6 + last["duration_ms"]
        break

    # Shares: own time of kernels and delegate events; a wrapper only when nothing is inside it.
    shares = {}
    for name in phases:
        acc = {}
        for r in rows:
            if r["phase"] != name or r["warmup"]:
                continue
            plan = next((p for p in plans if p["name"] == r["method"]), None) if plans and r["method"] else None
            ps = [p for p in r["profiles"] if p["chain_index"] >= 0]
            kernels = {p["instruction_id"] for p in ps if not delegated(
                p) and (p.get("name") or "").startswith("native_call_")}
            inner = {p["instruction_id"] for p in ps if delegated(p)}
            decoded = {id(p): backend_event(p) for p in ps if delegated(p)}
            calls = {}
            for p in ps:
                if decoded.get(id(p)):
                    calls.setdefault(p["instruction_id"], []).append(decoded[id(p)])
            for p in ps:
                nm = p.get("name") or ""
                ev = decoded.get(id(p))
                if ev and wraps(ev, calls[p["instruction_id"]]):
                    continue  # a host phase around events counted on their own
                if delegated(p) and ev and args.shares_by == "backend-operator":
                    key, deleg = backend_label(ev), True
                elif delegated(p):
                    key, deleg = p.get("delegate_debug_id_str") or str(p["delegate_debug_id_int"]), True
                elif nm.startswith("native_call_"):
                    key, deleg = nm[len("native_call_"):], False
                elif nm == "OPERATOR_CALL":
                    if p["instruction_id"] in kernels:
                        continue
                    key, deleg = nm, False
                    if plan:
                        ins = plan["chains"][0]["instructions"][p["instruction_id"]]
                        op = plan["operators"][ins["instr_args"]["op_index"]]
                        key = op["name"].split("::")[-1] + "." + op["overload"]
                elif nm == "DELEGATE_CALL":
                    if p["instruction_id"] in inner:
                        continue
                    key, deleg = nm, True
                    if plan:
                        ins = plan["chains"][0]["instructions"][p["instruction_id"]]
                        key = plan["delegates"][ins["instr_args"]["delegate_index"]]["id"]
                else:
                    key, deleg = nm, False
                if deleg and delegated(p):  # the Inspector scales a delegate event's ends, then subtracts
                    ms = elapsed(p["start_time"] / 1e6, p["end_time"] / 1e6)
                else:
                    ms = elapsed(p["start_time"], p["end_time"]) / 1e6
                a = acc.setdefault(key, [0.0, 0, 0.0])
                a[0] += ms
                a[1] += 1
                a[2] += ms if deleg else 0.0
        total = sum(v[0] for v in acc.values())
        table = [{"name": k, "total_ms": v[0], "share": v[0] / total if total else 0.0, "calls": v[1],
                  "delegated_share": v[2] / v[0] if v[0] else 0.0}
                 for k, v in sorted(acc.items())]
        table.sort(key=lambda s: -s["total_ms"])  # stable: ties stay by name
        shares[name] = table
        phases[name]["counted_ms"] = total
        phases[name]["delegated_share"] = sum(v[2] for v in acc.values()) / total if total else 0.0

    return {
        "phase_rule": rule,
        "shares_by": args.shares_by or "operator",
        "runs": [{"index": r["index"], "method": r["method"], "phase": r["phase"], "start_ns": r["start_ns"],
                  "duration_ms": r["duration_ms"], "outlier": r["outlier"], "warmup": r["warmup"],
                  "tokens": r["tokens"]} for r in rows],
        "phases": phases,
        "time_to_first_token_ms": ttft,
        "shares": shares,
    }


# case name → (recording, program JSON or None, truth or None, options); paths relative to the
# data folder ("data:") or the shared fixtures ("shared:"). tests/analysis/tst_runs.cpp and
# tests/cli/tst_runscli.cpp run the same cases.
CASES = {
    "llm_program": ("data:analysis/runs_llm.etdp", "data:analysis/runs_llm.program.json",
                    "data:analysis/runs_llm.truth.json", {}),
    "llm_none": ("data:analysis/runs_llm.etdp", None, None, {}),  # etscope: --phase-by none (one phase as asked)
    "llm_prefill_runs": ("data:analysis/runs_llm.etdp", None, None, {"prefill_runs": 2, "prompt_tokens": 8}),
    "llm_duration": ("data:analysis/runs_llm.etdp", None, None, {"phase_by": "duration"}),
    "cnn_mlp_50runs": ("shared:runtime/cnn_mlp_50runs/etdump.etdp",
                       "shared:runtime/cnn_mlp_50runs/cnn_mlp.program.json", None, {}),
    "xnnpack_mlp": ("shared:runtime/xnnpack_mlp_intermediates/etdump.etdp",
                    "shared:runtime/xnnpack_mlp_intermediates/xnn_mlp.program.json", None, {}),
    # Share rows by backend operator, and the host phases that wrap counted events left out.
    "llm_program_backend": ("data:analysis/runs_llm.etdp", "data:analysis/runs_llm.program.json",
                            "data:analysis/runs_llm.truth.json", {"shares_by": "backend-operator"}),
    "xnnpack_mlp_backend": ("shared:runtime/xnnpack_mlp_intermediates/etdump.etdp",
                            "shared:runtime/xnnpack_mlp_intermediates/xnn_mlp.program.json", None,
                            {"shares_by": "backend-operator"}),
    "vulkan_stem": ("data:backend/vulkan_stem/etdump.etdp", None, None, {}),
    "vulkan_stem_backend": ("data:backend/vulkan_stem/etdump.etdp", None, None, {"shares_by": "backend-operator"}),
    "vgf_conv_backend": ("data:backend/vgf_conv/etdump.etdp", None, None, {"shares_by": "backend-operator"}),
    "neutron_kernels_backend": ("data:backend/neutron_kernels/etdump.etdp", None, None,
                                {"shares_by": "backend-operator"}),
    # The real two-method LLM generation (tests/data/runtime/llm_decoder/profile): the truth is
    # the runner's log of which method each Method::execute ran.
    "llm_decoder_runtime": ("data:runtime/llm_decoder/profile/etdump.etdp",
                            "data:runtime/llm_decoder/llm_decoder.program.json",
                            "data:runtime/llm_decoder/profile/runs.truth.json", {}),
}


def write_all(schema, data, shared):
    def path(p):
        if p is None:
            return None
        kind, rel = p.split(":", 1)
        return os.path.join(data if kind == "data" else shared, rel)

    os.makedirs(os.path.join(data, "analysis", "runs_expected"), exist_ok=True)
    for name, (etdump, program, truth, opts) in CASES.items():
        args = argparse.Namespace(schema=schema, etdump=path(etdump), program=path(program), truth=path(truth),
                                  phase_by=opts.get("phase_by"), prefill_runs=opts.get("prefill_runs"),
                                  prompt_tokens=opts.get("prompt_tokens"), shares_by=opts.get("shares_by"))
        with open(os.path.join(data, "analysis", "runs_expected", name + ".json"), "w") as f:
            json.dump(expect(args), f, indent=1)
            f.write("\n")


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "all":
        write_all(*sys.argv[2:])
        return
    if len(sys.argv) >= 3 and sys.argv[1] == "program":
        with open(sys.argv[2], "w") as f:
            json.dump(llm_program(), f, indent=1)
            f.write("\n")
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["expect"])
    ap.add_argument("schema")
    ap.add_argument("etdump")
    ap.add_argument("--program")
    ap.add_argument("--truth")
    ap.add_argument("--phase-by", choices=["method", "duration"])
    ap.add_argument("--prefill-runs", type=int)
    ap.add_argument("--prompt-tokens", type=int)
    ap.add_argument("--shares-by", choices=["operator", "backend-operator"])
    args = ap.parse_args()
    json.dump(expect(args), sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
