"""Worklist rounds that run out of order or without the host, on every backend here against
independent oracles. Bellman-Ford's sparse rounds with a priority window
(analysis/priority_window.py): on a weighted grid (a wide wavefront, whose entries past the
window wait many rounds), with zero weights (a window of 1 where every weight sampled is 0) and
with negative weights on a graph without cycles (keys below the round's least), and in the
GPU's schedule, whose work-group splits its entries' edges. On a CPU
device their small rounds run in one work-group (analysis/worklist_rounds.py), which swaps
the queues and flags itself: sssp there, and cc (two loops a round, no window) on a grid and
on paths, whose rounds stay small for long."""

from __future__ import annotations

import functools
import pathlib
import sys

import numpy as np
import pytest

import starc
from starc.graphs import Graph, write_mtx
from starc.graphs.generators import grid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "reference"))
import reference_oracles as oracles  # noqa: E402  (the oracle module of tests/reference)

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
def compiled(backend: str, program: str = "sssp"):
    return starc.compile(str(DSL / f"{program}.sp"), backend)


@pytest.mark.parametrize("backend", [pytest.param(b, marks=m) for b, m in BACKENDS.items()])
def test_sssp_with_a_window_matches_the_oracle(backend, tmp_path):
    for name, graph in graphs():
        path = tmp_path / f"{graph.name}.mtx"
        write_mtx(graph, path)
        dist = compiled(backend).run(path, src=0).props["dist"]
        np.testing.assert_array_equal(dist, oracle(graph, 0), err_msg=name)


@pytest.mark.parametrize("backend", [pytest.param(b, marks=BACKENDS[b])
                                     for b in ("opencl", "sycl")])
def test_sssp_with_a_window_in_split_edges_matches_the_oracle(backend, tmp_path, monkeypatch):
    """A GPU's form of the sparse round (its group splits the entries' edges, each entry's
    item deferring it past the window: analysis/frontier_edges.py), run on the CPU device as
    on a lockstep one (which also launches every round: no work-group's rounds)."""
    program = compiled(backend)
    [variant] = [k for k in program.compilation.specialized.kernels
                 if k.variant_of and k.extent == "frontier"]
    assert variant.window is not None and variant.frontier_edges.windowed
    monkeypatch.setenv(f"STARC_{backend.upper()}_LOCKSTEP", "1")
    for name, graph in graphs():
        path = tmp_path / f"{graph.name}.mtx"
        write_mtx(graph, path)
        dist = program.run(path, src=0).props["dist"]
        np.testing.assert_array_equal(dist, oracle(graph, 0), err_msg=name)


def paths(count: int = 4, length: int = 2000) -> Graph:
    """``count`` paths of ``length`` vertices each, through the ids in a random order: a
    label moves on by a run of increasing ids a round (about 2), so after the first rounds
    only the few vertices at each label's front change, round after round."""
    order = np.random.default_rng(62).permutation(count * length).reshape(count, length)
    src, dst = order[:, :-1].ravel(), order[:, 1:].ravel()
    return Graph.from_edges(count * length, np.concatenate([src, dst]),
                            np.concatenate([dst, src]), None, True, "paths")


@pytest.mark.parametrize("backend", [pytest.param(b, marks=m) for b, m in BACKENDS.items()])
def test_cc_in_small_rounds_matches_networkx(backend, tmp_path):
    for graph in (grid(60, 60), paths()):
        path = tmp_path / f"{graph.name}.mtx"
        write_mtx(graph, path)
        comp = compiled(backend, "cc").run(path).props["comp"]
        np.testing.assert_array_equal(comp, oracles.components(graph), err_msg=graph.name)
