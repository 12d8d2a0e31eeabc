"""`cmake --install` puts the package where the system python3 finds it under a prefix: for /usr
(the .deb) lib/python3/dist-packages, the one folder on sys.path of Debian's python3 3.11 and 3.13
alike; for any other prefix (/usr/local) lib/python3.X/dist-packages."""

import os
import subprocess
import sys

import pytest


def _install(prefix):
    build, cmake = os.environ.get("ETSCOPE_BINARY_DIR"), os.environ.get("CMAKE_COMMAND")
    if not build or not cmake:
        pytest.skip("run by ctest (needs ETSCOPE_BINARY_DIR and CMAKE_COMMAND)")
    subprocess.run([cmake, "--install", build, "--prefix", str(prefix), "--component", "python"], check=True,
                   capture_output=True)


def _debian_sys_path():
    # Debian's own interpreter with an empty environment: the folders it searches by itself
    return subprocess.run(["/usr/bin/python3", "-c", "import sys; print(sys.path)"], capture_output=True, text=True,
                          env={}).stdout


def _imports_from(site):
    out = subprocess.run(
        [sys.executable, "-c", "import etscope; print(etscope.__version__, etscope.__file__)"],
        capture_output=True, text=True, cwd=site.parent, env={"PYTHONPATH": str(site)},
    )
    assert out.returncode == 0, out.stderr
    assert str(site) in out.stdout


@pytest.mark.parametrize("under", ["usr/local", "usr"])
def test_install_imports_from_prefix(tmp_path, under):
    prefix = tmp_path / under
    _install(prefix)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    folder = f"lib/{version}/dist-packages" if under == "usr/local" else "lib/python3/dist-packages"
    site = prefix / folder
    assert (site / "etscope" / "__init__.py").exists(), sorted(str(p) for p in prefix.rglob("__init__.py"))
    if sys.executable == "/usr/bin/python3" and os.path.exists("/etc/debian_version"):
        assert f"/{under}/{folder}" in _debian_sys_path()
    _imports_from(site)
