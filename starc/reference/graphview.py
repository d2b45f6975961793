"""The graph as the reference executor uses it: numpy CSR plus Python lists and search keys."""

from __future__ import annotations

import bisect
from typing import List, Tuple

import numpy as np

__all__ = ["GraphView", "expand_ranges", "expand_counts", "bfs_layers"]


def expand_ranges(offsets: np.ndarray, vertices: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """For each vertex (in order) its CSR positions ``offsets[v] .. offsets[v+1]-1``.

    Returns ``(positions, owner)``: ``owner[i]`` is the index into ``vertices`` whose range
    holds ``positions[i]``; positions of one vertex stay contiguous and ascending.
    """
    vertices = np.asarray(vertices, dtype=np.int64)
    starts = offsets[vertices].astype(np.int64)
    counts = offsets[vertices + 1].astype(np.int64) - starts
    return expand_counts(starts, counts)


def expand_counts(starts: np.ndarray, counts: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Positions ``starts[i] .. starts[i]+counts[i]-1`` for every i, with their owner i."""
    total = int(counts.sum())
    if total == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    owner = np.repeat(np.arange(counts.size, dtype=np.int64), counts)
    first = np.cumsum(counts) - counts
    positions = np.arange(total, dtype=np.int64) - first[owner] + starts[owner]
    return positions, owner


def bfs_layers(view: "GraphView", root: int) -> Tuple[List[np.ndarray], np.ndarray]:
    """Level-synchronous BFS along out-edges: the layers (ascending ids) and the level of
    every vertex (-1 when unreached)."""
    level = np.full(view.num_nodes, -1, dtype=np.int64)
    level[root] = 0
    frontier = np.array([root], dtype=np.int64)
    layers = [frontier]
    depth = 0
    while True:
        positions, _ = expand_ranges(view.offsets, frontier)
        if positions.size == 0:
            break
        reached = np.unique(view.targets[positions])
        reached = reached[level[reached] < 0]
        if reached.size == 0:
            break
        depth += 1
        level[reached] = depth
        frontier = reached.astype(np.int64)
        layers.append(frontier)
    return layers, level


def bfs_related(level_w, level_v, step: int):
    """The BFS relation of reached ``v`` and a neighbour ``w`` (ints or numpy arrays): ``w`` is a
    parent (``step`` -1) or child (+1) when it was reached and ``level(w) = level(v) + step``.
    The reached test keeps an unreached in-neighbour (level -1) from being the source's parent:
    the source has no parents, ever."""
    return (level_w >= 0) & (level_w == level_v + step)


class GraphView:
    """Read-only views of one ``starc.graphs.Graph`` for both execution layers."""

    def __init__(self, graph) -> None:
        self.graph = graph
        self.num_nodes = int(graph.num_nodes)
        self.num_edges = int(graph.num_edges)
        self.offsets = np.asarray(graph.offsets, dtype=np.int64)
        self.targets = np.asarray(graph.targets, dtype=np.int64)
        self.sources = np.asarray(graph.sources, dtype=np.int64)
        self.rev_offsets = np.asarray(graph.rev_offsets, dtype=np.int64)
        self.rev_sources = np.asarray(graph.rev_sources, dtype=np.int64)
        self.rev_edge_ids = np.asarray(graph.rev_edge_ids, dtype=np.int64)
        self._lists = None
        self._keys = None
        self._rev_keys = None
        self._bitmap = None

    # -- Python lists for the closure interpreter (built on first use) ------------------------
    @property
    def lists(self):
        if self._lists is None:
            self._lists = (self.offsets.tolist(), self.targets.tolist(),
                           self.rev_offsets.tolist(), self.rev_sources.tolist(),
                           self.rev_edge_ids.tolist(), self.sources.tolist())
        return self._lists

    def find_edge(self, u: int, w: int) -> int:
        """The first edge u -> w in CSR order (binary search in u's sorted row), or -1."""
        offsets, targets = self.lists[0], self.lists[1]
        hi = offsets[u + 1]
        pos = bisect.bisect_left(targets, w, offsets[u], hi)
        return pos if pos < hi and targets[pos] == w else -1

    # -- vectorised searches ----------------------------------------------------------------
    @property
    def edge_keys(self) -> np.ndarray:
        """``source * n + target`` per edge: sorted, since the CSR is sorted by (src, dst)."""
        if self._keys is None:
            self._keys = self.sources * max(self.num_nodes, 1) + self.targets
        return self._keys

    @property
    def rev_keys(self) -> np.ndarray:
        """``target * n + source`` per in-edge, sorted (the reverse CSR order)."""
        if self._rev_keys is None:
            dst = np.repeat(np.arange(self.num_nodes, dtype=np.int64), np.diff(self.rev_offsets))
            self._rev_keys = dst * max(self.num_nodes, 1) + self.rev_sources
        return self._rev_keys

    def has_edges(self, u: np.ndarray, w: np.ndarray) -> np.ndarray:
        """Whether u -> w is an edge, for arrays: a bit matrix for up to 2**14 vertices
        (4 MiB... 32 MiB), else a binary search."""
        n = self.num_nodes
        if n > 1 << 14:
            return self.find_edges(u, w) >= 0
        if self._bitmap is None:
            bits = np.zeros(n * n, dtype=bool)
            bits[self.edge_keys] = True
            self._bitmap = np.packbits(bits, bitorder="little")
        key = np.asarray(u, dtype=np.int64) * n + np.asarray(w, dtype=np.int64)
        return ((self._bitmap[key >> 3] >> (key & 7).astype(np.uint8)) & 1).astype(bool)

    def find_edges(self, u: np.ndarray, w: np.ndarray) -> np.ndarray:
        """``find_edge`` for arrays of endpoints (int64 result, -1 where there is no edge)."""
        u, w = np.broadcast_arrays(np.asarray(u, dtype=np.int64), np.asarray(w, dtype=np.int64))
        query = u * max(self.num_nodes, 1) + w
        keys = self.edge_keys
        pos = np.searchsorted(keys, query, side="left")
        found = pos < keys.size
        found[found] = keys[pos[found]] == query[found]
        return np.where(found, pos, -1)
