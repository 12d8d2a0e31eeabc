#!/usr/bin/python3
"""Authors the program of tests/data/runtime/determinism_repeat and determinism_corrupt and checks
every tensor the real ExecuTorch runtime logged in them against an independent NumPy model.

The program (det_mlp.pte, one method 'forward', portable kernels):
  x float32 [64,32] (input; the runner fills it with sin(0.37 j + 1.3 * 0), j the flat index)
  [0] aten::addmm.out(b1, x, W1, beta 1, alpha 1)  -> h1 [64,64]
  [1] aten::relu.out(h1)                            -> a1 [64,64]
  [2] aten::mm.out(a1, W2)                          -> h2 [64,64]   (perturbed in determinism_corrupt)
  [3] aten::tanh.out(h2)                            -> a2 [64,64]
  [4] aten::addmm.out(b3, a2, W3, beta 1, alpha 1)  -> y  [64,16]
  [5] aten::_softmax.out(y, dim -1, half_to_float False) -> p [64,16]  (the output)
Weights: np.random.default_rng(35) draws, float32, in the constant segment.

The corrupt runner (see determinism_corrupt/README.txt) replaces the kernel of aten::mm.out by a
stand-in that adds DELTA[run] to rows 0..31 x cols 32..63 of h2 on Execute runs 3, 7, 19.

--check DIR: decodes DIR/etdump.etdp (flatc --json) and reads every debug event's tensor from
DIR/debug_output.bin, recomputes the model in NumPy for every Execute run (with the perturbation
of that run for determinism_corrupt) and compares each logged tensor (max abs difference < 1e-5).

Usage:
  /usr/bin/python3 tests/tools/gen_determinism_fixture.py [--et /work/rt/executorch]
  /usr/bin/python3 tests/tools/gen_determinism_fixture.py --check tests/data/runtime/determinism_corrupt
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runtime_fixture_lib as lib  # noqa: E402

OUT = os.path.join(lib.ROOT, "tests", "data", "runtime")
ROWS, IN, HID, CLASSES = 64, 32, 64, 16
# The stand-in kernel of the corrupt runner: Execute run -> value added to the tile.
DELTA = {3: 0.25, 7: -0.5, 19: 1.0}
TILE = {"instruction_id": 2, "op": "aten::mm.out", "rows": [0, 31], "cols": [32, 63]}


def weights():
    rng = np.random.default_rng(35)
    f = lambda shape, s: (rng.standard_normal(shape) * s).astype(np.float32)  # noqa: E731
    return {"W1": f((IN, HID), IN**-0.5), "b1": f((HID,), 0.1), "W2": f((HID, HID), HID**-0.5),
            "W3": f((HID, CLASSES), HID**-0.5), "b3": f((CLASSES,), 0.1)}


def model_input():
    # The runner's rule: input i, flat index j, seed 0 -> sin(0.37 j + 0.91 seed + 1.3 i), float32.
    j = np.arange(ROWS * IN, dtype=np.float32)
    return np.sin(np.float32(0.37) * j).astype(np.float32).reshape(ROWS, IN)


def reference(w, delta=0.0):
    """The six instruction outputs, in float64 then rounded to float32."""
    x = model_input().astype(np.float64)
    h1 = x @ w["W1"] + w["b1"]
    a1 = np.maximum(h1, 0)
    h2 = a1 @ w["W2"]
    r0, r1 = TILE["rows"]
    c0, c1 = TILE["cols"]
    h2[r0:r1 + 1, c0:c1 + 1] += delta
    a2 = np.tanh(h2)
    y = a2 @ w["W3"] + w["b3"]
    e = np.exp(y - y.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    return [t.astype(np.float32) for t in (h1, a1, h2, a2, y, p)]


def build(args):
    w = weights()
    constants = []
    p = lib.Plan("forward", constants)
    x = p.tensor([ROWS, IN])
    W1, b1, W2, W3, b3 = (p.const(w[k]) for k in ("W1", "b1", "W2", "W3", "b3"))
    one = p.int(1)
    h1 = p.call("addmm.out", [b1, x, W1, one, one], [ROWS, HID])
    a1 = p.call("relu.out", [h1], [ROWS, HID])
    h2 = p.call("mm.out", [a1, W2], [ROWS, HID])
    a2 = p.call("tanh.out", [h2], [ROWS, HID])
    y = p.call("addmm.out", [b3, a2, W3, one, one], [ROWS, CLASSES])
    out = p.call("_softmax.out", [y, p.int(-1), p.bool(False)], [ROWS, CLASSES])
    program, pte = lib.build_pte(lib.program_schema(args.et), [p.to_json([x], [out])], constants)
    for name in ("determinism_repeat", "determinism_corrupt"):
        d = os.path.join(args.out, name)
        os.makedirs(d, exist_ok=True)
        lib.write_json(os.path.join(d, "det_mlp.program.json"), program)
        with open(os.path.join(d, "det_mlp.pte"), "wb") as f:
            f.write(pte)
    print(f"det_mlp.pte: {len(pte)} bytes, {len(p.instrs)} instructions, {len(p.values)} values, "
          f"planned {p.offset} bytes")


def check(args):
    w = weights()
    doc = lib.decode_etdump(lib.etdump_schema(args.et), os.path.join(args.check, "etdump.etdp"))
    with open(os.path.join(args.check, "debug_output.bin"), "rb") as f:
        buf = f.read()
    corrupt = "corrupt" in os.path.basename(os.path.normpath(args.check))
    worst, n = 0.0, 0
    for run, block in enumerate(lib.execute_blocks(doc)):
        ref = reference(w, DELTA.get(run, 0.0) if corrupt else 0.0)
        tensors = lib.debug_tensors(block, buf)
        # 6 instruction outputs (instruction_id 0..5), then the program output (= p again).
        assert [de["instruction_id"] for de, _ in tensors] == [0, 1, 2, 3, 4, 5, 0], "unexpected debug events"
        for k, (de, arr) in enumerate(tensors):
            want = ref[k] if k < 6 else ref[5]
            d = float(np.max(np.abs(arr.astype(np.float64) - want)))
            worst, n = max(worst, d), n + 1
            if d > 1e-5:
                print(f"run {run} tensor {k}: max |runtime - numpy| = {d:.3g}")
                return 1
    print(f"{n} tensors over {len(lib.execute_blocks(doc))} runs match NumPy; "
          f"max |runtime - numpy| = {worst:.3g}")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--et", help="ExecuTorch checkout whose schemas flatc uses")
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--check", help="fixture folder to compare with the NumPy model")
    args = ap.parse_args()
    if args.check:
        sys.exit(check(args))
    build(args)


if __name__ == "__main__":
    main()
