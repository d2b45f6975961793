"""Every dsl program, generated for OpenCL, run and compared with the reference executor.

Kernels run on a real OpenCL device (PoCL) where one can compile them; everywhere, they also
run compiled as C by gcc through ``opencl_shim`` (sequential work items), so the generated
kernels and host are checked even where PoCL cannot build (e.g. an LLVM too old for the CPU).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from opencl_helpers import compile_dsl, run_on_shim, write_program
from opencl_shim import ShimDevice, have_gcc
from starc.backends.opencl import host_runtime as rt
from starc.graphs import Graph, load_graph, write_edge_list
from starc.reference import execute
from starc.results import compare_results, parse_results

pytestmark = pytest.mark.opencl

# (program, undirected, parameters)
PROGRAMS = [
    ("sssp", False, {"src": "0"}),
    ("sswp", False, {"src": "0"}),
    ("cc", False, {}),
    ("bfs", False, {"src": "0"}),
    ("bc", False, {"sourceSet": "0,2"}),
    ("pr", False, {"beta": "0.0001", "delta": "0.85", "maxIter": "50"}),
    ("kcore", True, {"k": "2"}),
    ("tc", True, {}),
]

# weighted, with a self-loop, a duplicate edge and an isolated vertex (6)
SMALL = "0 1 4\n0 2 1\n2 1 2\n1 3 1\n2 3 5\n3 4 3\n5 5 1\n0 1 7\n4 0 2\n# 7 vertices\n6 6 1\n"


@pytest.fixture(scope="module")
def graphs(tmp_path_factory):
    from starc.graphs import rmat, uniform
    folder = tmp_path_factory.mktemp("graphs")
    small = folder / "small.el"
    small.write_text(SMALL)
    out = {"small": small}
    for name, graph in (("rmat", rmat(6, 4, seed=7, weights=True)),
                        ("uniform", uniform(60, 3, seed=2, weights=True))):
        out[name] = folder / f"{name}.el"
        write_edge_list(graph, out[name])
    edgeless = folder / "edgeless.el"
    edgeless.write_text("0 0 1\n")       # one vertex with a self-loop
    out["one_vertex"] = edgeless
    return out


def _reference(comp, graph, params):
    return execute(comp.ir, graph, params, function=comp.function.name)


def _tolerance(name):
    return dict(rtol=1e-4, atol=1e-6) if name in ("pr", "bc") else {}


@pytest.mark.skipif(not have_gcc(), reason="gcc not found (runs the kernels as C)")
@pytest.mark.parametrize("graph_name", ["small", "rmat", "uniform", "one_vertex"])
@pytest.mark.parametrize("name, undirected, params", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_dsl_program_matches_reference(name, undirected, params, graph_name, graphs, tmp_path):
    comp = compile_dsl(name)
    graph = load_graph(graphs[graph_name], undirected=undirected)
    if "sourceSet" in params and graph.num_nodes < 3:
        params = {"sourceSet": "0"}
    got, device = run_on_shim(comp, graph, params, tmp_path)
    want = _reference(comp, graph, params)
    assert compare_results(want, got, **_tolerance(name)) == []
    assert device.launches > 0


@pytest.mark.skipif(not have_gcc(), reason="gcc not found (runs the kernels as C)")
def test_empty_graph_runs_no_kernel(tmp_path):
    comp = compile_dsl("cc")
    graph = Graph.from_edges(0, [], [])
    got, device = run_on_shim(comp, graph, {}, tmp_path)
    assert got.props["comp"].size == 0 and device.launches == 0


@pytest.mark.skipif(not have_gcc(), reason="gcc not found (runs the kernels as C)")
def test_command_line_contract(graphs, tmp_path, monkeypatch, capsys):
    comp = compile_dsl("sssp")
    module = write_program(comp, tmp_path)
    shim = ShimDevice(tmp_path / "sssp.cl", module.SIGNATURES, tmp_path)
    monkeypatch.setattr(module, "open_device", lambda kind="default": shim)
    out = tmp_path / "results.txt"
    status = rt.main(module, [str(graphs["small"]), "--src", "0", "--out", str(out), "--time"])
    assert status == 0
    err = capsys.readouterr().err
    assert err.startswith("starc-time ") and float(err.split()[1]) >= 0
    results = parse_results(out.read_text())
    assert results.backend == "opencl" and results.function == "Compute_SSSP"
    want = _reference(comp, load_graph(graphs["small"]), {"src": "0"})
    assert list(results.props["dist"]) == list(want.props["dist"])


def test_usage_and_input_errors_exit_before_the_device(graphs, tmp_path):
    comp = compile_dsl("sssp")
    comp.generated.write(tmp_path)
    prog = [sys.executable, str(tmp_path / "sssp.py")]
    missing = subprocess.run(prog + [str(graphs["small"])], capture_output=True, text=True)
    assert missing.returncode == 2 and "--src" in missing.stderr
    bad = subprocess.run(prog + [str(graphs["small"]), "--src", "99"], capture_output=True,
                         text=True)
    assert bad.returncode == 2 and "node id" in bad.stderr
    broken = tmp_path / "broken.el"
    broken.write_text("0 1 2\n1 x\n")
    unreadable = subprocess.run(prog + [str(broken), "--src", "0"], capture_output=True,
                                text=True)
    assert unreadable.returncode == 1 and "broken.el" in unreadable.stderr
    unweighted = tmp_path / "unweighted.el"
    unweighted.write_text("0 1\n")
    no_weights = subprocess.run(prog + [str(unweighted), "--src", "0"], capture_output=True,
                                text=True)
    # Data the program cannot use is an input error (1), as in the C++ runtime (issue 13).
    assert no_weights.returncode == 1 and "weights" in no_weights.stderr


def _device_or_skip():
    from starc.backends.opencl.emitter import OpenCLBackend
    avail = OpenCLBackend().availability()
    if not avail.can_run:
        pytest.skip(f"no OpenCL device can compile kernels here: {avail.detail}")


@pytest.mark.parametrize("name, undirected, params", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_dsl_program_on_the_opencl_device(name, undirected, params, graphs, tmp_path):
    _device_or_skip()
    from starc.backends.base import BackendOptions
    from starc.backends.opencl.emitter import OpenCLBackend
    comp = compile_dsl(name)
    built = OpenCLBackend().build(comp.generated, tmp_path / "out", BackendOptions())
    argv = built.argv_prefix + [str(graphs["uniform"])] + (["--undirected"] if undirected else [])
    for key, value in params.items():
        argv += [f"--{key}", value]
    proc = subprocess.run(argv + ["--out", str(tmp_path / "r.txt")], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    got = parse_results((tmp_path / "r.txt").read_text())
    want = _reference(comp, load_graph(graphs["uniform"], undirected=undirected), params)
    assert compare_results(want, got, **_tolerance(name)) == []
    # in-process as well: the module's run() returns Results
    module = write_program(comp, tmp_path / "import")
    assert compare_results(want, module.run(load_graph(graphs["uniform"],
                                                       undirected=undirected), **params),
                           **_tolerance(name)) == []


# edges, hi (Max) and down (-=) are exclusive: one private per work item, one atomic each;
# x is not (+= and -= on it), so it keeps one atomic per update.
MIXED_REDUCTIONS = """
function Mixed(Graph g) {
    long edges = 0;
    int x = 0;
    int hi = 0;
    int down = 100;
    forall (v in g.nodes()) {
        forall (w in g.neighbors(v)) {
            edges += 1;
            x += 1;
            if (w < v) {
                x -= 2;
            }
            hi = Max(hi, w);
            down -= 1;
        }
    }
    return edges * 1000000 + x * 1000 + hi + down;
}
"""


def test_exclusive_and_shared_scalar_reductions_match_the_reference(graphs, tmp_path):
    from opencl_helpers import compile_text
    comp = compile_text(MIXED_REDUCTIONS, "mixed.sp")
    cl = comp.generated.files["mixed.cl"]
    kernels = cl.split("// --- kernels")[1]
    for name, op in (("edges", "add_long"), ("hi", "max_int"), ("down", "sub_int")):
        assert kernels.count(f"starc_atomic_{op}(&{name}_dev[0], {name}_local);") == 1
    assert "starc_atomic_add_int(&x_dev[0], 1);  // mixed.sp:10" in kernels
    assert "starc_atomic_sub_int(&x_dev[0], 2);  // mixed.sp:12" in kernels
    for graph_name in ("small", "rmat", "uniform", "one_vertex"):
        graph = load_graph(graphs[graph_name])
        want = _reference(comp, graph, {})
        if have_gcc():
            got, _ = run_on_shim(comp, graph, {}, tmp_path / f"shim_{graph_name}")
            assert compare_results(want, got) == [], graph_name
    _device_or_skip()
    from starc.backends.base import BackendOptions
    from starc.backends.opencl.emitter import OpenCLBackend
    built = OpenCLBackend().build(comp.generated, tmp_path / "out", BackendOptions())
    for graph_name in ("small", "rmat", "uniform"):
        out = tmp_path / f"{graph_name}.txt"
        proc = subprocess.run(built.argv_prefix + [str(graphs[graph_name]), "--out", str(out)],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        want = _reference(comp, load_graph(graphs[graph_name]), {})
        assert compare_results(want, parse_results(out.read_text())) == [], graph_name
