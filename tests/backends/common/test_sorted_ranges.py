"""Neighbour loops filtered by a bound on the loop variable iterate a binary-searched run."""

from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest

import starc
from plan_helpers import GRAPH_PARAMS
from starc.analysis import plan as P
from starc.analysis.row_scans import scan_rows
from starc.backends.base import BackendOptions
from starc.backends.common.cfamily import lower_kernel
from starc.backends.opencl.kernels import OpenCLDialect
from starc.diagnostics import DiagnosticSink, SourceLoc
from starc.driver import compile_source
from starc.graphs import Graph, write_mtx
from starc.ir import nodes as ir
from starc.ir.types import GRAPH, PropType, Scalar as S
from starc.results import compare_results

ROOT = pathlib.Path(__file__).resolve().parents[3]
LOC = SourceLoc("prog.sp", 7, 9)
_uid = iter(range(5000, 100000))


def sym(name, t, kind=ir.SymbolKind.LOCAL):
    return ir.Symbol(name, t, kind, next(_uid))


def var(s):
    return ir.VarRef(s, type=s.type)


def const(value, t=S.NODE):
    return ir.Const(value, type=t)


def cmp(op, a, b):
    return ir.Binary(op, a, b, type=S.BOOL)


V = sym("v", S.NODE, ir.SymbolKind.LOOP)
U = sym("u", S.NODE, ir.SymbolKind.LOOP)
EDGE = sym("e", S.EDGE, ir.SymbolKind.EDGE)
G = sym("g", GRAPH, ir.SymbolKind.PARAM)
COUNT = sym("count", PropType("node", S.INT), ir.SymbolKind.PARAM)
COUNT_ARRAY = P.DeviceArray("count", S.INT, "nodes", "result", sym=COUNT)


def body_of(filter_, domain=ir.Neighbors, before=(), extra=()):
    """The kernel body around ``for (u in g.<domain>(v).filter(filter_)) { v.count += u; }``."""
    add = ir.Assign(ir.PropRead(COUNT, var(V), type=S.INT),
                    ir.Binary("+", ir.PropRead(COUNT, var(V), type=S.INT),
                              ir.Cast(var(U), type=S.INT), type=S.INT))
    loop = ir.Loop(U, domain(G, var(V), EDGE), ir.Block((add,) + tuple(extra)),
                   parallel=False, filter=filter_, loc=LOC)
    k = P.Kernel("k", V, "nodes", None, ir.Block(tuple(before) + (loop,)),
                 GRAPH_PARAMS + (P.KernelParam("count", S.INT, array=COUNT_ARRAY, written=True),),
                 (),
                 loc=LOC)
    return lower_kernel(scan_rows(k), OpenCLDialect()).body


# --- golden: triangle counting ----------------------------------------------------------------

TC_KERNEL = """\
    int u_stop = starc_lower_bound(targets, offsets[v], offsets[v + 1], v);  // tc.sp:7
    int w_start = starc_upper_bound(targets, offsets[v], offsets[v + 1], v);  // tc.sp:8
    for (int e_u = offsets[v]; e_u < u_stop; e_u++) {
        int u = targets[e_u];
        int w_in_u_end = offsets[u + 1];
        int w_in_u_pos = starc_upper_bound(targets, offsets[u], w_in_u_end, v);  // tc.sp:9
        const int w_in_u_linear = starc_merge_linear(w_in_u_pos, w_in_u_end, offsets[v + 1] - w_start);
        for (int e_w = w_start; e_w < offsets[v + 1] && w_in_u_pos < w_in_u_end; e_w++) {
            int w = targets[e_w];
"""


@pytest.mark.parametrize("backend", ["opencl", "cuda", "sycl"])
def test_golden_tc_loops_start_and_stop_at_searched_bounds(backend):
    path = ROOT / "dsl" / "tc.sp"
    sink = DiagnosticSink()
    # one work item per vertex, as written (CUDA's auto runs tc one thread per edge)
    comp = compile_source(path.read_text(), str(path), sink, backend=backend,
                          options=BackendOptions(schedule="vertex"))
    assert comp.ok, [str(d) for d in sink.diagnostics]
    text = comp.generated.files[comp.generated.main if backend != "opencl" else "tc.cl"]
    # The kernel body (indented once more inside SYCL's lambda): both filters became ranges.
    indent = " " * 4 if backend in ("sycl", "opencl") else ""   # SYCL's lambda, OpenCL's run
    expected = "".join(indent + line + "\n" for line in TC_KERNEL.splitlines())
    assert expected in text
    assert "if (u < v)" not in text and "if (w > v)" not in text


# --- which comparisons become which bound -----------------------------------------------------

@pytest.mark.parametrize("filter_, lines", [
    (cmp("<", var(U), var(V)),
     ["int u_stop = starc_lower_bound(targets, offsets[v], offsets[v + 1], v);  // prog.sp:7",
      "for (int e = offsets[v]; e < u_stop; e++) {"]),
    (cmp("<=", var(U), var(V)),
     ["int u_stop = starc_upper_bound(targets, offsets[v], offsets[v + 1], v);  // prog.sp:7",
      "for (int e = offsets[v]; e < u_stop; e++) {"]),
    (cmp(">", var(U), var(V)),
     ["int u_start = starc_upper_bound(targets, offsets[v], offsets[v + 1], v);  // prog.sp:7",
      "for (int e = u_start; e < offsets[v + 1]; e++) {"]),
    (cmp(">=", var(U), var(V)),
     ["int u_start = starc_lower_bound(targets, offsets[v], offsets[v + 1], v);  // prog.sp:7",
      "for (int e = u_start; e < offsets[v + 1]; e++) {"]),
    # v > u is u < v; the bound may be any loop-invariant id expression.
    (cmp(">", ir.Binary("+", var(V), const(2), type=S.NODE), var(U)),
     ["int u_stop = starc_lower_bound(targets, offsets[v], offsets[v + 1], v + 2);"
      "  // prog.sp:7",
      "for (int e = offsets[v]; e < u_stop; e++) {"]),
    # u < 5 is typed (int)u < 5: the conversion of an id to int changes nothing.
    (cmp("<", ir.Cast(var(U), type=S.INT), const(5, S.INT)),
     ["int u_stop = starc_lower_bound(targets, offsets[v], offsets[v + 1], 5);  // prog.sp:7",
      "for (int e = offsets[v]; e < u_stop; e++) {"]),
])
def test_each_comparison_is_the_right_search(filter_, lines):
    body = [line.strip() for line in body_of(filter_)]
    assert body[:3] == lines + ["int u = targets[e];"]
    assert not any(line.startswith("if (") for line in body)


def test_conjunction_keeps_the_rest_inside_and_narrows_bound_after_bound():
    k = sym("k", S.NODE)
    filter_ = ir.Binary("&&", ir.Binary("&&", cmp(">=", var(U), var(k)),
                                        cmp("!=", var(U), var(V)), type=S.BOOL),
                        cmp("<=", var(U), var(V)), type=S.BOOL)
    body = body_of(filter_, ir.InNeighbors, before=[ir.Declare(k, const(3))])
    assert body[:6] == [
        "    int k = 3;",
        "    int u_start = starc_lower_bound(rev_sources, rev_offsets[v], rev_offsets[v + 1], k);"
        "  // prog.sp:7",
        "    int u_stop = starc_upper_bound(rev_sources, u_start, rev_offsets[v + 1], v);",
        "    for (int u_in = u_start; u_in < u_stop; u_in++) {",
        "        int u = rev_sources[u_in];",
        "        if (u != v) {"]


X = sym("x", S.NODE, ir.SymbolKind.LOOP)
EDGE_X = sym("ex", S.EDGE, ir.SymbolKind.EDGE)


def nested_body(row, bound, before=()):
    """``for (x in g.neighbors(v)) { for (u in g.neighbors(row).filter(u > bound))
    { v.count += u; } }``: the lines of the kernel body."""
    add = ir.Assign(ir.PropRead(COUNT, var(V), type=S.INT),
                    ir.Binary("+", ir.PropRead(COUNT, var(V), type=S.INT),
                              ir.Cast(var(U), type=S.INT), type=S.INT))
    inner = ir.Loop(U, ir.Neighbors(G, var(row), EDGE), ir.Block((add,)), parallel=False,
                    filter=cmp(">", var(U), bound), loc=LOC)
    outer = ir.Loop(X, ir.Neighbors(G, var(V), EDGE_X), ir.Block((inner,)), parallel=False,
                    loc=LOC)
    k = P.Kernel("k", V, "nodes", None, ir.Block(tuple(before) + (outer,)),
                 GRAPH_PARAMS + (P.KernelParam("count", S.INT, array=COUNT_ARRAY, written=True),),
                 (), loc=LOC)
    return [line.strip() for line in lower_kernel(scan_rows(k), OpenCLDialect()).body]


def _search_is_before_the_outer_loop(lines) -> bool:
    search = next(i for i, line in enumerate(lines) if line.startswith("int u_start = "))
    outer = next(i for i, line in enumerate(lines) if line.startswith("for (int ex = "))
    return search < outer


def test_a_search_the_same_for_every_outer_iteration_runs_once_before_it():
    """tc's ``w > v`` over v's row inside the loop over u: one search per v, not per (v, u)."""
    lines = nested_body(V, var(V))
    assert "int u_start = starc_upper_bound(targets, offsets[v], offsets[v + 1], v);  " \
           "// prog.sp:7" in lines
    assert _search_is_before_the_outer_loop(lines)


@pytest.mark.parametrize("row, bound, why", [
    (V, var(X), "the bound is the outer loop's variable"),
    (X, var(V), "the row is the outer loop's variable"),
])
def test_a_search_that_changes_with_the_outer_loop_stays_inside_it(row, bound, why):
    assert not _search_is_before_the_outer_loop(nested_body(row, bound)), why


def test_a_search_over_a_row_that_may_not_be_a_vertex_stays_inside():
    """A local node variable's row is read only where the inner loop runs (it may hold an
    id that is no vertex when the outer loop runs no iteration)."""
    p = sym("p", S.NODE)
    lines = nested_body(p, var(V), before=(ir.Declare(p, var(V)),))
    assert not _search_is_before_the_outer_loop(lines)


def test_bounds_that_may_change_keep_the_filter():
    limit = sym("limit", S.NODE)
    moved = body_of(cmp("<", var(U), var(limit)), before=[ir.Declare(limit, var(V))],
                    extra=[ir.Assign(var(limit), var(U))])
    prop_bound = body_of(cmp("<", ir.Cast(var(U), type=S.INT),
                             ir.PropRead(COUNT, var(V), type=S.INT)))
    self_bound = body_of(cmp("<", var(U), ir.Binary("-", var(U), const(1), type=S.NODE)))
    wide = body_of(cmp("<", ir.Cast(var(U), type=S.LONG), const(7, S.LONG)))
    for body in (moved, prop_bound, self_bound, wide):
        text = "\n".join(body)
        assert "_bound(" not in text
        assert re.search(r"for \(int e = offsets\[v\]; e < offsets\[v \+ 1\]; e\+\+\)", text)
        assert "        if (" in text


# --- what the ranges mean: repeated ids, self-loops, both directions --------------------------

RANGES_SP = """\
function Ranges(Graph g, int k, propNode<int> below, propNode<int> atMost,
                propNode<int> above, propNode<int> window, propNode<int> inRange) {
    g.attachNodeProperty(below = 0, atMost = 0, above = 0, window = 0, inRange = 0);
    forall (v in g.nodes()) {
        int low = v - k;
        for (u in g.neighbors(v).filter(u < v)) {
            v.below = v.below + 1;
        }
        for (u in g.neighbors(v).filter(u <= v)) {
            v.atMost = v.atMost + u + 1;
        }
        for (u in g.neighbors(v).filter(v < u)) {
            v.above = v.above + u;
        }
        for (w in g.neighbors(v).filter(w >= low && w != v && v + k >= w)) {
            v.window = v.window + w + 1;
        }
        for (u in g.nodes_to(v).filter(u > k && u <= v)) {
            v.inRange = v.inRange + u + 1;
        }
    }
}
"""


@pytest.mark.parametrize("backend", [pytest.param("opencl", marks=pytest.mark.opencl),
                                     pytest.param("sycl", marks=pytest.mark.sycl)])
def test_ranges_agree_with_the_reference_on_multigraphs(backend, tmp_path):
    source = tmp_path / "ranges.sp"
    source.write_text(RANGES_SP)
    expected_program = starc.compile(str(source), "reference")
    program = starc.compile(str(source), backend)
    generated = "\n".join(program.compilation.generated.files.values())
    assert "starc_upper_bound(rev_sources" in generated
    rng = np.random.default_rng(7)
    for trial in range(4):
        n = 12
        m = 90
        # Many repeats and self-loops: ids drawn from a few values, some edges v -> v.
        src = rng.integers(0, n, m)
        dst = np.where(rng.random(m) < 0.2, src, rng.integers(0, n, m))
        graph = Graph.from_edges(n, src, dst, None, True, f"multigraph {trial}")
        path = tmp_path / f"g{trial}.mtx"
        write_mtx(graph, path)
        expected = expected_program.run(path, k=str(trial + 1))
        actual = program.run(path, k=str(trial + 1))
        problems = compare_results(expected, actual)
        assert not problems, "\n".join(problems)
