"""Inspector.determinism(): the logged tensors over several runs compared bit for bit
(core/analysis/determinism.h; `etscope-cli determinism`)."""

import json
import os
import warnings

from . import _native
from ._process import _pandas

_COLUMNS = ["position", "instruction_id", "name", "occurrence", "program_output", "dtype", "sizes", "distinct",
            "reference_run", "runs_differ", "max_abs", "mean_abs", "max_rel", "mean_rel", "max_ulp", "bits",
            "earlier_varying", "region"]


def determinism(inspector, others=()):
    """One row per logged tensor in program order; `others`: more (etdump, debug_buffer) pairs
    of the same program and input, their runs after this recording's. The frame's
    attrs["sentence"] says it in one line ("deterministic: …" or "op #k varies on runs …")."""
    etdump, buffer = inspector._paths["etdump"], inspector._paths["debug_buffer"]
    if etdump is None or buffer is None:
        raise ValueError("determinism needs the Inspector's etdump_path and debug_buffer_path (the tensors live there)")
    etdumps, buffers = [etdump], [buffer]
    for e, b in others:
        etdumps.append(os.fspath(e))
        buffers.append(os.fspath(b))
    doc = json.loads(_native.determinism(etdumps, buffers))
    for w in doc["warnings"]:
        warnings.warn(w, stacklevel=3)
    frame = _pandas().DataFrame([{k: t[k] for k in _COLUMNS} for t in doc["tensors"]], columns=_COLUMNS)
    frame.attrs["sentence"] = doc["sentence"]
    frame.attrs["runs"] = doc["runs"]
    frame.attrs["first_varying"] = doc["first_varying"]
    return frame
