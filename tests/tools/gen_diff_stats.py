#!/usr/bin/python3
"""Writes tests/data/analysis/diff_stats_expected.json: expected Mann-Whitney U p-values (SciPy)
and bootstrap confidence intervals of the median difference (numpy) for the latency A/B diff.

Run with Debian's python3-scipy 1.10 / python3-numpy:
    /usr/bin/python3 tests/tools/gen_diff_stats.py

Mann-Whitney: scipy.stats.mannwhitneyu(a, b, alternative='two-sided') with its defaults
(method='auto', use_continuity=True), the reference etscope reproduces.

Bootstrap: the scheme etscope documents in core/analysis/diffstats.h, implemented here
independently: one SplitMix64 generator seeded with `seed`; per replicate draw len(a) indices
into a then len(b) indices into b as (next() * n) >> 64; the replicate is
np.percentile(b*, 50) - np.percentile(a*, 50); the interval is np.percentile(diffs, t) and
np.percentile(diffs, 100 - t) with t = 100 * (1 - level) / 2.
"""
import json
import os
import sys

import numpy as np
import scipy
from scipy.stats import mannwhitneyu

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from splitmix64 import SplitMix64  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "analysis",
                   "diff_stats_expected.json")
SEED = 0x657473636F706531  # "etscope1", etscope's default


def bootstrap(a, b, iterations, level, seed):
    rng = SplitMix64(seed)
    diffs = np.empty(iterations)
    for i in range(iterations):
        ia = [(rng.next() * len(a)) >> 64 for _ in a]
        ib = [(rng.next() * len(b)) >> 64 for _ in b]
        diffs[i] = np.percentile(np.asarray(b)[ib], 50) - np.percentile(np.asarray(a)[ia], 50)
    t = 100 * (1 - level) / 2
    return float(np.percentile(diffs, t)), float(np.percentile(diffs, 100 - t))


def main():
    r = np.random.RandomState(20261123)
    cases = []

    def add(name, a, b):
        a = [float(x) for x in a]
        b = [float(x) for x in b]
        res = mannwhitneyu(a, b, alternative="two-sided")
        cases.append({"name": name, "a": a, "b": b, "u": float(res.statistic), "p": float(res.pvalue)})

    # Tiny samples without ties: exact distribution.
    add("exact_1v1", [1.0], [2.0])
    add("exact_3v4_separated", [1, 2, 3], [4, 5, 6, 7])
    add("exact_5v5_separated", [1, 2, 3, 4, 5], [6, 7, 8, 9, 10])
    add("exact_5v5_interleaved", [1, 3, 5, 7, 9], [2, 4, 6, 8, 10])
    add("exact_8v8", r.normal(1.0, 0.1, 8).round(6), r.normal(1.1, 0.1, 8).round(6))
    add("exact_5v50", r.normal(1.0, 0.1, 5).round(6), r.normal(1.05, 0.1, 50).round(6))
    add("exact_8v200", r.normal(1.0, 0.1, 8).round(6), r.normal(0.98, 0.1, 200).round(6))
    # Ties: normal approximation with tie correction even when small.
    add("ties_5v5", [1, 2, 2, 3, 4], [2, 3, 3, 5, 6])
    add("ties_across_3v3", [1, 1, 2], [1, 2, 2])
    add("all_equal_6v6", [3] * 6, [3] * 6)
    add("identical_50", np.arange(50) * 0.001 + 1.0, np.arange(50) * 0.001 + 1.0)
    # Large samples: normal approximation.
    add("normal_9v9", r.normal(1.0, 0.1, 9).round(6), r.normal(1.1, 0.1, 9).round(6))
    add("normal_50v50", r.normal(1.0, 0.05, 50).round(6), r.normal(1.02, 0.05, 50).round(6))
    add("normal_50v50_quantised", r.randint(100, 110, 50) * 1e-3, r.randint(102, 112, 50) * 1e-3)
    add("normal_50v50_shift3x", np.arange(1, 51) * 1e-3, np.arange(1, 51) * 3e-3)

    boots = []
    for name, a, b, it, level, seed in [
        ("boot_5v5", [1, 2, 3, 4, 5], [2, 3, 4, 5, 7], 500, 0.95, SEED),
        ("boot_ties", [1, 1, 2, 2, 2, 3], [2, 2, 3, 3, 4, 4, 4], 1000, 0.95, SEED),
        ("boot_1v1", [1.5], [2.5], 50, 0.95, SEED),
        ("boot_50v50", list(r.normal(1.0, 0.05, 50).round(6)), list(r.normal(1.1, 0.05, 50).round(6)),
         2000, 0.95, SEED),
        ("boot_20v30_seed7_90", list(r.exponential(1.0, 20).round(6)), list(r.exponential(1.3, 30).round(6)),
         1000, 0.9, 7),
    ]:
        a = [float(x) for x in a]
        b = [float(x) for x in b]
        lo, hi = bootstrap(a, b, it, level, seed)
        boots.append({"name": name, "a": a, "b": b, "iterations": it, "level": level, "seed": str(seed),
                      "low": lo, "high": hi})

    rng = SplitMix64(SEED)
    first = [str(rng.next()) for _ in range(4)]
    out = {"generator": "tests/tools/gen_diff_stats.py", "scipy": scipy.__version__, "numpy": np.__version__,
           "splitmix64_first": first, "mannwhitneyu": cases, "bootstrap": boots}
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
