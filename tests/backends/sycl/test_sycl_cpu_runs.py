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
import subprocess

import pytest

from starc.diagnostics import DiagnosticSink
from starc.driver import compile_source

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
  sycl::queue q = starc_make_queue("default", "t.sp:1");
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
