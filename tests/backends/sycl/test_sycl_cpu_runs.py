"""SYCL launches on a CPU device claim runs of items (starc_sycl.hpp, ``starc_cpu_runs``).

AdaptiveCpp's OpenMP backend splits a launch's work-groups between its threads in contiguous
blocks; so does the SYCL host test double (``schedule(static)``), which lets these tests show
the difference: a launch whose heavy items all sit at the top of the range must still spread
them over the threads, and every item must run exactly once, launch after launch (the claim
counter is never reset).
"""

from __future__ import annotations

import os
import pathlib
import platform
import re
import shutil
import subprocess
import sys

import pytest

import starc
from starc.diagnostics import DiagnosticSink
from starc.driver import compile_source
from starc.results import compare_results, parse_results

from hostbuild import GXX, STRICT_FLAGS, TEST_DOUBLE

pytestmark = pytest.mark.sycl

ROOT = pathlib.Path(__file__).resolve().parents[3]

#: Launches over several counts (around the run length 64, and the empty launch) with a
#: reduction, then one whose last eighth of items is slow, recording each item's thread.
_PROGRAM = r"""
#include <unistd.h>
#include <omp.h>
#include <cstdio>
#include <vector>

#include "starc_runtime.hpp"
#include "starc_sycl.hpp"

using counter = sycl::atomic_ref<int, sycl::memory_order::relaxed, sycl::memory_scope::device,
                                 sycl::access::address_space::global_space>;

int main() {
  sycl::queue q = starc_make_queue("default");
  starc_warm_up(q, "t.sp:1");
  const std::size_t counts[] = {1, 63, 0, 64, 65, 1000, 4097};
  for (std::size_t count : counts) {
    int* hits = starc_malloc<int>(q, count, "hits", "t.sp:2");
    long long* sum = starc_malloc<long long>(q, 1, "sum", "t.sp:2");
    starc_fill<int>(q, hits, 0, count, "t.sp:2");
    starc_fill<long long>(q, sum, 0, 1, "t.sp:2");
    starc_parallel_for(q, "t.sp:3", count, 256, [=](int i, auto& total) {
      counter(hits[i]).fetch_add(1);
      total += i;
    }, starc_reduction(sum, sycl::plus<long long>()));
    std::vector<int> seen(count);
    starc_copy_to_host<int>(q, seen.data(), hits, count, "t.sp:4");
    long long total = starc_read_element(q, sum, 0, "t.sp:4");
    int once = 0;
    for (int h : seen) once += h == 1;
    std::printf("count %zu once %d sum %lld\n", count, once, total);
    starc_free(q, hits, "t.sp:5");
    starc_free(q, sum, "t.sp:5");
  }
  // a uniform kernel's launch: runs of STARC_UNIFORM_RUN_ITEMS, each claimed once
  const std::size_t uniform_counts[] = {1, 1023, 1024, 1025, 4097};
  for (std::size_t count : uniform_counts) {
    int* hits = starc_malloc<int>(q, count, "hits", "t.sp:2");
    starc_fill<int>(q, hits, 0, count, "t.sp:2");
    const unsigned long long before = starc_runs_of(q).issued;
    starc_parallel_for<STARC_UNIFORM_RUN_ITEMS>(q, "t.sp:3", count, 256, [=](int i) {
      counter(hits[i]).fetch_add(1);
    });
    std::vector<int> seen(count);
    starc_copy_to_host<int>(q, seen.data(), hits, count, "t.sp:4");
    int once = 0;
    for (int h : seen) once += h == 1;
    std::printf("uniform %zu once %d claims %llu groups %zu\n", count, once,
                starc_runs_of(q).issued - before, starc_runs_of(q).groups);
    starc_free(q, hits, "t.sp:5");
  }
  const int n = 64 * 64;
  int* thread_of = starc_malloc<int>(q, n, "thread_of", "t.sp:6");
  starc_parallel_for(q, "t.sp:7", n, 256, [=](int i) {
    if (i >= n - n / 8) usleep(200);  // the slow items, all at the top
    thread_of[i] = omp_get_thread_num();
  });
  std::vector<int> threads(n);
  starc_copy_to_host<int>(q, threads.data(), thread_of, n, "t.sp:8");
  std::vector<int> slow_on(omp_get_max_threads(), 0);
  for (int i = n - n / 8; i < n; ++i) slow_on[threads[i]]++;
  for (std::size_t t = 0; t < slow_on.size(); ++t) std::printf("slow %zu %d\n", t, slow_on[t]);
  starc_free(q, thread_of, "t.sp:9");
  starc_finish(q, "t.sp:9");
}
"""


@pytest.fixture(scope="module")
def runs_program(tmp_path_factory):
    if GXX is None:
        pytest.skip("g++ not found: the SYCL test double builds with it")
    outdir = tmp_path_factory.mktemp("cpu_runs")
    source = (ROOT / "dsl" / "tc.sp").read_text()
    sink = DiagnosticSink()
    comp = compile_source(source, "tc.sp", sink, backend="sycl")
    assert comp.generated is not None, [str(d) for d in sink.diagnostics]
    comp.generated.write(outdir)          # the runtime headers, next to the test's program
    (outdir / "runs.cpp").write_text(_PROGRAM)
    argv = [GXX, *STRICT_FLAGS, f"-I{TEST_DOUBLE}", f"-I{outdir}", "-o", str(outdir / "runs"),
            str(outdir / "runs.cpp")]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return outdir / "runs"


def _run(program: pathlib.Path, threads: int) -> str:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    proc = subprocess.run([str(program)], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("threads", [1, 4])
def test_every_item_runs_once_in_every_launch(runs_program, threads):
    lines = [line.split() for line in _run(runs_program, threads).splitlines()
             if line.startswith("count")]
    assert [(int(c), int(once), int(total)) for _, c, _, once, _, total in lines] == \
        [(c, c, c * (c - 1) // 2) for c in (1, 63, 0, 64, 65, 1000, 4097)]


def test_slow_items_at_the_top_are_shared_by_the_threads(runs_program):
    """With the double's static schedule, one work-item per item puts every slow item on the
    last thread; claimed runs let the first thread take some as soon as it is free."""
    slow = [int(line.split()[2]) for line in _run(runs_program, 2).splitlines()
            if line.startswith("slow")]
    assert len(slow) == 2 and sum(slow) == 64 * 64 // 8
    assert min(slow) >= 64, slow   # at least one run of 64 on each thread


@pytest.mark.parametrize("threads", [1, 4])
def test_a_uniform_kernel_claims_runs_of_1024(runs_program, threads):
    """A kernel whose items all do the same small work (the plan's uniform_items) claims runs
    of 1024: ceil(count / 1024) claims that find items plus one per work-group that finds
    none, and every item still runs exactly once (64-item runs took 16 times the claims)."""
    rows = [line.split() for line in _run(runs_program, threads).splitlines()
            if line.startswith("uniform")]
    found = [(int(r[1]), int(r[3]), int(r[5]), int(r[7])) for r in rows]
    expected = []
    for count, _, _, groups in found:
        runs = -(-count // 1024)
        expected.append((count, count, runs + min(groups, runs), groups))
    assert [f[0] for f in found] == [1, 1023, 1024, 1025, 4097] and found == expected
    assert found[-1][2] == 5 + min(found[-1][3], 5)


# --- on AdaptiveCpp's CPU target ------------------------------------------------------------

PR = ROOT / "dsl" / "pr.sp"
PR_ARGS = {"beta": 0.001, "delta": 0.85, "maxIter": 100}


@pytest.fixture(scope="module")
def pagerank_on_acpp(tmp_path_factory):
    """pr built with acpp and run once, with an empty kernel cache, on a graph of 5000
    vertices (the term kernel: 5 runs of 1024); the run's stdout and its JIT-compiled kernels."""
    acpp = shutil.which("acpp")
    if acpp is None:
        pytest.skip("acpp (AdaptiveCpp) not on PATH: the real-toolchain check needs it; CI "
                    "builds SYCL with the test double only")
    folder = tmp_path_factory.mktemp("pr_acpp")
    graph = folder / "g.el"
    n = 5000
    graph.write_text("".join(f"{v} {(v * 7 + k * 13 + k * k) % n}\n"
                             for v in range(n) for k in range(1 + v % 5)))
    env = dict(os.environ, PYTHONPATH=str(ROOT), STARC_CACHE_DIR=str(folder / "cache"))
    build = subprocess.run([sys.executable, "-m", "starc", "build", str(PR), "-b", "sycl",
                            "--sycl-compiler", acpp, "-o", str(folder / "out")],
                           capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
    assert build.returncode == 0, build.stderr
    home = folder / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env.update(HOME=str(home), OMP_NUM_THREADS="2")
    args = [a for name, value in PR_ARGS.items() for a in (f"--{name}", str(value))]
    run = subprocess.run([str(folder / "out" / "pr"), str(graph), *args], capture_output=True,
                         text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    return graph, run.stdout, sorted((home / ".acpp").rglob("*.jit"))


def test_pagerank_on_adaptivecpp_equals_the_reference(pagerank_on_acpp):
    graph, stdout, _ = pagerank_on_acpp
    expected = starc.compile(str(PR)).run(graph, **PR_ARGS)
    # the e2e matrix's tolerance for pr (tests/e2e/e2e_cases.py): AdaptiveCpp contracts
    # (1 - delta) / n + delta * sum into one fused multiply-add, an ulp from the reference
    assert compare_results(expected, parse_results(stdout), rtol=1e-4, atol=1e-6) == []


def test_adaptivecpp_vectorises_the_uniform_term_kernel(pagerank_on_acpp):
    """The per-vertex term kernel's item loop, an int counter, is vectorised by AdaptiveCpp's
    JIT (a packed division): with the size_t counter cast to int it was scalar, and pr took
    1.2-1.5x OpenCL's time on PoCL (bench/RESULTS.md)."""
    objdump = shutil.which("objdump")
    if platform.machine() != "x86_64" or objdump is None:
        pytest.skip("reads x86-64 code with objdump: not this machine")
    if " avx2" not in pathlib.Path("/proc/cpuinfo").read_text():
        pytest.skip("the term kernel's conditional store needs AVX2's masked stores to vectorise")
    _, _, jitted = pagerank_on_acpp
    code = {}
    for binary in jitted:
        text = subprocess.run([objdump, "-d", "--no-show-raw-insn", str(binary)],
                              capture_output=True, text=True, check=True).stdout
        if "pageRank_term" in text:
            code[binary.name] = text
    assert len(code) == 1, sorted(code)
    [text] = code.values()
    assert re.search(r"\bv?divps\b", text), text
