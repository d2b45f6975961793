"""Graph.from_edges: CSR layout, reverse CSR, stability, symmetrisation, dtypes."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from starc.graphs import Graph
from starc.graphs.csr import index_dtype


def check_reverse_consistent(graph: Graph) -> None:
    for v in range(graph.num_nodes):
        for slot in range(graph.rev_offsets[v], graph.rev_offsets[v + 1]):
            edge = graph.rev_edge_ids[slot]
            assert graph.targets[edge] == v
            assert graph.sources[edge] == graph.rev_sources[slot]
    assert sorted(graph.rev_edge_ids.tolist()) == list(range(graph.num_edges))


def random_edges(seed, n=50, m=400):
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(1, 9, m).astype(float)


def test_small_graph_layout():
    graph = Graph.from_edges(4, [2, 0, 0, 1, 3, 0], [1, 2, 1, 1, 0, 2], [1, 2, 3, 4, 5, 6])
    assert graph.offsets.tolist() == [0, 3, 4, 5, 6]
    assert graph.targets.tolist() == [1, 2, 2, 1, 1, 0]
    assert graph.sources.tolist() == [0, 0, 0, 1, 2, 3]
    # Duplicates 0->2 keep their input order (weights 2 then 6).
    assert graph.weights.tolist() == [3, 2, 6, 4, 1, 5]
    assert graph.rev_offsets.tolist() == [0, 1, 4, 6, 6]
    assert graph.rev_sources.tolist() == [3, 0, 1, 2, 0, 0]
    assert graph.rev_edge_ids.tolist() == [5, 0, 3, 4, 1, 2]
    assert graph.out_degree().tolist() == [3, 1, 1, 1]
    assert graph.in_degree().tolist() == [1, 3, 2, 0]
    check_reverse_consistent(graph)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_csr_matches_scipy_and_networkx(seed):
    src, dst, weights = random_edges(seed)
    graph = Graph.from_edges(50, src, dst, weights)
    expected = sp.coo_matrix((weights, (src, dst)), shape=(50, 50)).tocsr()
    assert (graph.to_scipy() != expected).nnz == 0
    multigraph = nx.MultiDiGraph()
    multigraph.add_nodes_from(range(50))
    multigraph.add_edges_from(zip(src.tolist(), dst.tolist()))
    assert graph.out_degree().tolist() == [multigraph.out_degree(v) for v in range(50)]
    assert graph.in_degree().tolist() == [multigraph.in_degree(v) for v in range(50)]
    for v in range(50):
        assert sorted(graph.neighbours(v).tolist()) == sorted(
            t for _, t in multigraph.out_edges(v))
    check_reverse_consistent(graph)


def test_adjacency_sorted_and_edge_ids_stable():
    src, dst, weights = random_edges(7)
    weights = np.arange(src.size, dtype=float)  # weight = input position
    graph = Graph.from_edges(50, src, dst, weights)
    keys = list(zip(graph.sources.tolist(), graph.targets.tolist(), graph.weights.tolist()))
    assert keys == sorted(keys)  # sorted by (src, dst), ties by input position
    again = Graph.from_edges(50, src, dst, weights)
    assert again == graph


def test_duplicates_and_self_loops_kept():
    graph = Graph.from_edges(3, [0, 0, 1, 1, 2], [1, 1, 1, 1, 0])
    assert graph.num_edges == 5
    assert graph.self_loop_count() == 2
    assert graph.duplicate_edge_count() == 2
    assert graph.isolated_vertex_count() == 0


def test_symmetrised_adds_reverse_edges_and_keeps_self_loops_once():
    graph = Graph.from_edges(4, [0, 1, 2], [1, 1, 3], [5, 7, 9], name="g")
    undirected = graph.symmetrised()
    pairs = sorted(zip(undirected.sources.tolist(), undirected.targets.tolist(),
                       undirected.weights.tolist()))
    assert pairs == [(0, 1, 5), (1, 0, 5), (1, 1, 7), (2, 3, 9), (3, 2, 9)]
    assert undirected.name == "g (undirected)"
    check_reverse_consistent(undirected)


def test_empty_and_edgeless_graphs():
    empty = Graph.from_edges(0, [], [])
    assert empty.num_nodes == 0 and empty.num_edges == 0
    assert empty.offsets.tolist() == [0] and not empty.has_weights
    edgeless = Graph.from_edges(3, np.array([], dtype=int), np.array([], dtype=int), [])
    assert edgeless.offsets.tolist() == [0, 0, 0, 0]
    assert edgeless.has_weights and edgeless.isolated_vertex_count() == 3


def test_index_dtype():
    graph = Graph.from_edges(3, [0], [1])
    assert graph.offsets.dtype == np.int32 and graph.targets.dtype == np.int32
    assert index_dtype(2**31, 5) == np.int64 and index_dtype(5, 2**31) == np.int64


def test_large_ids_take_the_lexsort_path():
    n = 2**40  # the packed sort key does not fit; the fallback must agree with numpy
    src = np.array([5, 2**39, 5, 3, 2**39], dtype=np.int64)
    dst = np.array([2**38, 1, 7, 2**38, 1], dtype=np.int64)
    from starc.graphs.csr import _stable_order
    assert _stable_order(src, dst, n).tolist() == np.lexsort((dst, src)).tolist()
    assert _stable_order(None, dst, n).tolist() == np.argsort(dst, kind="stable").tolist()


def test_two_pass_order_matches_lexsort():
    from starc.graphs.csr import _stable_order
    rng = np.random.default_rng(3)
    src, dst = rng.integers(0, 4, 300), rng.integers(0, 4, 300)
    # 2**30 vertices: two ids and a position need > 64 bits, one id and a position do not.
    assert _stable_order(src, dst, 2**30).tolist() == np.lexsort((dst, src)).tolist()


@pytest.mark.parametrize("src, dst, message", [
    ([0, 3], [1, 1], "source id out of range"),
    ([0, 1], [1, -1], "target id out of range"),
    ([0], [1, 2], "differ in length"),
])
def test_from_edges_rejects_bad_input(src, dst, message):
    with pytest.raises(ValueError, match=message):
        Graph.from_edges(3, src, dst)


def test_equality_ignores_name_but_not_weights():
    a = Graph.from_edges(2, [0], [1], [1.0], name="a")
    assert a == Graph.from_edges(2, [0], [1], [1.0], name="b")
    assert a != Graph.from_edges(2, [0], [1], [2.0])
    assert a != Graph.from_edges(2, [0], [1])
