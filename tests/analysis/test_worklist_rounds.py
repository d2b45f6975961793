"""A worklist's small sparse rounds in one work-group (analysis/worklist_rounds.py): the
kernel's steps, the host's launch and what it reads back, and where the specialize stage
keeps them."""

from __future__ import annotations

import pytest

from starc.analysis import plan as P
from starc.analysis.bfs_rounds import ROUND_LIMIT
from starc.analysis.frontier import FRONTIER_COUNT, FRONTIER_ROUND
from starc.analysis.worklist_rounds import STATE_SLOTS
from starc.backends import get_backend
from starc.ir import nodes as ir

from analysis_helpers import dsl_plan, host_nodes, plan_of

ROUNDS = "Compute_SSSP_forall_11_sparse_rounds"


def _kernel(plan: P.Plan, name: str) -> P.Kernel:
    return next(k for k in plan.kernels if k.name == name)


def _props(node: ir.Node) -> set:
    return {n.prop.name for n in ir.walk(node) if isinstance(n, ir.PropRead)}


def test_the_steps_alternate_the_queues_and_flags_the_host_would_swap():
    plan = dsl_plan("sssp")
    kernel, sparse = _kernel(plan, ROUNDS), _kernel(plan, "Compute_SSSP_forall_11_sparse")
    assert kernel.extent == "group"
    now, count, steps, following, more, step, last = kernel.body.stmts
    assert (now.init.name, count.init.name) == (FRONTIER_ROUND, FRONTIER_COUNT)
    entries, meet, read, decide, counted, meet_again, advance = step.body.stmts
    assert isinstance(meet, P.GroupBarrier) and isinstance(meet_again, P.GroupBarrier)
    # even steps: the body as written, the round number a local; odd: the pairs swapped
    even, odd = entries.then.stmts[1].body, entries.orelse.stmts[1].body
    assert not any(isinstance(n, P.KernelScalar) and n.name == FRONTIER_ROUND
                   for n in ir.walk(step))
    assert _props(even) == _props(sparse.body)
    first = {n.queue.name for n in ir.walk(even) if isinstance(n, P.QueueAppend)}
    then = {n.queue.name for n in ir.walk(odd) if isinstance(n, P.QueueAppend)}
    assert (first, then) == ({"modified_frontier_nxt"}, {"modified_frontier"})
    assert even.stmts[0].init.prop.name == "modified_frontier"
    assert odd.stmts[0].init.prop.name == "modified_frontier_nxt"
    # the entry's test (modified == True) and clear of its flag
    assert _props(even.stmts[1].cond) == {"modified"} and \
        _props(odd.stmts[1].cond) == {"modified_nxt"}
    assert even.stmts[2].target.prop.name == "modified" and \
        odd.stmts[2].target.prop.name == "modified_nxt"
    # the next queue's length, read by every item; on while it is sparse and that small
    assert read.value.prop.name == "modified_frontier_size"
    limits = [n.value for n in ir.walk(decide.value) if isinstance(n, ir.Const)]
    assert ROUND_LIMIT in limits
    assert advance.cond.sym == more.sym
    # what the host reads back: the last round's number and the steps run
    slots = [(s.target.index.value, s.value.sym) for s in last.then.stmts]
    assert slots == [(STATE_SLOTS.index("round"), now.sym), (STATE_SLOTS.index("steps"),
                                                               steps.sym)]


def test_the_host_launches_the_rounds_for_a_small_round_and_swaps_to_match():
    plan = get_backend("opencl").specialize(dsl_plan("sssp"))
    [choice] = [s for s in host_nodes(plan.host) if isinstance(s, P.HostIf)
                and s.then.stmts and isinstance(s.then.stmts[0], P.Launch)
                and s.then.stmts[0].kernel.name == ROUNDS]
    # on a device that is not lockstep only (a run-time test on OpenCL)
    assert isinstance(choice.cond.right.operand, P.OnLockstepDevice)
    assert choice.cond.left.right.value == ROUND_LIMIT
    launch, read, swap = choice.then.stmts
    assert dict(launch.scalar_args).keys() >= {FRONTIER_COUNT, FRONTIER_ROUND}
    assert isinstance(read, P.ReadSlots) and [s.name for s in read.syms] == \
        [FRONTIER_ROUND, "frontier_steps"]
    # the host's own swap after the launch stands for one step: once more where even
    assert swap.cond.left.left.sym.name == "frontier_steps"
    assert [(s.a.name, s.b.name) for s in swap.then.stmts] == [
        ("modified", "modified_nxt"), ("modified_frontier", "modified_frontier_nxt")]
    [sparse] = choice.orelse.stmts
    assert sparse.kernel.name == "Compute_SSSP_forall_11_sparse"
    form = next(f for f in plan.target.loop_forms if not f.traversal)
    assert ROUNDS in form.rounds and "on a GPU not" in form.rounds


@pytest.mark.parametrize("backend, why", [("cuda", "hub in a small level"),
                                          ("openacc", "no kernel of one work-group")])
def test_lockstep_targets_and_those_without_groups_launch_every_round(backend, why):
    plan = get_backend(backend).specialize(dsl_plan("sssp"))
    assert all(k.extent != "group" for k in plan.kernels)
    assert all(a.extent != "rounds" for a in plan.arrays)
    assert not [s for s in host_nodes(plan.host) if isinstance(s, P.ReadSlots)]
    form = next(f for f in plan.target.loop_forms if not f.traversal)
    assert form.rounds.startswith("each small round is a launch") and why in form.rounds


COUNTED = """function F(Graph g, propNode<int> dist, propEdge<int> weight, node src) {
    propNode<bool> modified;
    g.attachNodeProperty(dist = INF, modified = False);
    src.modified = True;
    src.dist = 0;
    int relaxed = 0;
    bool finished = False;
    fixedPoint until (finished : !modified) {
        forall (v in g.nodes().filter(modified == True)) {
            relaxed += 1;
            forall (nbr in g.neighbors(v)) {
                edge e = g.get_edge(v, nbr);
                <nbr.dist, nbr.modified> = <Min(nbr.dist, v.dist + e.weight), True>;
            }
        }
    }
    return relaxed;
}
"""


def test_a_round_that_reduces_keeps_its_launches():
    """A round that also counts (a reduction the host reads after each launch) has no
    rounds kernel: its steps would need the count too."""
    plan = plan_of(COUNTED)
    assert any(k.extent == "frontier" for k in plan.kernels)
    assert all(k.extent != "group" for k in plan.kernels)
