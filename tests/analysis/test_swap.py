"""Swap instead of copy (``analysis/swap.py``): ``a = b`` becomes a buffer swap only where no
one can see ``b`` between the copy and its next full rewrite."""

from __future__ import annotations

import pytest

from analysis_helpers import ROOT, dsl_plan, plan_of
from plan_moves import moves as _moves

PROGRAMS = ROOT / "tests" / "e2e" / "programs"


def test_pagerank_swaps_its_next_buffer():
    plan = dsl_plan("pr")
    assert _moves(plan) == [("swap", "pageRank", "pageRank_nxt")]
    assert _moves(dsl_plan("pr", stop_after="expand")) == [
        ("copy", "pageRank", "pageRank_nxt")]


def test_unconditional_rewrite_in_a_while_loop_swaps():
    plan = plan_of((PROGRAMS / "swap_safe.sp").read_text())
    assert _moves(plan) == [("swap", "out", "nxt")]


@pytest.mark.parametrize("name", ["swap_filtered", "swap_conditional", "swap_read_after"])
def test_partial_writers_and_early_reads_keep_the_copy(name):
    plan = plan_of((PROGRAMS / f"{name}.sp").read_text())
    assert _moves(plan) == [("copy", "out", "nxt")]


def test_a_host_read_of_the_source_after_the_loop_keeps_the_copy():
    text = (PROGRAMS / "swap_safe.sp").read_text().replace(
        "function swap_safe(Graph g, int rounds, propNode<int> out) {",
        "function swap_safe(Graph g, int rounds, node s, propNode<int> out) {").replace(
        "        r = r + 1;\n    }\n", "        r = r + 1;\n    }\n    int last = s.nxt;\n"
        "    return last;\n")
    assert "s.nxt" in text
    assert _moves(plan_of(text)) == [("copy", "out", "nxt")]


def test_a_rewrite_that_may_be_skipped_keeps_the_copy():
    """The only writer after the copy sits in a loop that may run zero times."""
    text = """
function F(Graph g, int rounds, propNode<int> out) {
    propNode<int> nxt;
    g.attachNodeProperty(out = 0, nxt = 3);
    forall (v in g.nodes()) { v.nxt = v.out + 1; }
    out = nxt;
    int r = 0;
    while (r < rounds) {
        forall (v in g.nodes()) { v.nxt = v.out + 1; }
        r = r + 1;
    }
    forall (v in g.nodes()) { v.out = v.out + v.nxt; }
}
"""
    assert _moves(plan_of(text)) == [("copy", "out", "nxt")]


def test_parameters_and_self_copies_are_never_swapped():
    moves = _moves(plan_of((PROGRAMS / "self_copy.sp").read_text()))
    assert not [m for m in moves if m[0] == "swap"]
    text = """
function F(Graph g, propNode<int> a, propNode<int> b) {
    g.attachNodeProperty(a = 1, b = 2);
    forall (v in g.nodes()) { v.b = v.a + 1; }
    a = b;
}
"""
    assert _moves(plan_of(text)) == [("copy", "a", "b")]
