"""Who is a BFS parent (in iterateInBFS) and a BFS child (in iterateInReverse), on every
runnable backend, against the reference and networkx's BFS levels: the source has no parents.

CI time: each program builds once per backend and runs all its graphs; the two variants of
PROGRAM (plain, filtered) are one program, BOTH, one traversal and sweep after the other with
their own properties, so a backend builds them once and one run checks both against their
oracles."""

from __future__ import annotations

import functools
import pathlib
import re
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import starc
from starc.graphs import write_mtx
from starc.results import compare_results

from e2e_cases import small_graphs
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


#: the properties of PROGRAM, which BOTH suffixes with the variant's name
_PROPS = re.compile(r"\b(parents|children|pweight|cweight)\b")


def _both() -> str:
    """PROGRAM's variants as one function: each one's traversal and sweep in turn, its
    properties suffixed with its name ('parents_plain', 'cweight_filtered', ...)."""
    params, fills, bodies = [], [], []
    for variant, (bfs_filter, cond, *_) in VARIANTS.items():
        text = _PROPS.sub(lambda m: f"{m.group(1)}_{variant}",
                          PROGRAM.replace("FILTER", bfs_filter).replace("COND", cond))
        head, body = text.split("{", 1)
        params += [p.strip() for p in head[head.index("(") + 1:head.rindex(")")].split(",")
                   if p.strip() not in ("Graph g", "propEdge<int> weight", "node src")]
        attach, body = body.split(";", 1)
        fills.append(attach[attach.index("(") + 1:attach.rindex(")")])
        bodies.append(body[:body.rindex("}")].rstrip() + "\n")
    return (f"function F(Graph g, propEdge<int> weight, {', '.join(params)}, node src) {{\n"
            f"  g.attachNodeProperty({', '.join(fills)});" + "".join(bodies) + "}\n")


BOTH = _both()


@functools.lru_cache(maxsize=None)
def compiled(backend: str):
    return starc.compile(BOTH, backend)


def _check(backend: str, graph, src: int, tmp_path: pathlib.Path) -> None:
    path = tmp_path / "g.mtx"          # .mtx keeps the vertex count of isolated vertices
    write_mtx(graph, path)
    expected = compiled("reference").run(path, src=src)
    actual = compiled(backend).run(path, src=src)
    problems = compare_results(expected, actual)
    assert not problems, f"from {src} ({backend}):\n" + "\n".join(problems)
    for variant, (_, _, *filters) in VARIANTS.items():
        oracle = oracles.bfs_relation(graph, src, *filters)
        for name, values in oracle.items():
            assert expected.props[f"{name}_{variant}"].tolist() == values.tolist(), \
                (variant, name, src)


def test_both_variants_run_as_written():
    assert BOTH.count("iterateInBFS") == BOTH.count("iterateInReverse") == 2
    assert "from src).filter(v != 1)" in BOTH and "iterateInReverse (v != 2)" in BOTH
    assert "v.pweight_filtered += e.weight;" in BOTH and "v.children_plain += 1;" in BOTH


@pytest.mark.parametrize("backend", [pytest.param(b, marks=m) for b, m in BACKENDS.items()])
def test_edge_case_graphs(backend, tmp_path):
    """One build, every edge-case graph from its first and its last vertex."""
    for graph in small_graphs().values():
        for src in sorted({0, graph.num_nodes - 1}):
            _check(backend, graph, src, tmp_path)


@pytest.mark.parametrize("backend", [pytest.param(b, marks=m) for b, m in BACKENDS.items()])
@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(graph=edge_lists())
def test_generated_graphs(backend, graph, tmp_path):
    _check(backend, graph, graph.num_nodes // 2, tmp_path)


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
