"""Graph updates in the plan (issue 31): which edge properties an update reads back from the
device before it renumbers the edges (only what the device may have written; the input
weights, which no kernel writes, are carried from their host copy), and whether the host keeps
the reverse CSR's edge ids (only for a device that reads them)."""

from __future__ import annotations

import dataclasses

import pytest

from analysis_helpers import DSL, host_of, plan_of
from starc.analysis import plan as P
from starc.analysis.batches import FUSED_WHY
from starc.analysis.dump import plan_dump
from starc.analysis.specialize import specialize
from starc.backends import get_backend
from starc.backends.base import BackendOptions

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
    # the deletions' and the additions', in order (one fused update where the target fuses)
    assert [kind for update in found for kind in update.kinds] == ["delete", "add"], found
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
    pr = plan_of((DSL / "dynamic" / "dyn_pr.sp").read_text(), function="DynPR")
    # dyn_sssp's Decremental pulls the in-edges' weights, as PULLED does
    sssp = plan_of((DSL / "dynamic" / "dyn_sssp.sp").read_text(), function="DynSSSP")
    pulled = plan_of(PULLED)
    if backend is not None:
        pr, sssp, pulled = (get_backend(backend).specialize(p) for p in (pr, sssp, pulled))
    # dyn_pr walks in-neighbours (rev_sources) but never their edge ids
    assert all(not u.reverse_ids for u in _updates(pr))
    assert all(u.reverse_ids and "rev_edge_ids" in [a.name for a in u.graph]
               for u in _updates(sssp) + _updates(pulled))


@pytest.mark.parametrize("backend", DEVICE_BACKENDS)
def test_the_sources_only_gpu_variants_read_are_refreshed_on_a_lockstep_device_only(backend):
    """dyn_sssp's relaxations run over edge ids on a GPU (OpenCL's and SYCL's variants, which
    a CPU device does not run) and read the edges' sources, which nothing else on the device
    reads: marked ``lockstep_only`` as in a static program, so the graph updates, which list
    them, refresh them on such a device only (``--emit plan`` says so); CUDA and OpenACC know their device when they
    compile: one form, nothing marked."""
    plan = get_backend(backend).specialize(_dynamic_plan("dyn_sssp"))
    marked = {a.name for a in plan.arrays if a.lockstep_only}
    variants = backend in ("opencl", "sycl")
    assert marked == ({"sources"} if variants else set())
    if variants:
        assert all("sources" not in {p.name for p in k.params}
                   for k in plan.kernels if not k.variant_of)
    for update in _updates(plan):
        assert {a.name for a in update.graph if a.lockstep_only} == marked
    # --emit plan says so at each update
    assert plan_dump(plan).count("; sources on a lockstep device only (only the kernels' "
                                 "variants for it read them);\n") == (2 if variants else 0)


_DYNAMIC = {"dyn_sssp": "DynSSSP", "dyn_pr": "DynPR", "dyn_tc": "DynTC"}


def _dynamic_plan(name: str):
    return plan_of((DSL / "dynamic" / f"{name}.sp").read_text(), function=_DYNAMIC[name])


#: the programs each backend runs on rows with slack by default: CUDA's schedules walk edge
#: ids (dyn_sssp's push loops) or degree bins (dyn_pr's pulls), which keep a compact CSR
SLACK_PROGRAMS = [(name, backend) for backend in ("opencl", "sycl", "openacc")
                  for name in sorted(_DYNAMIC)] + [("dyn_tc", "cuda")]


@pytest.mark.parametrize("name, backend", SLACK_PROGRAMS)
def test_a_dynamic_program_reads_rows_with_slack(name, backend):
    """Rows with slack (issue 31, item 3): every kernel that reads row starts also takes the
    rows' ends, and every graph update applies its batch to the slack rows."""
    plan = get_backend(backend).specialize(_dynamic_plan(name))
    assert plan.target.slack_rows and "only the rows it touches" in plan.target.slack_rows_why
    for kernel in plan.kernels:
        names = {p.array.name for p in kernel.params if p.array is not None}
        for start, end in P.ROW_ENDS.items():
            assert (start in names) == (end in names), (kernel.name, start)
    assert {a.name for a in plan.arrays if a.role == "graph"} >= {"offsets", "ends"}
    assert all(update.slack_rows for update in _updates(plan))
    dump = plan_dump(plan)      # --emit plan says it, and how an update refreshes the device
    assert "graph updates: rows with slack: a batch moves only the rows it touches" in dump
    if plan.target.capabilities.span_moves:
        assert "in place; move the spans it moved on the device, from their records" in dump
    else:
        assert "to the host graph's rows with slack in place; upload the slots it wrote" in dump


@pytest.mark.parametrize("span_moves", [True, False])
def test_span_moves_are_a_plan_decision_with_their_reason(span_moves):
    """Span moves (issue 31): on a target that applies a batch's moves on the device, every
    graph update of rows with slack says so, with its reason in --emit plan and the host
    moves the spans from their records; without, every written slot is scattered."""
    capabilities = dataclasses.replace(get_backend("opencl").capabilities,
                                       span_moves=span_moves)
    plan = specialize(_dynamic_plan("dyn_sssp"), capabilities)
    assert plan.target.slack_rows
    assert [update.span_moves for update in _updates(plan)] == [span_moves] * 2
    dump = plan_dump(plan)
    assert ("batch moves on the device (span moves): a deletion closes its hole from the "
            "shorter side" in dump) == span_moves
    # (sources: the GPU variants' edges kernels find an edge's vertex by it)
    assert ("move the spans it moved on the device, from their records, in targets, "
            "sources, rev_sources, rev_edge_ids, weight;" in dump) == span_moves


def test_a_backend_whose_printer_has_no_rows_with_slack_keeps_a_compact_csr_and_says_why():
    capabilities = dataclasses.replace(get_backend("opencl").capabilities, slack_rows=False)
    plan = specialize(_dynamic_plan("dyn_sssp"), capabilities)
    assert not plan.target.slack_rows
    assert "offsets[v + 1]" in plan.target.slack_rows_why
    assert not any(update.slack_rows for update in _updates(plan))
    assert "ends" not in {a.name for a in plan.arrays}


def test_cudas_binned_default_keeps_a_compact_csr_and_its_edges_schedule_takes_rows_with_slack():
    """dyn_pr's binned pull needs a compact CSR's degree order; dyn_sssp's edges and worklist
    edges schedules (CUDA's defaults) run on rows with slack: a kernel over the edge ids walks
    every slot in use and tests its own (``P.LiveSlot``), a worklist round's split reads the
    rows' ends. Before, they kept a compact CSR: every batch moved every later edge and
    uploaded the graph whole."""
    plan = get_backend("cuda").specialize(_dynamic_plan("dyn_pr"))
    assert not plan.target.slack_rows and "is binned" in plan.target.slack_rows_why
    plan = get_backend("cuda").specialize(_dynamic_plan("dyn_sssp"))
    assert plan.target.slack_rows and all(update.slack_rows for update in _updates(plan))
    over_ids = [k for k in plan.kernels if k.extent == "edges"]
    assert over_ids and all(isinstance(k.guard, P.LiveSlot) for k in over_ids)
    assert all({"offsets", "ends", "sources"} <= {p.name for p in k.params} for k in over_ids)
    assert any(k.frontier_edges is not None for k in plan.kernels)


@pytest.mark.parametrize("name, schedule, reason", [("dyn_pr", "binned", "is binned")])
def test_a_schedule_over_degree_bins_keeps_a_compact_csr(name, schedule, reason):
    """(Where the schedule applies: dyn_pr's pull loops take no edges schedule.)"""
    plan = get_backend("opencl").specialize(_dynamic_plan(name),
                                            BackendOptions(schedule=schedule))
    assert not plan.target.slack_rows and reason in plan.target.slack_rows_why
    assert not any(update.slack_rows for update in _updates(plan))


def test_a_kernel_over_edge_ids_that_reads_the_edge_count_keeps_a_compact_csr():
    """With slack its items are the slots in use, not g.num_edges() of them."""
    source = """Dynamic D(Graph g, propNode<int> c, updates<g> U, int k) {
  g.attachNodeProperty(c = 0);
  Batch (U : k) {
    g.updateCSRAdd(U);
    forall (e in g.edges()) {
      node s = e.source;
      if (g.num_edges() > 1) { s.c += 1; }
    }
  }
}
"""
    plan = get_backend("opencl").specialize(plan_of(source))
    assert not plan.target.slack_rows
    assert "reads g.num_edges()" in plan.target.slack_rows_why, plan.target.slack_rows_why


def test_a_program_without_updates_has_no_slack_rows_decision():
    plan = get_backend("opencl").specialize(plan_of((DSL / "sssp.sp").read_text()))
    assert (plan.target.slack_rows, plan.target.slack_rows_why) == (False, "")


def test_a_device_reading_reverse_edge_ids_keeps_a_compact_csr_where_rows_stay_sorted():
    """Sorted rows with slack rewrite the reverse ids of every edge a batch shifts: slower
    than a compact CSR. Rows in any order move about one edge per deletion and keep the
    reverse ids anyway, so PULLED (a fold: any order) gets rows with slack."""
    searched = PULLED.replace("v.total += e.weight;",
                              "if (g.is_an_edge(v, w)) { v.total += e.weight; }")
    plan = get_backend("opencl").specialize(plan_of(searched))
    assert not plan.target.slack_rows
    assert "reads the reverse CSR's edge ids" in plan.target.slack_rows_why
    plan = get_backend("opencl").specialize(plan_of(PULLED))
    assert plan.target.slack_rows and plan.target.unsorted_rows, plan.target.slack_rows_why


def test_mpi_rebuilds_each_ranks_part_and_carries_its_local_arrays():
    """On MPI each update is a distributed rebuild: the per-vertex arrays of the local index
    space are carried (not the replicas, which keep their global ids), and the reason says
    what a rank does per batch."""
    plan = specialize(plan_of((DSL / "dynamic" / "dyn_sssp.sp").read_text(), "DynSSSP"),
                      get_backend("mpi").capabilities)
    distribution = plan.target.distribution
    for update in _updates(plan):
        assert update.distributed and not update.slack_rows
        carried = {a.name for a in update.local_arrays}
        assert carried and not carried & set(distribution.replicas), carried
        assert all(a.extent == "nodes" and a.role != "graph" for a in update.local_arrays)
    assert "applies a batch to the rows it owns" in plan.target.slack_rows_why
    # the loops over a batch's updates run on every rank alike, their statements at one
    # endpoint on its owner only (owner_updates): nothing of dyn_sssp is a replica
    loops = host_of(plan, P.UpdateLoop)
    assert len(loops) == 2
    steps = []
    for loop in loops:
        (launch,) = [s for s in loop.body.stmts if isinstance(s, P.Launch)]
        steps.append(distribution.steps[launch.kernel.name])
        assert steps[-1].global_
    assert [set(step.owner_computes) for step in steps] == [{"parent", "gone"},
                                                            {"dist", "modified"}]
    # gone is read at in-neighbours by Decremental: its ghost copies are refreshed after
    # OnDelete; modified is read at own vertices only
    assert [step.refresh for step in steps] == [("gone",), ()]
    assert distribution.replicas == {}, distribution.replicas


def test_a_backend_without_mutable_graphs_refuses_at_the_update_stream():
    """``Capabilities.dynamic_graphs`` False (no backend today): the E0501 at the stream."""
    from starc.analysis.capabilities import Capabilities
    from starc.errors import BackendError
    with pytest.raises(BackendError) as caught:
        specialize(plan_of((DSL / "dynamic" / "dyn_pr.sp").read_text(), "DynPR"),
                   Capabilities("test", "Test"))
    assert "dynamic graphs: the update stream 'updateBatch'" in str(caught.value)
    assert "is not supported by the Test backend yet" in str(caught.value)
    assert caught.value.loc.line > 0


#: BUMPED with its kernel between its two graph updates
SEPARATED = """\
Dynamic Bump(Graph g, propEdge<int> weight, updates<g> U, int batchSize) {
    Batch (U : batchSize) {
        g.updateCSRDel(U);
        forall (v in g.nodes()) {
            for (w in g.neighbors(v)) { edge e = g.get_edge(v, w); e.weight = e.weight + v; }
        }
        g.updateCSRAdd(U);
    }
}
"""


@pytest.mark.parametrize("backend", ["mpi", "cuda"])
def test_adjacent_updates_are_one_update_where_the_rows_are_compact_or_distributed(backend):
    """A batch's updateCSRDel then updateCSRAdd with nothing between them are one graph update
    on a compact CSR (BUMPED's binned pull on CUDA) and on MPI: the deletions, then the
    additions, the copies refreshed (the part laid out) once; --emit plan and explain say so
    and why. A statement between them keeps them apart."""
    options = BackendOptions(schedule="binned" if backend == "cuda" else None)
    plan = get_backend(backend).specialize(plan_of(BUMPED), options)
    assert not plan.target.slack_rows
    (update,) = host_of(plan, P.ApplyUpdates)
    assert update.kind == "delete" and update.kinds == ("delete", "add")
    assert update.fused == FUSED_WHY
    assert "deletes then adds" in plan_dump(plan) and "fused" in plan_dump(plan)
    separated = get_backend(backend).specialize(plan_of(SEPARATED), options)
    assert [(u.kind, u.fused) for u in host_of(separated, P.ApplyUpdates)] == \
        [("delete", ""), ("add", "")]
    # the neutral plan keeps them apart: fusing is the target's choice
    assert len(host_of(plan_of(BUMPED), P.ApplyUpdates)) == 2


def test_rows_with_slack_keep_adjacent_updates_apart():
    plan = get_backend("opencl").specialize(_dynamic_plan("dyn_tc"))
    assert plan.target.slack_rows
    assert [(u.kind, u.fused) for u in host_of(plan, P.ApplyUpdates)] == \
        [("delete", ""), ("add", "")]
