"""How much of a Brandes BC a decremental update must redo, counted on the graph (issue 31).

    python bench/dyn_bc_reach.py [--scale 18] [--sources 4] [--deletions 1 10 100 2097]

A dynamic BC that keeps, per source s, its BFS levels, path counts (sigma) and dependencies
(delta) can skip a source when no deleted edge (a, b) lies on s's shortest-path DAG
(level_s(b) == level_s(a) + 1). Otherwise the levels and sigma of every DAG descendant of a
deleted edge's head may change, and with them the delta of every DAG ancestor of those
descendants: the least such an update must revisit, however it is written. This script counts,
on the same Kronecker graph and sources as bench/workloads.py's bc (the highest out-degree
vertices; directed, out-edges as dsl/bc.sp reads them), for batches of random deletions of
existing edges: the sources touched and, per touched source, the share of the source's reached
vertices in that least set, and of their out-edges (what a pull-style update reads, as
dsl/bc.sp pulls) and in-edges (what a push of the changes to DAG parents reads). A share near
1 means the update is a recomputation under another name, whatever the language can hold per
source. No timing.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np
import scipy.sparse as sp

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from starc.graphs import rmat  # noqa: E402
from workloads import _simple  # noqa: E402


def levels_from(matrix: sp.csr_matrix, seeds) -> np.ndarray:
    """BFS levels of every vertex from ``seeds`` (level 0) along the edges of ``matrix``
    (-1: unreached)."""
    level = np.full(matrix.shape[0], -1, dtype=np.int64)
    frontier = np.unique(np.atleast_1d(seeds))
    level[frontier] = 0
    depth = 0
    while frontier.size:
        depth += 1
        indicator = np.zeros(matrix.shape[0])
        indicator[frontier] = 1.0
        reached = np.flatnonzero(matrix.T @ indicator)     # the frontier's out-neighbours
        frontier = reached[level[reached] < 0]
        level[frontier] = depth
    return level


def closure(matrix: sp.csr_matrix, seeds: np.ndarray) -> np.ndarray:
    """Every vertex reachable from ``seeds`` along the edges of ``matrix`` (seeds included)."""
    return np.flatnonzero(levels_from(matrix, seeds) >= 0)


def dag_matrix(src: np.ndarray, dst: np.ndarray, level: np.ndarray, n: int) -> sp.csr_matrix:
    """The shortest-path DAG of the levels ``level``: the edges one level down."""
    on = (level[src] >= 0) & (level[dst] == level[src] + 1)
    return sp.csr_matrix((np.ones(int(on.sum())), (src[on], dst[on])), shape=(n, n))


def least_redo(src: np.ndarray, dst: np.ndarray, n: int, source: int,
               deleted: np.ndarray) -> tuple:
    """(the vertices a decremental update of ``source``'s Brandes state must revisit when the
    edges ``deleted`` (a mask over src/dst) go, the vertices ``source`` reaches before), or
    (empty, reached) when no deleted edge is on its DAG. Levels and sigma can change only
    below a deleted DAG edge's head; delta only at the ancestors of those, in the old DAG or
    in the new one (a vertex that falls a level can gain a parent that was level with it)."""
    old = levels_from(sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(n, n)), source)
    reached = np.flatnonzero(old >= 0)
    a, b = src[deleted], dst[deleted]
    on_dag = (old[a] >= 0) & (old[b] == old[a] + 1)
    if not on_dag.any():
        return np.zeros(0, dtype=np.int64), reached
    kept_src, kept_dst = src[~deleted], dst[~deleted]
    new = levels_from(sp.csr_matrix((np.ones(kept_src.size), (kept_src, kept_dst)),
                                    shape=(n, n)), source)
    old_dag = dag_matrix(src, dst, old, n)
    below = closure(old_dag, np.unique(b[on_dag]))
    either = old_dag + dag_matrix(kept_src, kept_dst, new, n)
    return closure(either.T, below), reached     # ancestors: the edges reversed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=18)
    parser.add_argument("--sources", type=int, default=4)
    parser.add_argument("--deletions", type=int, nargs="+", default=[1, 10, 100, 2097])
    parser.add_argument("--seed", type=int, default=2)
    args = parser.parse_args()

    graph = _simple(rmat(args.scale, 16, seed=1))
    n = graph.num_nodes
    src, dst = graph.sources.astype(np.int64), graph.targets.astype(np.int64)
    degree = np.diff(graph.offsets)
    in_degree = np.bincount(dst, minlength=n)
    sources = np.argsort(-degree, kind="stable")[:args.sources]
    print(f"R-MAT {args.scale}: n = {n}, m = {graph.num_edges}; "
          f"sources {[int(s) for s in sources]}")
    rng = np.random.default_rng(args.seed)
    for count in args.deletions:
        touched, vertex_shares, edge_shares, in_edge_shares = 0, [], [], []
        deleted = np.zeros(src.size, dtype=bool)
        deleted[rng.choice(src.size, size=count, replace=False)] = True
        for s in sources:
            redo, reached = least_redo(src, dst, n, int(s), deleted)
            if redo.size == 0:
                continue
            touched += 1
            vertex_shares.append(redo.size / reached.size)
            edge_shares.append(degree[redo].sum() / degree[reached].sum())
            in_edge_shares.append(in_degree[redo].sum() / in_degree[reached].sum())
        shares = "; ".join(f"{what} {min(values):.3f}-{max(values):.3f}" for what, values in
                           (("vertices", vertex_shares), ("their out-edges", edge_shares),
                            ("their in-edges", in_edge_shares))) if touched else "-"
        print(f"{count} deletions ({count / graph.num_edges:.4%} of the edges): "
              f"{touched}/{len(sources)} sources touched; a touched source's least redo: {shares}")


if __name__ == "__main__":
    main()
