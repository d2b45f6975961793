"""Run-time checks (issue 13 items 5 and 6): a fault in a kernel stops every backend with the
reference executor's located message, a non-zero exit and no results; a program without
faults is unaffected.

Each fault program runs on the reference (the oracle: its ``ExecutionError`` text), on the
generated OpenCL program, on the SYCL program built with g++ against the test double, and is
compiled with nvcc (run where a GPU is present).

The backends build each fault once, not once per fault (CI time: a build is 5-15 s, a run
milliseconds): CHECKED gathers PROGRAMS' faults into three programs, each fault behind its own
parameter, and every backend runs one build of each with every faulting input (every other
parameter good) and, where there is one, the all-good input. So each fault kind still meets
each backend; the small programs themselves stay the reference's oracle (located messages)."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys

import pytest

import starc
from starc.backends.base import BackendOptions
from starc.diagnostics import DiagnosticSink
from starc.driver import compile_source
from starc.graphs import load_graph
from starc.reference import ExecutionError, execute
from starc.results import compare_results, parse_results

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "backends" / "sycl"))
from hostbuild import GXX, build_with_test_double  # noqa: E402

GRAPH = "0 1 3\n1 2 4\n2 0 5\n2 3 1\n"      # 4 vertices, 4 weighted edges; 0->3 is missing

# name -> (program text, fault parameters, good parameters)
PROGRAMS = {
    "div": ("""\
function F(Graph g, propNode<int> out, int divisor) {
    g.attachNodeProperty(out = 0);
    forall (v in g.nodes()) {
        v.out = 100 / divisor + v;
    }
}
""", {"divisor": "0"}, {"divisor": "7"}),
    "mod_long": ("""\
function F(Graph g, propNode<long> out, long divisor) {
    g.attachNodeProperty(out = 0);
    forall (v in g.nodes()) {
        v.out = v % divisor;
    }
}
""", {"divisor": "0"}, {"divisor": "3"}),
    "get_edge": ("""\
function F(Graph g, propNode<int> out, propEdge<int> weight, node target) {
    g.attachNodeProperty(out = 0);
    forall (v in g.nodes()) {
        edge e = g.get_edge(v, target);
        v.out = e.weight;
    }
}
""", {"target": "3"}, None),
    "vertex": ("""\
function F(Graph g, propNode<int> out, int shift) {
    g.attachNodeProperty(out = 0);
    forall (v in g.nodes()) {
        node w = v + shift;
        w.out += 1;
    }
}
""", {"shift": "2"}, {"shift": "0"}),
    "degree": ("""\
function F(Graph g, propNode<int> out, int shift) {
    g.attachNodeProperty(out = 0);
    forall (v in g.nodes()) {
        v.out = g.count_outNbrs(v + shift);
    }
}
""", {"shift": "-1"}, {"shift": "0"}),
    "bfs_div": ("""\
function F(Graph g, propNode<int> out, node src, int divisor) {
    g.attachNodeProperty(out = 0);
    iterateInBFS (v in g.nodes() from src) {
        v.out = 1 / divisor;
    }
}
""", {"src": "0", "divisor": "0"}, {"src": "0", "divisor": "1"}),
    "host_div": ("""\
function F(Graph g, propNode<int> out, int divisor) {
    g.attachNodeProperty(out = 0);
    int x = 10 / divisor;
    long y = 10;
    y = y % divisor;
    forall (v in g.nodes()) {
        v.out = x + y;
    }
}
""", {"divisor": "0"}, {"divisor": "-1"}),
    "host_index": ("""\
function F(Graph g, propNode<int> out, node src, int offset) {
    g.attachNodeProperty(out = 0);
    node x = src + offset;
    x.out = 5;
    int y = x.out;
    src.out = y + 1;
}
""", {"src": "0", "offset": "7"}, {"src": "0", "offset": "2"}),
    "while_div": ("""\
function F(Graph g, propNode<int> out, int divisor) {
    g.attachNodeProperty(out = 0);
    int total = 0;
    while (total < 10) {
        forall (v in g.nodes()) {
            total += 1 / divisor;
        }
    }
    forall (v in g.nodes()) {
        v.out = total;
    }
}
""", {"divisor": "0"}, {"divisor": "1"}),
    "fixedpoint_mod": ("""\
function F(Graph g, propNode<int> dist, int divisor) {
    propNode<bool> modified;
    g.attachNodeProperty(dist = 0, modified = True);
    bool finished = False;
    fixedPoint until (finished : !modified) {
        forall (v in g.nodes().filter(modified == True)) {
            forall (w in g.neighbors(v)) {
                <w.dist, w.modified> = <Min(w.dist, v.dist % divisor - 1), True>;
            }
        }
    }
}
""", {"divisor": "0"}, None),
    # Locals nothing reads are not declared in kernels (strict builds reject unused
    # variables), but a dead value's check still runs (analysis/dead_locals.py).
    "dead_locals": ("""\
function F(Graph g, propNode<int> out, propEdge<int> weight, int divisor) {
    g.attachNodeProperty(out = 0);
    forall (v in g.nodes()) {
        int unused = 100 / divisor;
        node same = v;
        forall (w in g.neighbors(v)) {
            edge e = g.get_edge(v, w);
            int heavy = e.weight;
            w.out += 1;
        }
    }
}
""", {"divisor": "0"}, {"divisor": "3"}),
}


# The faults of PROGRAMS gathered for the backends, one build for several faults (CI time):
# name -> (program text, good parameters or None, [(fault of PROGRAMS, the parameters that
# make it fault, where the reference stops)]). A faulting input sets one parameter bad and
# leaves every other good, so the run reaches the fault it names and no other.
CHECKED = {
    "kernels": ("""\
function F(Graph g, propNode<int> out, propNode<long> rem, propNode<int> hits,
           propNode<int> deg, propNode<int> nbrs, propEdge<int> weight, int divisor,
           long ldivisor, int shift, int dshift, int udivisor) {
    g.attachNodeProperty(out = 0, rem = 0, hits = 0, deg = 0, nbrs = 0);
    forall (v in g.nodes()) {
        v.out = 100 / divisor + v;
    }
    forall (v in g.nodes()) {
        v.rem = v % ldivisor;
    }
    forall (v in g.nodes()) {
        node w = v + shift;
        w.hits += 1;
    }
    forall (v in g.nodes()) {
        v.deg = g.count_outNbrs(v + dshift);
    }
    forall (v in g.nodes()) {
        int unused = 100 / udivisor;
        node same = v;
        forall (w in g.neighbors(v)) {
            edge e = g.get_edge(v, w);
            int heavy = e.weight;
            w.nbrs += 1;
        }
    }
}
""", {"divisor": "7", "ldivisor": "3", "shift": "0", "dshift": "0", "udivisor": "3"}, [
        ("div", {"divisor": "0"}, "kernels.sp:6:17: runtime error: integer division by zero"),
        ("mod_long", {"ldivisor": "0"},
         "kernels.sp:9:17: runtime error: integer modulo by zero"),
        ("vertex", {"shift": "2"},
         "kernels.sp:13:9: runtime error: index 4 of 'hits' out of range 0..3"),
        ("degree", {"dshift": "-1"},
         "kernels.sp:16:17: runtime error: vertex -1 out of range 0..3"),
        ("dead_locals", {"udivisor": "0"},
         "kernels.sp:19:22: runtime error: integer division by zero")]),
    "flow": ("""\
function F(Graph g, propNode<int> out, propNode<int> spot, propNode<int> level,
           propNode<int> dist, node src, int hdivisor, int offset, int wdivisor,
           int bdivisor, int fdivisor) {
    propNode<bool> modified;
    g.attachNodeProperty(out = 0, spot = 0, level = 0, dist = 0, modified = True);
    int x = 10 / hdivisor;
    long y = 10;
    y = y % hdivisor;
    forall (v in g.nodes()) {
        v.out = x + y;
    }
    node z = src + offset;
    z.spot = 5;
    int q = z.spot;
    src.spot = q + 1;
    int total = 0;
    while (total < 10) {
        forall (v in g.nodes()) {
            total += 1 / wdivisor;
        }
    }
    iterateInBFS (v in g.nodes() from src) {
        v.level = total / bdivisor;
    }
    bool finished = False;
    fixedPoint until (finished : !modified) {
        forall (v in g.nodes().filter(modified == True)) {
            forall (w in g.neighbors(v)) {
                <w.dist, w.modified> = <Min(w.dist, v.dist % fdivisor - 1), True>;
            }
        }
    }
}
""", {"src": "0", "hdivisor": "-1", "offset": "2", "wdivisor": "1", "bdivisor": "1",
          "fdivisor": "1"}, [
        ("host_div", {"hdivisor": "0"}, "flow.sp:6:13: runtime error: integer division by zero"),
        ("host_index", {"offset": "7"},
         "flow.sp:13:5: runtime error: index 7 of 'spot' out of range 0..3"),
        ("while_div", {"wdivisor": "0"},
         "flow.sp:19:22: runtime error: integer division by zero"),
        ("bfs_div", {"bdivisor": "0"},
         "flow.sp:23:19: runtime error: integer division by zero"),
        ("fixedpoint_mod", {"fdivisor": "0"},
         "flow.sp:29:53: runtime error: integer modulo by zero")]),
    # get_edge(v, 3) faults for every value: no good input, so a program of its own
    "get_edge": (PROGRAMS["get_edge"][0], None, [
        ("get_edge", {"target": "3"},
         "get_edge.sp:5:17: runtime error: index -1 of 'weight' out of range 0..3")]),
}
assert sorted(f for _, _, faults in CHECKED.values() for f, _, _ in faults) == sorted(PROGRAMS)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("checks")
    graph = root / "g.el"
    graph.write_text(GRAPH)
    sources = {}
    for name, text in [*((n, p[0]) for n, p in PROGRAMS.items()),
                       *((n, p[0]) for n, p in CHECKED.items())]:
        path = root / f"{name}.sp"
        path.write_text(text)
        sources[name] = path
    return root, graph, sources


def reference_message(path, graph, params) -> str:
    comp = starc.compile(str(path), "reference").compilation
    with pytest.raises(ExecutionError) as raised:
        execute(comp.ir, load_graph(str(graph)), params, function=comp.function.name)
    return str(raised.value)


def reference_results(path, graph, params):
    return starc.compile(str(path), "reference").run(graph, **params)


def argv_params(params):
    return [word for key, value in params.items() for word in (f"--{key}", value)]


def assert_fails_like_reference(argv, path, graph, params):
    proc = subprocess.run(argv + [str(graph)] + argv_params(params), capture_output=True,
                          text=True, timeout=300)
    expected = reference_message(path, graph, params)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == "", "no results may be printed after a failed check"
    assert proc.stderr.strip().splitlines()[-1] == expected


def checked_inputs(name):
    """(fault, faulting parameters, where the reference stops) of CHECKED[name]."""
    _, good, faults = CHECKED[name]
    return [(fault, {**(good or {}), **bad}, where) for fault, bad, where in faults]


def assert_every_fault_like_reference(argv, name, root, graph, sources):
    """One build of CHECKED[name], run with each of its faulting inputs."""
    for fault, params, where in checked_inputs(name):
        assert reference_message(sources[name], graph, params) == f"{root}/{where}", fault
        assert_fails_like_reference(argv, sources[name], graph, params)


def test_reference_messages_are_located(files):
    root, graph, sources = files
    expected = {
        "div": "div.sp:4:17: runtime error: integer division by zero",
        "mod_long": "mod_long.sp:4:17: runtime error: integer modulo by zero",
        "get_edge": "get_edge.sp:5:17: runtime error: index -1 of 'weight' out of range 0..3",
        "vertex": "vertex.sp:5:9: runtime error: index 4 of 'out' out of range 0..3",
        "degree": "degree.sp:4:17: runtime error: vertex -1 out of range 0..3",
        "bfs_div": "bfs_div.sp:4:17: runtime error: integer division by zero",
        "host_div": "host_div.sp:3:13: runtime error: integer division by zero",
        "host_index": "host_index.sp:4:5: runtime error: index 7 of 'out' out of range 0..3",
        "while_div": "while_div.sp:6:22: runtime error: integer division by zero",
        "fixedpoint_mod": "fixedpoint_mod.sp:8:53: runtime error: integer modulo by zero",
        "dead_locals": "dead_locals.sp:4:22: runtime error: integer division by zero",
    }
    for name, (_, bad, _) in PROGRAMS.items():
        message = reference_message(sources[name], graph, bad)
        assert message == f"{root}/{expected[name]}"


# --- OpenCL -------------------------------------------------------------------------------

def _opencl_available():
    from starc.backends import get_backend
    return get_backend("opencl").availability()


needs_opencl = pytest.mark.skipif(not _opencl_available().can_run,
                                  reason=f"cannot run OpenCL here: {_opencl_available().detail}")


def _generated(path, backend):
    sink = DiagnosticSink()
    comp = compile_source(path.read_text(), str(path), sink, backend=backend)
    assert comp.ok, [str(d) for d in sink.diagnostics]
    return comp.generated


def _built_program(path, backend="opencl"):
    """Built through the build cache, which the fault-free tests (``starc.compile(...).run``)
    then find: one g++ build per program."""
    from starc.runner import build
    sink = DiagnosticSink()
    built = build(starc.compile(str(path), backend).compilation, sink, BackendOptions())
    assert built is not None, [str(d) for d in sink.diagnostics]
    return built.argv_prefix


@pytest.mark.opencl
@needs_opencl
@pytest.mark.parametrize("name", list(CHECKED))
def test_opencl_fault_stops_with_the_reference_message(files, name):
    root, graph, sources = files
    argv = _built_program(sources[name])
    assert_every_fault_like_reference(argv, name, root, graph, sources)


@pytest.mark.opencl
@needs_opencl
@pytest.mark.parametrize("name", [n for n, p in CHECKED.items() if p[1] is not None])
def test_opencl_without_fault_matches_reference(files, name):
    _, graph, sources = files
    good = CHECKED[name][1]
    expected = reference_results(sources[name], graph, good)
    actual = starc.compile(str(sources[name]), "opencl").run(graph, **good)
    assert not compare_results(expected, actual)


@pytest.mark.opencl
@needs_opencl
def test_compiled_run_raises_the_reference_error(files):
    """``starc.compile(...).run`` raises the reference's ExecutionError (the program's own
    message, exit status 1) on every backend."""
    _, graph, sources = files
    with pytest.raises(ExecutionError) as raised:
        starc.compile(str(sources["get_edge"]), "opencl").run(graph, target=3)
    assert str(raised.value) == reference_message(sources["get_edge"], graph, {"target": "3"})


# --- SYCL through the OpenMP test double --------------------------------------------------

needs_gxx = pytest.mark.skipif(GXX is None, reason="g++ not found (SYCL test double)")


def _sycl_program(path, outdir):
    return build_with_test_double(_generated(path, "sycl"), outdir)


@pytest.mark.sycl
@needs_gxx
@pytest.mark.parametrize("name", list(CHECKED))
def test_sycl_fault_stops_with_the_reference_message(files, name, tmp_path):
    root, graph, sources = files
    argv = _sycl_program(sources[name], tmp_path)
    assert_every_fault_like_reference(argv, name, root, graph, sources)
    good = CHECKED[name][1]
    if good is not None:
        proc = subprocess.run(argv + [str(graph)] + argv_params(good), capture_output=True,
                              text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        expected = reference_results(sources[name], graph, good)
        assert not compare_results(expected, parse_results(proc.stdout))


# --- OpenACC (g++ -fopenacc: compute regions on the host) ----------------------------------

@pytest.mark.openacc
@pytest.mark.parametrize("name", list(CHECKED))
def test_openacc_fault_stops_with_the_reference_message(files, name):
    root, graph, sources = files
    argv = _built_program(sources[name], "openacc")
    assert_every_fault_like_reference(argv, name, root, graph, sources)
    good = CHECKED[name][1]
    if good is not None:
        expected = reference_results(sources[name], graph, good)
        actual = starc.compile(str(sources[name]), "openacc").run(graph, **good)
        assert not compare_results(expected, actual)


# --- CUDA: nvcc compiles the checks (runs them where a GPU is present) --------------------

def _nvcc():
    from starc import toolchains
    return toolchains.find_nvcc()


@pytest.mark.cuda
@pytest.mark.skipif(_nvcc() is None, reason="nvcc not found (set STARC_NVCC or CUDA_HOME)")
@pytest.mark.parametrize("name", list(CHECKED))
def test_cuda_fault_checks_compile_and_run(files, name, tmp_path):
    from starc.backends.cuda.emitter import CUDABackend
    root, graph, sources = files
    built = CUDABackend().build(_generated(sources[name], "cuda"), tmp_path, BackendOptions())
    if shutil.which("nvidia-smi") is None or subprocess.run(
            ["nvidia-smi", "-L"], capture_output=True, text=True).stdout.strip() == "":
        return      # compiled; no GPU to run it on
    assert_every_fault_like_reference(list(built.argv_prefix), name, root, graph, sources)


@pytest.mark.mpi
def test_mpi_dead_locals_build_and_keep_their_checks(files):
    """MPI builds with -Werror too: the program with unread kernel locals agrees with the
    reference, and its dead division still stops the run with the reference's message."""
    _, graph, sources = files
    path = sources["dead_locals"]
    program = starc.compile(str(path), "mpi")
    expected = reference_results(path, graph, {"divisor": "3"})
    assert not compare_results(expected, program.run(graph, divisor=3))
    with pytest.raises(ExecutionError) as raised:
        program.run(graph, divisor=0)
    assert str(raised.value) == reference_message(path, graph, {"divisor": "0"})


def test_reference_vectorised_and_interpreted_paths_word_errors_alike(files):
    _, graph, sources = files
    for name in ("get_edge", "vertex", "degree"):
        comp = starc.compile(str(sources[name]), "reference").compilation
        messages = set()
        for vectorize in (True, False):
            with pytest.raises(ExecutionError) as raised:
                execute(comp.ir, load_graph(str(graph)), PROGRAMS[name][1],
                        function=comp.function.name, vectorize=vectorize)
            messages.add(str(raised.value))
        assert len(messages) == 1, messages


# --- signed overflow wraps on every backend (LANGUAGE.md §2) ----------------------

OVERFLOW = """\
function F(Graph g, propNode<int> core, propNode<int> big, propNode<long> lg) {
    g.attachNodeProperty(core = 0, big = 2147483647, lg = 9223372036854775807);
    forall (v in g.nodes()) {
        v.core -= INF;
        v.core -= INF;
        v.big = v.big + v + 1;
        v.lg = v.lg * 3;
        int q = v.big - v;
        v.core = v.core + q / (0 - 1) + q % (0 - 1);
    }
}
"""


@pytest.mark.parametrize("backend", [
    pytest.param("opencl", marks=[pytest.mark.opencl, needs_opencl]),
    pytest.param("sycl", marks=[pytest.mark.sycl, needs_gxx]),
    pytest.param("openacc", marks=pytest.mark.openacc),
    pytest.param("mpi", marks=pytest.mark.mpi)])
def test_signed_overflow_wraps_like_the_reference(files, backend, tmp_path):
    root, graph, _ = files
    path = tmp_path / "overflow.sp"
    path.write_text(OVERFLOW)
    expected = reference_results(path, graph, {})
    assert expected.props["big"][0] == -2147483648          # INT_MAX + 0 + 1 wraps
    assert expected.props["core"][0] == 2 - 2147483648      # -2 INF wraps to 2; INT_MIN / -1
    if backend in ("opencl", "openacc", "mpi"):
        actual = starc.compile(str(path), backend).run(graph)
    else:
        argv = _sycl_program(path, tmp_path / "build")
        proc = subprocess.run(argv + [str(graph)], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        actual = parse_results(proc.stdout)
    assert not compare_results(expected, actual)
