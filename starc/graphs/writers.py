"""Writers: text edge list, Matrix Market coordinate, the .sg binary graph and .npz."""

from __future__ import annotations

import os
from typing import Optional

import numpy as np

from .csr import Graph

__all__ = ["write_edge_list", "write_mtx", "save_npz", "write_graph"]

_CHUNK = 1 << 20  # edges formatted per chunk, to bound the memory of the text


def _format_weights(weights: np.ndarray, integral: bool) -> np.ndarray:
    if integral:
        return weights.astype(np.int64).astype("S")
    # numpy's float-to-bytes cast writes the shortest text that reads back exactly.
    return weights.astype("S")


def _write_rows(handle, src: np.ndarray, dst: np.ndarray, weights: Optional[np.ndarray],
                integral: bool, base: int) -> None:
    for start in range(0, src.size, _CHUNK):
        stop = start + _CHUNK
        columns = [(src[start:stop].astype(np.int64) + base).astype("S").tolist(),
                   (dst[start:stop].astype(np.int64) + base).astype("S").tolist()]
        if weights is not None:
            columns.append(_format_weights(weights[start:stop], integral).tolist())
        handle.write(b"\n".join(map(b" ".join, zip(*columns))))
        handle.write(b"\n")


def _header_text(text: str) -> str:
    return " ".join(str(text).split())


def write_edge_list(graph: Graph, path) -> None:
    """Write ``src dst [weight]`` lines in edge-id order, after a ``#`` header comment."""
    with open(os.fspath(path), "wb") as handle:
        handle.write(f"# {_header_text(graph.name) or 'graph'}: {graph.num_nodes} vertices, "
                     f"{graph.num_edges} edges\n".encode())
        _write_rows(handle, graph.sources, graph.targets, graph.weights,
                    graph.weights_integral, 0)


def write_mtx(graph: Graph, path) -> None:
    """Write a general coordinate Matrix Market file (pattern, integer or real values)."""
    if graph.weights is None:
        field = "pattern"
    else:
        field = "integer" if graph.weights_integral else "real"
    with open(os.fspath(path), "wb") as handle:
        handle.write(f"%%MatrixMarket matrix coordinate {field} general\n".encode())
        if graph.name:
            handle.write(f"% {_header_text(graph.name)}\n".encode())
        handle.write(f"{graph.num_nodes} {graph.num_nodes} {graph.num_edges}\n".encode())
        _write_rows(handle, graph.sources, graph.targets, graph.weights,
                    graph.weights_integral, 1)


def save_npz(graph: Graph, path) -> None:
    """Save every CSR array and the metadata; ``load_graph`` reads it back unchanged."""
    weights = graph.weights if graph.weights is not None else np.zeros(0, dtype=np.float64)
    # np.savez appends .npz to names without it; open the file ourselves to keep the name.
    with open(os.fspath(path), "wb") as handle:
        np.savez(handle, format=np.array("starc-graph"), version=np.array(1),
                 num_nodes=np.array(graph.num_nodes), num_edges=np.array(graph.num_edges),
                 has_weights=np.array(graph.weights is not None),
                 weights_integral=np.array(graph.weights_integral),
                 name=np.array(graph.name), offsets=graph.offsets, targets=graph.targets,
                 weights=weights, rev_offsets=graph.rev_offsets,
                 rev_sources=graph.rev_sources, rev_edge_ids=graph.rev_edge_ids,
                 sources=graph.sources)


def write_graph(graph: Graph, path, undirected: bool = False) -> None:
    """Write in the format named by the extension: .mtx, .sg, .npz, otherwise an edge list;
    ``undirected``: the graph was symmetrised (recorded by .sg, so it is not done twice)."""
    extension = os.path.splitext(os.fspath(path))[1].lower()
    if extension == ".sg":
        from .binary import save_sg
        save_sg(graph, path, undirected)
    elif extension == ".mtx":
        write_mtx(graph, path)
    elif extension == ".npz":
        save_npz(graph, path)
    else:
        write_edge_list(graph, path)
