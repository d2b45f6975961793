"""The work of dsl/dynamic/dyn_sssp.sp's batches, load-independent: edges relaxed (and in-edges
read) per batch by its two Decremental forms, on bench/dynamic_batches.py's graph and stream.

    python bench/dyn_sssp_work.py [--scale 18] [--share 0.001] [--batches 4]

A numpy model of the program's rounds (issue 31 goal): the subtree rounds below the cut
edges, then either the old form (every reached in-neighbour of a gone vertex relaxes its whole
out-row) or the pull (each gone vertex takes its distance from its in-neighbours that kept
theirs, and only those that got one relax), then Incremental from the additions' sources. A
Relax round relaxes the out-rows of the vertices its previous round improved (synchronous
rounds: the device's asynchronous ones take at most as many). Both forms' distances are
checked against Dijkstra (scipy) on the updated graph after every batch.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from starc.graphs import rmat  # noqa: E402
from starc.graphs.updates import ADD, generate_updates  # noqa: E402

INF = np.iinfo(np.int64).max // 4


class Rows:
    """Forward and reverse rows of a multigraph given by its edge arrays."""

    def __init__(self, n: int, src: np.ndarray, dst: np.ndarray, w: np.ndarray):
        self.n, self.src, self.dst, self.w = n, src, dst, w
        self.fwd = np.argsort(src, kind="stable")
        self.foff = np.concatenate(([0], np.cumsum(np.bincount(src, minlength=n))))
        self.rev = np.argsort(dst, kind="stable")
        self.roff = np.concatenate(([0], np.cumsum(np.bincount(dst, minlength=n))))

    def edges(self, vertices: np.ndarray, order: np.ndarray, off: np.ndarray) -> np.ndarray:
        """The ids of the edges in the rows of ``vertices``."""
        starts, ends = off[vertices], off[vertices + 1]
        lengths = ends - starts
        if lengths.sum() == 0:
            return np.zeros(0, dtype=np.int64)
        first = np.repeat(starts - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
        return order[first + np.arange(lengths.sum())]


def relax(rows: Rows, dist, parent, modified: np.ndarray) -> int:
    """Relax's rounds from the vertices ``modified``: the edges relaxed."""
    relaxed = 0
    frontier = np.flatnonzero(modified)
    while frontier.size:
        e = rows.edges(frontier, rows.fwd, rows.foff)
        relaxed += e.size
        u, v = rows.src[e], rows.dst[e]
        cand = dist[u] + rows.w[e]
        before = dist.copy()
        np.minimum.at(dist, v, cand)
        won = (cand == dist[v]) & (cand < before[v])
        parent[v[won]] = u[won]
        frontier = np.flatnonzero(dist < before)
    return relaxed


def decremental(rows: Rows, dist, parent, gone: np.ndarray, pull: bool):
    """One batch's Decremental: (subtree edges read, in-edges read, edges relaxed)."""
    n = rows.n
    newly, subtree = gone.copy(), 0
    while newly.any():                       # a child of a gone vertex is gone
        e = rows.edges(np.flatnonzero(newly), rows.fwd, rows.foff)
        subtree += e.size
        child = rows.dst[e][parent[rows.dst[e]] == rows.src[e]]
        newly = np.zeros(n, dtype=bool)
        newly[child] = ~gone[child]
        gone |= newly
    dist[gone], parent[gone] = INF, np.flatnonzero(gone)
    ids = np.flatnonzero(gone)
    e = rows.edges(ids, rows.rev, rows.roff)     # the gone vertices' in-edges
    w = rows.src[e]
    modified = np.zeros(n, dtype=bool)
    if pull:
        keep = ~gone[w] & (dist[w] != INF)
        e, w = e[keep], w[keep]
        v, cand = rows.dst[e], dist[w] + rows.w[e]
        np.minimum.at(dist, v, cand)
        won = cand == dist[v]
        parent[v[won]] = w[won]
        modified[ids[dist[ids] != INF]] = True
        return subtree, int(keep.size), relax(rows, dist, parent, modified)
    modified[w[dist[w] != INF]] = True
    return subtree, 0, relax(rows, dist, parent, modified)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=18)
    parser.add_argument("--share", type=float, default=0.001)
    parser.add_argument("--batches", type=int, default=4)
    args = parser.parse_args()
    graph = rmat(args.scale, 16, seed=1, weights=True)
    n = graph.num_nodes
    per_batch = max(1, round(graph.num_edges * args.share))
    stream = generate_updates(graph, per_batch * args.batches, seed=2, weights=True)
    src, dst = graph.sources.astype(np.int64), graph.targets.astype(np.int64)
    w = graph.weights.astype(np.int64)
    rows = Rows(n, src, dst, w)
    dist, parent = np.full(n, INF, dtype=np.int64), np.arange(n)
    dist[0] = 0
    start = np.zeros(n, dtype=bool)
    start[0] = True
    static = relax(rows, dist, parent, start)
    state = {form: (dist.copy(), parent.copy()) for form in ("push", "pull")}
    print(f"Kronecker {args.scale}: {n} vertices, {graph.num_edges} edges; static Relax "
          f"{static} edges relaxed; batches of {per_batch} updates (half deletions)")
    print("| batch | form | gone | subtree edges | in-edges read | Decremental relaxed "
          "| Incremental relaxed |")
    print("|---|---|---|---|---|---|---|")
    for b in range(args.batches):
        part = slice(b * per_batch, (b + 1) * per_batch)
        kinds, us, vs = stream.kinds[part], stream.src[part], stream.dst[part]
        wts = stream.weights[part]
        deleted = set(zip(us[kinds != ADD].tolist(), vs[kinds != ADD].tolist()))
        keys = src * n + dst
        gone_keys = np.array([u * n + v for u, v in deleted], dtype=np.int64)
        stay = ~np.isin(keys, gone_keys)
        add = kinds == ADD
        new_src = np.concatenate((src[stay], us[add].astype(np.int64)))
        new_dst = np.concatenate((dst[stay], vs[add].astype(np.int64)))
        new_w = np.concatenate((w[stay], wts[add].astype(np.int64)))
        between = Rows(n, src[stay], dst[stay], w[stay])
        after = Rows(n, new_src, new_dst, new_w)
        truth = dijkstra(_weights(new_src, new_dst, new_w, n), indices=0)
        for form in ("push", "pull"):
            d, p = state[form]
            gone = np.zeros(n, dtype=bool)
            for u, v in deleted:
                if p[v] == u and u != v:
                    gone[v] = True
            subtree, read, dec = decremental(between, d, p, gone, form == "pull")
            modified = np.zeros(n, dtype=bool)
            modified[us[add][d[us[add]] != INF]] = True
            inc = relax(after, d, p, modified)
            reached = np.full(n, INF, dtype=np.int64)
            reached[~np.isinf(truth)] = truth[~np.isinf(truth)].astype(np.int64)
            assert np.array_equal(d, reached), f"{form}: distances differ from Dijkstra"
            print(f"| {b + 1} | {form} | {int(gone.sum())} | {subtree} | {read} | {dec} | {inc} |")
        src, dst, w = new_src, new_dst, new_w


def _weights(src, dst, w, n):
    """The graph as a sparse matrix of its least weight per vertex pair (Dijkstra's input)."""
    order = np.lexsort((w, dst, src))
    s, d, ww = src[order], dst[order], w[order]
    first = np.ones(s.size, dtype=bool)
    first[1:] = (s[1:] != s[:-1]) | (d[1:] != d[:-1])
    return csr_matrix((ww[first].astype(float), (s[first], d[first])), shape=(n, n))


if __name__ == "__main__":
    main()
