"""A BFS's small top-down steps over a queue of the frontier (``analysis/bfs_queue.py``): the
sparse kernels claim each reached vertex once and append it; the devices keep that form,
MPI the steps over every vertex, and says why."""

from __future__ import annotations

import pytest

from starc.analysis import plan as P
from starc.analysis.bfs import DEPTH
from starc.analysis.frontier import DENSE_DIVISOR, FRONTIER_COUNT
from starc.backends import get_backend
from starc.ir import nodes as ir

from analysis_helpers import dsl_plan, host_nodes, host_of


@pytest.mark.parametrize("name", ["bfs", "bc"])
def test_every_bfs_gets_sparse_top_down_steps_that_claim_and_append(name):
    (bfs,) = host_of(dsl_plan(name, stop_after="bfs_queue"), P.BFSLoop)
    queue = bfs.queue
    assert queue is not None and queue.forward.extent == "frontier"
    assert queue.forward.name == f"{bfs.forward.name}_sparse"
    claims = [n for n in ir.walk(queue.forward.body) if isinstance(n, P.AtomicMinMax)]
    # one claim, on the level, to depth + 1; the winner appends the vertex and counts it
    [claim] = claims
    assert claim.func == "Max" and claim.target.prop == bfs.level.sym
    appends = [s for s in claim.then if isinstance(s, P.QueueAppend)]
    assert [(a.queue, a.size) for a in appends] == [(queue.order, queue.end)]
    counted = {s.target.sym for s in claim.then if isinstance(s, (ir.Reduce, P.AtomicReduce))}
    assert counted == {bfs.awake, bfs.scout}
    # no store of the level outside the claim: a second writer would append again
    assert not [n for n in ir.walk(queue.forward.body) if isinstance(n, ir.Assign)
                and isinstance(n.target, ir.PropRead) and n.target.prop == bfs.level.sym]
    # the build compacts the vertices at the depth
    assert queue.build.extent == "nodes" and queue.build.guard.right.name == DEPTH
    # bc's reverse sweep has a form over each level's slice of the order
    assert (queue.reverse is not None) == (name == "bc")


def test_devices_walk_the_queue_when_the_frontier_is_small():
    opencl = get_backend("opencl").specialize(dsl_plan("bfs"))
    [form] = [f for f in opencl.target.loop_forms if f.traversal]
    assert form.form == "worklist" and "O(frontier)" in form.why
    launches = {s.kernel.name: s for s in host_nodes(opencl.host) if isinstance(s, P.Launch)}
    sparse = launches["Compute_BFS_bfs_fwd_6_sparse"]
    count = dict(sparse.scalar_args)[FRONTIER_COUNT]
    assert isinstance(count, ir.VarRef) and count.sym.name == "bfs_frontier"
    tests = [s.cond for s in host_nodes(opencl.host) if isinstance(s, P.HostIf)
             and sparse in host_nodes(s.then)]
    # a frontier of at most n / DENSE_DIVISOR vertices and out-edges (from a hub a step over
    # every level is cheaper than an atomic per reached vertex), counted exactly (not after a
    # top-down step over every vertex, whose counts may count a vertex twice)
    [test] = [c for c in tests if isinstance(c, ir.Binary) and c.op == "&&"
              and isinstance(c.right, ir.VarRef)]
    (vertices, edges), counted = (test.left.left, test.left.right), test.right
    assert vertices.op == edges.op == "<=" and vertices.right.right.value == DENSE_DIVISOR
    assert (vertices.left.sym.name, edges.left.sym.name) == ("bfs_frontier", "bfs_edges")
    assert counted.sym.name == "bfs_counted"
    # the first frontier's out-edges are the root's degree, as GAPBS's scout count starts
    [first] = [s for s in host_nodes(opencl.host) if isinstance(s, P.HostDeclare)
               and s.sym.name == "bfs_edges"]
    assert first.init.op == "count_outNbrs"
    assert "bfs_queue_build" in launches and "Compute_BFS_bfs_fwd_6" in launches



def test_mpi_ranks_walk_their_own_queues():
    """Each rank's queue holds its own vertices: a sparse step launches the rank's share
    (its queue's length from the level's start), the first queue is built (no rank but the
    root's owner holds it), an append of a claimed neighbour is the owner's alone, and the
    owner appends the vertices other ranks' claims won at it (the superstep's ``queued``)."""
    mpi = get_backend("mpi").specialize(dsl_plan("bfs"))
    [form] = [f for f in mpi.target.loop_forms if f.traversal]
    assert form.form == "worklist" and "each rank queues its own vertices" in form.why
    launches = {s.kernel.name: s for s in host_nodes(mpi.host) if isinstance(s, P.Launch)}
    sparse = launches["Compute_BFS_bfs_fwd_6_sparse"]
    count = dict(sparse.scalar_args)[FRONTIER_COUNT]
    assert isinstance(count, ir.VarRef) and count.sym.name == "bfs_length"
    [length] = [s for s in host_nodes(mpi.host) if isinstance(s, P.HostDeclare)
                and s.sym.name == "bfs_length"]
    assert isinstance(length.init.left, P.DeviceRead)
    assert length.init.left.array.name == "bfs_order_end"
    assert not any(isinstance(s, P.WriteElement) and s.array.name == "bfs_order"
                   for s in host_nodes(mpi.host))
    [queued] = [s for s in host_nodes(mpi.host) if isinstance(s, P.HostDeclare)
                and s.sym.name == "bfs_queued"]
    assert queued.init.value is False       # the build makes the first queue
    [kernel] = [k for k in mpi.kernels if k.name == sparse.kernel.name]
    [append] = [n for n in ir.walk(kernel.body) if isinstance(n, P.QueueAppend)]
    [guard] = [n for n in ir.walk(kernel.body) if isinstance(n, ir.If)
               and n.then.stmts == (append,)]
    assert getattr(guard.cond, "table", None) == "owns_local"
    step = mpi.target.distribution.steps[sparse.kernel.name]
    assert step.queued == (("bfs_level", "bfs_order", "bfs_order_end"),)
    assert not any(k.extent == "group" for k in mpi.kernels)     # no rounds: no exchanges


def test_a_fused_bfs_has_a_sparse_step_without_b1():
    """B1 fused into the bottom-up discovery (a last-parent loop that reads another
    property): the queue form has a sparse ``expand`` too, launched when the frontier's B1
    already ran."""
    text = """function F(Graph g, propNode<int> x, propNode<int> y, node src) {
  g.attachNodeProperty(x = 0, y = 1);
  iterateInBFS (v in g.nodes() from src) {
    for (w in g.neighbors(v)) { v.x = w.x + w.y; }
  }
}
"""
    from analysis_helpers import plan_of
    (bfs,) = host_of(plan_of(text, stop_after="bfs_queue"), P.BFSLoop)
    assert bfs.pending is not None and bfs.queue.expand is not None
    assert bfs.queue.expand.extent == "frontier"
    assert not any(isinstance(n, ir.Loop) and isinstance(n.domain, ir.InNeighbors)
                   for n in ir.walk(bfs.queue.expand.body))


def test_on_a_gpu_a_sparse_step_that_would_leave_a_hub_on_one_lane_stays_dense():
    """bc's forward step also pulls from the parents, so its sparse variant runs one work item
    per entry on a GPU, where the dense step shares a hub's edges (binned): CUDA keeps the
    dense steps and says why; OpenCL, which learns its device kind at run time, walks the queue
    on a CPU device only. bfs's sparse step is one push loop (its entries' edges are shared on
    a GPU), so CUDA walks its queue."""
    cuda = get_backend("cuda").specialize(dsl_plan("bc"))
    [form] = [f for f in cuda.target.loop_forms if f.traversal]
    assert form.form == "topology" and "walk its edges on one lane" in form.why
    assert not any(k.extent == "frontier" for k in cuda.kernels)

    opencl = get_backend("opencl").specialize(dsl_plan("bc"))
    [form] = [f for f in opencl.target.loop_forms if f.traversal]
    assert form.form == "worklist" and "walk its edges on one lane" in form.on_gpu
    sparse = next(s for s in host_nodes(opencl.host) if isinstance(s, P.HostIf)
                  and isinstance(s.cond, ir.Binary) and s.cond.op == "&&"
                  and isinstance(s.cond.right, ir.Unary)
                  and isinstance(s.cond.right.operand, P.OnLockstepDevice))
    assert any(isinstance(s, P.Launch) and s.kernel.name == "Compute_BC_bfs_fwd_12_sparse"
               for s in host_nodes(sparse.then))

    bfs = get_backend("cuda").specialize(dsl_plan("bfs"))
    [form] = [f for f in bfs.target.loop_forms if f.traversal]
    assert form.form == "worklist" and not form.on_gpu
    assert {k.schedule for k in bfs.kernels if k.extent == "frontier"} == {"edges"}


def test_the_reverse_sweep_walks_the_levels_slices_only_when_every_step_was_sparse():
    """The order holds the levels one after the other only while every step is a sparse one
    (a bottom-up or dense step reaches vertices without appending them): the sweep over the
    slices runs under bfs_ordered, which those steps clear; each slice launch has the widest
    level's items, and an item past its level's slice does nothing."""
    opencl = get_backend("opencl").specialize(dsl_plan("bc"))
    sweeps = [s for s in host_nodes(opencl.host) if isinstance(s, P.HostIf)
              and isinstance(s.cond, ir.VarRef) and s.cond.sym.name == "bfs_ordered"]
    [sweep] = sweeps
    sliced = [s for s in host_nodes(sweep.then) if isinstance(s, P.Launch)]
    dense = [s for s in host_nodes(sweep.orelse) if isinstance(s, P.Launch)]
    # (the first: every level in one work-group, where every level ran in one: bfs_rounds)
    assert [s.kernel.name for s in sliced] == ["Compute_BC_bfs_rev_17_rounds",
                                               "Compute_BC_bfs_rev_17_sparse"]
    assert [s.kernel.name for s in dense] == ["Compute_BC_bfs_rev_17"]
    sliced = sliced[1:]
    assert dict(sliced[0].scalar_args)[FRONTIER_COUNT].sym.name == "bfs_widest"
    cleared = [s for s in host_nodes(opencl.host) if isinstance(s, P.HostAssign)
               and s.sym.name == "bfs_ordered"]
    assert len(cleared) == 2 and all(s.value.value is False for s in cleared)
    [guard] = [n for n in sliced[0].kernel.body.stmts if isinstance(n, ir.If)]
    assert guard.cond.op == "<" and guard.cond.left.sym.name.endswith("_item")
