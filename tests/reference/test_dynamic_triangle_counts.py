"""dsl/dynamic/dyn_tc.sp in the reference executor on streams that put several updates into one
triangle in one batch (two or three new edges of a triangle, a duplicate addition and a
deletion of one pair, self-loops, a hub): after every batch each vertex's count equals the
multigraph count m(v,u) * m(v,w) over triangles u < v < w, computed here from the edge list,
and the program's own static function on the updated graph; the total is dsl/tc.sp's."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference_helpers import dsl_program, run_both
from test_dynamic import _mirrored, graph_of, run_both_dynamic, stream_of, updated_edges


def multigraph_counts(n, edges):
    """Per vertex v: the sum over triangles u < v < w of m(v,u) * m(v,w), m counting copies
    of v -> u in the (symmetric) edge list."""
    copies = Counter((e[0], e[1]) for e in edges)
    counts = np.zeros(n, np.int64)
    for u, v, w in combinations(range(n), 3):
        if copies[(u, w)]:
            counts[v] += copies[(v, u)] * copies[(v, w)]
    return counts


def check_every_batch(n, edges, updates, batch_size):
    """After every batch: dyn_tc's counts are the oracle's and staticTC's on the updated graph."""
    start = _mirrored(edges)
    for stop in range(0, len(updates) + batch_size, batch_size):
        prefix = updates[:stop]
        result = run_both_dynamic(graph_of(n, edges, True), stream_of(prefix).symmetrised(),
                                  {"batchSize": str(batch_size)}, "dyn_tc")
        final_edges = updated_edges(start, prefix, batch_size, True)
        expected = multigraph_counts(n, final_edges)
        assert result.props["count"].tolist() == expected.tolist(), prefix
        assert result.ret == int(expected.sum())
        static = run_both_dynamic(graph_of(n, final_edges), stream_of([]), {"batchSize": "1"},
                                  "dyn_tc")
        assert static.props["count"].tolist() == expected.tolist()
        assert run_both(dsl_program("tc"), graph_of(n, final_edges), {}).ret == result.ret


HUB = [(0, v, 1) for v in range(1, 8)] + [(1, 2, 1), (2, 3, 1), (3, 4, 1), (5, 6, 1), (0, 3, 1)]

STREAMS = {
    # three new edges of one triangle in one batch, then two of another
    "three new edges": (4, [], [("a", 0, 1, 1), ("a", 1, 2, 1), ("a", 0, 2, 1),
                                ("a", 1, 3, 1), ("a", 2, 3, 1)], 3),
    "two new edges": (4, [(0, 1, 1), (2, 3, 1)], [("a", 1, 2, 1), ("a", 0, 2, 1),
                                                  ("a", 1, 3, 1)], 2),
    # a duplicate addition of a triangle's edge and a deletion and re-addition of another
    "duplicate and delete": (4, [(0, 1, 1), (1, 2, 1), (0, 2, 1), (2, 3, 1), (1, 3, 1)],
                             [("a", 0, 2, 1), ("a", 2, 0, 1), ("d", 1, 2), ("a", 1, 2, 1),
                              ("d", 0, 1), ("d", 1, 0), ("a", 1, 3, 1), ("d", 3, 2)], 4),
    # every edge of a doubled triangle deleted and one re-added, twice, in one batch
    "all three pairs": (3, [(0, 1, 1), (0, 1, 1), (1, 2, 1), (0, 2, 1), (0, 2, 1)],
                        [("d", 0, 1), ("d", 1, 2), ("d", 2, 0), ("a", 0, 1, 1), ("a", 0, 1, 1)],
                        5),
    "self-loops": (3, [(0, 1, 1), (1, 1, 1), (1, 2, 1), (0, 2, 1)],
                   [("a", 1, 1, 1), ("a", 2, 2, 1), ("d", 1, 1), ("d", 0, 2), ("a", 0, 2, 1),
                    ("a", 0, 0, 1)], 3),
    # a hub whose edges and rim both change in one batch
    "hub": (8, HUB, [("d", 0, 3), ("a", 4, 5, 1), ("a", 0, 4, 1), ("d", 2, 3), ("a", 1, 3, 1),
                     ("a", 6, 7, 1), ("d", 0, 6), ("a", 0, 6, 1), ("a", 2, 4, 1)], 9),
    "missing deletions": (4, [(0, 1, 1), (1, 2, 1)], [("d", 0, 2), ("d", 3, 3), ("a", 0, 2, 1),
                                                      ("d", 1, 3)], 2),
}


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_explicit_streams(name):
    n, edges, updates, batch_size = STREAMS[name]
    check_every_batch(n, edges, updates, batch_size)


def test_the_doubled_triangle_by_hand():
    """Vertex 1 of a triangle whose pairs 0-1 and 1-2 have 2 and 3 copies counts 2 * 3; the
    batch deletes 1-2 (every copy) and adds it once, with one more copy of 0-1: 3 * 1."""
    edges = [(0, 1, 1)] * 2 + [(1, 2, 1)] * 3 + [(0, 2, 1)]
    updates = [("d", 1, 2), ("a", 1, 2, 1), ("a", 0, 1, 1)]
    counts = [run_both_dynamic(graph_of(3, edges, True), stream_of(updates[:stop]).symmetrised(),
                               {"batchSize": "3"}, "dyn_tc").props["count"].tolist()
              for stop in (0, 3)]
    assert counts == [[0, 6, 0], [0, 3, 0]]


@st.composite
def crowded_cases(draw):
    """Few vertices (so that one batch's updates share triangles), duplicate edges, self-loops,
    sometimes a hub joined to every vertex, and batches of up to 10 updates."""
    n = draw(st.integers(3, 6))
    vertex = st.integers(0, n - 1)
    edges = draw(st.lists(st.tuples(vertex, vertex, st.just(1)), max_size=12))
    if draw(st.booleans()):
        edges += [(0, v, 1) for v in range(1, n)]
    pair = st.tuples(vertex, vertex)
    existing = st.sampled_from([e[:2] for e in edges]) if edges else pair
    update = st.one_of(existing.map(lambda p: ("d",) + tuple(p)),
                       existing.map(lambda p: ("a",) + tuple(p) + (1,)),
                       pair.map(lambda p: ("d",) + p), pair.map(lambda p: ("a",) + p + (1,)))
    updates = draw(st.lists(update, max_size=14))
    return n, edges, updates, draw(st.integers(1, 10))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(crowded_cases())
def test_crowded_batches_equal_the_multigraph_count_at_every_vertex(case):
    check_every_batch(*case)
