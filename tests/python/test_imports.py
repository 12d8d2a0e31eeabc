"""The package has no import cycle: every submodule of etscope imports on its own, first, in a fresh
interpreter, and no module imports (at the top or inside a function) a module that imports it back.

How a cycle makes this fail. Say _a does `from ._b import f` at the top and _b does
`from ._a import g`. Whichever of the two runs first stops inside its own import line, half made,
while the other one asks it for a name it has not defined yet: ImportError "cannot import name 'g'
from partially initialized module 'etscope._a' (most likely due to a circular import)". A normal
`import etscope._b` runs etscope/__init__.py first, which imports its modules in one fixed order, so
a cycle is entered from one side only and may pass by luck; here each submodule is imported in a
fresh interpreter under a bare `etscope` package (its __init__ not run), first of all, and then
every other one, so every member of a cycle is once the one entered first.

Some cycles import anyway (`from . import _a`, or an import inside a function, runs when the module
is complete) and break only later, on a first call or after a reorder: the static check below reads
every import statement of every module and fails on any cycle, late imports included.

The truth is the package's folder (its .py files and the compiled _native), read here, not any list
the package keeps."""

import ast
import importlib.util
import os
import pkgutil
import subprocess
import sys

import pytest

# Found, not imported: a cycle must fail the tests below, not this file's collection.
PACKAGE_DIR = importlib.util.find_spec("etscope").submodule_search_locations[0]
SUBMODULES = sorted(m.name for m in pkgutil.iter_modules([PACKAGE_DIR]))

# Run in a fresh interpreter: a bare package object stands for etscope (so __init__.py runs
# nothing first), then argv[2] is imported before any other submodule, then all the others.
_FIRST_THEN_ALL = """
import importlib, sys, types
package_dir, first, others = sys.argv[1], sys.argv[2], sys.argv[3:]
package = types.ModuleType("etscope")
package.__path__ = [package_dir]
sys.modules["etscope"] = package
importlib.import_module("etscope." + first)
for name in others:
    importlib.import_module("etscope." + name)
"""


def _python(*args):
    env = dict(os.environ, PYTHONPATH=os.path.dirname(PACKAGE_DIR))
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env)


def test_the_package_folder_has_the_modules_we_expect():
    # Guards the test itself: an empty or wrong folder would make every check below pass.
    assert "_native" in SUBMODULES and "_inspector" in SUBMODULES and "_process" in SUBMODULES
    assert len(SUBMODULES) >= 10


@pytest.mark.parametrize("first", SUBMODULES)
def test_each_submodule_imports_first_in_a_fresh_interpreter(first):
    others = [m for m in SUBMODULES if m != first]
    p = _python("-c", _FIRST_THEN_ALL, PACKAGE_DIR, first, *others)
    assert p.returncode == 0, f"importing etscope.{first} first failed:\n{p.stderr}"


def test_the_package_imports_in_a_fresh_interpreter():
    p = _python("-c", "import etscope; print(sorted(etscope.__all__))")
    assert p.returncode == 0, p.stderr
    assert "Inspector" in p.stdout


def _package_imports(path, name):
    """The modules of etscope `name` imports anywhere in its source ("__init__" for the package
    itself, which `from . import Inspector` or `import etscope` run)."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    found = set()

    def package_names(names):  # from . import _x, Inspector
        found.update(a.name if a.name in SUBMODULES else "__init__" for a in names)

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            parts = (node.module or "").split(".")
            if node.level == 1 and node.module:  # from ._x import y
                found.add(parts[0])
            elif node.level == 1:  # from . import _x
                package_names(node.names)
            elif parts[0] == "etscope" and len(parts) > 1:  # from etscope._x import y
                found.add(parts[1])
            elif parts[0] == "etscope":  # from etscope import _x
                package_names(node.names)
        elif isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == "etscope":
                    found.add(parts[1] if len(parts) > 1 else "__init__")
    return found - {name}


def _cycle(graph):
    """One cycle of the graph as a list of modules, or None (depth-first search)."""
    state, stack = {}, []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == "open":
                return stack[stack.index(n):] + [n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        stack.pop()
        state[m] = "done"
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_no_module_imports_one_that_imports_it_back_even_late():
    graph = {}
    for m in ["__init__"] + SUBMODULES:
        path = os.path.join(PACKAGE_DIR, m + ".py")
        if os.path.exists(path):  # _native is compiled: it imports nothing of the package
            graph[m] = _package_imports(path, m)
    # the reader sees imports of each form at all
    assert graph["_inspector"] >= {"_native", "_process", "_units", "_extras"}
    assert graph["__init__"] >= {"_native", "_inspector"}
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]  # and the search finds one
    cycle = _cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)
