#!/usr/bin/python3
"""Writes tests/data/analysis/xnn_mlp_portable_etrecord.bin: the ETRecord of a portable twin of
the XNNPACK program in shared/fixtures/runtime/xnnpack_mlp_intermediates (no such portable
recording exists, so the diff test synthesizes its ETDump with tests/common/etdumpwriter.h).

Run with Debian's PyTorch 1.13:
    /usr/bin/python3 tests/tools/gen_diff_fixtures.py

Same model, same traced edge program and debug handles as tests/data/etrecord/xnn_mlp_etrecord.bin
(gen_etrecord_fixtures.py), but every graph node is its own portable instruction: instruction i
carries the handle of node i, no delegates. Also writes xnn_mlp_portable_expected.json with the
instruction -> op / handle table that the C++ test synthesizes events for.
"""
import json
import os
import sys
import zipfile

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_etrecord_fixtures as g  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "analysis")


def main():
    torch.manual_seed(3)
    graph_id = 140234567890123
    xmodel = g.XnnMlp().eval()
    xx = torch.sin(torch.arange(64, dtype=torch.float32) * 0.37).reshape(1, 64)
    xgm = g.trace(xmodel, xx)
    xedge, xrecords = g.serialize(xgm, xmodel, "edge", graph_id + 2)
    dhm = {"forward": {str(i): r["handle"] for i, r in enumerate(xrecords)}}
    entries = [("ETRECORD_V0", b"")]
    entries += g.program_entries("edge_dialect_exported_program/forward", xedge, xmodel, xx)
    entries += [
        ("debug_handle_map", json.dumps(dhm)),
        ("delegate_map", json.dumps({"forward": {}})),
        ("instruction_id_to_num_outs_map", json.dumps({"forward": {}})),
    ]
    with zipfile.ZipFile(os.path.join(OUT, "xnn_mlp_portable_etrecord.bin"), "w", zipfile.ZIP_STORED) as z:
        for name, data in entries:
            z.writestr(zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0)), data)
    expected = {"instructions": [{"instruction_id": i, "op": r["op"],
                                  "kernel": "native_call_" + r["op"].split(".")[1] + ".out",
                                  "handle": r["handle"]} for i, r in enumerate(xrecords)],
                "debug_handle_map": dhm}
    with open(os.path.join(OUT, "xnn_mlp_portable_expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
