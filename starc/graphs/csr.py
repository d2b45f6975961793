"""The Graph class: forward and reverse CSR adjacency built with vectorised numpy.

Conventions every backend and the reference executor rely on:

* Vertices are ``0 .. num_nodes-1``; edge ids are positions in the forward CSR arrays.
* The adjacency is sorted by ``(src, dst)`` with a *stable* sort, so edges with the same
  endpoints (duplicates) keep the order in which they were given and edge ids are stable:
  the same edge list always gives the same ids.
* Duplicate edges and self-loops are kept exactly as written; nothing is merged or dropped.
* The reverse CSR lists, for each vertex, its in-edges sorted by ``(dst, src)`` and stably by
  forward edge id; ``rev_edge_ids`` maps each in-edge to its forward edge id, so an edge
  property indexed by forward id can be read while iterating in-edges.
* Index arrays are int32 while ``num_nodes`` and ``num_edges`` fit in int32, int64 beyond.
* ``weights`` (float64, CSR order) is None for an unweighted graph; ``weights_integral``
  records that every weight was an integer literal, so integer weights print exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

__all__ = ["Graph", "index_dtype"]

_INT32_LIMIT = np.iinfo(np.int32).max


def index_dtype(num_nodes: int, num_edges: int) -> np.dtype:
    """int32 while every id and offset fits in int32, otherwise int64."""
    if num_nodes < _INT32_LIMIT and num_edges < _INT32_LIMIT:
        return np.dtype(np.int32)
    return np.dtype(np.int64)


@dataclass(eq=False)
class Graph:
    """A directed multigraph in forward and reverse CSR form (see the module docstring)."""

    num_nodes: int
    num_edges: int
    offsets: np.ndarray
    targets: np.ndarray
    weights: Optional[np.ndarray]
    weights_integral: bool
    rev_offsets: np.ndarray
    rev_sources: np.ndarray
    rev_edge_ids: np.ndarray
    sources: np.ndarray
    name: str = ""

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def from_edges(cls, num_nodes: int, src, dst, weights=None,
                   weights_integral: bool = True, name: str = "") -> "Graph":
        """Build from parallel arrays of sources, targets and optional weights.

        Raises ValueError for mismatched lengths or ids outside ``0 .. num_nodes-1``.
        """
        return cls._from_columns(num_nodes, {"src": src, "dst": dst, "weights": weights},
                                 weights_integral, name)

    @classmethod
    def _from_columns(cls, num_nodes: int, columns: dict, weights_integral: bool,
                      name: str) -> "Graph":
        """``from_edges`` for a caller that gives its arrays up: ``columns`` (``src``,
        ``dst``, ``weights``) is emptied, so that each input array is freed once it has been
        put in CSR order, before the reverse CSR is built (the readers' peak memory)."""
        num_nodes = int(num_nodes)
        if num_nodes < 0:
            raise ValueError(f"num_nodes must be >= 0, got {num_nodes}")
        src = np.asarray(columns.pop("src")).reshape(-1)
        dst = np.asarray(columns.pop("dst")).reshape(-1)
        weights = columns.pop("weights", None)
        if src.shape != dst.shape:
            raise ValueError(f"src and dst differ in length ({src.size} vs {dst.size})")
        num_edges = int(src.size)
        for label, ids in (("source", src), ("target", dst)):
            if ids.size and not np.issubdtype(ids.dtype, np.integer):
                raise ValueError(f"{label} ids must be integers, got dtype {ids.dtype}")
            if ids.size and (ids.min() < 0 or ids.max() >= num_nodes):
                raise ValueError(f"{label} id out of range 0..{num_nodes - 1}")
        if weights is not None:
            weights = np.asarray(weights, dtype=np.float64).reshape(-1)
            if weights.size != num_edges:
                raise ValueError(f"weights has {weights.size} entries for {num_edges} edges")
        index = index_dtype(num_nodes, num_edges)
        src = src.astype(index, copy=False)
        dst = dst.astype(index, copy=False)

        order = _stable_order(src, dst, num_nodes)
        sources = src[order]
        del src
        targets = dst[order]
        del dst
        if weights is not None:
            weights = weights[order]
        del order

        offsets = _offsets_from(sources, num_nodes, index)
        # Forward edges are already in src order, so a stable sort on dst alone yields
        # in-edges ordered by (dst, src, forward id).
        rev_edge_ids = _stable_order(None, targets, num_nodes).astype(index, copy=False)
        rev_sources = sources[rev_edge_ids]
        rev_offsets = _offsets_from(targets, num_nodes, index)
        return cls(num_nodes=num_nodes, num_edges=num_edges, offsets=offsets,
                   targets=targets, weights=weights,
                   weights_integral=bool(weights_integral) if weights is not None else True,
                   rev_offsets=rev_offsets, rev_sources=rev_sources,
                   rev_edge_ids=rev_edge_ids, sources=sources, name=name)

    # -- queries --------------------------------------------------------------------------
    @property
    def has_weights(self) -> bool:
        return self.weights is not None

    def out_degree(self) -> np.ndarray:
        return np.diff(self.offsets)

    def in_degree(self) -> np.ndarray:
        return np.diff(self.rev_offsets)

    def neighbours(self, v: int) -> np.ndarray:
        """Out-neighbours of ``v`` in edge-id order."""
        return self.targets[self.offsets[v]:self.offsets[v + 1]]

    def edge_list(self) -> Tuple[np.ndarray, np.ndarray, Optional[np.ndarray]]:
        """``(src, dst, weights)`` in CSR (edge-id) order; weights is None when unweighted."""
        return self.sources, self.targets, self.weights

    def self_loop_count(self) -> int:
        return int(np.count_nonzero(self.sources == self.targets))

    def duplicate_edge_count(self) -> int:
        """Edges whose (src, dst) equals that of an earlier edge."""
        if self.num_edges < 2:
            return 0
        same = (self.sources[1:] == self.sources[:-1]) & (self.targets[1:] == self.targets[:-1])
        return int(np.count_nonzero(same))

    def isolated_vertex_count(self) -> int:
        """Vertices with neither in- nor out-edges."""
        return int(np.count_nonzero((self.out_degree() == 0) & (self.in_degree() == 0)))

    # -- transformations ------------------------------------------------------------------
    def symmetrised(self) -> "Graph":
        """The undirected view: v->u added for every u->v that is not a self-loop.

        A self-loop appears once; an edge written in both directions appears twice in each
        direction (duplicates are kept, as everywhere else). Weights are copied.
        """
        keep = self.sources != self.targets
        src = np.concatenate([self.sources, self.targets[keep]])
        dst = np.concatenate([self.targets, self.sources[keep]])
        weights = None
        if self.weights is not None:
            weights = np.concatenate([self.weights, self.weights[keep]])
        name = self.name if self.name.endswith("(undirected)") else f"{self.name} (undirected)"
        return Graph.from_edges(self.num_nodes, src, dst, weights,
                                self.weights_integral, name.strip())

    def to_scipy(self):
        """The adjacency as ``scipy.sparse.csr_matrix`` (duplicates summed by scipy on use)."""
        import scipy.sparse as sp
        data = self.weights if self.weights is not None else np.ones(self.num_edges)
        return sp.csr_matrix((data, self.targets, self.offsets),
                             shape=(self.num_nodes, self.num_nodes))

    # -- comparison -----------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        """Same vertices, edges, ids and weights; ``name`` and index dtype are ignored."""
        if not isinstance(other, Graph):
            return NotImplemented
        if (self.num_nodes, self.num_edges) != (other.num_nodes, other.num_edges):
            return False
        if (self.weights is None) != (other.weights is None):
            return False
        if self.weights is not None and (
                self.weights_integral != other.weights_integral
                or not np.array_equal(self.weights, other.weights)):
            return False
        return all(np.array_equal(getattr(self, field), getattr(other, field))
                   for field in ("offsets", "targets", "rev_offsets", "rev_sources",
                                 "rev_edge_ids", "sources"))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        kind = "unweighted" if self.weights is None else (
            "integer weights" if self.weights_integral else "real weights")
        return (f"Graph({self.name!r}, num_nodes={self.num_nodes}, "
                f"num_edges={self.num_edges}, {kind})")


#: Edges per slice when building sort keys (8 MiB of uint64 temporaries).
_KEY_SLICE = 1 << 20


def _stable_order(primary: Optional[np.ndarray], secondary: np.ndarray,
                  num_nodes: int) -> np.ndarray:
    """The stable permutation sorting edges by ``(primary, secondary)``.

    Ids and the edge position are packed into one uint64 key and sorted by value (much
    faster than a stable argsort); the position in the low bits breaks ties, which makes the
    result stable. When both ids and the position do not fit in 64 bits, two such passes
    (secondary, then primary) make an LSD radix sort.
    """
    count = secondary.size
    if count == 0:
        return np.zeros(0, dtype=np.int64)
    node_bits = max(int(num_nodes - 1).bit_length(), 1)
    edge_bits = max(int(count - 1).bit_length(), 1)
    if node_bits + edge_bits > 64:
        if primary is None:
            return np.argsort(secondary, kind="stable")
        return np.lexsort((secondary, primary))
    if primary is not None and 2 * node_bits + edge_bits > 64:
        first = _stable_order(None, secondary, num_nodes)
        return first[_stable_order(None, primary[first], num_nodes)]
    key = np.empty(count, dtype=np.uint64)
    # Slice by slice, so that the key is the only edge-sized array this allocates.
    for start in range(0, count, _KEY_SLICE):
        stop = min(start + _KEY_SLICE, count)
        part = key[start:stop]
        part[:] = secondary[start:stop]
        part <<= np.uint64(edge_bits)
        part |= np.arange(start, stop, dtype=np.uint64)
        if primary is not None:
            part |= primary[start:stop].astype(np.uint64) << np.uint64(edge_bits + node_bits)
    key.sort()
    key &= np.uint64((1 << edge_bits) - 1)
    return key.view(np.int64)          # positions: below 2**63, the same bits


def _offsets_from(ids: np.ndarray, num_nodes: int, index: np.dtype) -> np.ndarray:
    offsets = np.zeros(num_nodes + 1, dtype=index)
    counts = np.zeros(num_nodes, dtype=np.int64)
    # bincount copies its input to int64: slice by slice, the copy stays small.
    for start in range(0, ids.size, _KEY_SLICE):
        counts += np.bincount(ids[start:start + _KEY_SLICE], minlength=num_nodes)
    np.cumsum(counts, out=offsets[1:])
    return offsets
