#!/usr/bin/python3
"""Benchmark data and the PyTorch side of tools/bench-eval-vs-torch.sh.

    gen_bench_models.py MODEL OUT_DIR THREADS RUNS

MODEL: resnet18 | mobilenet_v2 | any torchvision classification, segmentation ("out" head) or video
model (random weights, no download, one 1x3x224x224 / 1x3x8x112x112 input)
or llama4 (a 4-layer Llama-style decoder, tests/tools/gen_eval_fixtures.py's Llama with dim 512,
8 heads / 4 kv heads, hidden 1536, vocab 8000, 32 new tokens after 32 cached ones).

The first call writes OUT_DIR/MODEL_etrecord.bin (traced with make_fx and serialized like the eval
fixtures) and OUT_DIR/MODEL_output.pt (the eager output). Then, with torch.set_num_threads(THREADS),
it prints per run (wall and process CPU seconds):
    BENCH torch_eager_MODEL <s>  plain eager forward, nothing kept (for reference)
    BENCH torch_keep_MODEL <s>   part (a): the traced graph run by torch.fx.Interpreter, keeping a
                                 reference to every node's output (what etscope keeps)
    BENCH torch_job_MODEL <s>    part (b): read the ETRecord's state dict with torch.load, load it
                                 into the model, trace it, run it keeping every output
and the process's peak RSS and CPU seconds.
"""
import io
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

name, out_dir, threads, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
os.makedirs(out_dir, exist_ok=True)


def build():
    torch.manual_seed(18)
    if name == "llama4":
        start, n = 32, 32
        m = g.Llama(vocab=8000, dim=512, layers=4, heads=8, kv_heads=4, hidden=1536, max_seq=start + n, start=start)
        return m.eval(), [torch.randint(0, 8000, (1, n)), torch.arange(start, start + n)]
    if hasattr(torchvision.models.video, name):  # r3d_18, mc3_18, r2plus1d_18, s3d
        m = getattr(torchvision.models.video, name)(weights=None).eval()
        return m, [torch.randn(1, 3, 8, 112, 112)]
    if hasattr(torchvision.models.segmentation, name):  # fcn_*, deeplabv3_*, lraspp_*

        class Out(torch.nn.Module):  # the "out" entry of the result dict
            def __init__(self, inner):
                super().__init__()
                self.inner = inner

            def forward(self, x):
                return self.inner(x)["out"]

        inner = getattr(torchvision.models.segmentation, name)(weights=None, weights_backbone=None, aux_loss=False)
        return Out(inner).eval(), [torch.randn(1, 3, 224, 224)]
    m = getattr(torchvision.models, name)(weights=None).eval()
    return m, [torch.randn(1, 3, 224, 224)]


model, inputs = build()
path = os.path.join(out_dir, f"{name}_etrecord.bin")
if not os.path.exists(path):
    with torch.enable_grad():  # no fused MHA fast path (see gen_eval_fixtures.write_case)
        gm = make_fx(model)(*inputs)
    text, state, consts, _ = g.serialize(gm, model, inputs, "edge")
    entries = [("ETRECORD_V0", b""), ("edge_dialect_exported_program/forward", text.encode()),
               ("edge_dialect_exported_program/forward_state_dict", g.torch_bytes(state)),
               ("edge_dialect_exported_program/forward_constants", g.torch_bytes(consts)),
               ("representative_inputs", g.torch_bytes(list(inputs)))]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for entry, data in entries:
            z.writestr(entry, data)
    with torch.no_grad():
        torch.save(model(*inputs), os.path.join(out_dir, f"{name}_output.pt"))

torch.set_num_threads(threads)


def run_keeping(gm):
    kept = []

    class Keep(torch.fx.Interpreter):
        def run_node(self, n):
            r = super().run_node(n)
            kept.append(r)
            return r

    Keep(gm).run(*inputs)
    return kept


with torch.no_grad():
    state0 = {k: v.clone() for k, v in model.state_dict().items()}
    gm = make_fx(model)(*inputs)
    model(*inputs)  # warm-up
    run_keeping(gm)
    for _ in range(runs):
        model.load_state_dict(state0)  # KV caches back to their start
        t0, c0 = time.perf_counter(), time.process_time()
        model(*inputs)
        print(f"BENCH torch_eager_{name} {time.perf_counter() - t0:.6f} {time.process_time() - c0:.6f}", flush=True)
        model.load_state_dict(state0)
        t0, c0 = time.perf_counter(), time.process_time()
        run_keeping(gm)
        print(f"BENCH torch_keep_{name} {time.perf_counter() - t0:.6f} {time.process_time() - c0:.6f}", flush=True)
        t0, c0 = time.perf_counter(), time.process_time()
        with zipfile.ZipFile(path) as z:
            sd = torch.load(io.BytesIO(z.read("edge_dialect_exported_program/forward_state_dict")))
        model.load_state_dict(sd, strict=False)
        job_gm = make_fx(model)(*inputs)
        run_keeping(job_gm)
        print(f"BENCH torch_job_{name} {time.perf_counter() - t0:.6f} {time.process_time() - c0:.6f}", flush=True)
ru = resource.getrusage(resource.RUSAGE_SELF)
print(f"PEAK_RSS_MB torch {ru.ru_maxrss / 1024:.1f}")
print(f"CPU_S torch {ru.ru_utime + ru.ru_stime:.3f}")
