"""The degree-binned schedule (analysis/binned.py): which pull loops a work-group may share,
what each backend chooses, and the split the printers read."""

from __future__ import annotations

import pytest

from starc.analysis.binned import local_fold, pull_loop
from starc.analysis.capabilities import Capabilities
from starc.analysis.schedules import choose
from starc.backends import get_backend
from starc.backends.base import BackendOptions
from starc.ir import nodes as ir

from analysis_helpers import SEARCHED_BFS, dsl_plan, plan_of

GPU = Capabilities("toy", "Toy", lockstep=True, schedules=frozenset({"vertex", "edges",
                                                                      "binned"}))
CPU = Capabilities("toy", "Toy", schedules=frozenset({"vertex", "edges", "binned"}))


def _kernel(program, name):
    return next(k for k in dsl_plan(program).kernels if k.name == name)


def test_pageranks_sum_is_a_fold_a_group_may_share():
    kernel = _kernel("pr", "Compute_PR_forall_13")
    cooperative, why = pull_loop(kernel)
    assert why == "" and (cooperative.accumulator.name, cooperative.op) == ("sum", "+")
    loop = kernel.body.stmts[cooperative.loop_at]
    assert isinstance(loop.domain, ir.InNeighbors)
    assert all(isinstance(s, ir.Declare) for s in kernel.body.stmts[:cooperative.loop_at])
    degree = cooperative.degree
    assert (degree.op, degree.args[0].sym) == ("count_inNbrs", kernel.index)


@pytest.mark.parametrize("program, kernel_name, why", [
    (SEARCHED_BFS, "Compute_BFS_bfs_fwd_6", "no single neighbour loop"),
    ("bfs", "Compute_BFS_bfs_fwd_6", "the loop writes 'bfs_level' at its neighbours (a push"),
    ("cc", "Compute_CC_forall_12_dense", "no single neighbour loop"),
    ("sssp", "Compute_SSSP_forall_11_sparse", "it runs over a worklist"),
    ("sssp", "Compute_SSSP_forall_11_dense", "writes 'modified_nxt' at its neighbours"),
    ("tc", "Compute_TC_forall_6", "the loop has a loop inside"),
])
def test_why_the_other_dsl_loops_are_no_shared_fold(program, kernel_name, why):
    cooperative, reason = pull_loop(_kernel(program, kernel_name))
    assert cooperative is None and why in reason


def test_bcs_sweep_folds_into_a_local_first():
    """BC's reverse sweep adds into v.delta over its children, reading the children's delta:
    the guard (v on level d) and the filter (w on level d + 1) prove w is not v, so the fold
    may go to a local, added to v.delta after the loop."""
    kernel = _kernel("bc", "Compute_BC_bfs_rev_17")
    cooperative, why = pull_loop(kernel)
    assert why == "" and (cooperative.accumulator.name, cooperative.op) == ("delta_fold", "+")
    folded = local_fold(kernel)
    declare, loop, add_back, rest = folded.body.stmts
    assert declare.sym == cooperative.accumulator and declare.init.value == 0
    assert add_back.target.prop.name == "delta" and add_back.value.right.sym == declare.sym
    assert rest == kernel.body.stmts[1]          # BC[v] += delta[v], after the fold


def test_a_fold_into_the_vertex_that_might_read_itself_is_refused():
    text = """function F(Graph g, propNode<int> a, propNode<int> b) {
  forall (v in g.nodes()) { for (w in g.neighbors(v)) { v.a = v.a + w.a; } }
  forall (v in g.nodes()) { for (w in g.neighbors(v)) { v.a = v.a + w.b; } }
  forall (v in g.nodes().filter(b == 2)) { for (w in g.neighbors(v).filter(b == 3)) {
    v.a = v.a + w.a; } }
}"""
    itself, other, proven = plan_of(text).kernels
    assert "writes 'a' in place" in pull_loop(itself)[1]      # w may be v (a self-loop)
    assert pull_loop(other)[0] is not None                    # reads only b
    assert pull_loop(proven)[0] is None                       # b == 2 vs b == 3: not levels


def test_what_makes_a_fold_unshareable():
    text = """function F(Graph g, propNode<int> a, propNode<int> b) {
  forall (v in g.nodes()) { int s = 0; for (w in g.nodes_to(v)) { s = s + w.b; } v.a = s; }
  forall (v in g.nodes()) { int s = 1; for (w in g.nodes_to(v)) { s = s + w.b; } v.a = s; }
  forall (v in g.nodes()) { int s = 0; for (w in g.nodes_to(v)) { s = s - w.b; } v.a = s; }
  forall (v in g.nodes()) { int s = 0; for (w in g.nodes_to(v)) { s = s + s; } v.a = s; }
  forall (v in g.nodes()) { int s = 0; for (w in g.nodes_to(v)) { if (s > 3) { s += w.b; } }
    v.a = s; }
  forall (v in g.nodes()) { int s = 0; for (w in g.nodes_to(v)) { s += w.b; break; } v.a = s; }
  forall (v in g.nodes()) { int s = 1; for (w in g.neighbors(v)) { s = w.b * s; } v.a = s; }
  forall (v in g.nodes()) { v.a = 0; int s = 0; for (w in g.nodes_to(v)) { s += w.b; }
    v.b = s; }
}"""
    results = [pull_loop(k) for k in plan_of(text).kernels]
    reasons = [why for _, why in results]
    assert results[0][0] is not None and results[0][0].op == "+"
    assert "does not start at the identity of '+'" in reasons[1]
    assert "not folded with a commutative operator" in reasons[2]
    assert "not folded with a commutative operator" in reasons[3]
    assert "reads 's' besides folding it" in reasons[4]
    assert "may stop early" in reasons[5]
    assert results[6][0] is not None and results[6][0].op == "*"     # s = w.b * s, out-edges
    assert "other than declarations come before the loop" in reasons[7]


def test_choices_forced_and_auto():
    pull = _kernel("pr", "Compute_PR_forall_13")
    assert choose(pull, CPU, "binned") == ("binned", "--schedule binned")
    schedule, why = choose(pull, CPU)
    assert schedule == "vertex" and "folds its edges into 'sum'" in why and \
        "--schedule binned" in why
    schedule, why = choose(pull, GPU)
    assert schedule == "binned" and "group reduction" in why
    push = _kernel("sssp", "Compute_SSSP_forall_11_dense")
    schedule, why = choose(push, CPU, "binned")
    assert schedule == "vertex" and why.startswith("--schedule binned asked, but the loop "
                                                   "writes 'modified_nxt' at its neighbours")


def test_specialized_plans_carry_the_split_or_the_fallback():
    opencl = get_backend("opencl").specialize(dsl_plan("pr"), BackendOptions(schedule="binned"))
    pull = next(k for k in opencl.kernels if k.name == "Compute_PR_forall_13")
    assert pull.schedule == "binned" and pull.cooperative.accumulator.name == "sum"
    assert pull.cooperative.tiers == ("item", "group")
    assert (pull.cooperative.order, pull.cooperative.group_from) == ("in_binned_order", 1)
    # the split is taken after the atomic forms: the rest holds the private diff update
    rest = pull.body.stmts[pull.cooperative.loop_at + 1:]
    assert any(getattr(n, "form", None) == "private" for s in rest for n in ir.walk(s))
    term = next(k for k in opencl.kernels if k.name != pull.name)
    assert term.schedule == "vertex" and term.cooperative is None
    cuda = get_backend("cuda").specialize(dsl_plan("pr"))          # auto: lockstep warps
    pull = next(k for k in cuda.kernels if k.name == "Compute_PR_forall_13")
    assert pull.schedule == "binned" and pull.cooperative.tiers == ("item", "warp", "group")
    # items take the vertices sorted by in-degree: a warp from 32, the group from 4 groups
    assert (pull.cooperative.warp_from, pull.cooperative.group_from) == (32, 4)
    assert pull.cooperative.order == "in_binned_order"
    assert "in_binned_order" in [p.name for p in pull.params]
    assert "in_binned_order" in [a.name for a in cuda.arrays]
    assert "group reduction" in pull.schedule_why
    # SYCL: OpenCL's bins (no warp bin: no ballot), its reduction folded per work-group, not
    # by sycl::reduction
    plan = get_backend("sycl").specialize(dsl_plan("pr"), BackendOptions(schedule="binned"))
    pull = next(k for k in plan.kernels if k.name == "Compute_PR_forall_13")
    assert pull.schedule == "binned" and pull.cooperative.tiers == ("item", "group")
    assert "no warp bin: SYCL's sub-groups have no ballot" in pull.schedule_why
    assert [red.strategy for red in pull.reductions] == ["group"]
    plan = get_backend("mpi").specialize(dsl_plan("pr"), BackendOptions(schedule="binned"))
    pull = next(k for k in plan.kernels if k.name == "Compute_PR_forall_13")
    assert pull.schedule == "vertex" and pull.cooperative is None
    assert "prints one work item per vertex" in pull.schedule_why
    # OpenACC: no split by degree, every vertex's loop on its gang's vector lanes
    acc = get_backend("openacc").specialize(dsl_plan("pr"), BackendOptions(schedule="binned"))
    pull = next(k for k in acc.kernels if k.name == "Compute_PR_forall_13")
    assert pull.schedule == "binned" and pull.cooperative is None
    [shared] = pull.vector_loops
    assert [(op, sym.name) for op, sym in shared.reductions] == [("+", "sum")]
    assert "in_binned_order" not in [p.name for p in pull.params]
