#!/usr/bin/python3
"""An independent numpy implementation of E-divisive means with a permutation test, written from
the papers, not from etscope's C++ (core/analysis/changepoint.cpp):

- Matteson & James 2014 (arXiv:1306.4933), eq. 5-6 with alpha = 1:
  Q(X, Y) = m n / (m + n) * E(X, Y),
  E(X, Y) = 2/(m n) sum |X_i - Y_j| - 1/C(n,2) sum_{i<k} |X_i - X_k| - 1/C(m,2) sum_{j<k} |Y_j - Y_k|,
  X = x[s:tau], Y = x[tau:e] (kappa = the segment's end, as MongoDB's ICPE 2020 implementation),
  computed here directly from the full |x_i - x_j| distance matrix (O(n^2)), where the C++ uses
  running sums over ranks;
- hierarchical: the best split over all current segments (largest Q, first on ties) is tested
  by permuting the points within every segment independently (each permutation starting from
  the observed series) and taking the permuted series' best split; p = (k + 1) / (r + 1);
  a significant candidate splits its segment and the search goes on; stop at the first
  candidate that is not significant. Permutations stop as soon as k > alpha (R + 1) - 1.

The permutations come from the generator docs/history.md specifies (SplitMix64, Fisher-Yates
with j = (next() * (i + 1)) >> 64 for i = n-1 .. 1, segments in index order), so that this twin and
the C++ draw the same permutations: locations and p-values must agree exactly, Q to rounding.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from splitmix64 import MASK, SplitMix64  # noqa: E402 (tests/tools is on the path)


def fnv1a(text, h=0xCBF29CE484222325):
    for c in text.encode():
        h ^= c
        h = (h * 0x100000001B3) & MASK
    return h


def series_seed(seed, name):
    return seed ^ fnv1a(name)


def split_statistics(x, m):
    """Q for every tau in [m, n - m] (index tau - m)."""
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    if m < 2 or n < 2 * m:
        return np.array([])
    d = np.abs(x[:, None] - x[None, :])
    out = []
    for tau in range(m, n - m + 1):
        a, b = tau, n - tau
        between = d[:tau, tau:].sum()
        wl = np.triu(d[:tau, :tau], 1).sum()
        wr = np.triu(d[tau:, tau:], 1).sum()
        e = 2.0 * between / (a * b) - wl / (a * (a - 1) / 2) - wr / (b * (b - 1) / 2)
        out.append(a * b / n * e)
    return np.array(out)


def best_over_segments(x, segments, m):
    best = None  # (qhat, index, segment position)
    for si, (s, e) in enumerate(segments):
        q = split_statistics(x[s:e], m)
        if len(q) == 0:
            continue
        i = int(np.argmax(q))  # first of the largest
        if best is None or q[i] > best[0]:
            best = (float(q[i]), s + m + i, si)
    return best


def detect(series, alpha=0.001, permutations=999, min_segment=3, seed=0x657473636F706521):
    x = np.asarray(series, dtype=np.float64)
    m = max(min_segment, 2)
    rng = SplitMix64(seed)
    segments = [(0, len(x))]
    found = []
    k_max = alpha * (permutations + 1) - 1.0
    # Ties up to rounding count as exceedances; Q below the tolerance is no change at all
    # (docs/history.md): tolerance = 1e-9 * sum_{i != j} |x_i - x_j| / n.
    n = len(x)
    tolerance = 1e-9 * np.abs(x[:, None] - x[None, :]).sum() / max(1, n)
    while True:
        cand = best_over_segments(x, segments, m)
        if cand is None or cand[0] <= tolerance:
            break
        q, index, si = cand
        runs = exceed = 0
        for _ in range(permutations):
            y = x.copy()
            for s, e in segments:
                seg = y[s:e]  # a view: shuffled in place
                for i in range(len(seg) - 1, 0, -1):
                    j = (rng.next() * (i + 1)) >> 64
                    seg[i], seg[j] = seg[j], seg[i]
            pc = best_over_segments(y, segments, m)
            runs += 1
            if pc is not None and pc[0] >= q - tolerance:
                exceed += 1
            if exceed > k_max:
                break
        p = (exceed + 1) / (runs + 1)
        if p > alpha or permutations == 0:
            break
        found.append({"index": index, "qhat": q, "p": p, "permutations": runs, "exceedances": exceed})
        s, e = segments.pop(si)
        segments += [(s, index), (index, e)]
        segments.sort()
    return sorted(found, key=lambda c: c["index"])
