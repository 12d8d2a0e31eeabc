"""Paths for the Python package's tests. ctest sets ETSCOPE_SHARED_DIR (fixtures),
ETSCOPE_TEST_DATA_DIR, ETSCOPE_SOURCE_DIR and ETSCOPE_CLI, and PYTHONPATH to the build's
app/python; run by hand the same way:

    PYTHONPATH=build/app/python ETSCOPE_CLI=build/app/cli/etscope-cli /usr/bin/python3 -m pytest tests/python
"""

import os
import subprocess
import warnings

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("ETSCOPE_SOURCE_DIR", os.path.normpath(os.path.join(HERE, "..", "..")))
TEST_DATA = os.environ.get("ETSCOPE_TEST_DATA_DIR", os.path.join(SOURCE_DIR, "tests", "data"))


def _shared_dir():
    d = os.environ.get("ETSCOPE_SHARED_DIR")
    if d:
        return d
    beside = os.path.normpath(os.path.join(SOURCE_DIR, "..", "shared"))
    return beside if os.path.isdir(os.path.join(beside, "fixtures")) else os.path.join(TEST_DATA, "shared")


SHARED = _shared_dir()
CLI = os.environ.get("ETSCOPE_CLI", os.path.join(SOURCE_DIR, "build", "app", "cli", "etscope-cli"))


def fixture(rel):
    return os.path.join(SHARED, "fixtures", rel)


def data(rel):
    return os.path.join(TEST_DATA, rel)


def sample(rel):
    return os.path.join(SOURCE_DIR, "resources", "samples", rel)


def cli(*args, check=True):
    """Runs etscope-cli; returns stdout as text."""
    p = subprocess.run([CLI, *args], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"etscope-cli {' '.join(args)} failed: {p.stderr}")
    return p.stdout


@pytest.fixture(autouse=True)
def _quiet_missing_buffer_warning():
    # Upstream warns when no debug buffer is given; most tests do not care.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Output Buffer not found")
        yield
