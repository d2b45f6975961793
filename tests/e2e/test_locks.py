"""Min/Max with a secondary target that is not a constant holds a per-element lock; every lock
starts released (a Fill in the plan), so such programs finish and agree with the reference.

Device memory starts undefined: before the plan zeroed the locks, OpenCL (PoCL) allocated them
uninitialised and these programs spun forever, so each run here has a time limit."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

from starc.results import compare_results, parse_results

ROOT = pathlib.Path(__file__).resolve().parents[2]

PROGRAMS = {
    # A node-valued secondary target (the parent) forces the lock.
    "parent": """\
function F(Graph g, propNode<double> d, propNode<node> parent, propEdge<int> weight) {
    propNode<double> base;
    g.attachNodeProperty(d = 0.5, parent = 0);
    forall (v in g.nodes()) {
        v.base = v * 10;
    }
    forall (v in g.nodes()) {
        forall (w in g.neighbors(v)) {
            edge e = g.get_edge(v, w);
            <w.d, w.parent> = <Max(w.d, v.base + e.weight), v>;
        }
    }
}
""",
    # An atomic Min and a locked Max on the same elements in one neighbour loop (the Max
    # never improves, so every result is deterministic, but each update still takes the lock).
    "mixed": """\
function F(Graph g, propNode<node> p, propNode<int> d) {
    g.attachNodeProperty(p = 100, d = 100);
    forall (v in g.nodes()) {
        forall (w in g.neighbors(v)) {
            w.p = Min(w.p, v);
            <w.d, w.p> = <Max(w.d, v + 1), v>;
        }
    }
}
""",
}
# Both programs in one, so a backend builds once for both kinds of lock (CI time); MPI, which
# refuses "mixed", runs "parent" alone.
PROGRAMS["both"] = """\
function F(Graph g, propNode<double> d, propNode<node> parent, propEdge<int> weight,
           propNode<node> p, propNode<int> m) {
    propNode<double> base;
    g.attachNodeProperty(d = 0.5, parent = 0, p = 100, m = 100);
    forall (v in g.nodes()) {
        v.base = v * 10;
    }
    forall (v in g.nodes()) {
        forall (w in g.neighbors(v)) {
            edge e = g.get_edge(v, w);
            <w.d, w.parent> = <Max(w.d, v.base + e.weight), v>;
        }
    }
    forall (v in g.nodes()) {
        forall (w in g.neighbors(v)) {
            w.p = Min(w.p, v);
            <w.m, w.p> = <Max(w.m, v + 1), v>;
        }
    }
}
"""

BACKENDS = [pytest.param("opencl", marks=pytest.mark.opencl),
            pytest.param("sycl", marks=pytest.mark.sycl),
            pytest.param("openacc", marks=pytest.mark.openacc),
            pytest.param("mpi", marks=pytest.mark.mpi),
            pytest.param("cuda", marks=[pytest.mark.cuda, pytest.mark.gpu])]


def starc_run(program: pathlib.Path, backend: str, graph: pathlib.Path, cache: pathlib.Path):
    # Prepended, not replaced: starc's own dependencies may come from PYTHONPATH too.
    pythonpath = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, PYTHONPATH=pythonpath, STARC_CACHE_DIR=str(cache))
    return subprocess.run([sys.executable, "-m", "starc", "run", str(program), "-b", backend,
                           "--graph", str(graph)], capture_output=True, text=True, env=env,
                          timeout=300)


def run(program: pathlib.Path, backend: str, graph: pathlib.Path, cache: pathlib.Path):
    proc = starc_run(program, backend, graph, cache)
    assert proc.returncode == 0, proc.stderr
    return parse_results(proc.stdout)


@pytest.mark.parametrize("backend", BACKENDS)
def test_locked_minmax_finishes_and_agrees(backend, tmp_path):
    graph = tmp_path / "g.el"
    # A star into vertex 3 (every update contends for one lock) plus a cycle.
    graph.write_text("0 3 2\n1 3 7\n2 3 7\n4 3 1\n3 0 5\n0 1 1\n1 2 1\n2 0 1\n")
    programs = {}
    for name, text in PROGRAMS.items():
        programs[name] = tmp_path / f"{name}.sp"
        programs[name].write_text(text)
    if backend == "mpi":
        # Min and a Max secondary on `p` at other vertices: updates combined per vertex at
        # the sender cannot keep both operators' meaning, so MPI refuses it at the forall.
        proc = starc_run(programs["mixed"], backend, graph, tmp_path / "cache")
        assert proc.returncode == 1
        assert ":3:5: error[E0501]: the MPI backend cannot distribute this program: 'p' is " \
            "written at other vertices with two operators (Min and secondary)" in proc.stderr
    program = programs["parent" if backend == "mpi" else "both"]
    expected = run(program, "reference", graph, tmp_path / "cache")
    actual = run(program, backend, graph, tmp_path / "cache")
    assert compare_results(expected, actual) == []


