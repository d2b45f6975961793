"""Who is a BFS parent (in iterateInBFS) and a BFS child (in iterateInReverse), on every
runnable backend, against the reference and networkx's BFS levels: the source has no parents.

Each (variant or program, backend) builds once and runs all its graphs. The edge-case graphs
run backends x variants x graphs pairwise (CI time: half the runs, MPI's about a second each):
every graph on every backend and with each variant, each variant on every backend."""

from __future__ import annotations

import functools
import pathlib
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import starc
from starc.graphs import write_mtx
from starc.results import compare_results

from e2e_cases import small_graphs
from pairwise import all_pairs
from test_matrix import edge_lists

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "reference"))
import reference_oracles as oracles  # noqa: E402  (the oracle module of tests/reference)

# Counts and weight sums of the parent edges (B1) and child edges (B2) of every vertex.
PROGRAM = """function F(Graph g, propEdge<int> weight, propNode<int> parents,
                        propNode<int> children, propNode<int> pweight, propNode<int> cweight,
                        node src) {
  g.attachNodeProperty(parents = 0, children = 0, pweight = 0, cweight = 0);
  iterateInBFS (v in g.nodes() from src)FILTER {
    forall (w in g.neighbors(v)) {
      edge e = g.get_edge(w, v);
      v.parents += 1;
      v.pweight += e.weight;
    }
  }
  iterateInReverse (COND) {
    forall (w in g.neighbors(v)) {
      edge e = g.get_edge(v, w);
      v.children += 1;
      v.cweight += e.weight;
    }
  }
}
"""
# (BFS filter, reverse condition, the same two as Python predicates for the oracle)
VARIANTS = {
    "plain": ("", "True", None, None),
    "filtered": (".filter(v != 1)", "v != 2", lambda v: v != 1, lambda v: v != 2),
}
BACKENDS = {"opencl": [pytest.mark.opencl], "sycl": [pytest.mark.sycl],
            "openacc": [pytest.mark.openacc], "mpi": [pytest.mark.mpi],
            "cuda": [pytest.mark.cuda, pytest.mark.gpu]}


@functools.lru_cache(maxsize=None)
def compiled(variant: str, backend: str):
    bfs_filter, cond = VARIANTS[variant][:2]
    return starc.compile(PROGRAM.replace("FILTER", bfs_filter).replace("COND", cond), backend)


def _check(variant: str, backend: str, graph, src: int, tmp_path: pathlib.Path) -> None:
    path = tmp_path / "g.mtx"          # .mtx keeps the vertex count of isolated vertices
    write_mtx(graph, path)
    expected = compiled(variant, "reference").run(path, src=src)
    actual = compiled(variant, backend).run(path, src=src)
    problems = compare_results(expected, actual)
    assert not problems, f"{variant} from {src} ({backend}):\n" + "\n".join(problems)
    oracle = oracles.bfs_relation(graph, src, *VARIANTS[variant][2:])
    for name, values in oracle.items():
        assert expected.props[name].tolist() == values.tolist(), name


def _cases():
    """(backend, variant) -> the edge-case graphs it runs: all pairs of the three axes."""
    cases = {}
    for backend, variant, graph in all_pairs(BACKENDS, VARIANTS, small_graphs()):
        cases.setdefault((backend, variant), []).append(graph)
    for (backend, variant), graphs in cases.items():
        yield pytest.param(backend, variant, tuple(graphs), marks=BACKENDS[backend],
                           id=f"{backend}-{variant}")


@pytest.mark.parametrize("backend, variant, graph_names", list(_cases()))
def test_edge_case_graphs(backend, variant, graph_names, tmp_path):
    for graph_name in graph_names:
        graph = small_graphs()[graph_name]
        for src in sorted({0, graph.num_nodes - 1}):
            _check(variant, backend, graph, src, tmp_path)


def test_the_edge_case_runs_cover_every_pair():
    runs = [(param.values[0], param.values[1], graph) for param in _cases()
            for graph in param.values[2]]
    graphs = list(small_graphs())
    assert {(b, g) for b, _, g in runs} == {(b, g) for b in BACKENDS for g in graphs}
    assert {(v, g) for _, v, g in runs} == {(v, g) for v in VARIANTS for g in graphs}
    assert {(b, v) for b, v, _ in runs} == {(b, v) for b in BACKENDS for v in VARIANTS}


@pytest.mark.parametrize("backend", [pytest.param(b, marks=m) for b, m in BACKENDS.items()])
@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(graph=edge_lists())
def test_generated_graphs(backend, graph, tmp_path):
    for variant in VARIANTS:
        _check(variant, backend, graph, graph.num_nodes // 2, tmp_path)


# Two traversals in a row: the second starts from fresh levels (nothing of the first's levels
# may make a vertex a parent or child), and its reverse sweep belongs to it alone.
TWO = """function F(Graph g, propNode<int> a, propNode<int> b, node src, node other) {
  g.attachNodeProperty(a = 0, b = 0);
  iterateInBFS (v in g.nodes() from src) {
    for (w in g.neighbors(v)) { v.a += 1; }
  }
  iterateInBFS (v in g.nodes() from other) {
    for (w in g.neighbors(v)) { v.b += 1; }
  }
  iterateInReverse (True) {
    for (w in g.neighbors(v)) { v.b += 10; }
  }
}
"""


@functools.lru_cache(maxsize=None)
def compiled_text(text: str, backend: str):
    """``text`` compiled for ``backend``, once per test session."""
    return starc.compile(text, backend)


@pytest.mark.parametrize("backend", [pytest.param(b, marks=m) for b, m in BACKENDS.items()])
def test_consecutive_traversals_start_afresh(backend, tmp_path):
    for graph_name in ("source_in_edges", "unreached_in_nbr", "rmat"):   # one build
        graph = small_graphs()[graph_name]
        path = tmp_path / "g.mtx"
        write_mtx(graph, path)
        src, other = 0, graph.num_nodes - 2
        expected = compiled_text(TWO, "reference").run(path, src=src, other=other)
        actual = compiled_text(TWO, backend).run(path, src=src, other=other)
        assert not compare_results(expected, actual), graph_name
        first = oracles.bfs_relation(graph, src)
        second = oracles.bfs_relation(graph, other)
        assert expected.props["a"].tolist() == first["parents"].tolist(), graph_name
        assert expected.props["b"].tolist() == \
            (second["parents"] + 10 * second["children"]).tolist(), graph_name


# Loops whose outcome is their last parent's assignment: the plan searches the in-edges
# backwards and stops at the first parent (analysis/bfs.py). In-neighbours come in ascending
# id order, so the last parent is the highest-numbered one (passing the loop's filter).
LAST_PARENT = """function F(Graph g, propNode<int> parent, propNode<int> depth, node src) {
  g.attachNodeProperty(parent = -1, depth = 0);
  iterateInBFS (v in g.nodes() from src) {
    for (w in g.neighbors(v)) { v.parent = w; }
    for (w in g.neighbors(v).filter(w != 2)) { v.depth = w.depth + 1; }
  }
}
"""


def _last_parent_oracle(graph, src):
    level = oracles.bfs_levels(graph, src)
    parent = np.full(graph.num_nodes, -1, dtype=np.int64)
    depth = np.zeros(graph.num_nodes, dtype=np.int64)
    # The source's filtered depth loop has no parent: it keeps 0; vertices by level, so a
    # parent's depth is final before its children read it.
    for v in sorted(range(graph.num_nodes), key=lambda x: level[x]):
        if level[v] <= 0:
            continue
        parents = sorted({u for u, t, _ in oracles.edges_of(graph)
                          if t == v and u != v and level[u] == level[v] - 1})
        parent[v] = parents[-1]
        kept = [u for u in parents if u != 2]
        if kept:
            depth[v] = depth[kept[-1]] + 1
    return {"parent": parent, "depth": depth}


@pytest.mark.parametrize("backend", [pytest.param(b, marks=m) for b, m in BACKENDS.items()])
def test_last_parent_loops_keep_the_last_parents_value(backend, tmp_path):
    for graph_name in ("rmat", "source_in_edges", "unreached_in_nbr"):   # one build
        graph = small_graphs()[graph_name]
        path = tmp_path / "g.mtx"
        write_mtx(graph, path)
        for src in sorted({0, graph.num_nodes // 2}):
            expected = compiled_text(LAST_PARENT, "reference").run(path, src=src)
            for name, values in _last_parent_oracle(graph, src).items():
                assert expected.props[name].tolist() == values.tolist(), \
                    (graph_name, name, src)
            actual = compiled_text(LAST_PARENT, backend).run(path, src=src)
            assert not compare_results(expected, actual), (backend, graph_name, src)
