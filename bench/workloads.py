"""The harness's workloads: the graph variant and parameters of each algorithm, and the R-MAT
and uniform graphs generated for them (cached under the output folder)."""

from __future__ import annotations

import json
import pathlib
import sys
from dataclasses import asdict, dataclass
from typing import List

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

__all__ = ["ALGORITHMS", "ALGORITHM_SETUP", "BC_SOURCES", "EDGE_FACTOR", "GraphInfo",
           "generate_graph", "program_params"]

ALGORITHMS = ("pr", "sssp", "tc", "bc", "bfs", "cc", "sswp", "kcore")
EDGE_FACTOR = 16
BC_SOURCES = 4

# Which graph variant each algorithm runs on, and its parameters ({src}/{sources} filled in).
# "weighted": directed with integer weights 1..100; "plain": directed, no weights (both simple:
# no self-loops or repeated edges, as GAPBS builds every graph it reads);
# "symmetric": every undirected edge once (no repeats, no self-loops), run with --undirected.
ALGORITHM_SETUP = {
    "pr": ("plain", ["--beta", "0.001", "--delta", "0.85", "--maxIter", "100"]),
    "sssp": ("weighted", ["--src", "{src}"]),
    "sswp": ("weighted", ["--src", "{src}"]),
    "bfs": ("plain", ["--src", "{src}"]),
    "bc": ("plain", ["--sourceSet", "{sources}"]),
    "cc": ("plain", []),
    "tc": ("symmetric", []),
    "kcore": ("symmetric", ["--k", "3"]),
}


@dataclass
class GraphInfo:
    kind: str
    scale: int
    variant: str
    path: str
    num_nodes: int
    num_edges: int          # edges as the programs see them (after --undirected)
    src: int                # the highest out-degree vertex
    sources: List[int]      # the BC_SOURCES highest out-degree vertices


def _simple(graph):
    """``graph`` without self-loops and repeated edges (a repeat keeps its first weight).

    GAPBS's builder drops both when it reads a file, so its kernels would otherwise run on
    fewer edges than starc's, which keeps a multigraph as written (R-MAT repeats about 6%
    of its edges at scale 18)."""
    from starc.graphs import Graph

    src, dst = graph.sources.astype(np.int64), graph.targets.astype(np.int64)
    keys = src << 32 | dst
    _, first = np.unique(keys, return_index=True)
    keep = np.sort(first[src[first] != dst[first]])
    weights = None if graph.weights is None else graph.weights[keep]
    return Graph.from_edges(graph.num_nodes, src[keep], dst[keep], weights,
                            graph.weights_integral, f"{graph.name}, simple")


def generate_graph(kind: str, scale: int, variant: str, out: pathlib.Path) -> GraphInfo:
    """Generate (or reuse) one graph file; Matrix Market keeps isolated highest ids."""
    from starc.graphs import Graph, rmat, uniform
    from starc.graphs.generators import grid
    from starc.graphs.writers import write_mtx

    directory = out / "graphs"
    directory.mkdir(parents=True, exist_ok=True)
    # "simple" in the name: files from before duplicate edges were dropped are not reused.
    path = directory / f"{kind}-s{scale}-{variant}-simple.mtx"
    meta = path.with_suffix(".json")
    if path.exists() and meta.exists():
        return GraphInfo(**json.loads(meta.read_text()))
    weights = variant == "weighted"
    seed = scale  # the same seed gives the same topology for every variant of a graph
    if kind == "rmat":
        graph = rmat(scale, EDGE_FACTOR, a=0.57, b=0.19, c=0.19, seed=seed, weights=weights)
    elif kind == "uniform":
        graph = uniform(1 << scale, EDGE_FACTOR, seed=seed, weights=weights)
    elif kind == "grid":
        # Road-like: a square lattice of 2^scale vertices (rows 2^ceil(scale/2)), mean degree 4,
        # diameter about 2^(scale/2 + 1): the many-round case that power-law graphs never show.
        rows = 1 << ((scale + 1) // 2)
        graph = grid(rows, (1 << scale) // rows, seed=seed, weights=weights)
    else:
        raise SystemExit(f"harness: unknown graph kind '{kind}' (use rmat, uniform or grid)")
    if variant != "symmetric":
        graph = _simple(graph)
    num_edges = graph.num_edges
    if variant == "symmetric":
        lo = np.minimum(graph.sources, graph.targets).astype(np.int64)
        hi = np.maximum(graph.sources, graph.targets).astype(np.int64)
        keys = np.unique((lo << 32 | hi)[lo != hi])
        graph = Graph.from_edges(graph.num_nodes, keys >> 32, keys & 0xFFFFFFFF, None, True,
                                 f"{graph.name}, simple undirected")
        num_edges = 2 * graph.num_edges
        degree = np.bincount(np.concatenate([graph.sources, graph.targets]),
                             minlength=graph.num_nodes)
    else:
        degree = graph.out_degree()
    order = np.argsort(-degree, kind="stable")
    write_mtx(graph, path)
    info = GraphInfo(kind, scale, variant, str(path), graph.num_nodes, int(num_edges),
                     int(order[0]), [int(v) for v in order[:BC_SOURCES]])
    meta.write_text(json.dumps(asdict(info)))
    return info


def program_params(algo: str, graph: GraphInfo) -> List[str]:
    _, params = ALGORITHM_SETUP[algo]
    return [p.format(src=graph.src, sources=",".join(map(str, graph.sources))) for p in params]
