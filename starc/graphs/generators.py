"""Deterministic synthetic graphs: R-MAT (Graph500 Kronecker), uniform random, 2-D grid."""

from __future__ import annotations

import math

import numpy as np

from starc.errors import InputError
from starc.inputs import check_graph_size

from .csr import Graph

__all__ = ["rmat", "uniform", "grid"]

_WEIGHT_LOW, _WEIGHT_HIGH = 1, 100


def _check_size(what: str, num_nodes: int, num_edges: int) -> None:
    """Refuse a size past the limits before anything is allocated (a ValueError, as every
    bad generator argument is)."""
    try:
        check_graph_size(what, num_nodes, num_edges)
    except InputError as error:
        raise ValueError(str(error)) from None


def _weights(rng: np.random.Generator, count: int) -> np.ndarray:
    return rng.integers(_WEIGHT_LOW, _WEIGHT_HIGH + 1, size=count).astype(np.float64)


def rmat(scale: int, edge_factor: int = 16, a: float = 0.57, b: float = 0.19,
         c: float = 0.19, seed: int = 0, weights: bool = False) -> Graph:
    """Graph500 Kronecker graph: 2**scale vertices, edge_factor * 2**scale directed edges.

    Each edge picks a quadrant per bit of its endpoints (probabilities a, b, c and
    1-a-b-c), vectorised over all edges one bit level at a time; vertex labels are then
    randomly permuted, as Graph500 does, so high degrees are not clustered at low ids.
    Self-loops and duplicate edges are kept as generated.
    """
    if scale < 0 or scale > 40:
        raise ValueError(f"scale must be in 0..40, got {scale}")
    if edge_factor < 0:
        raise ValueError(f"edge factor must be >= 0, got {edge_factor}")
    d = 1.0 - a - b - c
    if not all(p >= 0 for p in (a, b, c, d)):   # also refuses NaN
        raise ValueError(f"R-MAT probabilities must be >= 0 and sum to at most 1 "
                         f"(a={a}, b={b}, c={c})")
    num_nodes = 1 << scale
    num_edges = edge_factor * num_nodes
    _check_size(f"rmat --scale {scale} --edge-factor {edge_factor}", num_nodes, num_edges)
    rng = np.random.default_rng(seed)
    index = np.int32 if scale <= 30 else np.int64
    src = np.zeros(num_edges, dtype=index)
    dst = np.zeros(num_edges, dtype=index)
    top = np.float32(a + b)
    c_given_bottom = np.float32(c / (c + d) if c + d > 0 else 0.0)
    a_given_top = np.float32(a / (a + b) if a + b > 0 else 0.0)
    # float32 draws are several times faster than float64 and resolve 2**-24, plenty here.
    for level in range(scale):
        bottom = rng.random(num_edges, dtype=np.float32) > top
        threshold = np.where(bottom, c_given_bottom, a_given_top)
        right = rng.random(num_edges, dtype=np.float32) > threshold
        src |= bottom.astype(index) << index(level)
        dst |= right.astype(index) << index(level)
    permutation = rng.permutation(num_nodes)
    src, dst = permutation[src], permutation[dst]
    edge_weights = _weights(rng, num_edges) if weights else None
    name = (f"rmat(scale={scale}, edge_factor={edge_factor}, a={a}, b={b}, c={c}, "
            f"seed={seed}{', weighted' if weights else ''})")
    return Graph.from_edges(num_nodes, src, dst, edge_weights, True, name)


def uniform(num_nodes: int, avg_degree: float, seed: int = 0,
            weights: bool = False) -> Graph:
    """Erdős–Rényi-like multigraph: round(num_nodes * avg_degree) uniformly random edges."""
    if num_nodes < 0 or not avg_degree >= 0 or not math.isfinite(avg_degree):
        raise ValueError(f"num_nodes must be >= 0 and avg_degree a finite number >= 0, got "
                         f"{num_nodes} and {avg_degree}")
    num_edges = int(round(num_nodes * avg_degree))
    _check_size(f"uniform --nodes {num_nodes} --degree {avg_degree}", num_nodes, num_edges)
    if num_nodes == 0 and num_edges:
        raise ValueError("a graph with no vertices cannot have edges")
    rng = np.random.default_rng(seed)
    src = rng.integers(0, max(num_nodes, 1), size=num_edges)
    dst = rng.integers(0, max(num_nodes, 1), size=num_edges)
    edge_weights = _weights(rng, num_edges) if weights else None
    name = (f"uniform(num_nodes={num_nodes}, avg_degree={avg_degree}, seed={seed}"
            f"{', weighted' if weights else ''})")
    return Graph.from_edges(num_nodes, src, dst, edge_weights, True, name)


def grid(rows: int, cols: int, seed: int = 0, weights: bool = False) -> Graph:
    """A road-like rows x cols 4-neighbour lattice; every edge exists in both directions.

    Vertex ``r * cols + c`` sits at row r, column c; the diameter is rows + cols - 2. With
    ``weights`` both directions of a street share one random weight.
    """
    if rows < 0 or cols < 0:
        raise ValueError("rows and cols must be >= 0")
    _check_size(f"grid --rows {rows} --cols {cols}", rows * cols,
                4 * rows * cols)
    ids = np.arange(rows * cols, dtype=np.int64).reshape(rows, cols)
    horizontal = (ids[:, :-1].ravel(), ids[:, 1:].ravel())
    vertical = (ids[:-1, :].ravel(), ids[1:, :].ravel())
    one_way_src = np.concatenate([horizontal[0], vertical[0]])
    one_way_dst = np.concatenate([horizontal[1], vertical[1]])
    src = np.concatenate([one_way_src, one_way_dst])
    dst = np.concatenate([one_way_dst, one_way_src])
    edge_weights = None
    if weights:
        street = _weights(np.random.default_rng(seed), one_way_src.size)
        edge_weights = np.concatenate([street, street])
    name = f"grid(rows={rows}, cols={cols}, seed={seed}{', weighted' if weights else ''})"
    return Graph.from_edges(rows * cols, src, dst, edge_weights, True, name)
