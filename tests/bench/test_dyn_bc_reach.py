"""bench/dyn_bc_reach.py's least redo of a decremental BC covers every vertex whose level,
path count or dependency changes when edges are deleted (Brandes run from scratch on both
graphs, with networkx's BFS as the levels' oracle)."""

from __future__ import annotations

import pathlib
import sys

import networkx as nx
import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import dyn_bc_reach as reach  # noqa: E402

from starc.graphs import rmat  # noqa: E402


def brandes(n, src, dst, source):
    """(level, sigma, delta) of every vertex for one source, from networkx's BFS layers."""
    graph = nx.DiGraph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from(zip(src.tolist(), dst.tolist()))
    level = np.full(n, -1)
    for depth, layer in enumerate(nx.bfs_layers(graph, source)):
        level[layer] = depth
    sigma, delta = np.zeros(n), np.zeros(n)
    sigma[source] = 1
    layers = list(nx.bfs_layers(graph, source))
    for layer in layers[1:]:
        for w in layer:
            sigma[w] = sum(sigma[v] for v in graph.predecessors(w) if level[v] == level[w] - 1)
    for layer in reversed(layers):
        for v in layer:
            delta[v] = sum(sigma[v] / sigma[w] * (1 + delta[w]) for w in graph.successors(v)
                           if level[w] == level[v] + 1)
    return level, sigma, delta


@pytest.mark.parametrize("seed", range(6))
def test_the_least_redo_covers_every_change(seed):
    graph = rmat(7, 4, seed=seed)
    n = graph.num_nodes
    src, dst = graph.sources.astype(np.int64), graph.targets.astype(np.int64)
    simple = np.unique(src * n + dst)
    src, dst = simple // n, simple % n
    rng = np.random.default_rng(seed)
    deleted = np.zeros(src.size, dtype=bool)
    deleted[rng.choice(src.size, size=12, replace=False)] = True
    source = int(np.argmax(np.bincount(src, minlength=n)))
    redo, reached = reach.least_redo(src, dst, n, source, deleted)
    before = brandes(n, src, dst, source)
    after = brandes(n, src[~deleted], dst[~deleted], source)
    changed = np.zeros(n, dtype=bool)
    for old, new in zip(before, after):
        changed |= ~np.isclose(old, new)
    assert np.array_equal(reached, np.flatnonzero(before[0] >= 0))
    assert set(np.flatnonzero(changed)) <= set(redo.tolist())
    assert changed.any() == (redo.size > 0)
