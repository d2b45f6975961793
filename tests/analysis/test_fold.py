"""Comparisons of a value with itself are folded to their constant (analysis/fold.py)."""

from __future__ import annotations

import pytest

from starc.ir import nodes as ir

from analysis_helpers import nodes_of, plan_of

SIGNATURE = "function F(Graph g, propNode<int> a, propNode<float> f, int k, node s) {\n"


def _conditions(condition: str):
    text = SIGNATURE + f"    forall (v in g.nodes()) {{\n        if ({condition}) {{ v.a = 1; }}\n" \
        "    }\n}\n"
    [kernel] = plan_of(text).kernels
    return [n.cond for n in nodes_of(kernel.body, ir.If)]


@pytest.mark.parametrize("condition, value", [
    ("v != v", False), ("v == v", True), ("v.a < v.a", False), ("v.a >= v.a", True),
    ("k + 1 > k + 1", False), ("g.count_outNbrs(v) <= g.count_outNbrs(v)", True),
    ("v / 3 == v / 3", True), ("g.num_nodes() != g.num_nodes()", False),
])
def test_folded(condition, value):
    assert _conditions(condition) == [ir.Const(value, type=ir.Scalar.BOOL)]


@pytest.mark.parametrize("condition", [
    "v.f != v.f",                  # the NaN test
    "v / k == v / k",              # k may be 0: the check must still run
    "s.a == s.a",                  # s may be out of range
    "v < v + 1",
])
def test_kept(condition):
    [cond] = _conditions(condition)
    assert isinstance(cond, ir.Binary)


def test_an_edge_local_of_the_neighbour_loop_is_folded():
    """``edge e = g.get_edge(v, w)`` inside ``for w in g.neighbors(v)`` is the loop's edge, which
    the checks trust: ``e.weight < e.weight`` folds, else the generated ``weight[e] <
    weight[e]`` fails -Werror=tautological-compare (a differential fuzzer finding, OpenACC)."""
    text = ("function F(Graph g, propNode<bool> flag, propEdge<int> weight) {\n"
            "    forall (v in g.nodes()) {\n        forall (w in g.neighbors(v)) {\n"
            "            edge e = g.get_edge(v, w);\n"
            "            w.flag |= e.weight < e.weight;\n        }\n    }\n}\n")
    [kernel] = plan_of(text).kernels
    compares = [n for n in nodes_of(kernel.body, ir.Binary) if n.op == "<"]
    assert compares == []


def test_min_and_max_of_a_value_with_itself_are_the_value():
    """``v.a = Max(v.a, v.a)``: OpenACC printed the update as ``if (a[v] > a[v])``, which
    -Werror=tautological-compare refused (a differential fuzzer finding); a float's is kept."""
    text = SIGNATURE + ("    forall (v in g.nodes()) {\n        v.a = Max(v.a, v.a);\n"
                        "        v.f = Min(v.f, v.f);\n    }\n}\n")
    [kernel] = plan_of(text).kernels
    compared = [n.left.prop.name for n in nodes_of(kernel.body, ir.Binary) if n.op in "<>"]
    assert compared == ["f"]


def test_min_of_a_value_with_itself_in_an_expression_is_the_value():
    text = SIGNATURE + ("    forall (v in g.nodes()) {\n        v.a = Max(v.a, v.a) + 1;\n"
                        "        v.f = Min(v.f, v.f) + 1;\n    }\n}\n")
    [kernel] = plan_of(text).kernels
    assert [n.func for n in nodes_of(kernel.body, ir.MinMax)] == ["Min"]
