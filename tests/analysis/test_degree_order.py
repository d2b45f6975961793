"""Degree ordering of the ordered triangle count (``analysis/degree_order.py``): placed only
where no result can tell the vertex ids."""

from __future__ import annotations

import pytest

from starc.analysis import plan as P
from starc.analysis.dump import plan_dump

from analysis_helpers import dsl_plan, host_nodes, plan_of


def _orders(plan: P.Plan) -> bool:
    found = [s for s in host_nodes(plan.host) if isinstance(s, P.OrderByDegree)]
    assert len(found) <= 1
    if found:
        assert plan.host.stmts[0] is found[0]      # before anything runs on the graph
        assert (found[0].offsets.name, found[0].targets.name) == ("offsets", "targets")
    return bool(found)


def _count(loops: str, params: str = "", extra: str = "") -> str:
    return f"""
function F(Graph g{params}) {{
    long count = 0;
    forall (v in g.nodes()) {{
        {loops}
    }}
    {extra}
    return count;
}}
"""


TC = """forall (u in g.neighbors(v).filter(u < v)) {
            forall (w in g.neighbors(v).filter(w > v)) {
                if (g.is_an_edge(u, w)) { count += 1; }
            }
        }"""


def test_the_dsl_triangle_count_is_ordered_by_degree():
    plan = dsl_plan("tc")
    assert _orders(plan)
    assert "order by degree offsets, targets;" in plan_dump(plan)


@pytest.mark.parametrize("loops", [
    TC,
    TC.replace("u < v", "v > u").replace("w > v", "v < w"),            # written the other way
    TC.replace("u < v", "u > v").replace("w > v", "w < v"),            # mirrored chain
    TC.replace("is_an_edge(u, w)", "is_an_edge(w, u)").replace("+= 1", "+= 2"),
    # GAPBS's shape: w in u's row, w < u < v, the unlinked pair is v-w
    """forall (u in g.neighbors(v).filter(u < v)) {
            forall (w in g.neighbors(u).filter(w < u)) {
                if (g.is_an_edge(v, w)) { count += 1; }
            }
        }""",
])
def test_ordered_counts_are_id_free(loops):
    assert _orders(plan_of(_count(loops)))


@pytest.mark.parametrize("loops", [
    TC.replace("w > v", "w < v"),                  # both below v: not a chain
    TC.replace("u < v", "u <= v"),                 # not strict
    TC.replace("u < v", "u < 5"),                  # an id compared with a constant
    TC.replace("+= 1", "+= u"),                    # an id summed
    TC.replace("is_an_edge(u, w)", "is_an_edge(u, v)"),   # a linked pair: not a triangle
    TC.replace("if (g.is_an_edge(u, w)) { count += 1; }",
               "if (g.is_an_edge(u, w) && g.count_outNbrs(u) > 3) { count += 1; }"),
    TC.replace("{ count += 1; }", "{ count += 1; } else { count += 2; }"),
    TC.replace("g.neighbors(v).filter(w > v)", "g.nodes_to(v).filter(w > v)"),
    # GAPBS's shape with the test on a linked pair
    """forall (u in g.neighbors(v).filter(u < v)) {
            forall (w in g.neighbors(u).filter(w < u)) {
                if (g.is_an_edge(u, w)) { count += 1; }
            }
        }""",
])
def test_counts_that_may_depend_on_ids_keep_them(loops):
    assert not _orders(plan_of(_count(loops)))


def test_per_vertex_counts_in_a_property_keep_the_ids():
    loops = TC.replace("count += 1;", "count += 1; v.tri += 1;")
    assert not _orders(plan_of(_count(loops, params=", propNode<long> tri",
                                      extra="")))


def test_node_parameters_results_and_other_kernels_keep_the_ids():
    assert not _orders(plan_of(_count(TC, params=", node src")))
    returns_node = _count(TC).replace("long count = 0;", "long count = 0; node top = g.num_nodes() - 1;")
    assert not _orders(plan_of(returns_node.replace("return count;", "return top;")))
    other = "forall (x in g.nodes()) { count += 1; }"
    assert not _orders(plan_of(_count(TC, extra=other)))
    local = "propNode<int> seen; g.attachNodeProperty(seen = 0);"
    assert not _orders(plan_of(_count(TC).replace("long count = 0;", local +
                                                  " long count = 0;")))


def _inner(kernel: P.Kernel):
    (outer,) = kernel.body.stmts
    (inner,) = outer.body.stmts
    return inner


def _swap(plan: P.Plan):
    """The count's swapped-row variant: (its walked row, its query's pair) by name, else
    None; and the count's ``row_swap_why``."""
    [count] = [k for k in plan.kernels if not k.renumbered_of]
    variants = [k for k in plan.kernels if k.renumbered_of]
    if not variants:
        assert not count.renumbered_variant
        return None, count.row_swap_why
    [variant] = variants
    assert count.renumbered_variant == variant.name and variant.renumbered_of == count.name
    inner = _inner(variant)
    (test,) = inner.body.stmts
    return (inner.domain.of.sym.name, tuple(a.sym.name for a in test.cond.args)), \
        count.row_swap_why


def test_the_dsl_count_walks_the_lower_row_on_a_renumbered_graph():
    plan = dsl_plan("tc")
    swap, why = _swap(plan)
    assert swap == ("u", ("v", "w")) and "u is below v" in why
    assert "on a graph renumbered by degree: Compute_TC_forall_6_swapped instead" in \
        plan_dump(plan)


@pytest.mark.parametrize("loops, swap, refused", [
    (TC, ("u", ("v", "w")), ""),
    (TC.replace("u < v", "v > u").replace("w > v", "v < w"), ("u", ("v", "w")), ""),
    (TC.replace("is_an_edge(u, w)", "is_an_edge(w, u)").replace("+= 1", "+= 2"),
     ("u", ("v", "w")), ""),
    # the mirrored chain w < v < u: v's row is the lower one already
    (TC.replace("u < v", "u > v").replace("w > v", "w < v"), None, "lower vertex v"),
    # v < u < w walking u's row: v's is the lower (generalized past tc.sp's shape)
    ("""forall (u in g.neighbors(v).filter(u > v)) {
            forall (w in g.neighbors(u).filter(w > u)) {
                if (g.is_an_edge(v, w)) { count += 1; }
            }
        }""", ("v", ("u", "w")), ""),
    # GAPBS's shape w < u < v walks u's row, the lower one
    ("""forall (u in g.neighbors(v).filter(u < v)) {
            forall (w in g.neighbors(u).filter(w < u)) {
                if (g.is_an_edge(v, w)) { count += 1; }
            }
        }""", None, "lower vertex u"),
    # tc.sp swapped by hand: nothing more to swap
    ("""forall (u in g.neighbors(v).filter(u < v)) {
            forall (w in g.neighbors(u).filter(w > v)) {
                if (g.is_an_edge(v, w)) { count += 1; }
            }
        }""", None, "lower vertex u"),
])
def test_the_swap_walks_the_lower_of_the_two_rows(loops, swap, refused):
    found, why = _swap(plan_of(_count(loops)))
    assert found == swap
    assert refused in why and why


def test_no_swap_where_the_graph_is_never_renumbered():
    loops = TC.replace("count += 1;", "count += 1; v.tri += 1;")
    plan = plan_of(_count(loops, params=", propNode<long> tri"))
    assert not _orders(plan)
    assert not any(k.renumbered_of or k.renumbered_variant or k.row_swap_why
                   for k in plan.kernels)
