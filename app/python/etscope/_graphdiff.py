"""Graph against graph: two graphs of one ETRecord run by etscope's evaluator on the same inputs,
aligned node by node and compared layer by layer (core/evalgap/graphdiff.h, `etscope-cli
graph-diff`)."""

import logging

from ._process import _pandas

_log = logging.getLogger("etscope")

_COLUMNS = [
    "layer", "a_node", "a_op", "a_debug_handle", "b_node", "b_op", "b_debug_handle", "aligned_by",
    "gap", "worst", "noise", "flagged", "a_output", "b_output", "error",
]


def graph_diff(native_etrecord, a, b, distance, threshold, inputs, bundled_program, test_case):
    """One row per aligned layer in graph a's execution order. df.attrs holds the verdict
    (where the graphs part, or that they agree within noise), first_parting (the layer number,
    None when none), the unaligned nodes of each graph, and the CLI's TSV and JSON."""

    pd = _pandas()
    if not isinstance(distance, str):
        raise ValueError(f"Unsupported distance metric {distance!r}")
    result = native_etrecord.graph_diff(
        a, b, distance.strip().upper(), None if threshold is None else float(threshold),
        str(inputs or ""), str(bundled_program or ""), int(test_case),
    )
    for w in result["warnings"]:
        _log.warning(w)
    rows = result["rows"]
    df = pd.DataFrame({c: [r[c] for r in rows] for c in _COLUMNS}, columns=_COLUMNS)
    for key in ("a", "b", "metric", "verdict", "first_parting", "unaligned_a", "unaligned_b", "warnings"):
        df.attrs[key] = result[key]
    df.attrs["cli_tsv"] = result["tsv"]
    df.attrs["cli_json"] = result["json"]
    return df
