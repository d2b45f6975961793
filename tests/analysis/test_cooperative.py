"""Binned bodies of several neighbour loops (analysis/cooperative.py): the steps of the BFS
steps of bfs and bc, what makes a body unshareable, and what each backend chooses."""

from __future__ import annotations

import pytest

from starc.analysis.capabilities import Capabilities
from starc.analysis.cooperative import cooperative_body
from starc.analysis.schedules import choose
from starc.backends import get_backend
from starc.backends.base import BackendOptions

from analysis_helpers import SEARCHED_BFS, dsl_plan, plan_of

GPU = Capabilities("toy", "Toy", lockstep=True, cooperative_bodies=True,
                   schedules=frozenset({"vertex", "edges", "binned"}))
ONE_PULL_GPU = Capabilities("toy", "Toy", lockstep=True,
                            schedules=frozenset({"vertex", "edges", "binned"}))


def _kernel(program, name):
    return next(k for k in dsl_plan(program).kernels if k.name == name)


def _shape(steps):
    """``search, push`` / ``if (all, fold, leader) else (search)``: the steps in words."""
    words = []
    for step in steps:
        if step.kind == "branch":
            words.append(f"if ({_shape(step.then)}) else ({_shape(step.orelse)})")
        else:
            words.append(step.kind)
    return ", ".join(words)


@pytest.mark.parametrize("program, name, shape", [
    (SEARCHED_BFS, "Compute_BFS_bfs_fwd_6", "search, push"),
    (SEARCHED_BFS, "Compute_BFS_bfs_up_6", "search"),
    ("bfs", "Compute_BFS_bfs_up_6", "search"),
    ("bc", "Compute_BC_bfs_fwd_12", "all, fold, leader, push"),
    ("bc", "Compute_BC_bfs_up_12", "if (all, fold, leader) else (search)"),
])
def test_the_bfs_steps_run_step_by_step(program, name, shape):
    """The forward step searches its parents (bfs: the level of the last one, a descending
    walk that stops at the first) or folds them (bc: sigma, into a local first, which the levels prove is no read of the
    vertex itself), then pushes to its children; the bottom-up step branches on the vertex's
    own level (bfs: it only searches, and runs B1 at the parent it finds)."""
    cooperative, why = cooperative_body(_kernel(program, name))
    assert why == "" and _shape(cooperative.steps) == shape
    assert cooperative.order == "in_binned_order"
    degree = cooperative.degree
    if "push" in shape:      # parents, then children: the vertex's in- plus out-degree
        assert (degree.op, degree.left.op, degree.right.op) == ("+", "count_inNbrs",
                                                               "count_outNbrs")
    else:
        assert degree.op == "count_inNbrs"


def test_bcs_forward_fold_goes_to_a_local():
    cooperative, _ = cooperative_body(_kernel("bc", "Compute_BC_bfs_fwd_12"))
    fold = cooperative.steps[1]
    assert (fold.accumulator.name, fold.op) == ("sigma_fold", "+")


@pytest.mark.parametrize("body, why", [
    # only pushes: one work item per edge
    ("for (w in g.neighbors(v)) { w.a = 1; }", "only push"),
    # the first lane's store is read by a later loop of the block
    ("int s = 0; for (w in g.nodes_to(v)) { s = s + w.b; } v.a = s;"
     " for (w in g.neighbors(v)) { if (v.a > 0) { w.b = 1; } }", "reads what the statements"),
    # a fold's result (the first lane's) read by a later loop
    ("int s = 0; for (w in g.nodes_to(v)) { s = s + w.b; }"
     " for (w in g.neighbors(v)) { if (s > 0) { w.a = 1; } }", "a later loop reads 's'"),
    # a search whose test writes
    ("for (w in g.nodes_to(v)) { w.a = 1; if (w.b == 1) { v.c = w.b; break; } }",
     "stops early other than at the first edge"),
    # shareable: a search of the in-edges for the first with b == 1, then a push
    ("for (w in g.nodes_to(v)) { if (w.b == 1) { v.c = 1; break; } }"
     " for (w in g.neighbors(v)) { w.a = 1; }", ""),
])
def test_what_makes_a_body_unshareable(body, why):
    text = ("function F(Graph g, propNode<int> a, propNode<int> b, propNode<int> c) {\n"
            f"  forall (v in g.nodes()) {{ {body} }}\n}}")
    [kernel] = plan_of(text).kernels
    cooperative, reason = cooperative_body(kernel)
    if why:
        assert cooperative is None and why in reason
    else:
        assert reason == "" and _shape(cooperative.steps) == "search, push"


def test_auto_bins_the_bfs_steps_where_the_target_prints_them():
    forward = _kernel(SEARCHED_BFS, "Compute_BFS_bfs_fwd_6")
    schedule, why = choose(forward, GPU)
    assert schedule == "binned" and "stop at the first edge that passes a test" in why
    schedule, why = choose(forward, ONE_PULL_GPU)
    assert schedule == "vertex" and "prints only one pull loop per binned kernel" in why
    schedule, why = choose(forward, ONE_PULL_GPU, "binned")
    assert schedule == "vertex" and why.startswith("--schedule binned asked")


@pytest.mark.parametrize("backend, schedule", [("cuda", "binned"), ("opencl", "vertex"),
                                               ("sycl", "vertex"), ("openacc", "vertex")])
def test_each_backend_chooses(backend, schedule):
    """CUDA's auto bins the BFS steps (warp and block tiers); OpenCL's and OpenACC's work
    items are not in lockstep (--schedule binned there); SYCL does not print them."""
    plan = get_backend(backend).specialize(dsl_plan("bc"), BackendOptions())
    kernels = {k.name: k for k in plan.kernels}
    for name in ("Compute_BC_bfs_fwd_12", "Compute_BC_bfs_up_12"):
        assert kernels[name].schedule == schedule
    if backend == "cuda":
        split = kernels["Compute_BC_bfs_up_12"].cooperative
        assert split.tiers == ("item", "warp", "group") and split.steps[0].kind == "branch"


def test_openacc_shares_the_folds_and_pushes_and_leaves_the_searches():
    plan = get_backend("openacc").specialize(dsl_plan(SEARCHED_BFS),
                                             BackendOptions(schedule="binned"))
    kernels = {k.name: k for k in plan.kernels}
    forward = kernels["Compute_BFS_bfs_fwd_6"]
    assert forward.schedule == "binned"
    assert [shared.var.name for shared in forward.vector_loops] == ["bfs_nbr"]
    up = kernels["Compute_BFS_bfs_up_6"]
    assert up.schedule == "vertex" and "only search" in up.schedule_why
