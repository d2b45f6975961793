"""CUDA builds: every program compiles with nvcc (warnings as errors): the dsl programs for
sm_75 and sm_90 and with both kernel schedules (auto's edges and binned kernels, --schedule
vertex), the focused test programs and dsl/dynamic's with sm_75; the built host rejects bad
input before touching the GPU; with a GPU, results match the reference.

CI time: an nvcc build is ~15 s (most of it the host compiler at -O3), so the dsl programs x
archs x schedules product is covered pairwise (tests/pairwise.py): every program is built for
both archs and with both schedules, and both schedules are built for both archs (16 builds
where the full product is 32). Builds go through starc's build cache (``runner.build``, shared
by the xdist workers, tests/nvcc_builds.py), so the one sssp build the host-side tests run is
built once, and so are dyn_sssp's and dyn_tc's, which tests/e2e's CUDA checks run or read.
"""

from __future__ import annotations

import os
import pathlib
import subprocess

import pytest

import starc
from cuda_helpers import compile_path, dsl_sources, dynamic_sources, extra_sources
from nvcc_builds import cuda_build
from pairwise import all_pairs
from starc.backends.base import BackendError, BackendOptions
from starc.backends.cuda.emitter import CUDABackend
from starc.results import compare_results
from starc.toolchains import nvidia_gpus

pytestmark = pytest.mark.cuda

ARCHS = ("sm_75", "sm_90")
SCHEDULES = (None, "vertex")      # None: auto (edges and binned kernels where a loop allows)
# The dsl programs x ARCHS x SCHEDULES pairwise (see the docstring); the focused test
# programs and dsl/dynamic's with sm_75 and auto.
BUILDS = all_pairs(dsl_sources(), ARCHS, SCHEDULES) + \
    [(path, "sm_75", None) for path in extra_sources() + dynamic_sources()]
assert {(p, a) for p, a, _ in BUILDS} >= {(p, a) for p in dsl_sources() for a in ARCHS}
assert {(p, s) for p, _, s in BUILDS} >= {(p, s) for p in dsl_sources() for s in SCHEDULES}
# The one build the host-side tests run: sssp for sm_75 (whichever schedule the pairs give it).
SSSP = next(case for case in BUILDS if case[0].stem == "sssp" and case[1] == "sm_75")

# Parameters of each dsl program on the small test graph (vertex ids < 7).
PARAMS = {"sssp": {"src": "0"}, "sswp": {"src": "0"}, "bfs": {"src": "0"}, "cc": {},
          "tc": {}, "kcore": {"k": "2"}, "bc": {"sourceSet": "0,1,3"},
          "pr": {"beta": "0.0001", "delta": "0.85", "maxIter": "50"}}
UNDIRECTED = {"tc", "kcore"}
TOLERANCE = {"pr": (1e-4, 1e-6), "bc": (1e-4, 1e-4)}

WEIGHTED_EDGES = """\
# a small weighted graph: a cycle, a chord, a self-loop, a duplicate edge, isolated vertex 6
0 1 4
1 2 1
2 3 2
3 0 7
0 2 5
2 2 3
1 2 1
3 4 1
4 5 2
5 3 1
"""


def _build(path: pathlib.Path, arch: str, schedule=None):
    """The program at ``path`` built for ``arch`` (with ``schedule`` forced) through starc's
    build cache (tests/nvcc_builds.py: the e2e tests that build dsl/dynamic's programs for
    sm_75 reuse these builds); the ``BuiltProgram``, or the ``BackendError`` nvcc's log
    makes."""
    return cuda_build(path, arch, schedule)


def _case_id(case) -> str:
    path, arch, schedule = case
    return f"{path.stem}-{arch}-{schedule or 'auto'}"


@pytest.mark.parametrize("path, arch, schedule", BUILDS, ids=[_case_id(c) for c in BUILDS])
def test_compiles_with_warnings_as_errors(path, arch, schedule):
    built = _build(path, arch, schedule)
    assert not isinstance(built, BackendError), str(built)
    executable = pathlib.Path(built.argv_prefix[0])
    assert executable.name == path.stem and os.access(executable, os.X_OK)
    assert not list(built.directory.glob("*.partial")) and not list(built.directory.glob("*.tmp"))


@pytest.fixture(scope="module")
def builds():
    """The sssp build the host-side tests run (sm_75), by (name, arch) as _run looks it up."""
    built = _build(*SSSP)
    return {("sssp", "sm_75"): built}


def test_compiler_errors_raise_with_the_log(tmp_path):
    generated = compile_path(dsl_sources()[0]).generated
    broken = dict(generated.files)
    broken[generated.main] += "\nthis is not C++;\n"
    generated = type(generated)(generated.backend, generated.function, broken, generated.main,
                                generated.build_hint)
    with pytest.raises(BackendError) as raised:
        CUDABackend().build(generated, tmp_path, BackendOptions())
    message = str(raised.value)
    assert message.startswith(f"nvcc failed to build {generated.main}:")
    assert "nvcc -O3 -std=c++17 -arch=sm_75 -Xcompiler -fwrapv,-fopenmp -Werror all-warnings" in message
    assert "error" in message.split("\n", 2)[2]
    assert not (tmp_path / pathlib.Path(generated.main).stem).exists()


@pytest.fixture(scope="module")
def graphs(tmp_path_factory):
    root = tmp_path_factory.mktemp("cuda-graphs")
    weighted = root / "weighted.el"
    weighted.write_text(WEIGHTED_EDGES)
    plain = root / "plain.el"
    plain.write_text("".join(" ".join(line.split()[:2]) + "\n"
                             for line in WEIGHTED_EDGES.splitlines() if not line.startswith("#")))
    return {"weighted": weighted, "plain": plain}


def _run(builds, name, *args):
    built = builds[(name, "sm_75")]
    assert not isinstance(built, BackendError), str(built)
    return subprocess.run(built.argv_prefix + [str(a) for a in args], capture_output=True,
                          text=True, timeout=120)


# Each bad input, the exit status and the message it gets: all fed to the one sssp build.
BAD_INPUTS = [
    ((), 2, "missing GRAPH_FILE"),
    (("{weighted}",), 2, "missing required option --src"),
    (("{weighted}", "--src", "9"), 2, "--src expects a node id (0.."),
    (("{weighted}", "--src", "0", "--block-size", "0"), 2, "--block-size expects"),
    (("{weighted}", "--src", "0", "--sorce", "1"), 2, "unknown option '--sorce'"),
    (("{plain}", "--src", "0"), 1, "the program reads edge weights (propEdge<int> weight)"),
    (("missing.el", "--src", "0"), 1, "missing.el"),
]


def test_bad_input_is_rejected_before_the_gpu(builds, graphs):
    problems = []
    for args, status, message in BAD_INPUTS:
        args = [a.format(**graphs) for a in args]
        proc = _run(builds, "sssp", *args)
        if proc.returncode != status or message not in proc.stderr or proc.stdout != "":
            problems.append(f"{args}: exit {proc.returncode} (want {status}), want "
                            f"{message!r} in stderr {proc.stderr!r}, stdout {proc.stdout!r}")
    assert not problems, "\n".join(problems)


def test_help_lists_the_parameters(builds):
    proc = _run(builds, "sssp", "--help")
    assert proc.returncode == 0
    assert "--src NODE" in proc.stdout and "Compute_SSSP" in proc.stdout


def test_a_machine_without_a_gpu_is_no_internal_error(builds, graphs):
    """Status 1 and what is missing, as `starc run` says for a backend that cannot run here;
    status 3 would ask the user to report a bug in starc."""
    if nvidia_gpus():
        pytest.skip("this machine has a GPU: the CUDA context is created")
    proc = _run(builds, "sssp", graphs["weighted"], "--src", "0")
    assert proc.returncode == 1
    assert proc.stderr.startswith("sssp: error: no usable CUDA device here: "), proc.stderr


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(PARAMS))
def test_results_match_the_reference(name, graphs):
    path = str(next(p for p in dsl_sources() if p.stem == name))
    graph = graphs["weighted"]
    undirected = name in UNDIRECTED
    expected = starc.compile(path, "reference").run(graph, undirected=undirected, **PARAMS[name])
    actual = starc.compile(path, "cuda").run(graph, undirected=undirected, **PARAMS[name])
    rtol, atol = TOLERANCE.get(name, (0.0, 0.0))
    problems = compare_results(expected, actual, rtol=rtol, atol=atol)
    assert not problems, "\n".join(problems)
