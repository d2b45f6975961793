"""`starc run/build/compile` with the SYCL backend: --block-size and where compiler output goes."""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

import starc
from starc.results import compare_results, parse_results

from hostbuild import GXX, TEST_DOUBLE

ROOT = pathlib.Path(__file__).resolve().parents[3]
SSSP = ROOT / "dsl" / "sssp.sp"
GRAPH = "0 1 4\n1 2 2\n2 0 7\n0 2 1\n2 3 3\n3 4 2\n4 1 5\n5 6 1\n"
pytestmark = pytest.mark.sycl

WARNING = "wrapper.cpp:1:1: warning: this compiler prints its warnings on stdout"


def run_cli(*args, cache: pathlib.Path):
    """`python -m starc ARGS` with its own build cache; returns the finished process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), STARC_CACHE_DIR=str(cache), OMP_NUM_THREADS="2")
    return subprocess.run([sys.executable, "-m", "starc", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=600)


@pytest.mark.parametrize("backend", ["sycl", "opencl", "cuda"])
@pytest.mark.parametrize("size", ["3", "0", "-8", "96", "2048"])
def test_block_size_not_a_power_of_two_is_a_usage_error(backend, size, tmp_path):
    """Checked before anything is built, for every backend: a clear message and exit 2."""
    proc = run_cli("run", SSSP, "-b", backend, "--graph", tmp_path / "none.el",
                   "--block-size", size, "--src", "0", cache=tmp_path / "cache")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == ("starc: error[E0601]: --block-size must be a power of two from 1 to 1024, "
                           f"got {size}\n")
    assert proc.stdout == ""


def test_block_size_help_documents_the_rule(tmp_path):
    proc = run_cli("run", "--help", cache=tmp_path)
    assert "a power of two from 1 to 1024" in " ".join(proc.stdout.split())


#: How each backend's generated program spells its default block size.
DEFAULT_BLOCK = {backend: "= starc_block_size(cl, {});" for backend in ("sycl", "cuda", "opencl")}


@pytest.mark.parametrize("backend, size, default", [
    ("sycl", None, "256"), ("sycl", "64", "64"), ("cuda", None, "256"), ("cuda", "64", "64"),
    ("opencl", None, "256"), ("opencl", "64", "64")])
def test_block_size_becomes_the_programs_default(backend, size, default, tmp_path):
    """What `starc run` builds and runs: the option is the program's default (SYCL without
    it: 256, fixed so that AdaptiveCpp compiles each kernel for one work-group size)."""
    args = ["--block-size", size] if size else []
    proc = run_cli("compile", SSSP, "-b", backend, "--emit", "code", *args, cache=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert DEFAULT_BLOCK[backend].format(default) in proc.stdout


@pytest.fixture
def noisy_compiler(tmp_path) -> pathlib.Path:
    """A "SYCL compiler" that prints a warning on stdout, then builds with g++ against the
    test double."""
    if GXX is None:
        pytest.skip("g++ not found")
    wrapper = tmp_path / "noisy-sycl"
    wrapper.write_text(f'#!/bin/sh\necho "{WARNING}"\n'
                       f'exec {GXX} -std=c++17 -fopenmp -I{TEST_DOUBLE} "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


def test_run_prints_only_results_on_stdout_and_honours_block_size(noisy_compiler, tmp_path):
    """The compiler's stdout goes to starc's stderr, so `starc run` stdout parses as results;
    --block-size 4 is built into the program (run it, on a graph whose 7 vertices are not
    a multiple of 4)."""
    graph = tmp_path / "g.el"
    graph.write_text(GRAPH)
    cache = tmp_path / "cache"
    proc = run_cli("run", SSSP, "-b", "sycl", "--sycl-compiler", noisy_compiler,
                   "--block-size", "4", "--graph", graph, "--src", "0", cache=cache)
    assert proc.returncode == 0, proc.stderr
    assert WARNING in proc.stderr
    assert WARNING not in proc.stdout
    expected = starc.compile(str(SSSP)).run(graph, src=0)
    assert compare_results(expected, parse_results(proc.stdout)) == []
    sources = list(cache.glob("*/sssp.cpp"))
    assert len(sources) == 1 and "starc_block_size(cl, 4);" in sources[0].read_text()


def test_build_passes_compiler_output_to_stderr(noisy_compiler, tmp_path):
    proc = run_cli("build", SSSP, "-b", "sycl", "--sycl-compiler", noisy_compiler,
                   "-o", tmp_path / "out", cache=tmp_path / "cache")
    assert proc.returncode == 0, proc.stderr
    assert WARNING in proc.stderr and WARNING not in proc.stdout
    assert proc.stdout.startswith("built sycl program in ")


#: a line of a results file: its header, or '<property> <vertex> <value>' / 'return <value>'
RESULT_LINE = re.compile(r"# starc results: .*|\w+ \d+ \S+|return \S+")


def test_a_first_run_on_adaptivecpp_prints_only_results_on_stdout(tmp_path):
    """Issue 33, item 4: AdaptiveCpp prints "[AdaptiveCpp Warning] kernel_cache: ..." on
    std::cout in a run that JIT-compiles kernels; the generated program sends the runtime's
    std::cout to stderr, so stdout holds the results alone. Run with an empty home, where
    AdaptiveCpp keeps its kernel cache, so this run compiles every kernel."""
    acpp = shutil.which("acpp")
    if acpp is None:
        pytest.skip("acpp (AdaptiveCpp) not on PATH: the real-toolchain check needs it; CI "
                    "builds SYCL with the test double only")
    graph = tmp_path / "g.el"
    graph.write_text(GRAPH)
    out = tmp_path / "out"
    proc = run_cli("build", SSSP, "-b", "sycl", "--sycl-compiler", acpp, "-o", out,
                   cache=tmp_path / "cache")
    assert proc.returncode == 0, proc.stderr
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env.update(HOME=str(home), OMP_NUM_THREADS="2")
    run = subprocess.run([str(out / "sssp"), str(graph), "--src", "0"], capture_output=True,
                         text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    assert list((home / ".acpp").rglob("*.jit")), "the kernels were cached before this run"
    lines = run.stdout.splitlines()
    assert lines[0].startswith("# starc results: Compute_SSSP backend=sycl")
    assert [line for line in lines if not RESULT_LINE.fullmatch(line)] == []
    expected = starc.compile(str(SSSP)).run(graph, src=0)
    assert compare_results(expected, parse_results(run.stdout)) == []
