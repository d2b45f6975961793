"""Direction-optimizing iterateInBFS on every runnable backend: on graphs where GAPBS's
heuristic turns bottom-up (R-MAT, stars) and where it stays top-down (a path), levels, B1's
runs (exactly once per reached vertex, under the filter) and the reverse sweep equal the
reference's and networkx's."""

from __future__ import annotations

import functools
import pathlib
import sys

import numpy as np
import pytest

import starc
from starc.analysis.bfs import ALPHA, BETA
from starc.graphs import Graph, rmat, write_mtx
from starc.results import compare_results

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "reference"))
import reference_oracles as oracles  # noqa: E402  (the oracle module of tests/reference)

DSL = pathlib.Path(__file__).resolve().parents[2] / "dsl"

# B1 counts its runs (a second run of B1 for a vertex would show as 2) and reads its parents;
# the filter skips B1 for odd vertices, never the traversal.
RUNS = """function F(Graph g, propNode<int> runs, propNode<int> depth, propNode<int> seen,
                     node src) {
  g.attachNodeProperty(runs = 0, depth = 0, seen = 0);
  iterateInBFS (v in g.nodes() from src).filter(v % 2 == 0) {
    v.runs += 1;
    for (w in g.neighbors(v)) {
      v.depth = w.depth + 1;
      v.seen += 1;
    }
  }
}
"""
# No body at all: the steps only traverse; B2 counts children.
BARE = """function F(Graph g, propNode<int> children, node src) {
  g.attachNodeProperty(children = 0);
  iterateInBFS (v in g.nodes() from src) { }
  iterateInReverse (True) {
    for (w in g.neighbors(v)) { v.children += 1; }
  }
}
"""
PROGRAMS = {"bfs": str(DSL / "bfs.sp"), "bc": str(DSL / "bc.sp"), "runs": RUNS, "bare": BARE}

BACKENDS = {"opencl": [pytest.mark.opencl], "sycl": [pytest.mark.sycl],
            "openacc": [pytest.mark.openacc], "mpi": [pytest.mark.mpi],
            "cuda": [pytest.mark.cuda, pytest.mark.gpu]}


def _graph(n, pairs, name):
    src = np.array([p[0] for p in pairs], dtype=np.int64)
    dst = np.array([p[1] for p in pairs], dtype=np.int64)
    return Graph.from_edges(n, src, dst, None, True, name)


def graphs():
    """name -> (graph, source)."""
    n = 300
    kron = rmat(9, edge_factor=8, seed=5)
    spokes = [(0, v) for v in range(1, n)]
    return {
        # from its vertex of most out-edges (vertex 0 may have none)
        "rmat": (kron, int(np.argmax(np.diff(kron.offsets)))),
        # an undirected star: the leaves' out-edges (back to the centre) make the second
        # step bottom-up, where every leaf is already visited
        "star": (_graph(n, spokes + [(v, 0) for v in range(1, n)], "star"), 0),
        # a star whose leaves form a ring: bottom-up finds the ring's vertices visited
        "star_ring": (_graph(n, spokes + [(v, v % (n - 1) + 1) for v in range(1, n)],
                             "star ring"), 0),
        # a path with a large unreached clique: the frontier never holds 1/ALPHA of the
        # unexplored edges, so every step is top-down
        "path": (_graph(60, [(v, v + 1) for v in range(39)]
                        + [(u, w) for u in range(40, 60) for w in range(40, 60) if u != w],
                        "path"), 0),
    }


def directions(graph: Graph, src: int):
    """The direction of each step as GAPBS's heuristic chooses it (control.expand_bfs), from
    networkx's levels: True for bottom-up."""
    level = oracles.bfs_levels(graph, src)
    degree = np.diff(graph.offsets)
    awake, scout, unexplored, bottom_up, out = 1, 0, graph.num_edges, False, []
    for depth in range(level.max() + 1):
        if not bottom_up:
            bottom_up = scout > unexplored // ALPHA
        frontier, reached = awake, level == depth + 1
        awake = int(reached.sum())
        out.append(bottom_up)
        if bottom_up:
            scout = 0
            bottom_up = awake >= frontier or awake > graph.num_nodes // BETA
        else:
            unexplored -= scout
            scout = int(degree[reached].sum())
    return out


def test_the_graphs_exercise_both_directions():
    found = {name: directions(*case) for name, case in graphs().items()}
    assert all(any(found[name]) for name in ("rmat", "star", "star_ring")), found
    assert not any(found["path"]) and len(found["path"]) == 40
    assert not all(found["rmat"])            # it starts (and here ends) top-down


@functools.lru_cache(maxsize=None)
def compiled(program: str, backend: str):
    return starc.compile(PROGRAMS[program], backend)


def _params(program: str, src: int):
    return {"sourceSet": f"{src},3,7"} if program == "bc" else {"src": src}


@pytest.mark.parametrize("graph_name", list(graphs()))
@pytest.mark.parametrize("program", list(PROGRAMS))
@pytest.mark.parametrize("backend", [pytest.param(b, marks=m) for b, m in BACKENDS.items()])
def test_levels_and_bodies_match(backend, program, graph_name, tmp_path):
    graph, src = graphs()[graph_name]
    path = tmp_path / "g.mtx"            # .mtx keeps the vertex count of isolated vertices
    write_mtx(graph, path)
    params = _params(program, src)
    expected = compiled(program, "reference").run(path, **params)
    actual = compiled(program, backend).run(path, **params)
    problems = compare_results(expected, actual, rtol=1e-4, atol=1e-4)
    assert not problems, f"{program} on {graph_name} ({backend}):\n" + "\n".join(problems)
    level = oracles.bfs_levels(graph, src)
    if program == "bfs":
        assert expected.props["level"].tolist() == level.tolist()
    elif program == "runs":
        even = (np.arange(graph.num_nodes) % 2 == 0)
        assert expected.props["runs"].tolist() == ((level >= 0) & even).astype(int).tolist()
        parents = oracles.bfs_relation(graph, src, lambda v: v % 2 == 0)["parents"]
        assert expected.props["seen"].tolist() == parents.tolist()
    elif program == "bare":
        children = oracles.bfs_relation(graph, src)["children"]
        assert expected.props["children"].tolist() == children.tolist()
