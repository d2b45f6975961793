"""The --time contract on every backend: one ``starc-time`` line, the algorithm's span only.

Two builds per backend (CI time: a build is 5-15 s, a run milliseconds): tc.sp serves the
time-line, trials and trial-count checks, DEGREES the large graph's; both through the build
cache, which pytest-xdist's workers share, so a program is compiled once per run."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import time

import numpy as np
import pytest

import starc
from starc import runner
from starc.diagnostics import DiagnosticSink
from starc.graphs import load_graph

from e2e_cases import compile_for

DSL = pathlib.Path(__file__).resolve().parents[2] / "dsl"
TIME_LINE = re.compile(r"^starc-time (\d+\.\d+)$", re.M)

# Runnable backends, each with its strict marker (CUDA is compile-only without a GPU: below).
BACKENDS = [pytest.param("opencl", None, marks=pytest.mark.opencl, id="opencl"),
            pytest.param("sycl", None, marks=pytest.mark.sycl, id="sycl"),
            pytest.param("openacc", None, marks=pytest.mark.openacc, id="openacc"),
            pytest.param("mpi", 2, marks=pytest.mark.mpi, id="mpi-2")]

# The cheapest algorithm there is: one pass over the vertices. On a graph of millions of edges
# reading the file costs far more, and it lies outside the timed span.
DEGREES = """
function Degrees(Graph g, propNode<int> degree) {
    forall (v in g.nodes()) {
        v.degree = g.count_outNbrs(v);
    }
}
"""
LARGE_NODES, LARGE_EDGES = 200_000, 2_000_000


def program_argv(source: str, backend: str, ranks):
    """The command line that runs ``source`` built for ``backend`` (the launcher included),
    built once through the build cache."""
    program = compile_for(source, backend, ranks)
    sink = DiagnosticSink()
    built = runner.build(program.compilation, sink, program.options)
    assert built is not None, [str(d) for d in sink.errors]
    return program.launcher + built.argv_prefix


def run_timed(argv, tmp_path: pathlib.Path):
    """(printed seconds, wall seconds of the process, stdout): exactly one time line."""
    started = time.perf_counter()
    proc = subprocess.run(argv + ["--time"], capture_output=True, text=True, timeout=600,
                          stdin=subprocess.DEVNULL, cwd=tmp_path,
                          env={**os.environ, "TMPDIR": str(tmp_path)})  # MPI: see runner
    wall = time.perf_counter() - started
    assert proc.returncode == 0, proc.stderr
    times = TIME_LINE.findall(proc.stderr)
    assert len(times) == 1, f"expected one starc-time line, got:\n{proc.stderr}"
    assert proc.stderr.count("starc-time") == 1, proc.stderr
    # a Dynamic program's alone
    assert "starc-update-time" not in proc.stderr and "starc-batch-time" not in proc.stderr, \
        proc.stderr
    return float(times[0]), wall, proc.stdout


@pytest.fixture(scope="module")
def large_graph(tmp_path_factory):
    """A uniform random directed graph of 2M edges as a text edge list."""
    rng = np.random.default_rng(15)
    src = rng.integers(0, LARGE_NODES, LARGE_EDGES)
    dst = rng.integers(0, LARGE_NODES, LARGE_EDGES)
    path = tmp_path_factory.mktemp("large") / "large.el"
    np.savetxt(path, np.column_stack([src, dst]), fmt="%d")
    return path


# K4 (4 triangles) with a tail, so a degree ordering really renumbers the vertices.
K4_WITH_TAIL = "0 1\n0 2\n0 3\n1 2\n1 3\n2 3\n3 4\n4 5\n"


@pytest.mark.parametrize("backend, ranks", BACKENDS)
def test_time_is_printed_once_and_within_the_process_wall_time(backend, ranks, tmp_path):
    graph = tmp_path / "g.el"
    graph.write_text(K4_WITH_TAIL)
    argv = program_argv(str(DSL / "tc.sp"), backend, ranks)
    seconds, wall, out = run_timed(argv + [str(graph), "--undirected"], tmp_path)
    assert 0 <= seconds <= wall
    assert "return 4" in out.splitlines()       # by hand: K4's four triangles


@pytest.mark.parametrize("backend, ranks", BACKENDS)
def test_reading_a_large_graph_is_outside_the_time(backend, ranks, large_graph, tmp_path):
    argv = program_argv(DEGREES, backend, ranks)
    seconds, wall, out = run_timed(argv + [str(large_graph)], tmp_path)
    # Reading 2M edges takes most of the run; one pass over 200k vertices takes a sliver.
    assert seconds < 0.25 * wall, f"starc-time {seconds:.3f} s of a {wall:.3f} s run"
    got = {int(v): int(d) for name, v, d in (line.split() for line in out.splitlines()
                                             if line.startswith("degree "))}
    want = np.diff(load_graph(str(large_graph)).offsets)
    assert [got[v] for v in range(len(want))] == want.tolist()


@pytest.mark.cuda
def test_cuda_times_the_algorithm_only(tmp_path):
    """Compile-only where there is no GPU: the generated program builds with nvcc, and its
    timed span holds neither the graph's upload nor the loading of kernels."""
    from starc.backends import get_backend
    program = starc.compile(str(DSL / "sssp.sp"), "cuda")
    text = program.compilation.generated.files["sssp.cu"]
    before, rest = text.split("starc_timer.start();")
    timed = rest.split("starc_timer.stop();")[0]
    for step in ("read_graph(", "starc_cuda_context(", "cudaMemcpy(d_offsets",
                 "cudaMemcpy(d_targets", "cudaMemcpy(d_weight", "starc_load_kernels("):
        assert step in before and step not in timed, step
    assert timed.count("cudaMemcpyDeviceToHost") == 1           # the result, then the clock
    assert text.count("starc::report_time(") == 1
    if not get_backend("cuda").availability().can_build:
        pytest.skip("nvcc not found: the CUDA program is not compiled")
    sink = DiagnosticSink()
    assert runner.build(program.compilation, sink, program.options,
                        outdir=str(tmp_path / "cuda")) is not None, sink.errors


# How each device backend allocates a device array (OpenACC: a host array and its device copy).
DEVICE_ALLOCATIONS = {"cuda": "cudaMalloc(", "sycl": "starc_malloc<", "opencl": "starc_malloc<",
                      "openacc": "enter data create("}


@pytest.mark.parametrize("backend", sorted(DEVICE_ALLOCATIONS))
def test_no_device_allocation_inside_the_clock(backend):
    """Issue 29, item 3: a device allocation may synchronise the device and costs more than a
    small frontier's work, so every dsl program allocates its arrays before the clock starts
    (and frees them after it stops)."""
    for source in sorted(DSL.glob("*.sp")):
        program = starc.compile(str(source), backend)
        texts = [t for t in program.compilation.generated.files.values()
                 if "starc_timer.start();" in t]
        assert texts, source.name
        for text in texts:
            before, rest = text.split("starc_timer.start();")
            timed, after = rest.split("starc_timer.stop();")
            assert DEVICE_ALLOCATIONS[backend] not in timed, (source.name, backend)


def run_trials(argv, tmp_path: pathlib.Path, trials: int):
    """(every printed time, stdout) of one process that runs ``trials`` trials."""
    proc = subprocess.run(argv + ["--time", "--trials", str(trials)], capture_output=True,
                          text=True, timeout=600, stdin=subprocess.DEVNULL, cwd=tmp_path,
                          env={**os.environ, "TMPDIR": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    return [float(t) for t in TIME_LINE.findall(proc.stderr)], proc.stdout


@pytest.mark.parametrize("backend, ranks", BACKENDS)
def test_trials_time_every_run_and_keep_one_runs_results(backend, ranks, tmp_path):
    """--trials 3 (GAPBS's -n): three time lines from one process and the results of one run,
    so every trial starts afresh: the returned count and the graph's degree ordering (done
    inside the timed span, on the graph the previous trial renumbered)."""
    graph = tmp_path / "g.el"
    graph.write_text(K4_WITH_TAIL)
    argv = program_argv(str(DSL / "tc.sp"), backend, ranks)
    argv += [str(graph), "--undirected", "--degree-order", "always"]
    one, once = run_trials(argv, tmp_path, 1)
    three, thrice = run_trials(argv, tmp_path, 3)
    assert len(one) == 1 and len(three) == 3 and all(t >= 0 for t in three)
    assert thrice == once and "return 4" in thrice.splitlines()


def test_reference_runs_trials_too(tmp_path, capfd):
    from starc.cli import main
    graph = tmp_path / "g.el"
    graph.write_text(K4_WITH_TAIL)
    assert main(["run", str(DSL / "tc.sp"), "-b", "reference", "--graph", str(graph),
                 "--undirected", "--time", "--trials", "2"]) == 0
    out, err = capfd.readouterr()
    assert len(TIME_LINE.findall(err)) == 2 and "return 4" in out.splitlines()


@pytest.mark.parametrize("bad", ["0", "-1", "two"])
def test_trials_must_be_a_positive_count(bad, tmp_path, capfd):
    from starc.cli import main
    graph = tmp_path / "g.el"
    graph.write_text(K4_WITH_TAIL)
    assert main(["run", str(DSL / "tc.sp"), "-b", "reference", "--graph", str(graph),
                 f"--trials={bad}"]) == 2
    assert f"--trials: expected a whole number of runs, 1 or more, got '{bad}'" \
        in capfd.readouterr().err


@pytest.mark.parametrize("backend, ranks", BACKENDS)
def test_a_generated_program_refuses_a_bad_trial_count(backend, ranks, tmp_path):
    graph = tmp_path / "g.el"
    graph.write_text(K4_WITH_TAIL)
    argv = program_argv(str(DSL / "tc.sp"), backend, ranks) + [str(graph)]
    proc = subprocess.run(argv + ["--trials", "0"], capture_output=True, text=True,
                          timeout=600, stdin=subprocess.DEVNULL, cwd=tmp_path,
                          env={**os.environ, "TMPDIR": str(tmp_path)})
    assert proc.returncode == 2
    assert "--trials expects an integer 1..2147483647, got '0'" in proc.stderr
