"""Rows in any order (``analysis.row_order``): a Dynamic program's rows with slack are left
unsorted by its batches only where no kernel reads a row as sorted (a search, an edge cursor,
a range filter on the neighbour's id, a neighbour loop whose result shows the order), with
the reason in --emit plan and starc explain, and the generated host asks the runtime for it."""

from __future__ import annotations

import pytest

import starc

from analysis_helpers import DSL, plan_of
from starc.analysis.dump import plan_dump
from starc.backends import get_backend

_DYNAMIC = {"dyn_sssp": "DynSSSP", "dyn_pr": "DynPR", "dyn_tc": "DynTC"}


def _specialized(text: str, backend: str = "opencl", function=None):
    return get_backend(backend).specialize(plan_of(text, function=function))


def _dynamic(name: str, backend: str = "opencl"):
    text = (DSL / "dynamic" / f"{name}.sp").read_text()
    return _specialized(text, backend, _DYNAMIC[name])


def _with_kernel(body: str, extra_params: str = "") -> str:
    """A Dynamic program whose one kernel (after the batches) is ``body`` over v."""
    return f"""\
Dynamic D(Graph g, propNode<int> a{extra_params}, updates<g> U, int batchSize) {{
    Batch (U : batchSize) {{
        g.updateCSRDel(U);
        g.updateCSRAdd(U);
    }}
    forall (v in g.nodes()) {{
{body}
    }}
}}
"""


@pytest.mark.parametrize("backend", ["opencl", "sycl", "openacc"])
@pytest.mark.parametrize("name", ["dyn_sssp", "dyn_pr"])
def test_programs_that_only_iterate_rows_leave_them_in_any_order(name, backend):
    """dyn_sssp's kernels only iterate rows (its Relax's Min commutes; a parent on ties is
    any shortest-path parent), dyn_pr's folds sums: their batches leave rows unsorted."""
    plan = _dynamic(name, backend)
    assert plan.target.slack_rows and plan.target.unsorted_rows
    assert "no kernel reads a row as sorted" in plan.target.unsorted_rows_why
    assert "rows' order: any order (no kernel reads a row as sorted" in plan_dump(plan)


def test_triangle_counting_keeps_rows_sorted_for_its_cursors():
    plan = _dynamic("dyn_tc")
    assert plan.target.slack_rows and not plan.target.unsorted_rows
    assert "keeps a forward cursor into a sorted row" in plan.target.unsorted_rows_why
    assert "rows' order: sorted (rows kept sorted: kernel" in plan_dump(plan)


@pytest.mark.parametrize("body, reason", [
    ("        if (g.is_an_edge(v, 0)) { v.a = 1; }", "searches a row (is_an_edge)"),
    ("        for (w in g.neighbors(v).filter(w < v)) { v.a += 1; }",
     "searched run of the row (a filter on the neighbour's id)"),
    ("        for (w in g.neighbors(v)) { v.a = w; }", "keeps the last neighbour's value"),
    ("        for (w in g.neighbors(v)) { if (w > 3) { v.a = 1; break; } v.a = w; }",
     "early"),
])
def test_a_kernel_that_reads_rows_sorted_keeps_them_sorted(body, reason):
    plan = _specialized(_with_kernel(body))
    assert plan.target.slack_rows and not plan.target.unsorted_rows, plan.target.unsorted_rows_why
    assert reason in plan.target.unsorted_rows_why


@pytest.mark.parametrize("body", [
    "        for (w in g.neighbors(v)) { v.a = v.a + w.a; }",         # a fold
    "        for (w in g.neighbors(v)) { w.a = v; }",                 # the neighbour's own
    "        for (w in g.nodes_to(v)) { v.a += 1; }",                 # a reduction
    "        forall (w in g.neighbors(v)) { w.a = v.a; }",            # a forall: unordered
])
def test_order_free_loops_leave_rows_in_any_order(body):
    plan = _specialized(_with_kernel(body))
    assert plan.target.slack_rows and plan.target.unsorted_rows, plan.target.unsorted_rows_why


def test_a_min_with_a_companion_in_a_sequential_loop_leaves_rows_in_any_order():
    """``<v.a, v.b> = <Min(v.a, ...), w>`` over a row: the minimum is the same in any order,
    the companion differs only between ties (dyn_sssp's Decremental pull); a look-alike whose
    stored value is not the one compared keeps the last neighbour's, so rows stay sorted."""
    pull = "        for (w in g.nodes_to(v)) { <v.a, v.b> = <Min(v.a, w.a + 1), w>; }"
    plan = _specialized(_with_kernel(pull, ", propNode<node> b"))
    assert plan.target.slack_rows and plan.target.unsorted_rows, plan.target.unsorted_rows_why
    other = "        for (w in g.nodes_to(v)) { if (w.a + 1 < v.a) { v.a = w.a; v.b = w; } }"
    plan = _specialized(_with_kernel(other, ", propNode<node> b"))
    assert not plan.target.unsorted_rows
    assert "keeps the last neighbour's value" in plan.target.unsorted_rows_why


@pytest.mark.parametrize("backend", ["opencl", "sycl", "openacc", "cuda"])
def test_the_host_asks_the_runtime_for_the_rows_order(backend):
    """(CUDA: dyn_tc's rows with slack; its dyn_sssp walks edge ids, a compact CSR.)"""
    names = ("dyn_tc",) if backend == "cuda" else ("dyn_sssp", "dyn_tc")
    for name in names:
        files = starc.compile(str(DSL / "dynamic" / f"{name}.sp"),
                              backend).compilation.generated.files
        host = "".join(text for file, text in files.items() if "make_slack_rows(" in text)
        sort = "true" if name == "dyn_tc" else "false"
        assert f"/*sorted=*/{sort});" in host, (name, backend)
