#!/usr/bin/python3
"""Writes tests/data/history/: series of real-shaped recordings with steps of known size at known
places, the truth of their series, and the change points of an independent numpy E-divisive
(tests/tools/edivisive_reference.py) on those series.

Every recording is WRITTEN, not recorded, from the real recording
shared/fixtures/runtime/cnn_mlp_50runs/etdump.etdp (portable kernels, 50 Execute runs), decoded
with `flatc --json --raw-binary --size-prefixed core/etdump/etdump.fbs`:
- its Default block (Program::load_method, Method::init) is kept as it is;
- each Execute run is a copy of one of the fixture's 50 real runs, drawn at random with
  replacement (numpy, seeded): the run-to-run noise IS the fixture's, with every event of a run
  kept together (their correlation too);
- a step of +s at recording k multiplies the stepped operator's duration by (1 + s) in every run
  of recordings k, k+1, …: the operator's end, the ends of the events enclosing it (its
  OPERATOR_CALL, Method::execute) and every later timestamp of the run move by the difference;
- runs are laid one after the other on the clock, 5 µs apart.

Sets (RUNS Execute runs each):
- steps/: 24 recordings named by made-up commit hashes (so that path order is NOT history order),
  labels.csv gives label and order; steps: STEPS below.
- flat/: 12 recordings, no step.

history_expected.json holds per set the ordered recordings, per series (etscope's names: event
name, " #k" when the name repeats in the run) the p50/p10/p90 over runs in ms
(np.percentile, linear, of end_time - start_time in ns / 1e6), and the twin's change points with
the per-series seed (seed ^ FNV-1a(name)) and default parameters; the steps as planted.

Run: /usr/bin/python3 tests/tools/gen_history_series.py    (needs flatc and numpy)
"""
import collections
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from etdump_json import decode, encode, fixture  # noqa: E402

import edivisive_reference as ed  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, "..", ".."))
OUT = os.path.join(root, "tests", "data", "history")
RUNS = 30
DEFAULT_SEED = 0x657473636F706521
# (series name, recording index of the first recording after the step, relative size)
STEPS = [
    ("native_call_convolution.out #2", 8, +0.05),
    ("native_call_avg_pool2d.out", 12, -0.04),
    ("native_call_convolution.out #1", 16, +0.03),
]


def series_names(run):
    """etscope's series name of each event of a run (None: OPERATOR_CALL / framework)."""
    names = [e["profile_event"]["name"] for e in run["events"]]
    ops = [n for n in names if n != "OPERATOR_CALL" and n != "Method::execute"]
    count = collections.Counter(ops)
    seen = collections.Counter()
    out = []
    for n in names:
        if n == "OPERATOR_CALL" or n == "Method::execute":
            out.append(None)
            continue
        seen[n] += 1
        out.append(f"{n} #{seen[n]}" if count[n] > 1 else n)
    return out


def make_recording(doc, rng, factors):
    default, runs = doc["run_data"][0], doc["run_data"][1:]
    keys = series_names(runs[0])
    cursor = max(e["profile_event"]["end_time"] for e in default["events"]) + 5000
    out = [default]
    for _ in range(RUNS):
        tmpl = runs[int(rng.integers(len(runs)))]
        assert series_names(tmpl) == keys
        shifts = []
        for e, k in zip(tmpl["events"], keys):
            f = factors.get(k)
            if f is not None:
                p = e["profile_event"]
                shifts.append((p["end_time"], int(round((p["end_time"] - p["start_time"]) * (f - 1.0)))))
        start = min(e["profile_event"]["start_time"] for e in tmpl["events"])
        offset = cursor - start

        def moved(t):
            return t + sum(d for te, d in shifts if t >= te) + offset

        events = []
        for e in tmpl["events"]:
            p = dict(e["profile_event"])
            p["start_time"], p["end_time"] = moved(p["start_time"]), moved(p["end_time"])
            events.append({"profile_event": p})
        cursor = max(e["profile_event"]["end_time"] for e in events) + 5000
        out.append({"name": tmpl["name"], "events": events})
    return {"run_data": out}


def truth(rec):
    """Per series name: per-run durations in ms (numpy from the JSON)."""
    runs = rec["run_data"][1:]
    keys = series_names(runs[0])
    dur = collections.defaultdict(list)
    for r in runs:
        total = 0
        for e, k in zip(r["events"], keys):
            p = e["profile_event"]
            d = (p["end_time"] - p["start_time"]) / 1e6
            if k is not None:
                dur[k].append(d)
                total += d
            elif p["name"] == "Method::execute":
                dur["Method::execute"].append(d)
        dur["total of operators"].append(total)
    return dur


def write_set(doc, name, count, steps, rng, hashed):
    folder = os.path.join(OUT, name)
    os.makedirs(folder, exist_ok=True)
    for f in os.listdir(folder):
        os.remove(os.path.join(folder, f))
    recordings, per_series = [], collections.defaultdict(lambda: {"p10": [], "p50": [], "p90": []})
    for i in range(count):
        factors = {s: 1.0 + size for s, at, size in steps if i >= at}
        rec = make_recording(doc, rng, factors)
        stem = "%07x" % int(rng.integers(1 << 28)) if hashed else "r%02d" % i
        encode(rec, folder, stem)
        recordings.append({"file": stem + ".etdp", "label": f"commit-{i:02d}-{stem}", "order": i})
        for k, v in truth(rec).items():
            for q in (10, 50, 90):
                per_series[k][f"p{q}"].append(float(np.percentile(np.asarray(v), q)))
    if hashed:
        shuffled = list(recordings)
        rng.shuffle(shuffled)  # the CSV's rows in another order: `order` decides
        with open(os.path.join(folder, "labels.csv"), "w") as f:
            f.write("file,label,order\n")
            for r in shuffled:
                f.write(f"{r['file']},{r['label']},{r['order']}\n")
    series = []
    for k, v in per_series.items():
        cps = ed.detect(v["p50"], seed=ed.series_seed(DEFAULT_SEED, k))
        series.append({"name": k, **v, "change_points": cps})
        print(name, k, [(c["index"], c["p"]) for c in cps], file=sys.stderr)
    return {"recordings": recordings, "steps": [{"name": s, "index": at, "size": size} for s, at, size in steps],
            "series": series}


def main():
    doc = decode(fixture("runtime/cnn_mlp_50runs/etdump.etdp"))
    rng = np.random.default_rng(20261128)
    expected = {
        "source": "shared/fixtures/runtime/cnn_mlp_50runs/etdump.etdp, runs resampled; see gen_history_series.py",
        "runs_per_recording": RUNS,
        "seed": DEFAULT_SEED,
        "steps": write_set(doc, "steps", 24, STEPS, rng, True),
        "flat": write_set(doc, "flat", 12, [], rng, False),
    }
    with open(os.path.join(OUT, "history_expected.json"), "w") as f:
        json.dump(expected, f, indent=1)


if __name__ == "__main__":
    main()
