"""A BFS's small levels in one work-group's rounds (``analysis/bfs_rounds.py``): the kernel
is the sparse step in a loop that takes the host's decisions itself; the host launches it for
a small frontier and reads its state back in one copy; a target that runs work items in
lockstep, or has no such kernels, keeps a launch per level and says why."""

from __future__ import annotations

import pytest

from starc.analysis import plan as P
from starc.analysis.bfs_rounds import LOCKSTEP, ROUND_LIMIT, SLOTS
from starc.backends import get_backend
from starc.ir import nodes as ir

from analysis_helpers import SEARCHED_BFS, dsl_plan, host_nodes, host_of


def _kernels(plan, extent="group"):
    return {k.name: k for k in plan.kernels if k.extent == extent}


@pytest.mark.parametrize("name", ["bfs", "bc"])
def test_the_rounds_kernel_is_the_sparse_step_in_a_loop_between_barriers(name):
    (bfs,) = host_of(dsl_plan(name, stop_after="bfs_queue"), P.BFSLoop)
    queue = bfs.queue
    rounds = queue.rounds
    assert rounds is not None and rounds.extent == "group" and not rounds.reductions
    assert queue.state.extent == "rounds" and len(SLOTS) == P.ROUND_SLOTS
    nodes = list(ir.walk(rounds.body))
    # the step's claim and append, as the sparse kernel's; its counts on the state's slots
    [claim] = [n for n in nodes if isinstance(n, P.AtomicMinMax)]
    assert claim.target.prop == bfs.level.sym
    counts = [s for s in claim.then if isinstance(s, P.AtomicReduce)]
    assert [(c.target.prop, c.target.index.value) for c in counts] == \
        [(queue.state.sym, SLOTS.index("awake")), (queue.state.sym, SLOTS.index("scout"))]
    assert any(isinstance(s, P.QueueAppend) for s in claim.then)
    # the items stride by the group's size; barriers between the step and the next
    assert any(isinstance(n, P.GroupLanes) for n in nodes)
    assert sum(isinstance(n, P.GroupBarrier) for n in nodes) == 4
    # no kernel scalar of the step inside: depth and start are the loop's locals
    scalars = {n.name for n in nodes if isinstance(n, P.KernelScalar)}
    assert scalars == {"bfs_depth", "bfs_start", "bfs_frontier", "bfs_unexplored"} | (
        {"bfs_widest"} if name == "bc" else set())
    # bc's sweep has a form of its own: every level, one after the other
    assert (queue.reverse_rounds is not None) == (name == "bc")


def test_a_bfs_whose_b1_is_fused_runs_the_step_without_it_first_where_the_host_says():
    """The host's flag says whether the frontier's B1 already ran (after a bottom-up step):
    the first level runs the sparse step without B1 then, every later level the step."""
    plan = dsl_plan(SEARCHED_BFS)
    (bfs,) = host_of(dsl_plan(SEARCHED_BFS, stop_after="bfs_queue"), P.BFSLoop)
    rounds = bfs.queue.rounds
    assert bfs.pending is not None and rounds is not None
    [choice] = [n for n in ir.walk(rounds.body) if isinstance(n, ir.If)
                and isinstance(n.cond, ir.VarRef) and n.cond.sym.name == "bfs_round_fused"]
    # both branches: an expansion of the level's entries, B1's parent search only in the else
    searches = [[n for n in ir.walk(branch) if isinstance(n, ir.Loop)
                 and isinstance(n.domain, ir.InNeighbors)] for branch in (choice.then,
                                                                          choice.orelse)]
    assert not searches[0] and searches[1]
    cleared = [n for n in ir.walk(rounds.body) if isinstance(n, ir.Assign)
               and isinstance(n.target, ir.VarRef) and n.target.sym.name == "bfs_round_fused"]
    assert len(cleared) == 1 and cleared[0].value.value is False
    [launch] = [s for s in host_nodes(plan.host) if isinstance(s, P.Launch)
                and s.kernel.name == rounds.name]
    assert dict(launch.scalar_args)["bfs_fused"].sym.name == "bfs_fused"


def test_the_host_launches_the_rounds_for_a_small_frontier_and_reads_the_state_once():
    opencl = get_backend("opencl").specialize(dsl_plan("bc"))
    [launch] = [s for s in host_nodes(opencl.host) if isinstance(s, P.Launch)
                and s.kernel.name == "Compute_BC_bfs_fwd_12_rounds"]
    [test] = [s for s in host_nodes(opencl.host) if isinstance(s, P.HostIf)
              and launch in s.then.stmts]
    # at most ROUND_LIMIT vertices and out-edges, on a device that is not lockstep
    (few, cpu) = test.cond.left, test.cond.right
    assert [c.right.value for c in (few.left, few.right)] == [ROUND_LIMIT] * 2
    assert isinstance(cpu.operand, P.OnLockstepDevice)
    # else the sparse step it stands in for
    assert any(isinstance(s, P.Launch) and s.kernel.name == "Compute_BC_bfs_fwd_12_sparse"
               for s in test.orelse.stmts)
    [read] = [s for s in test.then.stmts if isinstance(s, P.ReadSlots)]
    assert [sym.name for sym in read.syms] == ["bfs_depth", "bfs_start", "bfs_awake",
                                               "bfs_scout", "bfs_unexplored", "bfs_widest"]
    # (its appends take their slots at once: the next round reads them)
    appends = [n for n in ir.walk(launch.kernel.body) if isinstance(n, P.QueueAppend)]
    assert appends and {a.form for a in appends} == {"item"}
    # the sweep in one work-group only where every level ran in the rounds
    [sweep] = [s for s in host_nodes(opencl.host) if isinstance(s, P.HostIf)
               and any(isinstance(t, P.Launch) and t.kernel.name == "Compute_BC_bfs_rev_17_rounds"
                       for t in s.then.stmts)]
    assert sweep.cond.left.sym.name == "bfs_grouped"
    cleared = [s for s in host_nodes(opencl.host) if isinstance(s, P.HostAssign)
               and s.sym.name == "bfs_grouped"]
    assert len(cleared) == 1 and cleared[0] in test.orelse.stmts
    [form] = [f for f in opencl.target.loop_forms if f.traversal]
    assert "Compute_BC_bfs_fwd_12_rounds" in form.rounds and LOCKSTEP in form.rounds


@pytest.mark.parametrize("backend, why", [("cuda", "hub in a small level"),
                                          ("openacc", "OpenACC has no kernel of one work-group")])
def test_lockstep_targets_and_those_without_groups_keep_a_launch_per_level(backend, why):
    forms = []
    for name in ("bfs", "bc"):
        plan = get_backend(backend).specialize(dsl_plan(name))
        assert not _kernels(plan) and not [a for a in plan.arrays if a.extent == "rounds"]
        assert not [s for s in host_nodes(plan.host) if isinstance(s, P.ReadSlots)]
        assert not [s for s in host_nodes(plan.host) if isinstance(s, P.HostDeclare)
                    and s.sym.name == "bfs_grouped"]
        forms += [f for f in plan.target.loop_forms if f.traversal and f.form == "worklist"]
    assert forms and all(why in f.rounds for f in forms)   # bfs's steps walk the queue


def test_a_small_frontier_stays_top_down_over_the_queue():
    """A bottom-up step scans every vertex: where the next frontier and its out-edges are at
    most n / DENSE_DIVISOR (a sparse step's), the queue form does not turn bottom-up, whatever
    few edges are left unexplored (the tail of a grid)."""
    opencl = get_backend("opencl").specialize(dsl_plan("bfs"))
    [switch] = [s for s in host_nodes(opencl.host) if isinstance(s, P.HostAssign)
                and s.sym.name == "bfs_bottom_up" and isinstance(s.value, ir.Binary)
                and s.value.op == "&&"]
    gapbs, small = switch.value.left, switch.value.right.operand
    assert gapbs.op == ">" and gapbs.left.sym.name == "bfs_scout"
    assert {c.left.sym.name for c in (small.left, small.right)} == {"bfs_awake", "bfs_scout"}
