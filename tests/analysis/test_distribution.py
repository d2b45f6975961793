"""The superstep facts of analysis.distribution: what each kernel's superstep exchanges."""

from __future__ import annotations

import pytest

from starc.analysis.distribution import DistributionError, distribute
from starc.analysis.locality import RemoteWrite

from analysis_helpers import (TRIANGLES_OVER_A_NEIGHBOURS_ROW, TRIANGLES_OVER_A_NEIGHBOURS_SLICE,
                              dsl_plan, plan_of)


def _step(distribution, suffix):
    return next(step for name, step in distribution.steps.items() if name.endswith(suffix))


def test_push_min_sends_combined_updates_and_keeps_its_candidates_at_ghosts():
    found = distribute(dsl_plan("sssp"))
    step = _step(found, "forall_11")
    assert step.updates == (RemoteWrite("dist", "Min"),
                            RemoteWrite("modified_nxt", "Min secondary", primary="dist"))
    # dist: its remote Min compares with the ghost copy, which must never be below the
    # owner's value; the secondary follows its primary and is not mirrored for that
    assert found.mirrored == {"dist": "neighbour"}
    # nothing else reads dist at ghosts and only this Min writes it: the ghost copies keep
    # the candidates sent, and the owner's combine is the whole exchange (no refresh round)
    assert step.bounds == ("dist",)
    # modified is only ever set to True: the owner stores it where dist won, nothing travels
    assert step.constants == (("modified_nxt", True),)
    assert step.refresh == () and step.every == ()
    assert step.scalars == (("finished_flag", "flag"),)
    assert not found.reverse and not found.ghost_rows


def test_a_min_target_read_at_ghosts_or_stored_is_refreshed():
    """cc's comp: its first kernel stores comp at every own vertex (a refresh of every
    mirror, values only); the Min kernel keeps its candidates. A Min target that a kernel also
    reads at a neighbour outside the Min needs fresh ghosts: refreshed after the Min too."""
    found = distribute(dsl_plan("cc"))
    init, step = _step(found, "forall_7"), _step(found, "forall_12")
    assert (init.refresh, init.every, init.bounds) == (("comp",), ("comp",), ())
    assert (step.refresh, step.every, step.bounds) == ((), (), ("comp",))
    text = """
function F(Graph g, propNode<int> d, propNode<int> seen) {
    g.attachNodeProperty(d = 100, seen = 0);
    forall (v in g.nodes()) {
        for (w in g.neighbors(v)) {
            <w.d> = <Min(w.d, v.d + 1)>;
            v.seen = v.seen + w.d;
        }
    }
}
"""
    read = next(iter(distribute(plan_of(text)).steps.values()))
    assert read.bounds == () and "d" in read.refresh


def test_a_filtered_store_refreshes_the_changed_mirrors_only():
    text = """
function F(Graph g, propNode<int> a, propNode<int> b) {
    g.attachNodeProperty(a = 1, b = 0);
    forall (v in g.nodes().filter(a == 1)) {
        v.b = 2;
    }
    forall (v in g.nodes()) {
        for (w in g.neighbors(v)) { v.a = v.a + w.b; }
    }
}
"""
    found = distribute(plan_of(text))
    [store] = [s for s in found.steps.values() if s.refresh]
    assert store.refresh == ("b",) and store.every == ()


def test_pull_pagerank_mirrors_the_copied_buffer_and_needs_in_rows_only():
    # before the hoist pass: the loop reads pageRank and count_outNbrs of in-neighbours
    found = distribute(dsl_plan("pr", stop_after="expand"))
    step = _step(found, "forall_13")
    assert step.updates == ()
    # pageRank is read through in-neighbours; pageRank_nxt is copied into it, so it is too
    assert found.mirrored == {"pageRank": "neighbour", "pageRank_nxt": "neighbour"}
    assert step.refresh == ("pageRank_nxt",)
    assert step.scalars == (("diff_dev", "+"),)
    # count_outNbrs of an in-neighbour: every rank keeps every vertex's out-degree
    assert found.reverse and not found.ghost_rows


@pytest.mark.parametrize("update, rows", [
    ("s = s + g.count_outNbrs(w);", False),
    ("s = s + g.count_inNbrs(w);", False),
    ("if (g.is_an_edge(w, v)) { s = s + 1; }", True),     # an edge of the neighbour's row
])
def test_degrees_of_neighbours_need_no_ghost_rows(update, rows):
    text = f"""
function F(Graph g, propNode<int> a) {{
    forall (v in g.nodes()) {{
        int s = 0;
        for (w in g.neighbors(v)) {{
            {update}
        }}
        v.a = s;
    }}
}}
"""
    assert distribute(plan_of(text)).ghost_rows is rows


def test_degrees_of_any_vertex_are_kept_on_every_rank():
    text = """
function F(Graph g, propNode<int> a, node hub) {
    int d = g.count_inNbrs(hub);
    forall (v in g.nodes()) {
        v.a = g.count_outNbrs(hub) + g.count_inNbrs(hub) + d;
    }
}
"""
    assert not distribute(plan_of(text)).ghost_rows


def test_edge_queries_of_rows_no_rank_holds_are_refused():
    anywhere = """
function F(Graph g, propNode<int> a, node hub) {
    forall (v in g.nodes()) {
        if (g.is_an_edge(hub, v)) { v.a = 1; }
    }
}
"""
    with pytest.raises(DistributionError, match="g.is_an_edge of a vertex that is neither"):
        distribute(plan_of(anywhere))
    host = """
function F(Graph g, propNode<int> a, node hub, node w) {
    int linked = 0;
    if (g.is_an_edge(hub, w)) { linked = 1; }
    forall (v in g.nodes()) { v.a = linked; }
}
"""
    with pytest.raises(DistributionError, match="g.is_an_edge outside a forall") as info:
        distribute(plan_of(host))
    assert info.value.loc.line == 4


def test_hoisted_pagerank_term_is_the_only_mirrored_array_and_needs_no_ghost_rows():
    found = distribute(dsl_plan("pr"))
    # the loop reads pageRank_term[nbr] only; its own kernel writes it at owned vertices,
    # after which owners refresh the ghosts; pageRank and its swapped buffer stay local
    assert found.mirrored == {"pageRank_term": "neighbour"}
    assert _step(found, "forall_13_pageRank_term").refresh == ("pageRank_term",)
    # it stores the term at every own vertex (filtered by degree alone): every mirror's
    # value is sent, values only, in the order of the ghost list agreed once
    assert _step(found, "forall_13_pageRank_term").every == ("pageRank_term",)
    assert _step(found, "forall_13").refresh == ()
    assert found.reverse and not found.ghost_rows


def test_reads_and_writes_at_any_vertex_reach_every_rank():
    text = """
function F(Graph g, propNode<int> a, propNode<int> b, node src) {
    g.attachNodeProperty(a = 1, b = 0);
    forall (v in g.nodes()) {
        v.b = src.a;
        src.a = 2;
    }
}
"""
    found = distribute(plan_of(text))
    step = next(iter(found.steps.values()))
    assert step.updates == (RemoteWrite("a", "=", "anywhere"),)
    assert found.mirrored == {"a": "anywhere"}


def test_a_sequential_loop_over_the_graph_is_refused_with_its_line():
    text = """
function F(Graph g, propNode<int> a) {
    g.attachNodeProperty(a = 0);
    for (v in g.nodes()) {
        for (w in g.neighbors(v)) { w.a = w.a + 1; }
    }
}
"""
    with pytest.raises(DistributionError, match="sequential loop over the graph") as info:
        distribute(plan_of(text))
    assert info.value.loc.line == 4


def test_one_array_with_two_remote_operators_in_a_forall_is_refused():
    text = """
function F(Graph g, propNode<int> a) {
    g.attachNodeProperty(a = 0);
    forall (v in g.nodes()) {
        for (w in g.neighbors(v)) { w.a += 1; w.a = 3; }
    }
}
"""
    with pytest.raises(DistributionError, match="two operators"):
        distribute(plan_of(text))


def test_the_triangle_count_needs_only_searched_slices_of_ghost_rows():
    """dsl/tc.sp searches the row of a neighbour u < v for a neighbour w > v: a rank needs only
    the rows of ghosts below its vertices, and of each only the part from its first vertex."""
    found = distribute(dsl_plan("tc"))
    assert found.ghost_rows and found.ghost_row_slices


@pytest.mark.parametrize("filters, query, slices", [
    ("u < v", "w > v", True),
    ("v > u", "v < w", True),            # the same comparisons written the other way round
    ("u <= v", "w >= v", True),
    ("u > v", "w > v", False),           # a search in the row of a neighbour above
    ("u < v", "w < v", False),           # for a neighbour below: entries below the first
    ("u < v", "", False),                # w unfiltered
])
def test_searched_slices_need_a_search_from_below_for_a_vertex_above(filters, query, slices):
    where = f".filter({query})" if query else ""
    text = f"""
function F(Graph g) {{
    long count = 0;
    forall (v in g.nodes()) {{
        forall (u in g.neighbors(v).filter({filters})) {{
            forall (w in g.neighbors(v){where}) {{
                if (g.is_an_edge(u, w)) {{ count += 1; }}
            }}
        }}
    }}
    return count;
}}
"""
    found = distribute(plan_of(text))
    assert found.ghost_rows and found.ghost_row_slices is slices


def test_a_loop_over_a_neighbours_row_needs_whole_rows():
    text = TRIANGLES_OVER_A_NEIGHBOURS_ROW
    found = distribute(plan_of(text))
    assert found.ghost_rows and not found.ghost_row_slices


def test_a_count_walking_a_lower_neighbours_row_above_its_vertex_needs_only_slices():
    """tc's swapped rows (``row_swap``): u < v's row walked for w > v, v's row searched."""
    found = distribute(plan_of(TRIANGLES_OVER_A_NEIGHBOURS_SLICE))
    assert found.ghost_rows and found.ghost_row_slices
    # the same walk in a kernel that is no triangle count could use what the slice drops
    other = TRIANGLES_OVER_A_NEIGHBOURS_SLICE.replace("if (g.is_an_edge(v, w)) { count += 1; }",
                                                      "count += 1;")
    assert not distribute(plan_of(other)).ghost_row_slices


@pytest.mark.parametrize("program, indexes", [("bfs", True), ("bc", True), ("sssp", False),
                                              ("cc", False), ("pr", False), ("tc", False)])
def test_the_mirror_index_is_built_with_the_distribution_where_a_refresh_marks_mirrors(
        program, indexes):
    """A refresh of a local array by change marks its changed mirrors through the runtime's
    mirror index; the printer builds that index before the clock where some superstep needs
    it (bfs's level, bc's), not where the refreshes send every mirror (pr's values only, cc's
    first kernel) or none (sssp's and cc's Min keep their candidates; tc exchanges no
    property)."""
    found = distribute(dsl_plan(program))
    assert found.indexes_mirrors is indexes
