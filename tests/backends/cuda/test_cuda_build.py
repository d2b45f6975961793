"""CUDA builds: every program compiles with nvcc (sm_75 and sm_90, warnings as errors; the
focused test programs and dsl/dynamic's with sm_75); the
built host rejects bad input before touching the GPU; with a GPU, results match the reference."""

from __future__ import annotations

import concurrent.futures
import os
import pathlib
import subprocess

import pytest

import starc
from cuda_helpers import compile_path, dsl_sources, dynamic_sources, extra_sources
from starc.backends.base import BackendError, BackendOptions
from starc.backends.cuda.emitter import CUDABackend
from starc.results import compare_results
from starc.toolchains import nvidia_gpus

pytestmark = pytest.mark.cuda

ARCHS = ("sm_75", "sm_90")
# Every dsl program for both architectures; the focused test programs for one.
BUILDS = [(path, arch) for path in dsl_sources() for arch in ARCHS] + \
    [(path, "sm_75") for path in extra_sources() + dynamic_sources()]

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


def _build_one(path: pathlib.Path, arch: str, root: pathlib.Path, schedule=None):
    outdir = root / f"{path.stem}-{arch}-{schedule or 'auto'}"
    try:
        return CUDABackend().build(compile_path(path, schedule).generated, outdir,
                                   BackendOptions(extra={"gpu_arch": arch}))
    except BackendError as error:
        return error


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """Every build, run in parallel threads (nvcc is slow and mostly single-threaded)."""
    root = tmp_path_factory.mktemp("cuda-builds")
    workers = max(8, 2 * (os.cpu_count() or 1))  # nvcc waits on I/O as much as it computes
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {(path.stem, arch): pool.submit(_build_one, path, arch, root)
                   for path, arch in BUILDS}
        return {key: future.result() for key, future in futures.items()}


@pytest.mark.parametrize("name, arch", [(p.stem, a) for p, a in BUILDS],
                         ids=[f"{p.stem}-{a}" for p, a in BUILDS])
def test_compiles_with_warnings_as_errors(builds, name, arch):
    built = builds[(name, arch)]
    assert not isinstance(built, BackendError), str(built)
    executable = pathlib.Path(built.argv_prefix[0])
    assert executable.name == name and os.access(executable, os.X_OK)
    assert not list(built.directory.glob("*.partial")) and not list(built.directory.glob("*.tmp"))


@pytest.fixture(scope="module")
def vertex_builds(tmp_path_factory):
    """Every dsl program with one thread per vertex forced (auto prints edges and binned
    kernels where a loop allows them), for sm_75."""
    root = tmp_path_factory.mktemp("cuda-vertex-builds")
    workers = max(8, 2 * (os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {path.stem: pool.submit(_build_one, path, "sm_75", root, "vertex")
                   for path in dsl_sources()}
        return {key: future.result() for key, future in futures.items()}


@pytest.mark.parametrize("name", [p.stem for p in dsl_sources()])
def test_compiles_with_every_schedule(builds, vertex_builds, name):
    """Both forms of every kernel build: auto's (edges, binned) and --schedule vertex."""
    for built in (builds[(name, "sm_75")], vertex_builds[name]):
        assert not isinstance(built, BackendError), str(built)
        assert os.access(pathlib.Path(built.argv_prefix[0]), os.X_OK)


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
    assert "nvcc -O3 -std=c++17 -arch=sm_75 -Xcompiler -fwrapv -Werror all-warnings" in message
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


@pytest.mark.parametrize("args, status, message", [
    ((), 2, "missing GRAPH_FILE"),
    (("{weighted}",), 2, "missing required option --src"),
    (("{weighted}", "--src", "9"), 2, "--src: node id 9 is out of range"),
    (("{weighted}", "--src", "0", "--block-size", "0"), 2, "--block-size expects"),
    (("{weighted}", "--src", "0", "--sorce", "1"), 2, "unknown option '--sorce'"),
    (("{plain}", "--src", "0"), 1, "the program reads edge weights (propEdge<int> weight)"),
    (("missing.el", "--src", "0"), 1, "missing.el"),
])
def test_bad_input_is_rejected_before_the_gpu(builds, graphs, args, status, message):
    args = [a.format(**graphs) for a in args]
    proc = _run(builds, "sssp", *args)
    assert proc.returncode == status, proc.stderr
    assert message in proc.stderr
    assert proc.stdout == ""


def test_help_lists_the_parameters(builds):
    proc = _run(builds, "sssp", "--help")
    assert proc.returncode == 0
    assert "--src NODE" in proc.stdout and "Compute_SSSP" in proc.stdout


def test_cuda_failure_names_the_call_and_the_dsl_line(builds, graphs):
    if nvidia_gpus():
        pytest.skip("this machine has a GPU: the first CUDA call succeeds")
    proc = _run(builds, "sssp", graphs["weighted"], "--src", "0")
    assert proc.returncode == 3
    assert proc.stderr.startswith("error: cudaFree(nullptr) failed at sssp.sp:4: "), proc.stderr


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
