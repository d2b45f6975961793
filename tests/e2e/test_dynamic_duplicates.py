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

from test_dynamic_programs import _compiled, _graph_after

pytestmark = pytest.mark.opencl


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
