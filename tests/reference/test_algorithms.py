"""Every dsl algorithm against an independent oracle, on fixed and generated graphs; the
vectorised and the interpreted executions must agree exactly (``run_both``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from starc.runcontract import DataError
from starc.reference import execute

import reference_oracles as oracles
from reference_helpers import dsl_program, make_graph, relation, run_both

# name -> (n, edges, weights)
FIXED = {
    "no_edges": (4, [], []),
    "one_vertex": (1, [], []),
    "self_loop_only": (1, [(0, 0)], [3]),
    "isolated": (6, [(0, 1), (1, 2), (4, 2)], [5, 1, 2]),
    "self_loops_and_duplicates": (5, [(0, 1), (0, 1), (1, 1), (1, 2), (2, 0), (2, 3), (2, 3)],
                                  [4, 2, 1, 7, 1, 3, 1]),
    "disconnected": (8, [(0, 1), (1, 2), (2, 0), (4, 5), (5, 6), (6, 7), (7, 4)],
                     [1, 2, 3, 4, 5, 6, 7]),
    "dag": (6, [(0, 1), (0, 2), (1, 3), (2, 3), (3, 4), (1, 4), (4, 5)], [2, 1, 5, 1, 1, 9, 2]),
    "star": (7, [(0, v) for v in range(1, 7)] + [(3, 4), (4, 5)], [1, 2, 3, 4, 5, 6, 7, 8]),
    "two_way": (4, [(0, 1), (1, 0), (1, 2), (2, 1), (2, 3)], [3, 3, 2, 2, 9]),
}

SIMPLE = ["no_edges", "one_vertex", "isolated", "disconnected", "dag", "star"]


def fixed_graph(name, undirected=False, weighted=True):
    n, edges, weights = FIXED[name]
    return make_graph(n, edges, weights if weighted else None, name=f"{name}.el",
                      undirected=undirected)


@pytest.mark.parametrize("name", sorted(FIXED))
@pytest.mark.parametrize("undirected", [False, True])
def test_sssp(name, undirected):
    graph = fixed_graph(name, undirected)
    for src in range(graph.num_nodes):
        r = run_both(dsl_program("sssp"), graph, {"src": str(src)})
        assert np.array_equal(r.props["dist"], oracles.dijkstra(graph, src))


@pytest.mark.parametrize("name", sorted(FIXED))
@pytest.mark.parametrize("undirected", [False, True])
def test_sswp(name, undirected):
    graph = fixed_graph(name, undirected)
    for src in range(graph.num_nodes):
        r = run_both(dsl_program("sswp"), graph, {"src": str(src)})
        assert np.array_equal(r.props["width"], oracles.widest(graph, src))


@pytest.mark.parametrize("name", sorted(FIXED))
@pytest.mark.parametrize("undirected", [False, True])
def test_bfs(name, undirected):
    graph = fixed_graph(name, undirected, weighted=False)
    for src in range(graph.num_nodes):
        r = run_both(dsl_program("bfs"), graph, {"src": str(src)})
        assert np.array_equal(r.props["level"], oracles.bfs_levels(graph, src))


@pytest.mark.parametrize("name", sorted(FIXED))
@pytest.mark.parametrize("undirected", [False, True])
def test_cc(name, undirected):
    graph = fixed_graph(name, undirected, weighted=False)
    r = run_both(dsl_program("cc"), graph, {})
    assert np.array_equal(r.props["comp"], oracles.components(graph))


@pytest.mark.parametrize("name", SIMPLE)
@pytest.mark.parametrize("undirected", [False, True])
def test_bc(name, undirected):
    graph = fixed_graph(name, undirected, weighted=False)
    sources = list(range(0, graph.num_nodes, 2))
    r = run_both(dsl_program("bc"), graph, {"sourceSet": ",".join(map(str, sources))})
    assert r.props["BC"].dtype == np.float32
    np.testing.assert_allclose(r.props["BC"], oracles.betweenness(graph, sources, undirected),
                               rtol=1e-5, atol=1e-5)


def test_bc_counts_parallel_edges_as_distinct_paths():
    # 0 -> 1 twice, 1 -> 2: two shortest paths 0 -> 2 through 1, so delta_0(1) = 1 still,
    # but sigma(2) = 2: with 0 -> 3 -> 2 added, vertex 1 carries 2 of 3 paths to 2.
    graph = make_graph(4, [(0, 1), (0, 1), (1, 2), (0, 3), (3, 2)])
    r = run_both(dsl_program("bc"), graph, {"sourceSet": "0"})
    np.testing.assert_allclose(r.props["BC"], [0, 2 / 3, 0, 1 / 3], rtol=1e-6)


def test_bc_empty_source_set():
    graph = fixed_graph("dag")
    r = run_both(dsl_program("bc"), graph, {"sourceSet": ""})
    assert not r.props["BC"].any()


@pytest.mark.parametrize("name", SIMPLE)
def test_tc(name):
    graph = fixed_graph(name, undirected=True, weighted=False)
    r = run_both(dsl_program("tc"), graph, {})
    assert r.ret == oracles.triangles(graph)
    assert r.props == {}


@pytest.mark.parametrize("name", SIMPLE)
@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_kcore(name, k):
    graph = fixed_graph(name, undirected=True, weighted=False)
    r = run_both(dsl_program("kcore"), graph, {"k": str(k)})
    expected = oracles.kcore(graph, k)
    assert np.array_equal(r.props["inCore"], expected)
    assert r.ret == int(expected.sum())


@pytest.mark.parametrize("name", sorted(FIXED))
def test_pr(name):
    graph = fixed_graph(name, weighted=False)
    r = run_both(dsl_program("pr"), graph, {"beta": "1e-7", "delta": "0.85", "maxIter": "50"})
    assert r.props["pageRank"].dtype == np.float32
    expected = oracles.pagerank(graph, 1e-7, 0.85, 50)
    np.testing.assert_allclose(r.props["pageRank"], expected, rtol=1e-4, atol=1e-6)


def test_weights_required():
    graph = fixed_graph("dag", weighted=False)
    for name in ("sssp", "sswp"):
        with pytest.raises(DataError, match=r"dag.el: the program reads edge weights \(propEdge<int> weight\) but "
                                             "the file has none"):
            execute(dsl_program(name), graph, {"src": "0"})


def test_sssp_negative_weights_without_cycles():
    # effective updates from a vertex with a larger distance: the vectorised Min must notice
    # it cannot order them (strategy M) and the result must still be Bellman-Ford's
    graph = make_graph(5, [(0, 1), (0, 2), (2, 1), (1, 3), (2, 3), (3, 4)], [1, 5, -10, 1, 1, -3])
    r = run_both(dsl_program("sssp"), graph, {"src": "0"})
    assert r.props["dist"].tolist() == [0, -5, 5, -4, -7]


# --- generated graphs ------------------------------------------------------------------------

@st.composite
def graphs(draw, max_nodes=30, simple=False, weights=(1, 20)):
    n = draw(st.integers(1, max_nodes))
    pairs = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
    edges = draw(st.lists(pairs, max_size=4 * n))
    if simple:
        edges = sorted({(u, v) for u, v in edges if u != v})
    w = draw(st.lists(st.integers(*weights), min_size=len(edges), max_size=len(edges)))
    return n, edges, w


def one_way(edges):
    """Each unordered pair once, so that the symmetrised graph has no duplicate edges."""
    return sorted({(min(u, v), max(u, v)) for u, v in edges})


SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(graphs(), st.booleans(), st.data())
def test_generated_sssp_sswp_bfs_cc(spec, undirected, data):
    n, edges, weights = spec
    graph = make_graph(n, edges, weights, undirected=undirected)
    src = data.draw(st.integers(0, n - 1))
    r = run_both(dsl_program("sssp"), graph, {"src": str(src)})
    assert np.array_equal(r.props["dist"], oracles.dijkstra(graph, src))
    r = run_both(dsl_program("sswp"), graph, {"src": str(src)})
    assert np.array_equal(r.props["width"], oracles.widest(graph, src))
    r = run_both(dsl_program("bfs"), graph, {"src": str(src)})
    assert np.array_equal(r.props["level"], oracles.bfs_levels(graph, src))
    r = run_both(dsl_program("cc"), graph, {})
    assert np.array_equal(r.props["comp"], oracles.components(graph))


@SETTINGS
@given(graphs(simple=True), st.booleans(), st.data())
def test_generated_bc(spec, undirected, data):
    n, edges, _ = spec
    graph = make_graph(n, one_way(edges) if undirected else edges, undirected=undirected)
    sources = sorted(data.draw(st.sets(st.integers(0, n - 1), max_size=4)))
    r = run_both(dsl_program("bc"), graph, {"sourceSet": ",".join(map(str, sources))})
    np.testing.assert_allclose(r.props["BC"], oracles.betweenness(graph, sources, undirected),
                               rtol=1e-4, atol=1e-4)


@SETTINGS
@given(graphs(max_nodes=16), st.data())
def test_generated_bfs_parents_and_children(spec, data):
    """Who is a BFS parent / child, against networkx's levels, on multigraphs with cycles and
    self-loops, from any source (including ones with unreached in-neighbours)."""
    n, edges, weights = spec
    graph = make_graph(n, edges, weights)
    src = data.draw(st.integers(0, n - 1))
    parents, children = oracles.bfs_relation_counts(graph, src)
    assert relation(graph, src) == (parents.tolist(), children.tolist())


@SETTINGS
@given(graphs(simple=True), st.integers(0, 5))
def test_generated_tc_kcore(spec, k):
    n, edges, _ = spec
    graph = make_graph(n, one_way(edges), undirected=True)
    assert run_both(dsl_program("tc"), graph, {}).ret == oracles.triangles(graph)
    r = run_both(dsl_program("kcore"), graph, {"k": str(k)})
    assert np.array_equal(r.props["inCore"], oracles.kcore(graph, k))


@SETTINGS
@given(graphs())
def test_generated_pr(spec):
    n, edges, _ = spec
    graph = make_graph(n, edges)
    r = run_both(dsl_program("pr"), graph, {"beta": "1e-7", "delta": "0.85", "maxIter": "40"})
    np.testing.assert_allclose(r.props["pageRank"], oracles.pagerank(graph, 1e-7, 0.85, 40),
                               rtol=1e-4, atol=1e-6)


@SETTINGS
@given(graphs(max_nodes=12, weights=(0, 20)), st.data())
def test_generated_multigraphs_fast_equals_interpreted(spec, data):
    """Self-loops, duplicates and negative weights (without negative cycles: non-negative
    weights reweighted by a potential, as in Johnson's algorithm): the fast paths must give
    the interpreter's answers exactly (run_both asserts it), including where they fall back."""
    n, edges, weights = spec
    potential = data.draw(st.lists(st.integers(-10, 10), min_size=n, max_size=n))
    weights = [w + potential[u] - potential[v] for (u, v), w in zip(edges, weights)]
    graph = make_graph(n, edges, weights)
    src = str(data.draw(st.integers(0, n - 1)))
    run_both(dsl_program("sssp"), graph, {"src": src})
    run_both(dsl_program("sswp"), graph, {"src": src})
    run_both(dsl_program("bc"), graph, {"sourceSet": src})
    run_both(dsl_program("tc"), graph, {})
    run_both(dsl_program("kcore"), graph, {"k": "2"})
