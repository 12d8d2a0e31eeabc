#!/usr/bin/python3
"""Checks the authored .ptd fixtures against upstream's own serializer.

Runs ExecuTorch's FlatTensorSerializer.serialize (extension/flat_tensor/serialize/serialize.py)
from an ExecuTorch git repository at a given commit, on the payloads the fixtures of
tests/data/program/ptd describe, and compares its output byte for byte with the committed
files. Nothing of upstream is copied: the sources are extracted to a temporary directory with
`git archive` and imported from there. The modules the serializer imports only for types it
does not use here (exir.schema, exir.tensor, exir._serialize._flatbuffer_program, which pull in
all of exir and a recent PyTorch) are replaced by empty stand-ins. flatc comes from PATH, as
for the fixtures (flatc 2.0.8 here).

Usage (from the repository root):
    /usr/bin/python3 tests/tools/check_ptd_upstream.py GIT_DIR [COMMIT]
e.g. GIT_DIR=/work/.mirror/pytorch+executorch/repo (from `fetch github:pytorch/executorch`),
COMMIT defaults to cff6f4dd32e630945b7188512c1f2b4f102b05ad. Prints one line per file and exits
1 when any differs.
"""

import os
import struct
import subprocess
import sys
import tempfile
import types

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data", "program", "ptd")


def load_serializer(src):
    def package(name, path):
        m = types.ModuleType(name)
        m.__path__ = [path]
        sys.modules[name] = m

    package("executorch", src)
    package("executorch.exir", os.path.join(src, "exir"))
    package("executorch.extension", os.path.join(src, "extension"))
    package("executorch.extension.flat_tensor", os.path.join(src, "extension", "flat_tensor"))

    class Placeholder:
        def __init__(self, *args, **kwargs):
            pass

    for name in ("executorch.exir.schema", "executorch.exir.tensor", "executorch.exir._serialize._flatbuffer_program"):
        m = types.ModuleType(name)
        m.__getattr__ = lambda attr: type(attr, (Placeholder,), {})
        sys.modules[name] = m
    sys.modules["executorch.exir.tensor"].ALIGNMENT = 16

    from executorch.exir._serialize.data_serializer import DataEntry, DataPayload
    from executorch.exir.scalar_type import ScalarType
    from executorch.exir.tensor_layout import TensorLayout
    from executorch.extension.flat_tensor.serialize.serialize import FlatTensorSerializer

    return FlatTensorSerializer, DataEntry, DataPayload, TensorLayout, ScalarType


def floats(n):
    # The fixtures' segment contents: 0.5, 1.0, 1.5, ... (tests/tools/gen_ptd_fixtures.py).
    return b"".join(struct.pack("<f", (k + 1) / 2) for k in range(n))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    git_dir = sys.argv[1]
    commit = sys.argv[2] if len(sys.argv) > 2 else "cff6f4dd32e630945b7188512c1f2b4f102b05ad"
    with tempfile.TemporaryDirectory() as src:
        archive = subprocess.run(
            ["git", "--git-dir", git_dir, "archive", commit, "exir/_serialize", "exir/tensor_layout.py",
             "exir/scalar_type.py", "extension/flat_tensor/serialize"],
            check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", src], input=archive, check=True)
        Serializer, DataEntry, DataPayload, TensorLayout, ScalarType = load_serializer(src)

        def entry(index, sizes):
            if sizes is None:
                return DataEntry(index, 1, None)
            return DataEntry(index, 16, TensorLayout(ScalarType.FLOAT, sizes, list(range(len(sizes)))))

        # Per fixture: (key, sizes) in the order of its named_data; one buffer each.
        fixtures = {
            "external.ptd": [("linear.weight", [3, 4]), ("linear.bias", [3]), ("state.cache", [2, 3])],
            "missing_name.ptd": [("linear.weight", [3, 4]), ("state.cache", [2, 3])],
            "wrong_size.ptd": [("linear.weight", [4, 4]), ("linear.bias", [3]), ("state.cache", [2, 3])],
            # A delegate's blob: no tensor layout, alignment 1 (as backends/aoti/aoti_backend.py adds it).
            "delegate_blob.ptd": [("5d41402abc4b2a76b9719d911017c592_weights_blob", None)],
        }
        failed = False
        for name, tensors in fixtures.items():
            buffers, named = [], {}
            for i, (key, sizes) in enumerate(tensors):
                numel = 16 if sizes is None else 1  # the blob: 16 floats, 64 bytes
                for d in sizes or []:
                    numel *= d
                buffers.append(floats(numel))
                named[key] = entry(i, sizes)
            written = bytes(Serializer().serialize(DataPayload(buffers=buffers, named_data=named)))
            with open(os.path.join(DATA, name), "rb") as f:
                ours = f.read()
            same = written == ours
            failed |= not same
            verdict = "identical" if same else "DIFFERS"
            print(f"{name}: {verdict} ({len(written)} bytes from upstream, {len(ours)} committed)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
