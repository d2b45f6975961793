"""Graph updates in the plan (issue 31): which edge properties an update reads back from the
device before it renumbers the edges (only what the device may have written; the input
weights, which no kernel writes, are carried from their host copy), and whether the host keeps
the reverse CSR's edge ids (only for a device that reads them)."""

from __future__ import annotations

import pytest

from analysis_helpers import DSL, host_of, plan_of
from starc.analysis import plan as P
from starc.backends import get_backend

DEVICE_BACKENDS = ("opencl", "cuda", "sycl", "openacc")

#: a Dynamic program whose kernel changes the weights in every batch, before the update
BUMPED = """\
Dynamic Bump(Graph g, propEdge<int> weight, updates<g> U, int batchSize) {
    Batch (U : batchSize) {
        forall (v in g.nodes()) {
            for (w in g.neighbors(v)) { edge e = g.get_edge(v, w); e.weight = e.weight + v; }
        }
        g.updateCSRDel(U);
        g.updateCSRAdd(U);
    }
}
"""


def _updates(plan: P.Plan):
    found = host_of(plan, P.ApplyUpdates)
    assert len(found) == 2, found        # the deletions' and the additions'
    return found


@pytest.mark.parametrize("backend", [None, *DEVICE_BACKENDS])
def test_input_weights_nothing_writes_are_not_read_back(backend):
    """dyn_sssp reads its weights only: both updates carry them, neither reads them back (an
    O(m) device-to-host copy per update that would copy the host's own values)."""
    plan = plan_of((DSL / "dynamic" / "dyn_sssp.sp").read_text(), function="DynSSSP")
    if backend is not None:
        plan = get_backend(backend).specialize(plan)
    for update in _updates(plan):
        assert [a.name for a in update.edge_props] == ["weight"]
        assert update.read_back == ()


@pytest.mark.parametrize("backend", [None, *DEVICE_BACKENDS])
def test_weights_a_kernel_writes_are_read_back(backend):
    plan = plan_of(BUMPED)
    if backend is not None:
        plan = get_backend(backend).specialize(plan)
    for update in _updates(plan):
        assert [a.name for a in update.read_back] == ["weight"]


#: a Dynamic program that reads each in-edge's weight through the reverse CSR's edge ids
PULLED = """\
Dynamic Pull(Graph g, propNode<int> total, propEdge<int> weight, updates<g> U, int batchSize) {
    Batch (U : batchSize) {
        g.updateCSRDel(U);
        g.updateCSRAdd(U);
    }
    forall (v in g.nodes()) {
        for (w in g.nodes_to(v)) { edge e = g.get_edge(w, v); v.total += e.weight; }
    }
}
"""


@pytest.mark.parametrize("backend", [None, *DEVICE_BACKENDS])
def test_reverse_edge_ids_are_kept_only_for_a_device_that_reads_them(backend):
    sssp = plan_of((DSL / "dynamic" / "dyn_sssp.sp").read_text(), function="DynSSSP")
    pulled = plan_of(PULLED)
    if backend is not None:
        sssp, pulled = (get_backend(backend).specialize(p) for p in (sssp, pulled))
    # dyn_sssp walks in-neighbours (rev_sources) but never their edge ids
    assert all(not u.reverse_ids for u in _updates(sssp))
    assert all(u.reverse_ids and "rev_edge_ids" in [a.name for a in u.graph]
               for u in _updates(pulled))
