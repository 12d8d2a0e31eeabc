"""`cmake --install` puts the package where the system python3 finds it under a prefix: its
lib/python3.X/dist-packages (on Debian's sys.path for /usr/local and /usr)."""

import os
import subprocess
import sys

import pytest


def test_install_imports_from_prefix(tmp_path):
    build, cmake = os.environ.get("ETSCOPE_BINARY_DIR"), os.environ.get("CMAKE_COMMAND")
    if not build or not cmake:
        pytest.skip("run by ctest (needs ETSCOPE_BINARY_DIR and CMAKE_COMMAND)")
    subprocess.run([cmake, "--install", build, "--prefix", str(tmp_path), "--component", "python"], check=True,
                   capture_output=True)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = tmp_path / "lib" / version / "dist-packages"
    assert (site / "etscope" / "__init__.py").exists()
    # Debian's python3 searches <prefix>/lib/python3.X/dist-packages for /usr/local and /usr
    if sys.executable == "/usr/bin/python3":
        paths = subprocess.run([sys.executable, "-c", "import sys; print(sys.path)"], capture_output=True,
                               text=True, env={}).stdout
        assert f"/usr/local/lib/{version}/dist-packages" in paths and f"/usr/lib/{version}/dist-packages" in paths
    out = subprocess.run(
        [sys.executable, "-c", "import etscope; print(etscope.__version__, etscope.__file__)"],
        capture_output=True, text=True, cwd=tmp_path, env={"PYTHONPATH": str(site)},
    )
    assert out.returncode == 0, out.stderr
    assert str(site) in out.stdout
