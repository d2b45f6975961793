"""A worklist's sparse rounds in priority order (analysis/priority_window.py): which rounds
get a window, what the round and the host do with it, and how the specialize stage keeps it
in each schedule."""

from __future__ import annotations

import pytest

from starc.analysis import plan as P
from starc.analysis.frontier import FRONTIER_ROUND
from starc.analysis.priority_window import WINDOW_DELTA, WINDOW_SCALE
from starc.backends import get_backend
from starc.ir import nodes as ir

from analysis_helpers import dsl_plan, host_nodes, plan_of

SPARSE = "Compute_SSSP_forall_11_sparse"


def _sparse(plan: P.Plan, name: str = SPARSE) -> P.Kernel:
    return next(k for k in plan.kernels if k.name == name)


def _slot(expr: ir.Expr) -> int:
    """``k`` of a slot index ``(frontier_round + k) % 3`` (0 for ``frontier_round % 3``)."""
    assert isinstance(expr, ir.Binary) and expr.op == "%" and expr.right.value == P.WINDOW_SLOTS
    at = expr.left
    if isinstance(at, P.KernelScalar):
        assert at.name == FRONTIER_ROUND
        return 0
    assert at.op == "+" and at.left.name == FRONTIER_ROUND
    return at.right.value


def test_a_bellman_ford_round_defers_the_entries_past_its_window():
    kernel = _sparse(dsl_plan("sssp"))
    window = kernel.window
    assert (window.key.name, window.weight.name) == ("dist", "weight")
    assert window.slots.extent == "window" and window.slots in [p.array for p in kernel.params]
    assert WINDOW_DELTA in [s.name for s in kernel.scalars]
    at, tested, clear, reset = kernel.body.stmts
    [inner] = tested.then.stmts
    # run when dist[v] < the round before's least queued dist + delta, in 64 bits
    assert inner.cond.op == "<" and inner.cond.left.type is ir.Scalar.LONG
    key, bound = inner.cond.left.expr, inner.cond.right
    assert key.prop == window.key and key.index.sym == at.sym
    assert _slot(bound.left.expr.index) == 2 and bound.right.expr.name == WINDOW_DELTA
    # each win takes its value's min into this round's slot
    [relax] = [n for n in ir.walk(inner.then) if isinstance(n, P.AtomicMinMax)
               and n.target.prop == window.key]
    [record] = [s for s in relax.then if isinstance(s, P.AtomicMinMax)
                and s.target.prop == window.slots.sym]
    assert record.func == "Min" and record.read_first and _slot(record.target.index) == 0
    assert record.candidate == relax.target
    # deferred: flagged for the next round, queued again, its key's min taken likewise
    flag, push, deferred = inner.orelse.stmts
    assert flag.target.prop.name == "modified_nxt" and flag.target.index.sym == at.sym
    [append] = push.then
    assert isinstance(append, P.QueueAppend) and append.value.sym == at.sym
    assert deferred.target == record.target and deferred.candidate == key
    # the first item clears the next round's slot, which no item of this round reads
    zero, cleared = reset.then.stmts
    assert isinstance(zero, P.QueueReset) and _slot(cleared.target.index) == 1
    assert isinstance(cleared.value, ir.Inf)


def test_the_host_fills_the_slots_and_computes_the_width_once_a_run():
    plan = get_backend("opencl").specialize(dsl_plan("sssp"))
    stmts = list(host_nodes(plan.host))
    [declare] = [s for s in stmts if isinstance(s, P.HostDeclare)
                 and isinstance(s.init, P.WindowDelta)]
    assert declare.init.weight.name == "weight" and declare.init.scale == WINDOW_SCALE
    fills = [s for s in stmts if isinstance(s, P.Fill) and s.array.extent == "window"]
    # before the loop and before each dense round: only sparse rounds take mins
    assert len(fills) == 2 and all(isinstance(f.value, ir.Inf) for f in fills)
    [launch] = [s for s in stmts if isinstance(s, P.Launch) and s.kernel.name == SPARSE]
    assert dict(launch.scalar_args)[WINDOW_DELTA].sym == declare.sym


def _split(kernel: P.Kernel) -> P.FrontierEdges:
    """A sparse round's entries' edges split with its window kept: the entry's item tests
    the window and defers an entry past it, with no work (``frontier_edges``)."""
    split = kernel.frontier_edges
    assert kernel.schedule == "edges" and kernel.window is not None and split.windowed
    assert "gives it no edges" in kernel.window_why
    [window] = kernel.body.stmts[1].then.stmts
    assert ir.reads_prop(window.cond, kernel.window.slots.sym)
    assert any(isinstance(n, P.QueueAppend) for n in ir.walk(window.orelse))
    return split


@pytest.mark.parametrize("backend", ["opencl", "sycl", "openacc"])
def test_one_item_an_entry_keeps_the_window(backend):
    plan = get_backend(backend).specialize(dsl_plan("sssp"))
    kernel = _sparse(plan)
    assert kernel.schedule == "vertex" and kernel.window is not None
    assert "appended again whole" in kernel.window_why
    if kernel.lockstep_variant:     # a GPU device's variant splits the entries' edges
        _split(_sparse(plan, kernel.lockstep_variant))


def test_a_target_that_splits_every_entrys_edges_keeps_the_window_and_its_host_part():
    plan = get_backend("cuda").specialize(dsl_plan("sssp"))
    _split(_sparse(plan))
    assert [a.extent for a in plan.arrays].count("window") == 1
    stmts = list(host_nodes(plan.host))
    [declare] = [s for s in stmts if isinstance(s, P.HostDeclare)
                 and isinstance(s.init, P.WindowDelta)]
    [launch] = [s for s in stmts if isinstance(s, P.Launch) and s.kernel.name == SPARSE]
    assert dict(launch.scalar_args)[WINDOW_DELTA].sym == declare.sym


ROUND = """function F(Graph g, propNode<int> dist, propEdge<int> weight, node src) {{
    propNode<bool> modified;
    propNode<int> other;
    g.attachNodeProperty(dist = INF, modified = False, other = 0);
    src.modified = True;
    src.dist = 0;
    bool finished = False;
    fixedPoint until (finished : !modified) {{
        forall (v in g.nodes().filter(modified == True)) {{
            forall (nbr in g.neighbors(v)) {{
                edge e = g.get_edge(v, nbr);
                {body}
            }}
        }}
    }}
}}
"""


@pytest.mark.parametrize("body, why", [
    ("<nbr.dist, nbr.modified> = <Min(nbr.dist, v.dist + 1), True>;",
     "plus an integer edge weight parameter"),
    ("<nbr.dist, nbr.modified> = <Max(nbr.dist, v.dist + e.weight), True>;",
     "not a Min"),
    ("<nbr.dist, nbr.modified> = <Min(nbr.dist, nbr.dist + e.weight), True>;",
     "plus an integer edge weight parameter"),
    ("<nbr.dist, nbr.modified> = <Min(nbr.dist, v.dist + e.weight), True>; nbr.other += 1;",
     "does more than Min updates"),
])
def test_rounds_that_are_not_bellman_ford_keep_every_entry(body, why):
    loop = next(s for s in host_nodes(plan_of(ROUND.format(body=body), stop_after="frontier")
                                      .host) if isinstance(s, P.FixedPointLoop))
    assert loop.worklist is not None and loop.worklist.window is None
    assert why in loop.worklist.window_why
    assert all(k.window is None for k in plan_of(ROUND.format(body=body)).kernels)


def test_minimum_label_propagation_keeps_every_entry():
    loop = next(s for s in host_nodes(dsl_plan("cc", stop_after="frontier").host)
                if isinstance(s, P.FixedPointLoop))
    assert loop.worklist.window is None and "edge weight" in loop.worklist.window_why


def test_a_min_that_also_stores_the_parent_keeps_the_window():
    """dsl/dynamic/dyn_sssp.sp's relaxation: the parent is stored with the winning distance
    (under the element's lock); a deferred entry runs later with a lower or equal distance,
    and the parent of the final one is still its winner's."""
    body = "<nbr.dist, nbr.modified, nbr.other> = <Min(nbr.dist, v.dist + e.weight), True, v>;"
    kernel = _sparse(plan_of(ROUND.format(body=body)), "F_forall_9_sparse")
    assert kernel.window is not None and kernel.window.key.name == "dist"
    [relax] = [n for n in ir.walk(kernel.body) if isinstance(n, P.AtomicMinMax)
               and n.target.prop.name == "dist"]
    assert relax.locked and any(s.target.prop == kernel.window.slots.sym for s in relax.then
                                if isinstance(s, P.AtomicMinMax))
