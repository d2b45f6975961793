"""Dynamic programs in the reference executor (issue 31): after every batch of updates,
dsl/dynamic/dyn_sssp.sp's distances equal Dijkstra's (and dsl/sssp.sp's) on the graph the
updates give, built here independently from the edge list, dsl/dynamic/dyn_tc.sp's count equals
dsl/tc.sp's (and networkx's on simple graphs), and dsl/dynamic/dyn_pr.sp's ranks are within the
tolerance of the power iteration's (and dsl/pr.sp's); hypothesis draws graphs and streams with
missing-edge deletions, duplicate additions and self-loops."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from starc.graphs.updates import ADD, DELETE, UpdateStream
from starc.reference import ExecutionError, execute
from starc.runcontract import DataError, UsageError

import reference_oracles as oracles
from reference_helpers import compile_text, dsl_program, make_graph, run_both

Edge = tuple   # (source, destination, weight)


def stream_of(updates) -> UpdateStream:
    """``[("a", u, v, w) or ("d", u, v)]`` as an UpdateStream."""
    kinds = np.array([ADD if item[0] == "a" else DELETE for item in updates], np.int8)
    weights = np.array([item[3] if item[0] == "a" else 0 for item in updates], np.float64)
    return UpdateStream(kinds, np.array([item[1] for item in updates], np.int64),
                        np.array([item[2] for item in updates], np.int64), weights, True,
                        "updates.txt")


def updated_edges(edges, updates, batch_size, undirected=False):
    """The edge list after the batches (language-notes: per batch, every deletion removes all
    copies of its edge, then every addition adds one edge)."""
    edges = list(edges)
    for start in range(0, len(updates), batch_size):
        batch = updates[start:start + batch_size]
        gone = set()
        for item in batch:
            if item[0] == "d":
                gone |= {(item[1], item[2]), (item[2], item[1])} if undirected else \
                    {(item[1], item[2])}
        edges = [e for e in edges if (e[0], e[1]) not in gone]
        for item in batch:
            if item[0] == "a":
                edges.append((item[1], item[2], item[3]))
                if undirected and item[1] != item[2]:
                    edges.append((item[2], item[1], item[3]))
    return edges


def graph_of(n, edges, undirected=False):
    graph = make_graph(n, [e[:2] for e in edges], [e[2] for e in edges])
    return graph.symmetrised() if undirected else graph


def dyn_sssp(n, edges, updates, batch_size, src, undirected=False):
    stream = stream_of(updates)
    result = run_both_dynamic(graph_of(n, edges, undirected),
                              stream.symmetrised() if undirected else stream,
                              {"src": str(src), "batchSize": str(batch_size)})
    return result.props["dist"]


def run_both_dynamic(graph, stream, options, name="dyn_sssp"):
    program = dsl_program(f"dynamic/{name}")
    fast = execute(program, graph, options, updates=stream)
    slow = execute(program, graph, options, updates=stream, vectorize=False)
    for name in fast.props:
        assert np.array_equal(fast.props[name], slow.props[name]), name
    return fast


def expected_dist(n, edges, updates, batch_size, src, undirected=False):
    start = _mirrored(edges) if undirected else edges
    final = graph_of(n, updated_edges(start, updates, batch_size, undirected))
    dist = oracles.dijkstra(final, src)
    static = run_both(dsl_program("sssp"), final, {"src": str(src)}).props["dist"]
    assert np.array_equal(dist, static)
    return dist


def _mirrored(edges):
    return list(edges) + [(v, u, w) for u, v, w in edges if u != v]


GRAPH = [(0, 1, 5), (1, 2, 3), (2, 0, 1), (0, 2, 9)]
UPDATES = [("a", 0, 0, 44), ("d", 0, 2), ("a", 1, 0, 59), ("d", 2, 0), ("a", 2, 1, 74),
           ("d", 0, 1)]


def test_worked_example_every_batch():
    """Vertex 2 is reached by 0 -> 1 -> 2 (8; the direct 0 -> 2 weighs 9, cut in the first
    batch); the last batch cuts 0 -> 1, after which only 0 is reached."""
    seen = []
    for batches in range(4):
        dist = dyn_sssp(3, GRAPH, UPDATES[:2 * batches], 2, 0)
        assert np.array_equal(dist, expected_dist(3, GRAPH, UPDATES[:2 * batches], 2, 0))
        seen.append(dist.tolist())
    inf = oracles.INT_MAX
    assert seen == [[0, 5, 8], [0, 5, 8], [0, 5, 8], [0, inf, inf]]


def test_delete_and_add_of_one_edge_in_a_batch_leave_it():
    """Deletions apply first: 'a 0 1' then 'd 0 1' in one batch keeps the new 0 -> 1."""
    updates = [("a", 0, 1, 2), ("d", 0, 1)]
    assert dyn_sssp(2, [(0, 1, 7)], updates, 2, 0).tolist() == [0, 2]
    assert dyn_sssp(2, [(0, 1, 7)], updates, 1, 0).tolist() == [0, oracles.INT_MAX]


def test_deleting_a_missing_edge_changes_nothing():
    assert dyn_sssp(3, [(0, 1, 1)], [("d", 1, 2), ("d", 2, 2)], 1, 0).tolist() == \
        [0, 1, oracles.INT_MAX]


def test_batch_size_below_one_is_a_runtime_error_at_the_batch():
    with pytest.raises(ExecutionError, match="the batch size is 0; it must be at least 1") as info:
        dyn_sssp(2, [(0, 1, 1)], [("d", 0, 1)], 0, 0)
    assert info.value.loc.line > 0


def test_the_stream_is_required_and_only_for_a_dynamic_function():
    graph = graph_of(2, [(0, 1, 1)])
    with pytest.raises(UsageError, match="missing --updates FILE .*'updateBatch' of DynSSSP"):
        execute(dsl_program("dynamic/dyn_sssp"), graph, {"src": "0", "batchSize": "1"})
    with pytest.raises(UsageError, match="--updates: Compute_SSSP takes no update stream"):
        execute(dsl_program("sssp"), graph, {"src": "0"}, updates=stream_of([]))


def test_additions_without_weights_for_a_weighted_program():
    stream = UpdateStream(np.array([ADD], np.int8), np.array([0]), np.array([1]), None)
    with pytest.raises(DataError, match="the additions carry no weights"):
        execute(dsl_program("dynamic/dyn_sssp"), graph_of(2, [(0, 1, 1)]),
                {"src": "0", "batchSize": "1"}, updates=stream)


def test_update_values_and_edge_properties_follow_their_edges():
    """u.weight, currentBatch(0/1), an edge property of kept edges and a new edge's weight,
    propagateNodeFlags on the updated graph."""
    program = compile_text("""
Dynamic D(Graph g, propNode<int> seen, propNode<int> count, propNode<bool> reach,
          propEdge<int> weight, updates<g> U, int n) {
    propEdge<int> mark;
    forall (v in g.nodes()) {
        forall (w in g.neighbors(v)) { edge e = g.get_edge(v, w); e.mark = 1; }
    }
    Batch (U : n) {
        for (u in U.currentBatch(0)) { node s = u.source; s.seen += 10; }
        for (u in U.currentBatch(1)) { node s = u.source; s.seen += u.weight; }
        g.updateCSRDel(U);
        g.updateCSRAdd(U);
    }
    forall (v in g.nodes()) {
        forall (w in g.neighbors(v)) {
            edge e = g.get_edge(v, w);
            v.count += e.mark * 1000 + e.weight;
        }
    }
    g.attachNodeProperty(reach = False);
    node zero = 0;
    zero.reach = True;
    g.propagateNodeFlags(reach);
}""")
    graph = graph_of(4, [(0, 1, 5), (1, 2, 6), (2, 3, 7)])
    updates = [("d", 1, 2), ("a", 0, 2, 40), ("a", 3, 0, 2)]
    r = execute(program, graph, {"n": "5"}, updates=stream_of(updates))
    assert r.props["seen"].tolist() == [40, 10, 0, 2]
    # 0: kept 0->1 (1005) and new 0->2 (0 + 40); 2: kept 2->3; 3: new 3->0
    assert r.props["count"].tolist() == [1005 + 40, 0, 1007, 2]
    assert r.props["reach"].tolist() == [True, True, True, True]


@st.composite
def dynamic_cases(draw):
    n = draw(st.integers(1, 7))
    vertex = st.integers(0, n - 1)
    edges = draw(st.lists(st.tuples(vertex, vertex, st.integers(1, 20)), max_size=14))
    existing = [e[:2] for e in edges]
    deletion = (st.sampled_from(existing) if existing else st.tuples(vertex, vertex)).map(
        lambda pair: ("d",) + tuple(pair))
    missing = st.tuples(vertex, vertex).map(lambda pair: ("d",) + pair)
    addition = st.tuples(vertex, vertex, st.integers(1, 20)).map(lambda t: ("a",) + t)
    duplicate = (st.sampled_from(edges).map(lambda e: ("a",) + e) if edges else addition)
    updates = draw(st.lists(st.one_of(deletion, missing, addition, duplicate), max_size=12))
    return n, edges, updates, draw(st.integers(1, 4)), draw(vertex), draw(st.booleans())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dynamic_cases())
def test_dyn_sssp_after_every_batch_equals_dijkstra_on_the_updated_graph(case):
    n, edges, updates, batch_size, src, undirected = case
    for stop in range(0, len(updates) + batch_size, batch_size):
        prefix = updates[:stop]
        assert np.array_equal(dyn_sssp(n, edges, prefix, batch_size, src, undirected),
                              expected_dist(n, edges, prefix, batch_size, src, undirected))


PR_OPTIONS = {"beta": "1e-7", "delta": "0.85", "maxIter": "500"}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dynamic_cases())
def test_dyn_pr_after_every_batch_is_within_tolerance_of_pagerank_on_the_updated_graph(case):
    n, edges, updates, batch_size, _, undirected = case
    start = _mirrored(edges) if undirected else edges
    for stop in range(0, len(updates) + batch_size, batch_size):
        prefix = updates[:stop]
        part = stream_of(prefix)
        ranks = run_both_dynamic(graph_of(n, edges, undirected),
                                 part.symmetrised() if undirected else part,
                                 {**PR_OPTIONS, "batchSize": str(batch_size)},
                                 "dyn_pr").props["pageRank"]
        final = graph_of(n, updated_edges(start, prefix, batch_size, undirected))
        expected = oracles.pagerank(final, 1e-12, 0.85, 10_000)
        static = run_both(dsl_program("pr"), final, PR_OPTIONS).props["pageRank"]
        assert np.allclose(ranks, expected, rtol=0, atol=1e-5), (ranks, expected)
        assert np.allclose(ranks, static, rtol=0, atol=1e-5)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dynamic_cases())
def test_dyn_tc_after_every_batch_equals_triangle_counting_on_the_updated_graph(case):
    n, edges, updates, batch_size, _, _ = case
    start = _mirrored(edges)
    for stop in range(0, len(updates) + batch_size, batch_size):
        prefix = updates[:stop]
        result = run_both_dynamic(graph_of(n, edges, True), stream_of(prefix).symmetrised(),
                                  {"batchSize": str(batch_size)}, "dyn_tc")
        final = graph_of(n, updated_edges(start, prefix, batch_size, True))
        static = run_both(dsl_program("tc"), final, {})
        assert result.ret == static.ret
        if final.duplicate_edge_count() == 0:
            assert result.ret == oracles.triangles(final)
        assert result.props["count"].sum() == result.ret


def test_dyn_tc_worked_example():
    """A square 0-1-2-3 with the diagonal 0-2 (two triangles); the batch deletes 0-2 and adds
    1-3: two other triangles."""
    square = [(0, 1, 1), (1, 2, 1), (2, 3, 1), (3, 0, 1), (0, 2, 1)]
    counts = []
    for stop in (0, 2):
        result = run_both_dynamic(graph_of(4, square, True),
                                  stream_of([("d", 0, 2), ("a", 1, 3, 1)][:stop]).symmetrised(),
                                  {"batchSize": "2"}, "dyn_tc")
        counts.append(result.ret)
    assert counts == [2, 2]
    result = run_both_dynamic(graph_of(4, square, True),
                              stream_of([("a", 1, 3, 1)]).symmetrised(), {"batchSize": "1"},
                              "dyn_tc")
    assert result.ret == 4


def test_the_round_trip_sample_runs_with_hand_checked_results():
    """tests/sema/samples/dynamic.sp: Decremental / Incremental over a batch's deletions and
    additions keep the out-degrees of the updated graph; OnAdd sums the added weights; the
    flags of the deleted edges' heads are replaced by those reachable from src at the end."""
    path = pathlib.Path(__file__).resolve().parents[1] / "sema" / "samples" / "dynamic.sp"
    program = compile_text(path.read_text(), str(path))
    updates = [("a", 0, 0, 44), ("d", 0, 2), ("a", 1, 0, 59), ("d", 2, 0), ("a", 2, 1, 74),
               ("d", 0, 1)]
    r = execute(program, graph_of(3, GRAPH), {"batchSize": "4", "src": "1"},
                updates=stream_of(updates))
    assert r.props["degree"].tolist() == [1, 2, 1]       # 0->0; 1->2, 1->0; 2->1
    assert r.ret == 44 + 59 + 74
    assert r.props["seen"].tolist() == [True, True, True]
