"""Which accesses of a kernel reach beyond its own vertex (``analysis.locality``): the facts a
distributed backend needs (issue 11)."""

from __future__ import annotations

from analysis_helpers import dsl_plan, kernel, plan_of
from starc.analysis.locality import RemoteWrite, kernel_locality


def locality(plan, suffix):
    return kernel_locality(kernel(plan, suffix), plan)


def test_push_min_writes_the_neighbours_and_reads_only_its_own_row():
    found = locality(dsl_plan("sssp"), "forall_11")
    assert found.remote_writes == (RemoteWrite("dist", "Min"),
                                   RemoteWrite("modified_nxt", "Min secondary", primary="dist"))
    # dist[v], modified[v] and the weight of an edge of v's own row stay local
    assert found.neighbour_reads == () and found.remote_rows == ()


def test_pull_reads_the_neighbours_and_writes_only_itself():
    found = locality(dsl_plan("pr", stop_after="expand"), "forall_13")    # before hoisting
    assert found.remote_writes == ()
    assert found.neighbour_reads == ("pageRank",)
    assert found.remote_rows == ("count_outNbrs",)   # the out-degree of an in-neighbour


def test_edge_queries_about_other_vertices_need_their_rows():
    found = locality(dsl_plan("tc"), "forall_6")
    assert found.remote_rows == ("is_an_edge",) and not found.remote_writes


def test_bfs_expansion_writes_levels_of_the_neighbours():
    plan = dsl_plan("bc")
    forward = locality(plan, "bfs_fwd_12")
    assert forward.remote_writes == (RemoteWrite("bfs_level", "="),)
    assert set(forward.neighbour_reads) == {"sigma", "bfs_level"}
    reverse = locality(plan, "bfs_rev_17")
    assert reverse.remote_writes == ()
    assert set(reverse.neighbour_reads) == {"sigma", "delta", "bfs_level"}


def test_edge_kernels_own_their_edge_and_its_source():
    text = """
function F(Graph g, propNode<int> val, propEdge<int> weight) {
    g.attachNodeProperty(val = 0);
    forall (e in g.edges()) {
        e.source.val += e.weight;
        e.destination.val += 1;
    }
}
"""
    plan = plan_of(text)
    found = kernel_locality(plan.kernels[0], plan)
    assert found.remote_writes == (RemoteWrite("val", "+"),)
    assert found.neighbour_reads == ()


def test_a_local_kernel_and_a_single_item_kernel():
    text = """
function F(Graph g, propNode<int> a, node src) {
    g.attachNodeProperty(a = 1);
    forall (v in g.nodes()) { v.a = v.a * 2; }
    for (v in g.nodes()) { v.a = v.a + 1; }
}
"""
    plan = plan_of(text)
    parallel, sequential = [kernel_locality(k, plan) for k in plan.kernels]
    assert parallel.local and not parallel.global_
    assert sequential.global_ and not sequential.local   # a host-level loop: any vertex


def test_neighbour_and_anywhere_accesses_are_told_apart():
    text = """
function F(Graph g, propNode<int> a, propNode<int> b, node src) {
    g.attachNodeProperty(a = 1, b = 0);
    forall (v in g.nodes()) {
        for (w in g.neighbors(v)) {
            node x = w;
            x.b += v.a + src.a;
            src.b = 1;
        }
    }
}
"""
    plan = plan_of(text)
    found = kernel_locality(plan.kernels[0], plan)
    assert found.remote_writes == (RemoteWrite("b", "+"), RemoteWrite("b", "=", "anywhere"))
    assert found.neighbour_reads == ("a",) and found.anywhere_reads == ("a",)


def test_a_variable_is_classed_by_every_value_it_gets():
    """``node s = v`` then ``s = w`` (a neighbour): a write at ``s`` may reach the neighbour,
    and an edge of the row of a variable that is ``v`` or a neighbour is a ghost row's."""
    text = """
function F(Graph g, propNode<int> val, propEdge<int> mark) {
    g.attachNodeProperty(val = 0);
    forall (v in g.nodes()) {
        node s = v;
        for (w in g.neighbors(v)) {
            if (w > v) {
                s = w;
            }
        }
        s.val += 1;
        for (x in g.neighbors(s)) {
            edge e = g.get_edge(s, x);
            v.val += e.mark;
        }
    }
}
"""
    plan = plan_of(text)
    found = kernel_locality(plan.kernels[-1], plan)
    assert found.remote_writes == (RemoteWrite("val", "+"),)      # a neighbour, not anywhere
    assert found.ghost_edge_reads == ("mark",) and found.neighbour_reads == ()
    assert "neighbours" in found.remote_rows and found.anywhere_rows == ()
