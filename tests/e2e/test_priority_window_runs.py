"""Bellman-Ford's sparse rounds with a priority window (analysis/priority_window.py), on every
backend here against an independent oracle: on a weighted grid (a wide wavefront, whose
entries past the window wait many rounds), with zero weights (a window of 1 where every
weight sampled is 0) and with negative weights on a graph without cycles (keys below the
round's least)."""

from __future__ import annotations

import functools
import pathlib

import numpy as np
import pytest

import starc
from starc.graphs import Graph, write_mtx
from starc.graphs.generators import grid

DSL = pathlib.Path(__file__).resolve().parents[2] / "dsl"
INT_MAX = 2**31 - 1

BACKENDS = {"opencl": [pytest.mark.opencl], "sycl": [pytest.mark.sycl],
            "openacc": [pytest.mark.openacc], "cuda": [pytest.mark.cuda, pytest.mark.gpu]}


def _weighted(n: int, src, dst, weights, name: str) -> Graph:
    return Graph.from_edges(n, np.asarray(src, np.int64), np.asarray(dst, np.int64),
                            np.asarray(weights, np.int64), True, name)


def graphs():
    rng = np.random.default_rng(62)
    yield "grid", grid(70, 70, seed=62, weights=True)
    n = 3000
    src, dst = rng.integers(0, n, 4 * n), rng.integers(0, n, 4 * n)
    yield "zero weights", _weighted(n, src, dst, np.zeros(4 * n, np.int64), "zeros")
    # an edge from lower to higher ids only: no cycle, so negative weights have shortest paths
    low, high = np.minimum(src, dst), np.maximum(src, dst)
    keep = low != high
    yield "negative weights", _weighted(n, low[keep], high[keep],
                                        rng.integers(-40, 100, int(keep.sum())), "dag")


def oracle(graph: Graph, src: int) -> np.ndarray:
    """Bellman-Ford in NumPy (every edge relaxed each pass until none improves); INT_MAX
    where unreachable, as dsl/sssp.sp leaves it."""
    rows = np.repeat(np.arange(graph.num_nodes), np.diff(graph.offsets))
    cols, weights = graph.targets, np.asarray(graph.weights, np.int64)
    dist = np.full(graph.num_nodes, INT_MAX, np.int64)
    dist[src] = 0
    for _ in range(graph.num_nodes):
        reached = dist[rows] != INT_MAX
        relaxed = dist.copy()
        np.minimum.at(relaxed, cols[reached], dist[rows[reached]] + weights[reached])
        if np.array_equal(relaxed, dist):
            return dist
        dist = relaxed
    raise AssertionError("a negative cycle")


@functools.lru_cache(maxsize=None)
def compiled(backend: str):
    return starc.compile(str(DSL / "sssp.sp"), backend)


@pytest.mark.parametrize("backend", [pytest.param(b, marks=m) for b, m in BACKENDS.items()])
def test_sssp_with_a_window_matches_the_oracle(backend, tmp_path):
    for name, graph in graphs():
        path = tmp_path / f"{graph.name}.mtx"
        write_mtx(graph, path)
        dist = compiled(backend).run(path, src=0).props["dist"]
        np.testing.assert_array_equal(dist, oracle(graph, 0), err_msg=name)
