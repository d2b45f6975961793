"""Run-time check placement (starc/analysis/checks.py): a check only where the analysis cannot
prove the operation safe, recorded as plan facts (``Kernel.checks``, ``Plan.error``)."""

from __future__ import annotations

import pytest

from analysis_helpers import dsl_plan, plan_of
from starc.analysis.checks import CheckedDivide, CheckedIndex
from starc.ir import nodes as ir

DSL_NAMES = ["bc", "bfs", "cc", "kcore", "pr", "sssp", "sswp", "tc"]


def wrap(body: str, params: str = "") -> str:
    return (f"function F(Graph g, propNode<int> out, propEdge<int> weight{params}) {{\n"
            f"    g.attachNodeProperty(out = 0);\n{body}\n}}\n")


def checked(plan):
    return [n for k in plan.kernels for part in (k.body, k.guard) if part is not None
            for n in ir.walk(part) if isinstance(n, (CheckedIndex, CheckedDivide))]


@pytest.mark.parametrize("name", DSL_NAMES)
def test_benchmark_programs_need_no_checks(name):
    plan = dsl_plan(name)
    assert plan.error is None
    assert all(not k.checks for k in plan.kernels)
    assert all(a.role != "error" for a in plan.arrays)


def test_division_by_a_variable_is_checked_and_a_nonzero_constant_is_not():
    plan = plan_of(wrap("    forall (v in g.nodes()) { v.out = v / 3 + v % 2; }"))
    assert plan.error is None
    plan = plan_of(wrap("    forall (v in g.nodes()) { v.out = 10 / d + v % (0 - 1); }",
                        ", int d"))
    kinds = [s.kind for s in plan.error.sites]
    assert kinds == ["division", "modulo"]
    (k,) = plan.kernels
    assert k.checks == (0, 1)
    assert [p.array.role for p in k.params if p.array is not None
            and p.array.role == "error"] == ["error", "error"]
    assert plan.error.site.elem.name == "INT" and plan.error.value.elem.name == "LONG"


def test_loop_ids_and_their_copies_are_trusted_a_computed_vertex_and_a_searched_edge_are_not():
    plan = plan_of(wrap("""\
    forall (v in g.nodes()) {
        forall (w in g.neighbors(v)) {
            edge e = g.get_edge(v, w);
            node x = w;
            x.out += e.weight;
        }
    }"""))
    assert plan.error is None
    plan = plan_of(wrap("""\
    forall (v in g.nodes()) {
        edge e = g.get_edge(v, t);
        node x = v + 1;
        x.out += e.weight;
    }""", ", node t"))
    sites = plan.error.sites
    assert sorted((s.kind, s.name, s.extent) for s in sites) == [
        ("index", "out", "nodes"), ("index", "weight", "edges"), ("vertex", "", "nodes")]
    by_name = {s.name: s for s in sites}
    assert by_name["weight"].message(-1, 5, 7) == "index -1 of 'weight' out of range 0..6"
    assert by_name[""].message(9, 5, 7) == "vertex 9 out of range 0..4"
    assert len(checked(plan)) == 3


def test_every_kernel_lists_its_own_sites():
    plan = plan_of(wrap("""\
    forall (v in g.nodes()) { v.out = 1 / d; }
    forall (v in g.nodes()) { v.out = v.out + 1; }
    forall (v in g.nodes()) { v.out = v % d; }""", ", int d"))
    assert [k.checks for k in plan.kernels] == [(0,), (), (1,)]
