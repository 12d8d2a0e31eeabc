#!/usr/bin/python3
"""Writes tests/data/history/history_model_expected.json: what the History panel's table and the
report's History section must show for tests/data/history/steps (labels.csv order), computed with
numpy from the committed truth of the generated series (history_expected.json, written by
gen_history_series.py from the events' times, change points by the independent numpy twin
edivisive_reference.py) — never from etscope.

Per series (operators in program order, then "Method::execute", then "total of operators"):
- recordings: the number of points; latest_p50: the p50 of the newest recording;
- changes: the twin's change points, each with the mean p50 between its neighbouring change points
  (or the ends) before and after it, the half-width of the 95 % interval 1.96·s/√n (s with ddof=1,
  0 for one point), the change in percent (after/before − 1)·100, the labels on both sides, p;
- largest: the index into `changes` of the largest |change in percent| (first on ties), or null;
- largest_text: what the table's cell says of it, numbers in the window's format (N significant
  digits, fixed point, trailing zeros dropped): "before → after (±ci → ±ci) ms, ±x.x %, at label, p = p".

Run: /usr/bin/python3 tests/tools/gen_history_model_expected.py    (needs numpy)
"""
import json
import math
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(here, "..", "data", "history"))


def mean_ci(v):
    v = np.asarray(v, dtype=float)
    ci = 1.96 * float(np.std(v, ddof=1)) / np.sqrt(len(v)) if len(v) > 1 else 0.0
    return float(np.mean(v)), float(ci), len(v)


def sig(v, digits):
    """The window's number format (docs/user-guide.md): `digits` significant digits, no exponent."""
    if v == 0:
        return "0"
    decimals = max(0, digits - 1 - int(math.floor(math.log10(abs(v)))))
    s = f"{v:.{decimals}f}"
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s


def cell_text(c):
    return (f"{sig(c['before'], 4)} → {sig(c['after'], 4)} "
            f"(±{sig(c['before_ci95'], 2)} → ±{sig(c['after_ci95'], 2)}) ms, "
            f"{c['change_percent']:+.1f} %, at {c['label']}, p = {sig(c['p'], 3)}")


def main():
    with open(os.path.join(DATA, "history_expected.json")) as f:
        truth = json.load(f)["steps"]
    labels = [r["label"] for r in truth["recordings"]]
    framework = ("Method::execute", "total of operators")
    ordered = [s for s in truth["series"] if s["name"] not in framework]
    ordered += [s for n in framework for s in truth["series"] if s["name"] == n]
    rows = []
    for s in ordered:
        p50 = s["p50"]
        cps = [c["index"] for c in s["change_points"]]
        changes = []
        for k, c in enumerate(s["change_points"]):
            lo = cps[k - 1] if k else 0
            hi = cps[k + 1] if k + 1 < len(cps) else len(p50)
            b, bci, bn = mean_ci(p50[lo:c["index"]])
            a, aci, an = mean_ci(p50[c["index"]:hi])
            changes.append({"index": c["index"], "before": b, "before_ci95": bci, "before_count": bn,
                            "after": a, "after_ci95": aci, "after_count": an,
                            "change_percent": (a / b - 1.0) * 100.0, "label": labels[c["index"]],
                            "label_before": labels[c["index"] - 1], "p": c["p"]})
        largest = None
        for k, c in enumerate(changes):
            if largest is None or abs(c["change_percent"]) > abs(changes[largest]["change_percent"]):
                largest = k
        rows.append({"name": s["name"], "recordings": len(p50), "latest_p50": p50[-1], "changes": changes,
                     "largest": largest, "largest_text": cell_text(changes[largest]) if changes else None})
    with open(os.path.join(DATA, "history_model_expected.json"), "w") as f:
        json.dump({"source": "history_expected.json (steps); see gen_history_model_expected.py",
                   "labels": labels, "series": rows}, f, indent=1)


if __name__ == "__main__":
    main()
