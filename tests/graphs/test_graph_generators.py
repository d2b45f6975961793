"""Generators: deterministic for a seed, sized as documented, structurally plausible."""

import networkx as nx
import numpy as np
import pytest

from starc.graphs import grid, rmat, uniform

GENERATORS = {
    "rmat": lambda seed, weights: rmat(8, edge_factor=4, seed=seed, weights=weights),
    "uniform": lambda seed, weights: uniform(300, 3, seed=seed, weights=weights),
    "grid": lambda seed, weights: grid(6, 9, seed=seed, weights=weights),
}


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_deterministic_for_a_seed(name):
    make = GENERATORS[name]
    assert make(3, True) == make(3, True)
    assert make(3, False) == make(3, False)
    if name != "grid":  # a grid's shape does not depend on the seed, only its weights
        assert make(3, False) != make(4, False)
    assert make(3, True) != make(4, True)


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_weights_are_integers_in_range(name):
    graph = GENERATORS[name](1, True)
    assert graph.weights_integral and graph.has_weights
    assert graph.weights.min() >= 1 and graph.weights.max() <= 100
    assert np.array_equal(graph.weights, np.round(graph.weights))
    assert not GENERATORS[name](1, False).has_weights


def test_rmat_size_and_skew():
    graph = rmat(10, edge_factor=8, seed=2)
    assert graph.num_nodes == 1024 and graph.num_edges == 8 * 1024
    degrees = graph.out_degree()
    assert degrees.max() > 10 * degrees.mean()  # heavy-tailed, unlike a uniform graph
    assert "rmat(scale=10" in graph.name and "seed=2" in graph.name


def test_rmat_with_uniform_probabilities_is_roughly_uniform():
    graph = rmat(10, edge_factor=16, a=0.25, b=0.25, c=0.25, seed=0)
    assert graph.out_degree().max() < 5 * 16


def test_rmat_rejects_bad_probabilities():
    with pytest.raises(ValueError, match="probabilities"):
        rmat(4, a=0.9, b=0.2, c=0.1)


def test_uniform_size():
    graph = uniform(1000, 8, seed=5)
    assert graph.num_nodes == 1000 and graph.num_edges == 8000
    assert "uniform(num_nodes=1000" in graph.name
    assert uniform(10, 2.5).num_edges == 25


def test_grid_shape_symmetry_and_diameter():
    rows, cols = 12, 20
    graph = grid(rows, cols, seed=0, weights=True)
    assert graph.num_nodes == rows * cols
    assert graph.num_edges == 2 * (rows * (cols - 1) + cols * (rows - 1))
    assert graph.self_loop_count() == 0 and graph.duplicate_edge_count() == 0
    assert graph.out_degree().max() == 4 and graph.out_degree().min() == 2
    forward = {(s, t): w for s, t, w in zip(*[a.tolist() for a in graph.edge_list()])}
    assert all(forward[(t, s)] == w for (s, t), w in forward.items())  # same weight both ways
    reference = nx.Graph(list(forward))
    assert nx.diameter(reference) == rows + cols - 2
    assert graph.name == "grid(rows=12, cols=20, seed=0, weighted)"


def test_degenerate_sizes():
    assert rmat(0, edge_factor=3).num_edges == 3  # one vertex, three self-loops
    assert uniform(0, 0).num_nodes == 0
    assert grid(1, 1).num_edges == 0
