"""BFS parents loops whose value is the depth (analysis/depth_values.py): where the rewrite fires,
what it leaves of the BFS kernels, and every near miss it must refuse (with its reason)."""

from __future__ import annotations

import pytest

from analysis_helpers import dsl_plan, host_of, nodes_of, plan_of
from starc.analysis import plan as P
from starc.analysis.dump import plan_dump
from starc.ir import nodes as ir
from starc.ir.types import Scalar


def _bfs_program(body: str, *, start: str = "src.p = 0;", between: str = "",
                 head: str = "iterateInBFS (v in g.nodes() from src)", tail: str = "",
                 prop: str = "propNode<int> p", params: str = "") -> str:
    return f"""function F(Graph g, {prop}, propNode<int> q, node src{params}) {{
  g.attachNodeProperty(q = 0);
  {start}
  {between}
  {head} {{
    {body}
  }}
  {tail}
}}"""


def _decisions(text: str):
    return plan_of(text, stop_after="outline").parent_values


def _parents_loops(plan):
    """The in-edge loops over a parent variable ``w`` left in the BFS kernels."""
    (bfs,) = host_of(plan, P.BFSLoop)
    kernels = [k for k in (bfs.forward, bfs.bottom_up, bfs.pending, bfs.expand) if k]
    return [loop for k in kernels for loop in nodes_of(k.body, ir.Loop)
            if isinstance(loop.domain, ir.InNeighbors) and loop.var.name == "w"]


def test_bfs_levels_are_the_depth_set_after_the_traversal():
    """dsl/bfs.sp: no parent search anywhere; the forward step only expands, the bottom-up
    step only searches for a parent at depth (to join the next level); one kernel sets
    level[v] = bfs_level[v] for every reached vertex afterwards."""
    plan = dsl_plan("bfs", "outline")
    (decision,) = plan.parent_values
    assert decision.replaced and decision.prop == "level" and decision.loc.line == 7
    assert decision.what.startswith("v.level = 0 + 1 * depth, no parent search")
    assert decision.why.startswith("the parents all have level 0 + 1 * (depth-1)")
    (bfs,) = host_of(plan, P.BFSLoop)
    assert not _parents_loops(plan) and bfs.pending is None and bfs.expand is None
    (expansion,) = bfs.forward.body.stmts
    assert isinstance(expansion.domain, ir.Neighbors) and expansion.domain.role == "out"
    (search,) = bfs.bottom_up.body.stmts
    assert isinstance(search.domain, ir.InNeighbors) and not search.domain.descending
    assert bfs.bottom_up.guard.right.value == -1          # the unvisited vertices only
    values = bfs.values
    assert values.guard.op == "!=" and values.guard.left.prop == bfs.level.sym
    (store,) = values.body.stmts
    assert store.target.prop.name == "level" and store.target.index.sym == values.index
    assert store.value.prop == bfs.level.sym              # 0 + 1 * depth: the level itself
    # after the step loop, before anything else
    host = dsl_plan("bfs")
    launched = [s.kernel.name for s in host_of(host, P.Launch)]
    assert launched[-1] == values.name
    assert "iterateInBFS parents loops:\n  line 7: v.level = 0 + 1 * depth, no parent search" \
        in plan_dump(host)


@pytest.mark.parametrize("prop, start, value, elem, k, c", [
    ("propNode<int> p", "src.p = 0;", "w.p + 2", Scalar.INT, 0, 2),
    ("propNode<int> p", "src.p = 5;", "w.p + 1", Scalar.INT, 5, 1),
    ("propNode<int> p", "src.p = 5;", "1 + w.p", Scalar.INT, 5, 1),
    ("propNode<int> p", "src.p = -3;", "w.p - 4", Scalar.INT, -3, -4),
    ("propNode<long> p", "src.p = 3000000000;", "w.p + 1", Scalar.LONG, 3000000000, 1),
    ("propNode<long> p", "src.p = 7;", "w.p + 2", Scalar.LONG, 7, 2),
])
def test_variants_set_k_plus_c_times_the_level(prop, start, value, elem, k, c):
    plan = plan_of(_bfs_program(f"for (w in g.neighbors(v)) {{ v.p = {value}; }}",
                                start=start, prop=prop), stop_after="outline")
    (decision,) = plan.parent_values
    assert decision.replaced and f"v.p = {k} + {c} * depth" in decision.what
    (bfs,) = host_of(plan, P.BFSLoop)
    assert not _parents_loops(plan)
    (store,) = bfs.values.body.stmts
    value = store.value
    assert value.type == elem
    terms = [value] if k == 0 else [value.left, value.right]
    if k:
        assert value.op == "+" and terms[0].value == k
    term = terms[-1]
    if c != 1:
        assert term.op == "*" and term.left.value == c
        term = term.right
    level = term.expr if elem == Scalar.LONG else term      # a widened level on long
    assert level.prop == bfs.level.sym


def test_another_name_and_a_body_that_reads_it_rewrite_in_place():
    """The body reads its vertex's value before the loop: the loop becomes a store of
    k + c * depth where it was (the read still sees the old value), no values kernel."""
    text = _bfs_program("v.q = v.dist; for (w in g.neighbors(v)) { v.dist = w.dist + 3; }",
                        start="src.dist = 1;", prop="propNode<int> dist")
    plan = plan_of(text, stop_after="outline")
    (decision,) = plan.parent_values
    assert decision.replaced and "after the traversal" not in decision.what
    (bfs,) = host_of(plan, P.BFSLoop)
    assert bfs.values is None and not _parents_loops(plan)
    read, store = bfs.forward.body.stmts[:2]
    assert read.value.prop.name == "dist" and store.target.prop.name == "dist"
    assert (store.value.op, store.value.left.value) == ("+", 1)
    assert store.value.right.op == "*" and store.value.right.right.name == "bfs_depth"


@pytest.mark.parametrize("text, why", [
    # P written elsewhere in the body, or by a second parents loop
    (_bfs_program("for (w in g.neighbors(v)) { v.p = w.p + 1; } v.p = v.p * 2;"),
     "the body writes p elsewhere"),
    (_bfs_program("for (w in g.neighbors(v)) { v.p = w.p + 1; }"
                  " for (u in g.neighbors(v)) { v.p = u.p + 1; }"),
     "the body writes p elsewhere"),
    # P written by a kernel, a copy, a declaration or a branch between src.p = 0 and the BFS
    (_bfs_program("for (w in g.neighbors(v)) { v.p = w.p + 1; }",
                  between="forall (x in g.nodes()) { x.p = 3; }"), "may write p or src"),
    (_bfs_program("for (w in g.neighbors(v)) { v.p = w.p + 1; }", between="p = q;"),
     "may write p or src"),
    (_bfs_program("for (w in g.neighbors(v)) { v.p = w.p + 1; }",
                  between="if (g.num_nodes() > 3) { src.p = 2; }"), "may write p or src"),
    # the source reassigned between its value and the BFS
    (_bfs_program("for (w in g.neighbors(v)) { v.p = w.p + 1; }",
                  start="node s = src; s.p = 0;", between="s = other;",
                  head="iterateInBFS (v in g.nodes() from s)", params=", node other"),
     "may write p or s"),
    # no constant at the source, or none in the block
    (_bfs_program("for (w in g.neighbors(v)) { v.p = w.p + 1; }",
                  start="src.p = g.count_outNbrs(src);"), "src.p is not set to a constant"),
    (_bfs_program("for (w in g.neighbors(v)) { v.p = w.p + 1; }", start="src.q = 0;"),
     "no 'src.p = constant' right before the BFS"),
    (_bfs_program("for (w in g.neighbors(v)) { v.p = w.p + 1; }",
                  start="src.p = k;", params=", int k"), "src.p is not set to a constant"),
    # other values
    (_bfs_program("for (w in g.neighbors(v)) { v.p = w.p + w.q; }"),
     "the value is not w.p plus a constant"),
    (_bfs_program("for (w in g.neighbors(v)) { v.p = w.p * 2; }"),
     "the value is not w.p plus a constant"),
    (_bfs_program("for (w in g.neighbors(v)) { v.p = 1 - w.p; }"),
     "the value is not w.p plus a constant"),
    (_bfs_program("for (w in g.neighbors(v)) { v.p = w.p + 1; }", prop="propNode<float> p",
                  start="src.p = 0.5;"), "not an integer node property"),
    # the loop's shape and place
    (_bfs_program("for (w in g.neighbors(v).filter(w > 2)) { v.p = w.p + 1; }"),
     "a forall or has a filter"),
    (_bfs_program("forall (w in g.neighbors(v)) { v.p = w.p + 1; }"),
     "a forall or has a filter"),
    (_bfs_program("if (v > 2) { for (w in g.neighbors(v)) { v.p = w.p + 1; } }"),
     "only under a condition"),
    (_bfs_program("for (w in h.neighbors(v)) { v.p = w.p + 1; }", params=", Graph h"),
     "another graph"),
    (_bfs_program("for (w in g.neighbors(v)) { v.p = w.p + 1; }",
                  head="iterateInBFS (v in g.nodes() from src).filter(v > 1)"),
     "the BFS's filter"),
    (_bfs_program("for (w in g.neighbors(v)) { v.p = w.p + 1; }",
                  tail="iterateInReverse (True) { v.p = v.p + 1; }"),
     "the reverse sweep writes p"),
], ids=lambda case: case if len(case) < 40 else None)
def test_near_misses_keep_their_search(text, why):
    if "iterateInReverse" in text:      # the sweep follows its BFS directly
        text = text.replace("}\n  iterateInReverse", "} iterateInReverse")
    decisions = _decisions(text)
    assert decisions
    for decision in decisions:
        assert not decision.replaced and why in decision.why, decision.why
        assert decision.what.endswith(".p from a parent's, searched")
    assert _parents_loops(plan_of(text, stop_after="outline"))


@pytest.mark.parametrize("body", [
    "for (w in g.neighbors(v)) { v.p = v.p + 1; }",               # counts parents
    "for (w in g.neighbors(v)) { v.p = w.p + 1; v.q = 1; }",      # another statement
    "for (w in g.neighbors(v)) { v.q = w.p + 1; }",               # another property
    "for (w in g.nodes_to(v)) { v.p = w.p + 1; }",                # in-edges, not parents
])
def test_other_loops_are_no_candidates(body):
    assert _decisions(_bfs_program(body)) == ()
