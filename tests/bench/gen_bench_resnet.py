#!/usr/bin/python3
"""ResNet-18 benchmark data and the PyTorch eager side of the comparison.

    gen_bench_resnet.py OUT_DIR THREADS RUNS

Writes OUT_DIR/resnet18_etrecord.bin (torchvision resnet18, random weights, no download,
traced with make_fx and serialized like tests/tools/gen_eval_fixtures.py; representative input
one 1x3x224x224 tensor) and OUT_DIR/resnet18_logits.pt (the eager output). Then times PyTorch
eager inference on the same input with torch.set_num_threads(THREADS) and prints
    BENCH torch_eager_resnet18 <seconds>
per run, plus the process's peak RSS, for tools/bench-eval-vs-torch.sh.
"""
import os
import resource
import sys
import time
import zipfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "tools"))
import torch  # noqa: E402
import torchvision  # noqa: E402
from torch.fx.experimental.proxy_tensor import make_fx  # noqa: E402

import gen_eval_fixtures as g  # noqa: E402

out_dir, threads, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(out_dir, exist_ok=True)
torch.manual_seed(18)
model = torchvision.models.resnet18(weights=None).eval()
x = torch.randn(1, 3, 224, 224)
path = os.path.join(out_dir, "resnet18_etrecord.bin")
if not os.path.exists(path):
    with torch.no_grad():
        gm = make_fx(model)(x)
    text, state, consts, _ = g.serialize(gm, model, [x], "edge")
    entries = [("ETRECORD_V0", b""), ("edge_dialect_exported_program/forward", text.encode()),
               ("edge_dialect_exported_program/forward_state_dict", g.torch_bytes(state)),
               ("edge_dialect_exported_program/forward_constants", g.torch_bytes(consts)),
               ("representative_inputs", g.torch_bytes([x]))]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for name, data in entries:
            z.writestr(name, data)
    with torch.no_grad():
        torch.save(model(x), os.path.join(out_dir, "resnet18_logits.pt"))

torch.set_num_threads(threads)
with torch.no_grad():
    model(x)  # warm-up
    for _ in range(runs):
        t0 = time.perf_counter()
        model(x)
        print(f"BENCH torch_eager_resnet18 {time.perf_counter() - t0:.6f}", flush=True)
print(f"PEAK_RSS_MB torch {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.1f}")
