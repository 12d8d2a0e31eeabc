"""etscope: the ExecuTorch Inspector's Python API on etscope's C++ core.

    from etscope import Inspector          # instead of: from executorch.devtools import Inspector
    inspector = Inspector(etdump_path="etdump.etdp", etrecord="etrecord.bin",
                          debug_buffer_path="debug_output.bin")
    inspector.print_data_tabular()

Same constructor, attributes, methods and numbers as executorch.devtools.inspector, without
PyTorch; tensors are numpy arrays (etscope.to_torch converts them when torch is installed).
"""

from ._native import __version__
from ._inspector import ETRecord, Event, EventBlock, Inspector, PerfData, TimeScale, parse_etrecord
from ._compare import compare_results
from ._gap import NumericalComparatorBase
from ._history import history
from ._program import Delegate, Program
from ._recordings import pooled_statistics, read_recording, read_recordings, recordings_dataframe


def to_torch(value):
    """numpy arrays (also inside lists, tuples and dicts) as torch tensors; needs torch."""
    try:
        import torch
    except ImportError as e:
        raise ImportError("etscope.to_torch needs PyTorch (Debian: python3-torch)") from e
    import numpy as np

    if isinstance(value, np.ndarray):
        return torch.from_numpy(np.array(value))  # a writable copy: torch refuses read-only views
    if isinstance(value, (list, tuple)):
        return type(value)(to_torch(v) for v in value)
    if isinstance(value, dict):
        return {k: to_torch(v) for k, v in value.items()}
    return value


__all__ = [
    "Delegate",
    "Program",
    "ETRecord",
    "Event",
    "EventBlock",
    "Inspector",
    "NumericalComparatorBase",
    "PerfData",
    "TimeScale",
    "compare_results",
    "history",
    "parse_etrecord",
    "pooled_statistics",
    "read_recording",
    "read_recordings",
    "recordings_dataframe",
    "to_torch",
    "__version__",
]
