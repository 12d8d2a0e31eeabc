"""compare_results: SNR, MSE and cosine similarity of run outputs against reference outputs."""

import os

import numpy as np

from . import _native

_ORDER = ("snr", "mse", "cosine_similarity")
_KEY = {"snr": "snr", "mse": "mse", "cosine_similarity": "cosine"}


def _as_array(v):
    if v is None or isinstance(v, str):
        return None
    if hasattr(v, "detach"):  # a torch tensor
        v = v.detach().cpu().numpy()
    return np.asarray(v, dtype=float)


def compare_results(reference_output, run_output, metrics=None, plot=False):
    """Upstream's compare_results: {metric: [value per output pair]} in the order snr, mse,
    cosine_similarity, each rounded to 2 decimals (both sides cast to float32 first); unknown
    metric names are ignored. Without `plot` the values are printed; with it, one bar chart per
    metric is saved as <metric>_output_plot.png (matplotlib), or a line says it is missing.
    """
    rows, text = _native.compare_results([_as_array(v) for v in reference_output], [_as_array(v) for v in run_output])
    wanted = [m for m in _ORDER if metrics is None or m in [x.lower() for x in metrics]]
    results = {
        m: [round(r[_KEY[m]], 2) if r["comparable"] and not r["error"] else None for r in rows] for m in wanted
    }
    if plot:
        _plot(results)
    else:
        print(text, end="" if text.endswith("\n") else "\n")
    return results


def _plot(results):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("compare_results: plot=True needs matplotlib (Debian: python3-matplotlib); no charts written")
        return
    for metric, values in results.items():
        fig, ax = plt.subplots()
        ax.bar(range(len(values)), [np.nan if v is None else v for v in values])
        ax.set_xlabel("output index")
        ax.set_ylabel(metric)
        path = os.path.abspath(f"{metric}_output_plot.png")
        fig.savefig(path)
        plt.close(fig)
        print(f"compare_results: {metric} chart written to {path}")
