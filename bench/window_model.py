"""A model of Bellman-Ford's worklist rounds with and without a priority window
(starc/analysis/priority_window.py), to choose the window's scale: per graph and scale, the
rounds and the queue entries and edges they process.

    python bench/window_model.py GRAPH.mtx [GRAPH.mtx ...] [--scales 0.5 1 2 4 8 16 32]

Each round runs, from the round-start distances (Jacobi order, which PoCL's rounds matched
exactly in session 60), the queued vertices whose distance is below the window, the least
queued distance plus delta (delta = scale x mean weight / mean out-degree, at least 1), and
keeps the others queued; without a window every queued vertex runs. The source is the first
vertex with an out-edge. A scale whose rounds stay near the unwindowed count while the
entries fall towards one a vertex is what the compiler wants: a round costs a launch, an
entry its edges.
"""

from __future__ import annotations

import argparse

import numpy as np
import scipy.io

INF = 1 << 40


def rounds(matrix, src: int, delta):
    """(rounds, entries processed, edges relaxed) of the worklist rounds from ``src``."""
    n = matrix.shape[0]
    offsets, targets = matrix.indptr, matrix.indices
    weights = matrix.data.astype(np.int64)
    dist = np.full(n, INF, np.int64)
    dist[src] = 0
    queue = np.array([src])
    count = entries = edges = 0
    while len(queue):
        count += 1
        if delta is None:
            active, waiting = queue, queue[:0]
        else:
            below = dist[queue] < dist[queue].min() + delta
            active, waiting = queue[below], queue[~below]
        entries += len(active)
        degree = offsets[active + 1] - offsets[active]
        total = int(degree.sum())
        edges += total
        improved = np.array([], np.int64)
        if total:
            # the positions of the active vertices' edges, row after row
            first = np.repeat(offsets[active] - np.cumsum(np.r_[0, degree[:-1]]), degree)
            at = first + np.arange(total)
            best = np.full(n, INF, np.int64)
            np.minimum.at(best, targets[at], np.repeat(dist[active], degree) + weights[at])
            improved = np.nonzero(best < dist)[0]
            dist[improved] = best[improved]
        queue = np.union1d(waiting, improved)
    return count, entries, edges


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graphs", nargs="+", help="weighted Matrix Market files")
    parser.add_argument("--scales", nargs="+", type=float, default=[0.5, 1, 2, 4, 8, 16, 32])
    args = parser.parse_args()
    for path in args.graphs:
        matrix = scipy.io.mmread(path).tocsr()
        n = matrix.shape[0]
        mean_weight, mean_degree = float(np.abs(matrix.data).mean()), matrix.nnz / n
        src = int(np.argmax(np.diff(matrix.indptr) > 0))
        print(f"{path}: n {n}, m {matrix.nnz}, mean weight {mean_weight:.1f}, "
              f"mean out-degree {mean_degree:.1f}")
        print("| scale | delta | rounds | entries | entries a vertex | edges |")
        print("|---|---|---|---|---|---|")
        for scale in [None] + args.scales:
            delta = None if scale is None else max(1.0, scale * mean_weight / mean_degree)
            count, entries, edges = rounds(matrix, src, delta)
            print(f"| {scale or 'none'} | {delta and round(delta, 1) or 'none'} | {count} | "
                  f"{entries:,} | {entries / n:.2f} | {edges:,} |")


if __name__ == "__main__":
    main()
