"""dsl/dynamic/dyn_sssp.sp on OpenCL over random small graphs and update streams whose
batches repeat updates (the same edge deleted or added twice, several additions from one
source): after every batch the distances are the reference's, after the last scipy's on the
graph the stream leaves (the worklists' first queues and their flags kept False across
batches, ``analysis/frontier_seed.py``, must not lose or double a vertex)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse
import scipy.sparse.csgraph
from hypothesis import HealthCheck, given, settings, strategies as st

from test_dynamic_programs import OTHER_BACKENDS, _compiled, _graph_after


@st.composite
def _case(draw):
    n = draw(st.integers(2, 12))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                                    st.integers(1, 9)), min_size=1, max_size=40))
    lines = []
    for _ in range(draw(st.integers(1, 30))):
        if draw(st.booleans()):      # a deletion of an edge of the input (perhaps again)
            u, v, _ = draw(st.sampled_from(edges))
            lines.append(f"d {u} {v}")
        else:
            u = draw(st.sampled_from([e[0] for e in edges] + [draw(st.integers(0, n - 1))]))
            lines.append(f"a {u} {draw(st.integers(0, n - 1))} {draw(st.integers(1, 9))}")
        if draw(st.integers(0, 3)) == 0:     # the same update twice in a row
            lines.append(lines[-1])
    return n, edges, lines, draw(st.integers(1, 12))


@pytest.mark.opencl
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(case=_case())
def test_batches_with_repeated_updates_give_the_references_and_scipys_distances(tmp_path, case):
    n, edges, lines, batch = case
    graph, updates = tmp_path / "g.el", tmp_path / "u.txt"
    graph.write_text(f"# {n} vertices\n" + "".join(f"{u} {v} {w}\n" for u, v, w in edges)
                     + "".join(f"{v} {v} 1\n" for v in range(n)))   # every vertex listed
    updates.write_text("".join(line + "\n" for line in lines))
    runs = [_compiled("dyn_sssp", backend).run(graph, updates=str(updates), batchSize=batch,
                                               src="0")
            for backend in ("reference", "opencl")]
    assert (runs[0].props["dist"] == runs[1].props["dist"]).all()
    final = _graph_after(graph, updates, False, batch)
    # parallel edges: the neighbour loop relaxes through each, so the lightest counts
    lightest = {}
    for u, v, w in zip(final.sources.tolist(), final.targets.tolist(),
                       final.weights.tolist()):
        lightest[u, v] = min(w, lightest.get((u, v), w))
    keys = list(lightest)
    matrix = scipy.sparse.csr_matrix(([lightest[k] for k in keys],
                                      ([k[0] for k in keys], [k[1] for k in keys])),
                                     shape=(final.num_nodes, final.num_nodes))
    expected = scipy.sparse.csgraph.dijkstra(matrix, indices=0)
    dist = runs[1].props["dist"]
    reached = np.isfinite(expected)
    assert (dist[reached] == expected[reached]).all()


#: batches of 3 for ``SEEDED_GRAPH``: deletions only (the Incremental fixedPoint's first run
#: sets its worklist up in its own prologue, its update kernel launched no seed), three
#: additions from one source (the seed appends it once), additions from unreached sources
#: (the seed flags nothing: a first queue of 0), then a mixed batch
SEEDED_STREAM = ["d 0 1", "d 4 5", "d 2 3",
                 "a 0 2 1", "a 0 3 1", "a 0 5 1",
                 "a 6 1 1", "a 7 2 1", "a 6 0 1",
                 "a 2 6 1", "a 2 7 2", "d 0 2"]
SEEDED_GRAPH = "# 8 vertices\n0 1 1\n1 2 1\n2 3 1\n0 4 5\n4 5 1\n6 7 1\n"


@pytest.mark.parametrize("backend", [pytest.param("opencl", marks=pytest.mark.opencl)]
                         + OTHER_BACKENDS)
def test_the_update_kernels_first_queue_gives_the_references_distances_after_each_batch(
        tmp_path, backend):
    """dyn_sssp's Incremental takes its first queue from the OnAdd kernel
    (``frontier_seed.update_seed``): after each batch of ``SEEDED_STREAM`` (the stream cut
    there) the distances are the reference's and scipy's on the graph left."""
    graph = tmp_path / "g.el"
    graph.write_text(SEEDED_GRAPH)
    for batches in range(1, len(SEEDED_STREAM) // 3 + 1):
        updates = tmp_path / f"u{batches}.txt"
        updates.write_text("".join(line + "\n" for line in SEEDED_STREAM[:3 * batches]))
        runs = [_compiled("dyn_sssp", name).run(graph, updates=str(updates), batchSize=3,
                                                src="0")
                for name in ("reference", backend)]
        assert (runs[0].props["dist"] == runs[1].props["dist"]).all(), batches
        final = _graph_after(graph, updates, False, 3)
        matrix = scipy.sparse.csr_matrix((final.weights, (final.sources, final.targets)),
                                         shape=(final.num_nodes, final.num_nodes))
        expected = scipy.sparse.csgraph.dijkstra(matrix, indices=0)
        reached = np.isfinite(expected)
        assert (runs[1].props["dist"][reached] == expected[reached]).all(), batches
        assert not (runs[1].props["dist"][~reached] < 2 ** 30).any(), batches
