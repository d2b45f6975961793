"""Start-up (issue 15, item 7): check and compile import neither numpy, scipy, Pygments,
Selenium, the graph readers nor the reference executor; Mako's compiled templates are cached
in the user's cache directory, never in the package, and only when it can be written."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

#: Modules a command that only compiles must not import (they cost most of start-up). The
#: email package and zipfile are what ``importlib.metadata`` loads, which Mako imports and
#: starc defers (``templating._defer_import``).
HEAVY = ("numpy", "scipy", "pygments", "selenium", "starc.graphs.readers", "starc.reference",
         "email", "zipfile")

# Modules the interpreter had before starc was imported (a site .pth file may import certifi
# and with it zipfile) are not starc's doing.
_PROBE = """\
import sys
before = set(sys.modules)
import starc.cli
status = starc.cli.main({argv!r})
heavy = {heavy!r}
print(sorted(m for m in set(sys.modules) - before
             if any(m == h or m.startswith(h + ".") for h in heavy)))
sys.exit(status)
"""


def _imported(argv, tmp_path, heavy=HEAVY):
    """The ``heavy`` modules imported while ``starc.cli.main(argv)`` ran, in a fresh process."""
    env = dict(os.environ, STARC_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, "-c", _PROBE.format(argv=argv, heavy=heavy)],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()[-1]


@pytest.mark.parametrize("argv", [
    ["check", "dsl/sssp.sp"],
    ["compile", "dsl/sssp.sp", "--emit", "code", "-b", "cuda"],
    ["compile", "dsl/pr.sp", "--emit", "plan"],
    ["compile", "dsl/bc.sp", "--emit", "code", "-b", "opencl"],
])
def test_compiling_imports_nothing_heavy(argv, tmp_path):
    assert _imported(argv, tmp_path) == "[]"


_DEFERRED = """\
import starc.cli, sys
starc.cli.main(["compile", "dsl/sssp.sp", "--emit", "code", "-b", "opencl"])
loaded_before = "email" in sys.modules
import importlib.metadata
from importlib import metadata
assert metadata is importlib.metadata is sys.modules["importlib.metadata"]
print(loaded_before, metadata.version("mako") == __import__("mako").__version__)
"""


def test_deferred_metadata_loads_on_first_use(tmp_path):
    """The deferred ``importlib.metadata`` is the real module to whoever uses it later."""
    env = dict(os.environ, STARC_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, "-c", _DEFERRED], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "False True"


def test_check_does_not_lower(tmp_path):
    """`starc check` stops after sema: the analysis passes and the plan are not imported."""
    assert _imported(["check", "dsl/bc.sp"], tmp_path, heavy=("starc.analysis",)) == "[]"


def test_the_probe_sees_heavy_imports(tmp_path):
    """The check above would notice: `starc graph info` reads a graph with numpy."""
    graph = tmp_path / "g.el"
    graph.write_text("0 1\n1 2\n")
    assert "'numpy'" in _imported(["graph", "info", str(graph)], tmp_path)


def _emit(tmp_path, cache) -> str:
    env = dict(os.environ, STARC_CACHE_DIR=str(cache))
    proc = subprocess.run([sys.executable, "-m", "starc", "compile", "dsl/sssp.sp", "-b", "cuda",
                           "--emit", "code"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return proc.stdout


def test_compiled_templates_are_cached_in_the_user_cache(tmp_path):
    cache = tmp_path / "cache"
    first = _emit(tmp_path, cache)
    modules = sorted(p.name for p in (cache / "mako").rglob("*.mako.py"))
    assert modules == ["device_helpers.mako.py", "prelude.cuh.mako.py", "program.cu.mako.py"]
    # The second run loads the cached modules and prints the same program.
    assert _emit(tmp_path, cache) == first
    package = ROOT / "starc" / "backends"
    assert not list(package.rglob("*.mako.py"))


def test_an_unwritable_cache_is_no_error(tmp_path):
    """Templates are then compiled in memory, with the same output."""
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert _emit(tmp_path, blocker / "cache") == _emit(tmp_path, tmp_path / "cache")


_PARALLEL = """
import pathlib
from concurrent.futures import ThreadPoolExecutor
from starc.diagnostics import DiagnosticSink
from starc.driver import compile_source

def internal_errors(path):
    sink = DiagnosticSink()
    compile_source(path.read_text(), str(path), sink, backend="cuda")
    return [d.message for d in sink.diagnostics if d.code == "E0901"]

with ThreadPoolExecutor(8) as pool:
    print([e for errors in pool.map(internal_errors, sorted(pathlib.Path("dsl").glob("*.sp")))
           for e in errors])
"""


def test_the_first_generations_may_run_in_parallel_threads(tmp_path):
    """Mako is first imported (without its Pygments plugin) by whichever thread generates
    first; eight at once must all succeed (the build fixtures generate in threads)."""
    env = dict(os.environ, STARC_CACHE_DIR=str(tmp_path))
    for _ in range(3):          # a fresh process each time: the import happens once per process
        out = subprocess.run([sys.executable, "-c", _PARALLEL], cwd=ROOT, env=env,
                             capture_output=True, text=True, check=True)
        assert out.stdout.strip() == "[]", out.stdout
