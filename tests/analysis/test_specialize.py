"""The specialize stage: each backend decision recorded on the plan, from the capabilities."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from starc.analysis import plan as P
from starc.analysis.capabilities import Capabilities
from starc.analysis.host_tree import walk_host
from starc.analysis.specialize import atomic_form, specialize, uniform_items
from starc.backends import get_backend
from starc.errors import BackendError
from starc.ir import nodes as ir
from starc.ir.types import Scalar

from analysis_helpers import (ROOT, TRIANGLES_OVER_A_NEIGHBOURS_ROW,
                              TRIANGLES_OVER_A_NEIGHBOURS_SLICE, dsl_plan, nodes_of, plan_of)

ALL = ("cuda", "sycl", "opencl", "openacc", "mpi")


def _for(name: str, backend: str) -> P.Plan:
    return get_backend(backend).specialize(dsl_plan(name))


def _atomics(plan: P.Plan):
    return [n for k in plan.kernels for n in ir.walk(k.body)
            if isinstance(n, (P.AtomicReduce, P.AtomicMinMax))]


def test_the_neutral_plan_is_not_specialized():
    plan = dsl_plan("sssp")
    assert plan.target is None and all(not a.form for a in _atomics(plan))


@pytest.mark.parametrize("backend", ALL)
def test_every_atomic_and_reduction_gets_its_form(backend):
    for name in ("sssp", "pr", "tc", "bc", "kcore", "cc", "bfs", "sswp"):
        plan = _for(name, backend)
        assert plan.target.backend == backend
        assert all(a.form for a in _atomics(plan)), name
        assert all(r.strategy for k in plan.kernels for r in k.reductions), name


def test_fixedpoint_form_follows_the_worklist_capability():
    """sssp's fixedPoint has a worklist: devices keep it, MPI runs every vertex every round
    and says why; the host tree holds only the chosen form."""
    cuda, mpi = _for("sssp", "cuda"), _for("sssp", "mpi")
    [loop] = cuda.target.loop_forms
    assert loop.form == "worklist"
    [loop] = mpi.target.loop_forms
    assert loop.form == "topology" and "measured slower" in loop.why
    assert not any(isinstance(s, P.DataDrivenLoop) for s in walk_host(mpi.host))
    assert any(k.extent == "frontier" for k in cuda.kernels)
    assert not any(k.extent == "frontier" for k in mpi.kernels)


def test_only_a_distributed_target_gets_a_distribution():
    assert _for("sssp", "opencl").target.distribution is None
    distribution = _for("sssp", "mpi").target.distribution
    [step] = distribution.steps.values()
    assert {w.array for w in step.updates} == {"dist", "modified_nxt"}
    assert distribution.mirrored == {"dist": "neighbour"}


def test_what_mpi_cannot_distribute_is_a_located_error_of_the_stage():
    text = ("function F(Graph g, node s) {\n  int x = 0;\n"
            "  if (g.is_an_edge(s, 0)) { x = 1; }\n  return x;\n}\n")
    with pytest.raises(BackendError) as error:
        get_backend("mpi").specialize(plan_of(text))
    assert "MPI backend cannot distribute" in str(error.value) and error.value.loc.line == 3


def _order(plan):
    [stmt] = [s for s in walk_host(plan.host) if isinstance(s, P.OrderByDegree)]
    return stmt


def test_degree_order_on_every_backend_mpi_included():
    """MPI renumbers too (its ranks send their rows to the new owners), since dsl/tc.sp
    reads only searched slices of ghost rows (``Distribution.ghost_row_slices``)."""
    for backend in ("cuda", "opencl", "mpi"):
        assert _order(_for("tc", backend)).keeps_ids == "", backend


def test_mpi_keeps_the_ids_of_a_count_that_reads_whole_ghost_rows():
    text = TRIANGLES_OVER_A_NEIGHBOURS_ROW
    plan = plan_of(text)
    assert _order(get_backend("opencl").specialize(plan)).keeps_ids == ""
    assert "reads whole rows of other ranks' vertices" in \
        _order(get_backend("mpi").specialize(plan)).keeps_ids
    # a walk of a lower neighbour's row above the vertex reads only the ghost slices
    assert _order(get_backend("mpi").specialize(plan_of(TRIANGLES_OVER_A_NEIGHBOURS_SLICE))
                  ).keeps_ids == ""


def test_a_target_that_keeps_the_ids_drops_the_swapped_rows():
    """The swapped-row variant runs only on a renumbered graph (``row_swap``): where MPI keeps
    the file's ids (here the count walks the row of a neighbour above v), it is not printed."""
    plan = plan_of(TRIANGLES_OVER_A_NEIGHBOURS_ROW.replace("u < v", "u > v").replace(
        "w < u", "w > u"))
    opencl, mpi = (get_backend(b).specialize(plan) for b in ("opencl", "mpi"))
    assert _order(opencl).keeps_ids == "" and _order(mpi).keeps_ids
    assert any(k.renumbered_of for k in opencl.kernels)
    assert not any(k.renumbered_of or k.renumbered_variant for k in mpi.kernels)


@pytest.mark.parametrize("backend, strategy, combine", [
    ("sycl", "native", ""), ("openacc", "native", ""), ("mpi", "native", ""),
    ("cuda", "group", "native"),
    ("opencl", "group", "loop"),    # a local-memory tree per work-group, then one float CAS
])
def test_pagerank_diff_reduction_strategy(backend, strategy, combine):
    [red] = [r for k in _for("pr", backend).kernels if not k.variant_of for r in k.reductions]
    assert (red.strategy, red.combine) == (strategy, combine)


def test_atomic_forms_read_the_capabilities():
    caps = Capabilities("toy", "Toy", atomic_instructions=frozenset({("add", Scalar.INT)}),
                        atomic_updates=frozenset({("min", Scalar.INT)}))
    assert atomic_form(caps, "add", Scalar.NODE, False) == "native"     # ids are ints
    assert atomic_form(caps, "min", Scalar.INT, False) == "update"
    assert atomic_form(caps, "min", Scalar.INT, True) == "loop"         # the old value decides
    assert atomic_form(caps, "or", Scalar.BOOL, False) == "plain"
    with_bytes = Capabilities("toy", "Toy", byte_atomics=True)
    assert atomic_form(with_bytes, "or", Scalar.BOOL, False) == "loop"


def test_an_update_of_an_accumulated_scalar_is_private():
    [diff] = [a for a in _atomics(_for("pr", "sycl")) if isinstance(a.target, ir.VarRef)][:1]
    assert diff.form == "private"


def test_emit_plan_with_a_backend_prints_its_decisions():
    def emit(*args):
        return subprocess.run([sys.executable, "-m", "starc", str(ROOT / "dsl" / "sssp.sp"),
                               "--emit", "plan", *args], capture_output=True, text=True,
                              check=True).stdout
    neutral, mpi, cuda = emit(), emit("-b", "mpi"), emit("-b", "cuda")
    assert "specialized for" not in neutral and "DataDrivenLoop" not in neutral
    assert "specialized for mpi" in mpi
    assert "superstep Compute_SSSP_forall_11: combined updates dist Min (neighbour)" in mpi
    assert "fixedPoint at line 10: topology" in mpi
    assert "fixedPoint at line 10: worklist" in cuda and "wrap(dist[v] + weight[e])" in cuda
    assert "wrap(" not in mpi


def test_the_compilation_carries_its_backend_and_specialized_plan():
    from starc.diagnostics import DiagnosticSink
    from starc.driver import compile_source
    path = ROOT / "dsl" / "bfs.sp"
    comp = compile_source(path.read_text(), str(path), DiagnosticSink(), backend="opencl")
    assert comp.backend.name == "opencl" and comp.specialized.target.backend == "opencl"
    assert comp.generated.backend == "opencl"


def test_row_scans_are_decided_before_printing():
    """tc's `w > v` over v's row inside the loop over u: a searched run, searched once per v
    (one loop further out), with u's cursor answering `is_an_edge(u, w)`; the printer reads
    it (backends/common no longer holds these analyses)."""
    [kernel] = [k for k in _for("tc", "opencl").kernels if k.row_scans and not k.variant_of
                and not k.renumbered_of]
    scans = {scan.var.name: scan for scan in kernel.row_scans}
    assert [b.side for b in scans["u"].bounds] == ["stop"] and scans["u"].hoist == 0
    inner = scans["w"]
    assert [b.side for b in inner.bounds] == ["start"] and inner.hoist == 1
    assert [row.name for row, _ in inner.cursors] == ["u"] and inner.exhausted.name == "u"
    assert [q.query.op for q in nodes_of(kernel.body, P.CursorQuery)] == ["is_an_edge"]
    assert inner.cursor_hoists == (0,)      # u's row: a search per u
    # the swapped rows' (row_swap) cursor in v's row starts past v: searched once per v
    [swapped] = [k for k in _for("tc", "opencl").kernels if k.renumbered_of
                 and not k.variant_of]
    inner = {scan.var.name: scan for scan in swapped.row_scans}["w"]
    assert [row.name for row, _ in inner.cursors] == ["v"] and inner.cursor_hoists == (1,)
    assert inner.hoist == 0 and [b.side for b in inner.bounds] == ["start"]
    assert not (ROOT / "starc" / "backends" / "common" / "sorted_ranges.py").exists()


@pytest.mark.parametrize("backend", ALL)
def test_uniform_items_are_the_kernels_without_loops_searches_or_locks(backend):
    """PageRank's per-vertex term (one division per vertex) is uniform, its pull loop is not,
    nor is any kernel of tc (neighbour loops, edge searches); a store per vertex is uniform,
    a Min whose secondary target needs the element's lock (a wait) is not, even alone."""
    kernels = {k.name: k.uniform_items for k in _for("pr", backend).kernels
               if not k.variant_of}
    assert kernels == {"Compute_PR_forall_13_pageRank_term": True, "Compute_PR_forall_13": False}
    assert not any(k.uniform_items for k in _for("tc", backend).kernels)
    store, push = [k for k in get_backend(backend).specialize(plan_of("""
function f(Graph g, propNode<int> d, propNode<int> p, propNode<bool> seen) {
    g.attachNodeProperty(d = 5, p = -1);
    forall (v in g.nodes()) { v.seen = v.d > 3; }
    forall (v in g.nodes()) {
        for (w in g.neighbors(v)) { <w.d, w.p> = <Min(w.d, v.d + 1), v.p + 1>; }
    }
}
""")).kernels if not k.variant_of]
    assert store.uniform_items and not push.uniform_items
    [locked] = nodes_of(push.body, P.AtomicMinMax)
    assert locked.locked
    assert not uniform_items(dataclasses.replace(push, body=ir.Block((locked,))))
    assert uniform_items(dataclasses.replace(push, body=ir.Block((
        dataclasses.replace(locked, locked=False, lock=None),))))


@pytest.mark.parametrize("backend, form, why", [
    ("cuda", "group", "warp exchange values in divergent code"),
    ("opencl", "local", "every OpenCL work item reaches the kernel's end"),
    ("sycl", "local", "every SYCL work item reaches the kernel's end"),
    ("openacc", "gang", "OpenACC's gangs can each run a chunk of items on their vector lanes")])
def test_worklist_appends_take_a_form_with_its_reason(backend, form, why):
    """Issue 29 item 2: a warp's appends share one atomic where its lanes exchange values in
    divergent code; a work-group's are staged in local memory where every item reaches the
    kernel's end (OpenCL, SYCL), a gang's in gang-private memory over its chunk of items
    (OpenACC); elsewhere one atomic per appended vertex, and the plan says why."""
    plan = _for("sssp", backend)
    # (a kernel of one work-group's rounds takes its slots one by one: the next step reads
    # them, test_worklist_rounds.py)
    appends = [n for k in plan.kernels if not k.variant_of and k.extent != "group"
               for n in ir.walk(k.body) if isinstance(n, P.QueueAppend)]
    # the compaction's, the sparse round's and its priority window's deferral
    # (``priority_window``: every schedule keeps it)
    assert all(k.window is not None for k in plan.kernels if k.extent == "frontier")
    assert len(appends) == 3 and {a.form for a in appends} == {form}
    assert plan.target.appends == form and why in plan.target.appends_why


def test_openacc_binned_kernels_keep_one_atomic_per_append():
    """A binned OpenACC kernel's gang is one vertex whose vector lanes share its neighbour
    loops: its appends and counts keep one atomic each (the reason says so), while the
    vertex-per-lane kernels of the same plan stage theirs per gang."""
    plan = specialize(dsl_plan("sssp"), get_backend("openacc").capabilities, "binned")
    forms = {}
    for kernel in plan.kernels:
        for node in ir.walk(kernel.body):
            if isinstance(node, P.QueueAppend):
                forms.setdefault(bool(kernel.vector_loops), set()).add(node.form)
            elif isinstance(node, P.QueueCount):
                forms.setdefault(bool(kernel.vector_loops), set()).add(
                    "gang" if node.staged else "item")
    assert forms == {True: {"item"}, False: {"gang"}}
    assert "a binned kernel's gang is one vertex" in plan.target.appends_why


def test_no_append_no_append_decision():
    assert _for("sssp", "mpi").target.appends == ""     # every round tests all vertices
    assert _for("pr", "cuda").target.appends == ""
