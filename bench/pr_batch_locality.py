"""How local a batch's change to PageRank is, and what dyn_pr's iteration or a worklist one costs.

    python bench/pr_batch_locality.py [--scale 16] [--share 0.001] [--batches 2]

A numpy model (float64) of dsl/dynamic/dyn_pr.sp on bench/dynamic_batches.py's graph and stream
(`rmat(scale, 16, seed=1)`, batches of ``--share`` of the edges, half deletions): per batch,
the Jacobi rounds dsl/pr.sp takes on the updated graph from 1/n (the static run) against
dyn_pr's restart from the previous ranks, the share of the n vertices whose rank a restart
round moves by more than beta/n, and a data-driven iteration (only the vertices with a moved
in-neighbour, or an updated in-edge or in-neighbour's out-degree, are pulled again; a vertex
tells its out-neighbours when its rank has drifted by more than eps since it last told them)
for eps = beta/(2n), the largest that keeps dsl/pr.sp's error bound (below), and
beta/sqrt(n). Work is pulled in-edges plus vertices (plus the out-edges a worklist walks),
against the static run's rounds x (m + n). Last, the matrix-vector products two Krylov
solvers (scipy's GMRES and BiCGSTAB) take to the same error from 1/n and from the previous
ranks.

The bound: dsl/pr.sp stops when a round moves the ranks by at most beta in L1, so its ranks
are within delta * beta / (1 - delta) of the fixed point in L1. The data-driven iteration
stops with every vertex's rank within eps of the rank it last told, and each vertex last pulled
its in-neighbours' ranks when they were within eps of what they told then and since: each
in-neighbour's rank has moved by at most 2 eps since, so the residual is at most
2 delta n eps in L1 and the error at most 2 delta n eps / (1 - delta): the same bound needs
eps <= beta / (2n).
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np
import scipy.sparse as sparse
import scipy.sparse.linalg as linalg

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from starc.graphs import rmat  # noqa: E402
from starc.graphs.updates import DELETE, add_edges, delete_edges, generate_updates  # noqa: E402

BETA, DELTA, MAX_ITER = 1e-6, 0.85, 100
REPORTED_ROUNDS = (1, 2, 5, 10, 20)


def pull_matrix(graph):
    """A[v, u] = (edges u->v) / out-degree(u): one Jacobi round is (1-delta)/n + delta A x."""
    out_degree = np.bincount(graph.sources, minlength=graph.num_nodes).astype(np.float64)
    return sparse.csr_matrix((1.0 / out_degree[graph.sources], (graph.targets, graph.sources)),
                             shape=(graph.num_nodes,) * 2)


def jacobi(pull, ranks, max_iter=MAX_ITER, beta=BETA):
    """dsl/pr.sp's rounds from ``ranks``: the final ranks and each round's |change| vector."""
    n = ranks.size
    changes = []
    while True:
        new = (1 - DELTA) / n + DELTA * (pull @ ranks)
        changes.append(np.abs(new - ranks))
        ranks = new
        if changes[-1].sum() <= beta or len(changes) >= max_iter:
            return ranks, changes


def batch_seeds(pull, src, dst):
    """The vertices whose pull a batch of updates src->dst changes: each dst and, through the
    source's out-degree, every out-neighbour of each source (all of a hub's)."""
    return np.unique(np.concatenate([dst, pull.T.tocsr()[np.unique(src)].indices]))


def data_driven(pull, ranks, seeds, eps):
    """The worklist iteration from ``ranks``, ``seeds`` active: ranks and the work it did."""
    n = ranks.size
    push = pull.T.tocsr()                                # row u: u's out-neighbours
    in_degree = np.diff(pull.indptr)
    told = ranks.copy()
    ranks = ranks.copy()
    active = np.unique(seeds)
    work = 0
    while active.size:
        new = (1 - DELTA) / n + DELTA * (pull[active] @ ranks)
        work += int(in_degree[active].sum()) + active.size
        ranks[active] = new
        tell = active[np.abs(new - told[active]) > eps]
        told[tell] = ranks[tell]
        reached = push[tell]
        work += reached.nnz
        active = np.unique(reached.indices)
    return ranks, work


def krylov_matvecs(pull, start, fixed_point, method):
    """Matrix-vector products ``method`` (scipy's gmres or bicgstab) on (I - delta A) x =
    (1 - delta)/n takes from ``start`` to ranks within half dsl/pr.sp's bound of the fixed
    point: the fewest over tolerances 1e-2 .. 1e-14 in quarter decades (None: none does)."""
    n = start.size
    system = sparse.identity(n, format="csr") - DELTA * pull
    right = np.full(n, (1 - DELTA) / n)
    for tolerance in (10.0 ** (-k / 4) for k in range(8, 57)):
        steps = []
        if method == "gmres":
            ranks, _ = linalg.gmres(system, right, x0=start, rtol=tolerance, atol=0, restart=30,
                                    maxiter=500, callback=steps.append, callback_type="pr_norm")
            products = len(steps)
        else:
            ranks, _ = linalg.bicgstab(system, right, x0=start, rtol=tolerance, atol=0,
                                       maxiter=500, callback=steps.append)
            products = 2 * len(steps)                # two products per step
        if np.abs(ranks - fixed_point).sum() <= DELTA * BETA / (1 - DELTA) / 2:
            return products
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=16)
    parser.add_argument("--share", type=float, default=0.001)
    parser.add_argument("--batches", type=int, default=2)
    args = parser.parse_args()

    graph = rmat(args.scale, 16, seed=1, weights=True)
    n, m = graph.num_nodes, graph.num_edges
    per_batch = max(1, round(m * args.share))
    stream = generate_updates(graph, per_batch * args.batches, seed=2, weights=True)
    ranks, _ = jacobi(pull_matrix(graph), np.full(n, 1.0 / n))
    print(f"Kronecker {args.scale} (n {n}, m {m}), batches of {per_batch} updates, "
          f"beta {BETA:g}, delta {DELTA}")
    for batch in range(args.batches):
        part = slice(batch * per_batch, (batch + 1) * per_batch)
        kinds, src, dst = stream.kinds[part], stream.src[part], stream.dst[part]
        gone = kinds == DELETE
        graph, _ = delete_edges(graph, src[gone], dst[gone])
        graph, _, _ = add_edges(graph, src[~gone], dst[~gone], stream.weights[part][~gone])
        pull = pull_matrix(graph)
        static, static_changes = jacobi(pull, np.full(n, 1.0 / n))
        restarted, changes = jacobi(pull, ranks)
        fixed_point, _ = jacobi(pull, static, max_iter=1000, beta=1e-15)
        static_work = len(static_changes) * (m + n)
        moved = ", ".join(f"{r}: {(changes[r - 1] > BETA / n).mean():.0%}"
                          for r in REPORTED_ROUNDS if r <= len(changes))
        print(f"batch {batch}: static {len(static_changes)} rounds, restart {len(changes)} "
              f"({len(changes) / len(static_changes):.2f}); first round's L1 change "
              f"{changes[0].sum():.3g}; vertices moved > beta/n in restart round {moved}")
        seeds = batch_seeds(pull, src, dst)
        most = np.diff(pull.T.tocsr().indptr)[src].max()
        print(f"  seeds {seeds.size} ({seeds.size / n:.0%} of n; an updated source has up to "
              f"{most} distinct out-neighbours)")
        for name, eps in (("beta/(2n)", BETA / (2 * n)), ("beta/sqrt(n)", BETA / np.sqrt(n))):
            result, work = data_driven(pull, ranks, seeds, eps)
            print(f"  data-driven, eps {name}: work / static {work / static_work:.2f}; "
                  f"L1 error {np.abs(result - fixed_point).sum():.2g} (static's "
                  f"{np.abs(static - fixed_point).sum():.2g}, bound "
                  f"{DELTA * BETA / (1 - DELTA):.2g}); max relative difference to static "
                  f"{np.max(np.abs(result - static) / static):.2g}")
        for method in ("gmres", "bicgstab"):
            static_products = krylov_matvecs(pull, np.full(n, 1.0 / n), fixed_point, method)
            restart_products = krylov_matvecs(pull, ranks, fixed_point, method)
            print(f"  {method} to the same error: {static_products} matrix-vector products from "
                  f"1/n, {restart_products} from the previous ranks")
        ranks = restarted


if __name__ == "__main__":
    main()
