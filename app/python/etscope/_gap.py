"""calculate_numeric_gap with etscope's evaluator as the reference (core/evalgap + core/analysis)."""

import numpy as np

from ._process import _pandas


def _log():
    import logging  # on first warning: `import etscope` stays light

    return logging.getLogger("etscope")


# Upstream's DataFrame columns first, then what etscope adds (same rows as `etscope-cli gap --tsv`).
_COLUMNS = ["aot_ops", "aot_intermediate_output", "runtime_ops", "runtime_intermediate_output", "gap", "stacktraces"]
_EXTRA = ["instruction_id", "debug_handles", "delegated", "backend", "error", "note"]


class NumericalComparatorBase:
    """Upstream's comparator protocol for calculate_numeric_gap: subclass it (or any object with
    these methods) and implement element_compare; preprocessing may transform the mapping
    {(aot_handle, aot_output): (runtime_handle, runtime_output)} first (layout conversion,
    dequantization, ...). The Inspector sets `inspector` when it is None."""

    def __init__(self, inspector=None):
        self.inspector = inspector

    def preprocessing(self, mapping):
        return mapping

    def element_compare(self, a, b) -> float:
        raise NotImplementedError("implement element_compare(a, b) -> float")


class _KeyArray(np.ndarray):
    """An output array usable inside a dict key, as upstream's torch tensors are (by identity)."""

    __hash__ = object.__hash__

    def __eq__(self, other):  # identity, like a tensor used as a key
        return self is other


def _keyable(v):
    if isinstance(v, np.ndarray):
        return v.view(_KeyArray)
    if isinstance(v, list):
        return tuple(_keyable(x) for x in v)
    return v


def _plain(v):
    if isinstance(v, np.ndarray):
        return np.asarray(v).view(np.ndarray)
    if isinstance(v, tuple):
        return [_plain(x) for x in v]
    return v


def _compare_with(comparator, rows):
    """Upstream's comparator protocol: preprocessing(mapping) -> mapping, then element_compare
    on each output pair (pairwise for lists)."""
    mapping = {
        (tuple(r["debug_handles"]), _keyable(r["aot_intermediate_output"])): (
            tuple(r["debug_handles"]),
            _keyable(r["runtime_intermediate_output"]),
        )
        for r in rows
    }
    pre = getattr(comparator, "preprocessing", None)
    if callable(pre):
        mapping = pre(mapping)
    pairs = list(mapping.items())
    if len(pairs) != len(rows):
        raise ValueError(f"preprocessing returned {len(pairs)} entries for {len(rows)} compared outputs")
    for r, ((_, aot), (_, rt)) in zip(rows, pairs):
        aot, rt = _plain(aot), _plain(rt)
        r["aot_intermediate_output"], r["runtime_intermediate_output"] = aot, rt
        if isinstance(aot, list) and isinstance(rt, list):
            if len(aot) != len(rt):
                raise ValueError("lists of different lengths cannot be compared")
            r["gap"] = [comparator.element_compare(a, b) for a, b in zip(aot, rt)]
        else:
            r["gap"] = [comparator.element_compare(aot, rt)]


def numeric_gap(inspector, distance, disable_validation, reference_graph, isolate, inputs, bundled_program, test_case,
                native=None):

    pd = _pandas()
    if isinstance(distance, str):
        metric = distance.strip().upper()
        if metric not in ("MSE", "L1", "SNR"):
            raise ValueError(f"Unsupported distance metric {distance!r}")
        comparator = None
    elif callable(getattr(distance, "element_compare", None)):
        metric, comparator = "MSE", distance
        if getattr(comparator, "inspector", None) is None:
            try:
                comparator.inspector = inspector
            except AttributeError:
                pass
    else:
        raise ValueError(f"Unsupported distance metric {distance!r}")
    result = (native or inspector._native).numeric_gap(
        metric,
        reference_graph or "",
        bool(disable_validation),
        bool(isolate),
        inputs or "",
        bundled_program or "",
        int(test_case),
    )
    for w in result["warnings"]:
        _log().warning(w)
    rows = result["rows"]
    if comparator is not None:
        _compare_with(comparator, rows)
    df = pd.DataFrame({c: [r[c] for r in rows] for c in _COLUMNS + _EXTRA}, columns=_COLUMNS + _EXTRA)
    df.attrs["reference"] = result["reference"]
    df.attrs["cli_tsv"] = result["tsv"] if comparator is None else None
    return df


_DECOMPOSED = ["aot_ops", "runtime_ops", "quant_error", "kernel_error", "total_error", "dominant", "instruction_id",
               "debug_handles", "quant_noise", "kernel_noise", "total_noise", "quant_snr_db", "kernel_snr_db",
               "total_snr_db", "delegated", "note"]


def numeric_gap_decomposed(inspector, distance, disable_validation, reference_graph, inputs, bundled_program,
                           test_case, native=None):
    """Quantization / kernel / total error per op (core/evalgap/decompose.h)."""

    pd = _pandas()
    if not isinstance(distance, str):
        raise ValueError("decompose=True takes a metric name (MSE, L1, SNR, COSINE, MAXABS, MAXREL), not a comparator")
    result = (native or inspector._native).numeric_gap_decomposed(
        distance.strip().upper(),
        reference_graph or "",
        bool(disable_validation),
        inputs or "",
        bundled_program or "",
        int(test_case),
    )
    for w in result["warnings"]:
        _log().warning(w)
    rows = result["rows"]
    df = pd.DataFrame({c: [r[c] for r in rows] for c in _DECOMPOSED}, columns=_DECOMPOSED)
    for k in ("summary", "quant_enters", "kernel_enters", "total_enters"):
        df.attrs[k] = result[k]
    df.attrs["cli_tsv"] = result["tsv"]
    df.attrs["cli_json"] = result["json"]
    return df
