"""A BFS's small levels in one work-group's rounds (analysis/bfs_rounds.py), on every backend
here against networkx: on a graph whose levels go small, large and small again, the rounds
hand the traversal to the host's steps and take it back, and bc's reverse sweep walks the
levels' slices level by level (a level ran outside the rounds); on a grid every level runs in
the rounds and the sweep in one work-group too."""

from __future__ import annotations

import functools
import pathlib
import sys

import numpy as np
import pytest

import starc
from starc.analysis.bfs_rounds import ROUND_LIMIT
from starc.analysis.frontier import DENSE_DIVISOR
from starc.graphs import Graph, write_mtx
from starc.graphs.generators import grid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "reference"))
import reference_oracles as oracles  # noqa: E402  (the oracle module of tests/reference)

DSL = pathlib.Path(__file__).resolve().parents[2] / "dsl"

BACKENDS = {"opencl": [pytest.mark.opencl], "sycl": [pytest.mark.sycl],
            "openacc": [pytest.mark.openacc], "mpi": [pytest.mark.mpi],
            "cuda": [pytest.mark.cuda, pytest.mark.gpu]}


def broom(path: int = 100, leaves: int = ROUND_LIMIT + 800) -> Graph:
    """A path, a hub at its end with ``leaves`` leaves, a second path from the last leaf, and
    enough isolated vertices that the hub's level (more than ``ROUND_LIMIT`` out-edges) and
    the leaves' (more than ``ROUND_LIMIT`` vertices) are still at most n / DENSE_DIVISOR: sparse
    steps, but too large for the rounds. Undirected."""
    hub, first_leaf = path - 1, path
    tail = first_leaf + leaves
    pairs = [(v, v + 1) for v in range(path - 1)]
    pairs += [(hub, leaf) for leaf in range(first_leaf, tail)]
    pairs += [(tail - 1, tail)] + [(v, v + 1) for v in range(tail, tail + path - 1)]
    n = (leaves + 2) * DENSE_DIVISOR
    src = np.array([a for a, b in pairs] + [b for a, b in pairs], dtype=np.int64)
    dst = np.array([b for a, b in pairs] + [a for a, b in pairs], dtype=np.int64)
    return Graph.from_edges(n, src, dst, None, True, "broom")


def test_the_broom_has_levels_too_large_for_the_rounds_but_sparse():
    graph = broom()
    level = oracles.bfs_levels(graph, 0)
    sizes = np.bincount(level[level >= 0])
    limit = graph.num_nodes // DENSE_DIVISOR
    assert ROUND_LIMIT < sizes.max() <= limit
    degree = np.diff(graph.offsets)
    edges = [int(degree[level == d].sum()) for d in range(len(sizes))]
    assert ROUND_LIMIT < max(edges) <= limit
    assert sizes[-1] == 1 and len(sizes) > 150       # small levels again after the large ones


@functools.lru_cache(maxsize=None)
def compiled(program: str, backend: str):
    return starc.compile(str(DSL / f"{program}.sp"), backend)


@pytest.mark.parametrize("backend", [pytest.param(b, marks=m) for b, m in BACKENDS.items()])
def test_levels_and_bc_on_graphs_of_small_and_large_levels(backend, tmp_path):
    for name, graph in (("broom", broom()), ("grid", grid(60, 60))):
        path = tmp_path / f"{name}.mtx"
        write_mtx(graph, path)
        levels = compiled("bfs", backend).run(path, src=0).props["level"]
        np.testing.assert_array_equal(levels, oracles.bfs_levels(graph, 0), err_msg=name)
        sources = [0, 50]
        scores = compiled("bc", backend).run(path, sourceSet="0,50").props["BC"]
        np.testing.assert_allclose(scores, oracles.betweenness(graph, sources, False),
                                   rtol=1e-4, atol=1e-3, err_msg=name)
