"""Kernel schedules (analysis/schedules.py): which loops may run one work item per edge, what
each backend chooses, and the rewritten kernel."""

from __future__ import annotations

import pytest

from starc.analysis import plan as P
from starc.analysis.capabilities import Capabilities
from starc.analysis.schedules import by_edges, choose, push_loops
from starc.backends import get_backend
from starc.backends.base import BackendOptions
from starc.ir import nodes as ir

from analysis_helpers import CC_IN_ROUNDS, SEARCHED_BFS, dsl_plan, plan_of

GPU = Capabilities("toy", "Toy", lockstep=True)
CPU = Capabilities("toy", "Toy")


def _kernels(name):
    return {k.name: k for k in dsl_plan(name).kernels}


@pytest.mark.parametrize("program, kernel_name, why", [
    ("sssp", "Compute_SSSP_forall_11_dense", ""),
    ("tc", "Compute_TC_forall_6", ""),
    ("sssp", "Compute_SSSP_forall_11_sparse", "it runs over a worklist"),
    ("pr", "Compute_PR_forall_13", "not one neighbour loop or a sequence of them"),
    (SEARCHED_BFS, "Compute_BFS_bfs_fwd_6", "order matters (a BFS parents"),
    (SEARCHED_BFS, "Compute_BFS_bfs_expand_6", "its filter reads what the kernel writes"),
    (SEARCHED_BFS, "Compute_BFS_bfs_pending_6", "order matters (a BFS parents"),
    # the levels are the depth (depth_values): the forward step only expands
    ("bfs", "Compute_BFS_bfs_fwd_6", "its filter reads what the kernel writes"),
    ("cc", "Compute_CC_forall_12_dense", ""),
    ("cc", "Compute_CC_forall_12_sparse", "it runs over a worklist"),
])
def test_which_loops_push(program, kernel_name, why):
    loops, reason = push_loops(_kernels(program)[kernel_name])
    assert bool(loops) == (why == "") and why in reason


def test_a_loop_writing_its_own_vertex_or_stopping_early_is_no_push():
    text = """function F(Graph g, propNode<int> a, propNode<int> b) {
  forall (v in g.nodes()) { forall (w in g.neighbors(v)) { v.a += w; } }
  forall (v in g.nodes()) { for (w in g.neighbors(v)) { if (w > 3) { break; } w.b += 1; } }
  forall (v in g.nodes().filter(a > 1)) { forall (w in g.neighbors(v)) { w.a += 1; } }
}"""
    own, early, guarded = plan_of(text).kernels
    assert "writes the vertex's own 'a'" in push_loops(own)[1]
    assert "may stop early" in push_loops(early)[1]
    assert "filter reads what the kernel writes" in push_loops(guarded)[1]


def test_auto_takes_edges_only_where_lanes_run_in_lockstep():
    dense = _kernels("sssp")["Compute_SSSP_forall_11_dense"]
    assert choose(dense, GPU)[0] == "edges" and "every lane" in choose(dense, GPU)[1]
    assert choose(dense, CPU)[0] == "vertex" and "lockstep" in choose(dense, CPU)[1]
    assert choose(dense, CPU, "edges") == ("edges", "--schedule edges")
    assert choose(dense, GPU, "vertex") == ("vertex", "--schedule vertex")
    pull = _kernels("pr")["Compute_PR_forall_13"]
    schedule, why = choose(pull, GPU, "edges")
    assert schedule == "vertex" and why.startswith("--schedule edges asked, but")


def test_the_edge_kernel_finds_its_vertex_as_the_edges_endpoint():
    dense = _kernels("sssp")["Compute_SSSP_forall_11_dense"]
    [loop], _ = push_loops(dense)
    edges = by_edges(dense, (loop,), "why")
    assert (edges.extent, edges.index, edges.guard, edges.schedule) == \
        ("edges", loop.domain.edge, None, "edges")
    v, nbr, test = edges.body.stmts
    assert (v.sym, v.init.end, nbr.sym, nbr.init.end) == \
        (dense.index, "source", loop.var, "destination")
    assert isinstance(test, ir.If) and test.cond == dense.guard
    assert [p.name for p in edges.params if p.array is not None and p.array.role == "graph"] \
        == ["targets", "sources"]


def test_specialized_plans_carry_the_schedule_and_its_arrays():
    cuda = get_backend("cuda").specialize(dsl_plan("sssp"))
    dense = next(k for k in cuda.kernels if k.name.endswith("_dense"))
    assert dense.schedule == "edges" and "sources" in {a.name for a in cuda.arrays}
    launched = [s.kernel for s in _walk(cuda.host) if isinstance(s, P.Launch)]
    assert dense in launched              # the host launches the rewritten kernel
    opencl = get_backend("opencl").specialize(dsl_plan("sssp"))
    assert all(k.schedule == "vertex" for k in opencl.kernels if not k.variant_of)
    # its variants for a GPU device, which the host launches there instead
    assert {k.variant_of: k.schedule for k in opencl.kernels if k.variant_of} == \
        {k.name: "edges" for k in opencl.kernels if k.lockstep_variant}
    forced = get_backend("opencl").specialize(dsl_plan("sssp"), BackendOptions(schedule="edges"))
    assert any(k.schedule == "edges" for k in forced.kernels)
    mpi = get_backend("mpi").specialize(dsl_plan("sssp"), BackendOptions(schedule="edges"))
    [forall] = mpi.kernels
    assert forall.schedule == "vertex" and forall.extent == "nodes"
    assert "MPI prints one work item per vertex" in forall.schedule_why


def test_a_reason_names_only_the_schedules_its_target_prints():
    """MPI prints one work item per vertex whatever --schedule says, so its reason for the
    vertex schedule may not send the reader to --schedule edges."""
    dense = _kernels("sssp")["Compute_SSSP_forall_11_dense"]
    vertex_only = Capabilities("toy", "Toy", schedules=frozenset({"vertex"}))
    assert choose(dense, vertex_only) == ("vertex", "one work item per vertex: Toy's work items "
                                          "do not run in lockstep, so a hub does not hold up "
                                          "its neighbours' items")
    assert "(--schedule edges gives one per edge)" in choose(dense, CPU)[1]
    [forall] = get_backend("mpi").specialize(dsl_plan("sssp")).kernels
    assert "--schedule" not in forall.schedule_why, forall.schedule_why


def test_a_refusal_shared_by_both_forms_is_said_once():
    """pr's hoisted term refuses both a pull and a push on OpenACC's vector lanes: one reason."""
    acc = get_backend("openacc").specialize(dsl_plan("pr"), BackendOptions(schedule="binned"))
    whys = [k.schedule_why for k in acc.kernels if "hoisted term" in k.schedule_why]
    assert whys and all(why.count("hoisted term per vertex") == 1 for why in whys), whys


def _walk(block):
    from starc.analysis.host_tree import walk_host
    return walk_host(block)


def test_two_push_loops_run_one_item_per_edge_with_a_block_each():
    dense = _kernels("cc")["Compute_CC_forall_12_dense"]
    loops, _ = push_loops(dense)
    assert [type(loop.domain) for loop in loops] == [ir.Neighbors, ir.InNeighbors]
    edges = by_edges(dense, loops, "why")
    assert (edges.extent, edges.index, edges.guard) == ("edges", loops[0].domain.edge, None)
    out_part, in_part = edges.body.stmts
    ends = [(s.stmts[0].init.end, s.stmts[1].init.end) for s in (out_part, in_part)]
    # the out-loop's vertex is the edge's source, the in-loop's its destination
    assert ends == [("source", "destination"), ("destination", "source")]
    assert all(part.stmts[0].sym == dense.index and part.stmts[2].cond == dense.guard
               for part in (out_part, in_part))
    assert choose(dense, GPU)[0] == "edges" and "2 neighbour loops" in choose(dense, GPU)[1]


def test_push_loops_whose_order_per_vertex_matters_keep_one_item_per_vertex():
    text = """function F(Graph g, propNode<int> a, propNode<int> b) {
  forall (v in g.nodes()) {
    forall (w in g.neighbors(v)) { w.a = v + 1; }
    forall (u in g.nodes_to(v)) { u.b = u.a; }
  }
  forall (v in g.nodes()) {
    forall (w in g.neighbors(v)) { w.a = 1; }
    forall (u in g.nodes_to(v)) { u.b = u.a; }
  }
}"""
    computed, constant = plan_of(text).kernels
    loops, why = push_loops(computed)
    assert not loops and "reads 'a', which the loop at line 3 stores" in why
    assert len(push_loops(constant)[0]) == 2


def test_opencl_carries_a_variant_for_lockstep_devices_with_both_reasons():
    """OpenCL learns its device's kind at run time: pr's pull kernel keeps one item per vertex
    for a CPU and gains a binned variant for a GPU, each with its reason; the binned order only
    the variant reads is built on a lockstep device only; --emit plan says both; a forced
    schedule keeps one form."""
    from starc.analysis.dump import plan_dump
    plan = get_backend("opencl").specialize(dsl_plan("pr"))
    [pull] = [k for k in plan.kernels if k.lockstep_variant]
    [variant] = [k for k in plan.kernels if k.variant_of]
    assert (pull.name, pull.schedule, variant.name, variant.variant_of, variant.schedule) == \
        ("Compute_PR_forall_13", "vertex", "Compute_PR_forall_13_lockstep",
         "Compute_PR_forall_13", "binned")
    assert "do not run in lockstep" in pull.schedule_why
    assert "a vertex of degree at least the work-group size gets" in variant.schedule_why
    assert {a.name for a in plan.arrays if a.lockstep_only} == {"in_binned_order"}
    text = plan_dump(plan)
    assert ("  schedule on a GPU (lockstep) device: binned (the loop folds its edges into 'sum': "
            "a vertex of degree at least the work-group size") in text
    assert "), as Compute_PR_forall_13_lockstep\n" in text
    assert ("  schedule on other devices: vertex (one work item per vertex: the loop folds its "
            "edges into 'sum', and OpenCL work items do not run in lockstep") in text
    for forced in ("vertex", "binned"):
        one = get_backend("opencl").specialize(dsl_plan("pr"), BackendOptions(schedule=forced))
        assert not any(k.lockstep_variant or k.variant_of for k in one.kernels)
        assert not any(a.lockstep_only for a in one.arrays)
    # CUDA knows its device at compile time: one form
    cuda = get_backend("cuda").specialize(dsl_plan("pr"))
    assert not any(k.lockstep_variant or k.variant_of for k in cuda.kernels)


def test_a_kernel_whose_schedule_agrees_keeps_one_form():
    """cc's init kernel has no neighbour loop: one form on every device; its dense round
    pushes over two loops: one work item per edge on a GPU."""
    plan = get_backend("opencl").specialize(dsl_plan(CC_IN_ROUNDS))
    variants = {k.variant_of: k.schedule for k in plan.kernels if k.variant_of}
    assert variants == {"Compute_CC_forall_12_dense": "edges",
                        "Compute_CC_forall_12_sparse": "edges"}
    assert {a.name for a in plan.arrays if a.lockstep_only} == {"sources"}
