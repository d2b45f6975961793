"""Direction-optimizing iterateInBFS on every runnable backend: on graphs where GAPBS's
heuristic turns bottom-up (R-MAT, stars) and where it stays top-down (a path), levels, B1's
runs (exactly once per reached vertex, under the filter) and the reverse sweep equal the
reference's and networkx's.

CI time: each (program, backend) builds once and runs every graph; the three small forms
(RUNS, BARE, SUM) are one program, FORMS, one traversal after the other, so a backend builds
them once (each traversal keeps its own form and its own properties and oracle)."""

from __future__ import annotations

import functools
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import starc
from starc.analysis.bfs import ALPHA, BETA
from starc.analysis.frontier import DENSE_DIVISOR
from starc.graphs import Graph, rmat, write_mtx
from starc.results import compare_results

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "reference"))
import reference_oracles as oracles  # noqa: E402  (the oracle module of tests/reference)

DSL = pathlib.Path(__file__).resolve().parents[2] / "dsl"

# Three forms of iterateInBFS, one traversal after the other in one function (CI time: one
# build per backend; each keeps its own properties and oracle):
# RUNS: B1 counts its runs (a second run of B1 for a vertex would show as 2) and reads its
# parents; the filter skips B1 for odd vertices, never the traversal.
# BARE: no body at all: the steps only traverse; B2 counts children.
# SUM: B1 is one last-parent loop reading another property: a bottom-up step runs it where it
# finds the vertex (bfs.py's fused form). A parent read before its own B1 ran, or another
# parent than the last, shows in x.
FORMS = """function F(Graph g, propNode<int> runs, propNode<int> depth, propNode<int> seen,
                     propNode<int> children, propNode<int> x, propNode<int> y, node src) {
  g.attachNodeProperty(runs = 0, depth = 0, seen = 0, children = 0, x = 0, y = 0);
  iterateInBFS (v in g.nodes() from src).filter(v % 2 == 0) {
    v.runs += 1;
    for (w in g.neighbors(v)) {
      v.depth = w.depth + 1;
      v.seen += 1;
    }
  }

  iterateInBFS (v in g.nodes() from src) { }
  iterateInReverse (True) {
    for (w in g.neighbors(v)) { v.children += 1; }
  }

  forall (v in g.nodes()) { v.y = v % 7 + 1; }
  iterateInBFS (v in g.nodes() from src) {
    for (w in g.neighbors(v)) {
      v.x = w.x + w.y;
    }
  }
}
"""
PROGRAMS = {"bfs": str(DSL / "bfs.sp"), "bc": str(DSL / "bc.sp"), "forms": FORMS}

BACKENDS = {"opencl": [pytest.mark.opencl], "sycl": [pytest.mark.sycl],
            "openacc": [pytest.mark.openacc], "mpi": [pytest.mark.mpi],
            "cuda": [pytest.mark.cuda, pytest.mark.gpu]}


def _graph(n, pairs, name):
    src = np.array([p[0] for p in pairs], dtype=np.int64)
    dst = np.array([p[1] for p in pairs], dtype=np.int64)
    return Graph.from_edges(n, src, dst, None, True, name)


def _hubs(hubs=2, path=6, leaves=120, tail=8):
    """Twice: a path, then a hub with ``leaves`` leaves (both ways) that form a ring; the next
    path starts at three leaves (several parents each). The heuristic goes bottom-up at each
    hub and back top-down on the path after it: T..T U U T..T U U T..T."""
    pairs, last = [], 0
    for h in range(hubs):
        first = last + 1
        chain = list(range(first, first + path))
        starts = [last] if h == 0 else [last, last - 1, last - 50]
        pairs += [(u, chain[0]) for u in starts] + [(chain[0], u) for u in starts]
        pairs += [(a, b) for a, b in zip(chain, chain[1:])] + \
                 [(b, a) for a, b in zip(chain, chain[1:])]
        hub, ring = chain[-1], list(range(chain[-1] + 1, chain[-1] + 1 + leaves))
        pairs += [(hub, v) for v in ring] + [(v, hub) for v in ring]
        pairs += [(v, ring[(i + 1) % leaves]) for i, v in enumerate(ring)]
        last = ring[-1]
    chain = list(range(last + 1, last + 1 + tail))
    pairs += [(last, chain[0]), (last - 7, chain[0])] + list(zip(chain, chain[1:]))
    return _graph(chain[-1] + 1, pairs, "hubs")


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
        "hubs": (_hubs(), 0),
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


def ranks_steps(graph: Graph, src: int):
    """The direction of each step as MPI's queue form takes it (control._expand_bfs with
    ``ranks``), and how many times it builds a queue: a top-down step over at most
    n / DENSE_DIVISOR vertices and out-edges, counted exactly, walks the ranks' queues, built
    first where the step before did not leave one (the first step too); such a frontier whose
    next level is small as well stays top-down."""
    level = oracles.bfs_levels(graph, src)
    degree = np.diff(graph.offsets)
    limit = graph.num_nodes // DENSE_DIVISOR
    awake, scout, unexplored, bottom_up, out = 1, 0, graph.num_edges, False, []
    queued, counted, edges, builds = False, True, int(degree[src]), 0
    for depth in range(level.max() + 1):
        if not bottom_up:
            bottom_up = scout > unexplored // ALPHA and not (awake <= limit and scout <= limit)
        frontier, reached = awake, level == depth + 1
        awake = int(reached.sum())
        out.append(bottom_up)
        if bottom_up:
            scout, queued, counted, edges = 0, False, True, 0
            bottom_up = awake >= frontier or awake > graph.num_nodes // BETA
            continue
        unexplored -= scout
        scout = int(degree[reached].sum())
        if frontier <= limit and edges <= limit and counted:
            builds += not queued
            queued, edges = True, scout
        else:
            queued = counted = False
    return out, builds


def test_the_graphs_exercise_both_directions():
    found = {name: directions(*case) for name, case in graphs().items()}
    assert all(any(found[name]) for name in ("rmat", "star", "star_ring")), found
    assert not any(found["path"]) and len(found["path"]) == 40
    assert not all(found["rmat"])            # it starts (and here ends) top-down
    # down, up, down, up, down: a bottom-up step after a top-down one (twice) and after one
    # bottom-up, a top-down step after a bottom-up one
    turns = "".join("U" if up else "T" for up in found["hubs"])
    assert turns == "T" * 6 + "UU" + "T" * 5 + "UU" + "T" * 8, turns


@functools.lru_cache(maxsize=None)
def compiled(program: str, backend: str):
    return starc.compile(PROGRAMS[program], backend)


def _params(program: str, src: int):
    return {"sourceSet": f"{src},3,7"} if program == "bc" else {"src": src}


@pytest.mark.parametrize("program", list(PROGRAMS))
@pytest.mark.parametrize("backend", [pytest.param(b, marks=m) for b, m in BACKENDS.items()])
def test_levels_and_bodies_match(backend, program, tmp_path):
    """One build, every graph."""
    for graph_name, (graph, src) in graphs().items():
        path = tmp_path / f"{graph_name}.mtx"   # .mtx keeps the vertex count of isolated ones
        write_mtx(graph, path)
        params = _params(program, src)
        expected = compiled(program, "reference").run(path, **params)
        actual = compiled(program, backend).run(path, **params)
        problems = compare_results(expected, actual, rtol=1e-4, atol=1e-4)
        assert not problems, f"{program} on {graph_name} ({backend}):\n" + "\n".join(problems)
        level = oracles.bfs_levels(graph, src)
        if program == "bfs":
            assert expected.props["level"].tolist() == level.tolist(), graph_name
        elif program == "forms":
            # RUNS
            even = (np.arange(graph.num_nodes) % 2 == 0)
            assert expected.props["runs"].tolist() == \
                ((level >= 0) & even).astype(int).tolist(), graph_name
            parents = oracles.bfs_relation(graph, src, lambda v: v % 2 == 0)["parents"]
            assert expected.props["seen"].tolist() == parents.tolist(), graph_name
            # SUM
            assert expected.props["x"].tolist() == last_parent_sums(graph, src).tolist(), \
                graph_name
            # BARE
            children = oracles.bfs_relation(graph, src)["children"]
            assert expected.props["children"].tolist() == children.tolist(), graph_name


def last_parent_sums(graph: Graph, src: int) -> np.ndarray:
    """SUM's x: for every reached vertex, x + y of its last parent in in-edge order (x of
    the source and of unreached vertices 0)."""
    level = oracles.bfs_levels(graph, src)
    y = np.arange(graph.num_nodes) % 7 + 1
    x = np.zeros(graph.num_nodes, dtype=np.int64)
    for v in sorted(np.flatnonzero(level > 0), key=lambda v: level[v]):
        row = graph.rev_sources[graph.rev_offsets[v]:graph.rev_offsets[v + 1]]
        parent = [u for u in row if level[u] == level[v] - 1][-1]
        x[v] = x[parent] + y[parent]
    return x


def _supersteps(program: pathlib.Path, path: pathlib.Path, src: int, tmp_path, *more: str):
    """Each rank's count of supersteps (MPI --stats: one per kernel launch)."""
    proc = subprocess.run(
        [sys.executable, "-m", "starc", "run", str(program), "-b", "mpi", "--np", "2",
         "--graph", str(path), "--stats", "--out", str(tmp_path / "out.txt"), "--src",
         str(src), *more], capture_output=True, text=True, stdin=subprocess.DEVNULL,
        timeout=300)
    assert proc.returncode == 0, proc.stderr
    return [int(n) for n in re.findall(r"starc-mpi-stats .*? supersteps=(\d+)", proc.stderr)]


@pytest.mark.mpi
@pytest.mark.parametrize("graph_name", ["hubs", "path", "star", "rmat"])
def test_each_turn_to_bottom_up_runs_the_pending_b1_once(graph_name, tmp_path):
    """The program's own count of supersteps (MPI --stats: one per kernel launch) is one per
    BFS step, one per build of the ranks' queues (``ranks_steps``) and one per bottom-up step
    that follows a top-down one (bfs_pending: the frontier's B1 before the fused discovery):
    the directions the heuristic takes in the binary are those above, both ways on the hubs
    graph. (bfs.sp with the source's level from
    a parameter, so that its parents loop keeps its search; dsl/bfs.sp itself launches only the
    steps, then one kernel setting the levels from the depth: analysis/depth_values.py.)"""
    graph, src = graphs()[graph_name]
    path = tmp_path / "g.mtx"
    write_mtx(graph, path)
    steps, builds = ranks_steps(graph, src)
    assert _supersteps(DSL / "bfs.sp", path, src, tmp_path) == [len(steps) + builds + 1] * 2
    searched = tmp_path / "bfs_searched.sp"
    searched.write_text((DSL / "bfs.sp").read_text().replace(
        "node src)", "node src, int start)").replace("src.level = 0;", "src.level = start;"))
    supersteps = _supersteps(searched, path, src, tmp_path, "--start", "0")
    turns = sum(up and not before for before, up in zip([True] + steps, steps))
    assert supersteps == [len(steps) + builds + turns] * 2
    assert turns == {"hubs": 2, "path": 0, "star": 1}.get(graph_name, turns)


@pytest.mark.parametrize("backend", [pytest.param(b, marks=m) for b, m in BACKENDS.items()])
def test_bc_on_a_graph_of_many_levels_against_networkx(backend, tmp_path):
    """A 100x100 grid (198 levels between corners): every top-down step is small, so the
    device backends walk queues and the reverse sweep each level's slice of the BFS order
    (analysis/bfs_queue.py); and the number of shortest paths between corners, about 1e58,
    overflows a float: dsl/bc.sp counts paths in doubles, as GAPBS does (with floats every
    score far from the sources was NaN)."""
    from starc.graphs.generators import grid
    graph = grid(100, 100)
    path = tmp_path / "grid.mtx"
    write_mtx(graph, path)
    sources = [0, 5050]
    actual = compiled("bc", backend).run(path, sourceSet=",".join(map(str, sources)))
    got = actual.props["BC"]
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, oracles.betweenness(graph, sources, False), rtol=1e-3,
                               atol=1e-3)
