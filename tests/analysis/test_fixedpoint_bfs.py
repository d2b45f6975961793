"""fixedPoint (double-buffered flags, one device flag) and iterateInBFS lowering."""

from __future__ import annotations

import dataclasses

import pytest

from analysis_helpers import SEARCHED_BFS, dsl_plan, host_nodes, host_of, nodes_of, params, plan_of
from starc.analysis import plan as P
from starc.ir import nodes as ir
from starc.ir.types import Scalar


@pytest.mark.parametrize("name", ["sssp", "sswp", "cc"])
def test_fixedpoint_writes_go_to_next_buffer_with_flag(name):
    plan = dsl_plan(name, "outline")
    (loop,) = host_of(plan, P.FixedPointLoop)
    assert loop.flag_var.name == "finished" and loop.forced is False
    assert (loop.current.name, loop.next.name, loop.flag.name) == (
        "modified", "modified_nxt", "finished_flag")
    assert (loop.next.role, loop.next.elem, loop.next.extent) == ("next", Scalar.BOOL, "nodes")
    assert (loop.flag.role, loop.flag.elem, loop.flag.extent) == ("flag", Scalar.INT, "one")
    launched = [s.kernel for s in host_nodes(loop.body) if isinstance(s, P.Launch)]
    assert launched
    for k in launched:
        for atomic in nodes_of(k.body, P.AtomicMinMax):
            assert [t.prop for t, _ in atomic.others] == [loop.next.sym]
            assert [type(s) for s in atomic.then] == [P.FlagSet]
            assert atomic.then[0].flag == loop.flag and atomic.then[0].value is None
        # no write of the current property remains; reads (the guard) keep the current array
        writes = [t for a in nodes_of(k.body, ir.Assign) for t in [a.target]]
        assert all(not (isinstance(t, ir.PropRead) and t.prop == loop.current.sym)
                   for t in writes)
        assert k.guard.left.prop == loop.current.sym


def test_plain_write_in_fixedpoint_and_forced_iteration():
    text = """
function F(Graph g, propNode<bool> mark, propNode<int> a) {
    propNode<bool> modified;
    g.attachNodeProperty(modified = True, a = 0);
    bool done = False;
    fixedPoint until (done : !modified) {
        forall (v in g.nodes().filter(modified == True)) {
            v.a = v.a + 1;
            v.modified = v.a < 3;
        }
        if (done) { done = False; }
    }
}
"""
    plan = plan_of(text, stop_after="outline")
    (loop,) = host_of(plan, P.FixedPointLoop)
    assert loop.forced is True
    k = plan.kernels[0]
    assign, flag = k.body.stmts[1], k.body.stmts[2]
    assert isinstance(assign, ir.Assign) and assign.target.prop == loop.next.sym
    assert isinstance(flag, P.FlagSet) and flag.value == assign.value
    assert params(k)["modified_nxt"] is True and params(k)["modified"] is False


def test_writing_false_to_the_fixedpoint_property_sets_no_flag():
    text = """
function F(Graph g) {
    propNode<bool> modified;
    g.attachNodeProperty(modified = True);
    bool done = False;
    fixedPoint until (done : !modified) {
        forall (v in g.nodes()) { v.modified = False; }
    }
}
"""
    k = plan_of(text).kernels[0]
    assert not nodes_of(k.body, P.FlagSet)
    assert k.body.stmts[0].target.prop.name == "modified_nxt"


def test_general_fixedpoint_is_a_do_while_then_flag():
    text = """
function G(Graph g, int k) {
    int t = 0;
    bool done = False;
    fixedPoint until (done : t > k) {
        t = t + 1;
    }
}
"""
    plan = plan_of(text, stop_after="outline")
    stmts = plan.host.stmts
    loop, after = stmts[-2], stmts[-1]
    assert isinstance(loop, P.HostDoWhile)
    assert isinstance(loop.cond, ir.Unary) and loop.cond.op == "!"
    assert isinstance(after, P.HostAssign) and after.sym.name == "done"
    assert after.value.value is True


def test_fixedpoint_property_written_on_host_inside_loop_runs_as_kernels():
    """sssp_dslV3's swap: host-level writes of the fixedPoint property inside its loop (an
    element, a copy, an attach) become kernels writing the next buffer and setting the flag."""
    text = """
function H(Graph g, node src) {
    propNode<bool> modified;
    propNode<bool> other;
    g.attachNodeProperty(modified = True, other = False);
    bool done = False;
    fixedPoint until (done : !modified) {
        src.modified = False;
        modified = other;
        g.attachNodeProperty(modified = False, other = True);
    }
}
"""
    plan = plan_of(text, stop_after="outline")
    (loop,) = host_of(plan, P.FixedPointLoop)
    launched = [s.kernel for s in host_nodes(loop.body) if isinstance(s, P.Launch)]
    assert [k.extent for k in launched] == ["single", "nodes", "nodes"]
    assert not any(isinstance(s, (P.Fill, P.CopyArray, P.WriteElement)) and
                   s.array == loop.current for s in host_nodes(loop.body))
    for k in launched:
        (write,) = nodes_of(k.body, ir.Assign)
        assert write.target.prop == loop.next.sym
    # copying a property may set the flag: it is tested per element
    (flag,) = nodes_of(launched[1].body, P.FlagSet)
    assert flag.flag == loop.flag and flag.value.prop.name == "other"
    assert not nodes_of(launched[0].body, P.FlagSet)   # writing False never sets it
    fills = [s for s in host_nodes(loop.body) if isinstance(s, P.Fill)]
    assert [f.array.name for f in fills] == ["other"]


def test_bfs_forward_kernel():
    plan = dsl_plan("bc", "outline")
    (bfs,) = host_of(plan, P.BFSLoop)
    level = bfs.level
    assert (level.name, level.elem, level.role, level.extent) == (
        "bfs_level", Scalar.INT, "level", "nodes")
    assert (bfs.awake.name, bfs.scout.name, bfs.alpha, bfs.beta) == (
        "bfs_awake", "bfs_scout", 15, 18)
    assert bfs.root.sym.name == "src" and bfs.depth_name == "bfs_depth"
    fwd = bfs.forward
    assert fwd.name == "Compute_BC_bfs_fwd_12" and fwd.extent == "nodes"
    assert fwd.guard.op == "==" and fwd.guard.left.prop == level.sym
    assert isinstance(fwd.guard.right, P.KernelScalar) and fwd.guard.right.name == "bfs_depth"
    assert [s.name for s in fwd.scalars] == ["bfs_depth"]
    parents, expansion = fwd.body.stmts
    # the parents loop became an in-neighbour loop filtered on depth >= 1 && level == depth - 1
    # (the source, at depth 0, has no parents: depth - 1 is also the level of unvisited ones)
    assert isinstance(parents.domain, ir.InNeighbors) and parents.var.name == "w"
    reached, test = parents.filter.left, parents.filter.right
    assert parents.filter.op == "&&"
    assert reached.op == ">=" and reached.left.name == "bfs_depth" and reached.right.value == 1
    assert test.left.prop == level.sym and test.right.op == "-" and test.right.right.value == 1
    # expansion: unvisited out-neighbours get depth + 1 and are counted with their out-degree
    assert isinstance(expansion.domain, ir.Neighbors) and expansion.domain.role == "out"
    (visit,) = expansion.body.stmts
    assert visit.cond.right.value == -1
    store, awake, scout = visit.then.stmts
    assert store.target.prop == level.sym and store.value.op == "+"
    assert (awake.op, awake.target.sym, awake.value.value) == ("+", bfs.awake, 1)
    assert (scout.op, scout.target.sym) == ("+", bfs.scout)
    assert scout.value.op == "count_outNbrs" and scout.value.args[0].sym == expansion.var
    assert params(fwd)["bfs_level"] is True and params(fwd)["sigma"] is True
    # the counts are host scalars each work item accumulates privately
    assert [(r.sym, r.op, r.private) for r in fwd.reductions] == [
        (bfs.awake, "+", True), (bfs.scout, "+", True)]


def _parent_loops(plan):
    (bfs,) = host_of(plan, P.BFSLoop)
    kernels = [k for k in (bfs.pending, bfs.forward, bfs.bottom_up) if k is not None]
    return [loop for kernel in kernels for loop in nodes_of(kernel.body, ir.Loop)
            if isinstance(loop.domain, ir.InNeighbors) and loop.var.name == "w"]


def _in_edge_searches(kernel):
    return [loop for loop in nodes_of(kernel.body, ir.Loop)
            if isinstance(loop.domain, ir.InNeighbors)]


def test_a_last_parent_assignment_searches_backwards_and_stops_at_the_first_parent():
    # dsl/bfs.sp: v.level = w.level + 1; the outcome is the last parent's, so the in-edges are
    # searched from the last and the loop breaks after the first parent's assignment (with
    # the source's level from a parameter: at 0, the level is the depth, no search at all).
    plan = dsl_plan(SEARCHED_BFS, "outline")
    (bfs,) = host_of(plan, P.BFSLoop)
    loops = _parent_loops(plan)
    # B1 in the pending and the top-down kernel; the bottom-up discovery runs it (fused)
    assert len(loops) == 3
    for loop in loops:
        assert loop.domain.descending
    for loop in loops[:2]:
        assign, stop = loop.body.stmts
        assert isinstance(assign, ir.Assign) and isinstance(stop, ir.Break)
    # bc's B1 accumulates (v.sigma = v.sigma + w.sigma): every parent counts.
    for loop in _parent_loops(dsl_plan("bc", "outline")):
        assert not loop.domain.descending
        assert not any(isinstance(s, ir.Break) for s in loop.body.stmts)


def test_the_bottom_up_step_runs_a_last_parent_b1_at_discovery():
    """bfs_up searches each unvisited vertex's in-edges once, backwards: the first in-neighbour
    at depth is the last parent, and B1's assignment runs there (no second search a step
    later). bfs_fwd runs B1 only where the host says it has not run; bfs_pending runs the
    frontier's B1 before a bottom-up step that follows a top-down one, bfs_expand is the
    top-down step after a bottom-up one (B1 already ran)."""
    plan = dsl_plan(SEARCHED_BFS, "outline")
    (bfs,) = host_of(plan, P.BFSLoop)
    up, level = bfs.bottom_up, bfs.level
    assert up.guard.op == "==" and up.guard.left.prop == level.sym
    assert up.guard.right.value == -1                   # only the unvisited vertices
    (search,) = up.body.stmts
    assert _in_edge_searches(up) == [search]            # one in-edge search per vertex
    assert search.domain.descending and search.domain.of.sym == up.index
    (found,) = search.body.stmts
    assert found.cond.left.prop == level.sym and found.cond.left.index.sym == search.var
    assert found.cond.right.name == "bfs_depth"
    store, awake, b1, stop = found.then.stmts
    assert store.target.prop == level.sym and store.target.index.sym == up.index
    assert (awake.op, awake.target.sym) == ("+", bfs.awake)
    assert b1.target.prop.name == "level" and b1.target.index.sym == up.index
    assert b1.value.left.index.sym == search.var        # w := the parent found
    assert isinstance(stop, ir.Break)
    # the top-down steps: with B1, or only the expansion (no in-edge read at all)
    parents, expansion = bfs.forward.body.stmts
    assert parents.domain.descending and expansion.domain.role == "out"
    expand = bfs.expand
    assert expand.guard == bfs.forward.guard and not _in_edge_searches(expand)
    (only,) = expand.body.stmts
    assert only.domain == dataclasses.replace(expansion.domain, edge=only.domain.edge)
    assert [r.sym for r in expand.reductions] == [bfs.awake, bfs.scout]
    # the pending kernel: B1 alone at depth
    pending = bfs.pending
    assert pending.guard == bfs.forward.guard and pending.body.stmts == (parents,)
    assert not pending.reductions and bfs.fused_name == "bfs_fused"


@pytest.mark.parametrize("body", [
    "v.a = 1; for (w in g.neighbors(v)) { v.b = w.b + 1; }",     # more than the loop
    "for (w in g.neighbors(v)) { if (w > 2) { v.b = w.b + 1; } }",
    "for (w in g.neighbors(v)) { v.b = v.b + w; }",              # not a last-parent loop
])
def test_other_bodies_keep_two_searches(body):
    plan = plan_of(f"""function F(Graph g, propNode<int> a, propNode<int> b, node src) {{
  g.attachNodeProperty(a = 0, b = 0);
  iterateInBFS (v in g.nodes() from src) {{ {body} }}
}}""", stop_after="outline")
    (bfs,) = host_of(plan, P.BFSLoop)
    assert bfs.pending is None and bfs.expand is None
    assert len(_in_edge_searches(bfs.bottom_up)) == 2


def test_a_filtered_bfs_keeps_two_searches():
    plan = plan_of("""function F(Graph g, propNode<int> b, node src) {
  g.attachNodeProperty(b = 0);
  iterateInBFS (v in g.nodes() from src).filter(v != 3) {
    for (w in g.neighbors(v)) { v.b = w.b + 1; }
  }
}""", stop_after="outline")
    (bfs,) = host_of(plan, P.BFSLoop)
    assert bfs.pending is None and len(_in_edge_searches(bfs.bottom_up)) == 2


@pytest.mark.parametrize("body", [
    "forall (w in g.neighbors(v)) { v.a = w; }",                 # parallel: no last parent
    "for (w in g.neighbors(v)) { v.a = v.a + w; }",              # reads its own target
    "for (w in g.neighbors(v)) { v.a = w; v.b = w; }",           # two statements
    "for (w in g.neighbors(v)) { v.a = src.a + w; }",            # target read elsewhere
])
def test_other_parent_loops_visit_every_parent(body):
    plan = plan_of(f"""function F(Graph g, propNode<int> a, propNode<int> b, node src) {{
  g.attachNodeProperty(a = 0, b = 0);
  iterateInBFS (v in g.nodes() from src) {{ {body} }}
}}""", stop_after="outline")
    loops = _parent_loops(plan)
    assert loops and not any(loop.domain.descending for loop in loops)


def test_bfs_bottom_up_kernel():
    plan = dsl_plan("bc", "outline")
    (bfs,) = host_of(plan, P.BFSLoop)
    up, level = bfs.bottom_up, bfs.level
    assert up.name == "Compute_BC_bfs_up_12" and up.extent == "nodes"
    # the vertices of the current level (B1) and the unvisited ones (the search) run
    assert up.guard.op == "||"
    assert up.guard.left == bfs.forward.guard and up.guard.right.right.value == -1
    (split,) = up.body.stmts
    assert split.cond == bfs.forward.guard
    # B1 at depth exactly as top-down: the parents loop over in-neighbours one level up
    assert split.then.stmts == bfs.forward.body.stmts[:1]
    # unvisited: the first in-neighbour at depth is a parent; the scan stops there
    (search,) = split.orelse.stmts
    assert isinstance(search.domain, ir.InNeighbors) and search.domain.of.sym == up.index
    (found,) = search.body.stmts
    assert found.cond.left.prop == level.sym and found.cond.right.name == "bfs_depth"
    store, awake, stop = found.then.stmts
    assert store.target.prop == level.sym and store.target.index.sym == up.index
    assert store.value.op == "+" and store.value.right.value == 1
    assert (awake.op, awake.target.sym) == ("+", bfs.awake)
    assert isinstance(stop, ir.Break)
    # no out-edge is read bottom-up, and the only level written is the work item's own
    assert "targets" not in params(up) and "offsets" not in params(up)
    assert [(r.sym, r.private) for r in up.reductions] == [(bfs.awake, True)]


def test_bfs_bottom_up_without_a_body_only_searches():
    text = """
function B(Graph g, node src) {
    iterateInBFS (v in g.nodes() from src) { }
}
"""
    plan = plan_of(text, stop_after="outline")
    (bfs,) = host_of(plan, P.BFSLoop)
    assert bfs.bottom_up.guard.right.value == -1 and bfs.bottom_up.guard.op == "=="
    (search,) = bfs.bottom_up.body.stmts
    assert isinstance(search.domain, ir.InNeighbors)
    (expansion,) = bfs.forward.body.stmts
    assert isinstance(expansion.domain, ir.Neighbors)


def test_bfs_reverse_kernel():
    plan = dsl_plan("bc", "outline")
    (bfs,) = host_of(plan, P.BFSLoop)
    rev = bfs.reverse
    assert rev.name == "Compute_BC_bfs_rev_17"
    assert rev.guard.op == "&&" and rev.guard.left.left.prop == bfs.level.sym
    assert rev.guard.right.op == "!="
    (children, bc_update) = rev.body.stmts
    assert isinstance(children.domain, ir.Neighbors) and children.domain.role == "out"
    assert children.filter.right.op == "+"
    assert params(rev)["src"] == "value" and params(rev)["BC"] is True


def test_no_bfs_roles_remain_anywhere():
    for name in ("bc", "bfs"):
        for k in dsl_plan(name).kernels:
            roles = [d.role for d in nodes_of(k.body, ir.Neighbors)]
            assert all(r == "out" for r in roles), (name, k.name, roles)


def test_bfs_filter_restricts_the_body_not_the_traversal():
    text = """
function B(Graph g, propNode<int> a, node src) {
    g.attachNodeProperty(a = 0);
    iterateInBFS (v in g.nodes() from src).filter(v != src) {
        v.a = 1;
    }
}
"""
    # (then the queue's: bfs_queue_build and the sparse step, tests/analysis/test_bfs_queue.py)
    fwd, up = plan_of(text).kernels[:2]
    guarded, expansion = fwd.body.stmts
    assert isinstance(guarded, ir.If) and isinstance(expansion, ir.Loop)
    assert fwd.guard.op == "=="
    # bottom-up: the filter guards B1 at depth, never the search for parents
    (split,) = up.body.stmts
    assert split.then.stmts == (guarded,) and isinstance(split.orelse.stmts[0], ir.Loop)
