"""Hoisting per-vertex terms out of neighbour loops (``analysis/hoist.py``)."""

from __future__ import annotations

from starc.analysis import plan as P
from starc.analysis.checks import CheckedDivide
from starc.ir import nodes as ir

from analysis_helpers import ROOT, dsl_plan, host_nodes, kernel, nodes_of, plan_of

PROGRAMS = ROOT / "tests" / "e2e" / "programs"


def _launches(plan):
    return [s.kernel.name for s in host_nodes(plan.host) if isinstance(s, P.Launch)]


def test_pagerank_contribution_is_computed_once_per_vertex_before_the_reader():
    plan = dsl_plan("pr")
    term = kernel(plan, "forall_13_pageRank_term")
    reader = kernel(plan, "forall_13")
    assert term.hoisted_for == reader.name and term.extent == "nodes"
    # guarded as the loop reaches vertices: in-neighbours have out-degree >= 1
    assert isinstance(term.guard, ir.Binary) and term.guard.op == ">"
    assert nodes_of(term.guard, ir.GraphQuery)[0].op == "count_outNbrs"
    (store,) = term.body.stmts
    assert store.target.prop.name == "pageRank_term"
    assert isinstance(store.value, ir.Binary) and store.value.op == "/"
    # the loop reads the term, no division or degree query is left in the reader
    assert not [b for b in nodes_of(reader.body, ir.Binary) if b.op == "/"
                and any(isinstance(n, ir.GraphQuery) for n in ir.walk(b))]
    assert "pageRank_term" in {p.name for p in reader.params if not p.written}
    assert "offsets" not in {p.name for p in reader.params}
    launches = _launches(plan)
    assert launches.index(term.name) + 1 == launches.index(reader.name)
    assert "pageRank_term" in {a.name for a in plan.arrays}


def test_terms_written_by_the_reader_or_checked_stay_in_the_loop():
    plan = plan_of((PROGRAMS / "hoist_terms.sp").read_text())
    hoisted = [k for k in plan.kernels if k.hoisted_for]
    assert [k.hoisted_for for k in hoisted] == ["hoist_terms_forall_11"]
    reader = kernel(plan, "forall_18")
    # w[nbr] / indeg(nbr) reads w, which the forall writes; 100 / indeg is checked
    assert [b for b in nodes_of(reader.body, ir.Binary) if b.op == "/"]
    assert nodes_of(reader.body, CheckedDivide)
    assert {q.op for q in nodes_of(reader.body, ir.GraphQuery)} == {"count_inNbrs"}


def test_filtered_readers_and_plain_loads_are_left_alone():
    text = """
function F(Graph g, propNode<float> a, propNode<float> c, propNode<bool> on) {
    g.attachNodeProperty(a = 1, c = 2, on = True);
    forall (v in g.nodes().filter(on == True)) {
        float s = 0;
        for (nbr in g.nodes_to(v)) { s = s + nbr.a / g.count_outNbrs(nbr); }
        v.a = s;
    }
    forall (v in g.nodes()) {
        float s = 0;
        for (nbr in g.nodes_to(v)) { s = s + nbr.c * 2 + g.count_outNbrs(nbr); }
        v.a = s;
    }
}
"""
    assert not [k for k in plan_of(text).kernels if k.hoisted_for]
