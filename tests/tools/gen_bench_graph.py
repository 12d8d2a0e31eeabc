#!/usr/bin/python3
"""A ~5,000-node ETRecord for the graph-view benchmark (never committed: the bench writes it).

A 24-layer decoder-style transformer (per-head attention, hand-written LayerNorm and GELU so the
graph has the granularity of an exported LLM) traced with make_fx under Debian's python3-torch
1.13 and serialized in the ETRecord layout by the helpers of gen_etrecord_fixtures.py (same
exported-program JSON, nn_module_stack, stack traces and debug handles as the test fixtures).

Run: /usr/bin/python3 tests/tools/gen_bench_graph.py OUT.etrecord [LAYERS=24] [HEADS=16]
Prints the operator-node count.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_etrecord_fixtures as fx  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

D, T = 64, 16


class Norm(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(D))
        self.bias = nn.Parameter(torch.zeros(D))

    def forward(self, x):
        mu = x.mean(-1, keepdim=True)
        d = x - mu
        var = (d * d).mean(-1, keepdim=True)
        return d * torch.rsqrt(var + 1e-5) * self.weight + self.bias


class Head(nn.Module):
    def __init__(self, hd):
        super().__init__()
        self.q = nn.Linear(D, hd)
        self.k = nn.Linear(D, hd)
        self.v = nn.Linear(D, hd)
        self.scale = hd ** -0.5

    def forward(self, x):
        q, k, v = self.q(x), self.k(x), self.v(x)
        a = torch.softmax(torch.mm(q, k.t()) * self.scale, -1)
        return torch.mm(a, v)


class Attention(nn.Module):
    def __init__(self, heads):
        super().__init__()
        self.heads = nn.ModuleList([Head(D // heads) for _ in range(heads)])
        self.proj = nn.Linear(D, D)

    def forward(self, x):
        return self.proj(torch.cat([h(x) for h in self.heads], -1))


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(D, 4 * D)
        self.fc2 = nn.Linear(4 * D, D)

    def forward(self, x):
        h = self.fc1(x)
        h = 0.5 * h * (1.0 + torch.tanh(0.7978845608 * (h + 0.044715 * h * h * h)))
        return self.fc2(h)


class Block(nn.Module):
    def __init__(self, heads):
        super().__init__()
        self.norm1, self.attn, self.norm2, self.mlp = Norm(), Attention(heads), Norm(), Mlp()

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class Transformer(nn.Module):
    def __init__(self, layers, heads):
        super().__init__()
        self.embed = nn.Linear(D, D)
        self.layers = nn.ModuleList([Block(heads) for _ in range(layers)])
        self.norm = Norm()
        self.head = nn.Linear(D, 32)

    def forward(self, x):
        x = self.embed(x)
        for b in self.layers:
            x = b(x)
        return torch.softmax(self.head(self.norm(x)), -1)


def main():
    out = sys.argv[1]
    layers = int(sys.argv[2]) if len(sys.argv) > 2 else 24
    heads = int(sys.argv[3]) if len(sys.argv) > 3 else 16
    torch.manual_seed(0)
    model = Transformer(layers, heads).eval()
    example = torch.randn(T, D)
    gm = fx.trace(model, example)
    text, records = fx.serialize(gm, model, "edge", 1)
    handles = {str(i): r["handle"] for i, r in enumerate(records)}
    fx.OUT = os.path.dirname(os.path.abspath(out))
    fx.etrecord_zip(os.path.basename(out), [
        ("ETRECORD_V0", b""),
        ("edge_dialect_exported_program/forward", text.encode()),
        ("debug_handle_map", json.dumps({"forward": handles}).encode()),
        ("delegate_map", json.dumps({"forward": {}}).encode()),
    ])
    print(len(records))


if __name__ == "__main__":
    main()
