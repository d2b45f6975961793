"""bench/pr_batch_locality.py's model of dyn_pr: its Jacobi rounds are dsl/pr.sp's (the
reference oracle's power iteration), and its worklist iteration with eps = beta/(2n) ends within
the error bound the script argues (delta * beta / (1 - delta) in L1 of the fixed point)."""

from __future__ import annotations

import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests" / "reference"))

import pr_batch_locality as model  # noqa: E402
import reference_oracles as oracles  # noqa: E402

from starc.graphs import rmat  # noqa: E402
from starc.graphs.updates import DELETE, add_edges, delete_edges, generate_updates  # noqa: E402


def test_jacobi_is_the_power_iteration_of_pr_sp():
    graph = rmat(8, 8, seed=3)
    ranks, changes = model.jacobi(model.pull_matrix(graph), np.full(graph.num_nodes,
                                                                     1.0 / graph.num_nodes))
    expected = oracles.pagerank(graph, model.BETA, model.DELTA, model.MAX_ITER)
    assert np.allclose(ranks, expected, rtol=1e-12, atol=0)
    assert changes[-1].sum() <= model.BETA < changes[-2].sum()


def test_worklist_with_eps_beta_over_2n_stays_within_pr_sp_error_bound():
    graph = rmat(8, 8, seed=3)
    n = graph.num_nodes
    before = oracles.pagerank(graph, model.BETA, model.DELTA, model.MAX_ITER)
    stream = generate_updates(graph, 40, seed=4)
    gone = stream.kinds == DELETE
    graph, _ = delete_edges(graph, stream.src[gone], stream.dst[gone])
    graph, _, _ = add_edges(graph, stream.src[~gone], stream.dst[~gone])
    pull = model.pull_matrix(graph)
    ranks, work = model.data_driven(pull, before, model.batch_seeds(pull, stream.src, stream.dst),
                                    model.BETA / (2 * n))
    fixed_point = oracles.pagerank(graph, 1e-15, model.DELTA, 10_000)
    assert work > 0
    assert np.abs(ranks - fixed_point).sum() <= model.DELTA * model.BETA / (1 - model.DELTA)


def test_krylov_solvers_reach_the_bound_in_fewer_products_than_pr_sp_rounds():
    graph = rmat(8, 8, seed=3)
    n = graph.num_nodes
    pull = model.pull_matrix(graph)
    _, rounds = model.jacobi(pull, np.full(n, 1.0 / n))
    fixed_point = oracles.pagerank(graph, 1e-15, model.DELTA, 10_000)
    for method in ("gmres", "bicgstab"):
        products = model.krylov_matvecs(pull, np.full(n, 1.0 / n), fixed_point, method)
        assert products is not None and 0 < products < len(rounds)
