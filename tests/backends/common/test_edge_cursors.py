"""Edge queries about an ascending neighbour-loop variable gallop a cursor through the row."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import starc
from plan_helpers import GRAPH_PARAMS
from starc.analysis import plan as P
from starc.analysis.row_scans import scan_rows
from starc.backends.base import BackendOptions
from starc.backends.common.cfamily import lower_kernel
from starc.backends.cuda.kernels import runtime_header as cuda_header
from starc.backends.opencl.kernels import OpenCLDialect, prelude as opencl_prelude
from starc.backends.sycl.kernels import runtime_header as sycl_header
from starc.diagnostics import DiagnosticSink, SourceLoc
from starc.driver import compile_source
from starc.graphs import Graph, write_mtx
from starc.ir import nodes as ir
from starc.ir.types import GRAPH, PropType, Scalar as S
from starc.results import compare_results

ROOT = pathlib.Path(__file__).resolve().parents[3]
LOC = SourceLoc("prog.sp", 7, 9)
_uid = iter(range(9000, 100000))


def sym(name, t, kind=ir.SymbolKind.LOCAL):
    return ir.Symbol(name, t, kind, next(_uid))


def var(s):
    return ir.VarRef(s, type=s.type)


V = sym("v", S.NODE, ir.SymbolKind.LOOP)
U = sym("u", S.NODE, ir.SymbolKind.LOOP)
W = sym("w", S.NODE, ir.SymbolKind.LOOP)
E_U = sym("e_u", S.EDGE, ir.SymbolKind.EDGE)
E_W = sym("e_w", S.EDGE, ir.SymbolKind.EDGE)
G = sym("g", GRAPH, ir.SymbolKind.PARAM)
COUNT = sym("count", PropType("node", S.INT), ir.SymbolKind.PARAM)
COUNT_ARRAY = P.DeviceArray("count", S.INT, "nodes", "result", sym=COUNT)


def is_an_edge(row, target=W):
    return ir.GraphQuery("is_an_edge", G, (row, var(target)), type=S.BOOL, loc=LOC)


def kernel_text(row, before=(), extra=()):
    """``for (u in g.neighbors(v)) { <before> for (w in g.neighbors(v)) { if
    (g.is_an_edge(<row>, w)) v.count += 1; <extra> } }`` printed for OpenCL."""
    count = ir.PropRead(COUNT, var(V), type=S.INT)
    bump = ir.Assign(count, ir.Binary("+", count, ir.Const(1, type=S.INT), type=S.INT))
    inner = ir.Loop(W, ir.Neighbors(G, var(V), E_W),
                    ir.Block((ir.If(is_an_edge(row), ir.Block((bump,))),) + tuple(extra)),
                    parallel=False, loc=LOC)
    outer = ir.Loop(U, ir.Neighbors(G, var(V), E_U), ir.Block(tuple(before) + (inner,)),
                    parallel=False, loc=LOC)
    k = P.Kernel("k", V, "nodes", None, ir.Block((outer,)),
                 GRAPH_PARAMS + (P.KernelParam("count", S.INT, array=COUNT_ARRAY, written=True),),
                 (),
                 loc=LOC)
    return "\n".join(lower_kernel(scan_rows(k), OpenCLDialect()).body)


# --- golden: triangle counting ----------------------------------------------------------------

TC_KERNEL = """\
        int u = targets[e_u];
        int w_in_u_end = offsets[u + 1];
        int w_in_u_pos = starc_upper_bound(targets, offsets[u], w_in_u_end, v);  // tc.sp:9
        const int w_in_u_linear = starc_merge_linear(w_in_u_pos, w_in_u_end, offsets[v + 1] - w_start);
        for (int e_w = w_start; e_w < offsets[v + 1] && w_in_u_pos < w_in_u_end; e_w++) {
            int w = targets[e_w];
            starc_advance(targets, &w_in_u_pos, w_in_u_end, w, w_in_u_linear);
            if (w_in_u_pos == w_in_u_end) break;
            if (targets[w_in_u_pos] == w) {
"""


@pytest.mark.parametrize("backend", ["opencl", "cuda", "sycl"])
def test_golden_tc_gallops_through_the_row_of_u(backend):
    # The cursor starts at the w loop's bound (w > v) in u's row, and the w loop stops once
    # the cursor has passed u's last id: its body only acts on an edge u -> w.
    path = ROOT / "dsl" / "tc.sp"
    sink = DiagnosticSink()
    # one work item per vertex, as written (CUDA's auto runs tc one thread per edge)
    comp = compile_source(path.read_text(), str(path), sink, backend=backend,
                          options=BackendOptions(schedule="vertex"))
    assert comp.ok, [str(d) for d in sink.diagnostics]
    text = comp.generated.files[comp.generated.main if backend != "opencl" else "tc.cl"]
    indent = " " * 4 if backend in ("sycl", "opencl") else ""   # SYCL's lambda, OpenCL's run
    expected = "".join(indent + line + "\n" for line in TC_KERNEL.splitlines())
    assert expected in text
    assert "starc_find_edge(" not in text.split("starc_advance(targets")[1]
    # The cursor restarts with every u: declared inside the u loop, before the w loop.
    assert text.index("int u = targets[e_u];") < text.index("int w_in_u_pos")


def test_every_query_of_the_row_shares_the_cursor_and_get_edge_returns_its_position():
    edge = sym("first", S.EDGE)
    text = kernel_text(var(U), extra=[
        ir.Declare(edge, ir.GraphQuery("get_edge", G, (var(U), var(W)), type=S.EDGE)),
        ir.If(is_an_edge(var(V)), ir.Block(()))])
    assert text.count("int w_in_u_pos = offsets[u];") == 1
    assert "int first = starc_gallop(targets, &w_in_u_pos, w_in_u_end, w);" in text
    # v is fixed for the whole kernel: a cursor of its own.
    assert "int w_in_v_pos = offsets[v];" in text
    assert "if (starc_gallop(targets, &w_in_v_pos, w_in_v_end, w) >= 0)" in text
    assert "starc_find_edge" not in text


def test_the_loop_stops_at_the_end_of_the_row_only_when_its_body_is_the_edge_test():
    only_test = kernel_text(var(U))
    assert "e_w < offsets[v + 1] && w_in_u_pos < w_in_u_end; e_w++)" in only_test
    # Anything else in the body runs for every w, edge or not: no early stop.
    also_counts = kernel_text(var(U), extra=[ir.Assign(
        ir.PropRead(COUNT, var(W), type=S.INT), ir.Const(0, type=S.INT))])
    assert "for (int e_w = offsets[v]; e_w < offsets[v + 1]; e_w++)" in also_counts
    # Without a bound on w the cursor starts at the beginning of u's row.
    assert "int w_in_u_pos = offsets[u];" in only_test


def test_a_loop_that_only_tests_edges_to_a_row_merges_with_it():
    # Each iteration advances the cursor (linearly when the rows' lengths are comparable:
    # cheaper than galloping, R-MAT 18 tc a third less time) and the test compares one id.
    only_test = kernel_text(var(U))
    assert "const int w_in_u_linear = starc_merge_linear(w_in_u_pos, w_in_u_end, " \
           "offsets[v + 1] - offsets[v]);" in only_test
    assert """            int w = targets[e_w];
            starc_advance(targets, &w_in_u_pos, w_in_u_end, w, w_in_u_linear);
            if (w_in_u_pos == w_in_u_end) break;
            if (targets[w_in_u_pos] == w) {""" in only_test
    assert "starc_gallop" not in only_test
    # A body that does more than the test keeps the gallop on demand.
    also_counts = kernel_text(var(U), extra=[ir.Assign(
        ir.PropRead(COUNT, var(W), type=S.INT), ir.Const(0, type=S.INT))])
    assert "starc_advance" not in also_counts and "_linear" not in also_counts
    assert "if (starc_gallop(targets, &w_in_u_pos, w_in_u_end, w) >= 0)" in also_counts


def test_rows_that_move_or_may_not_be_vertices_keep_the_binary_search():
    # u is reassigned inside the w loop: the row changes between queries.
    moved = kernel_text(var(U), extra=[ir.Assign(var(U), var(W))])
    # A local and arithmetic: loop-invariant, but offsets[row] would be read before the loop
    # even when no query runs, and nothing says the value is a vertex.
    local = sym("x", S.NODE)
    from_local = kernel_text(var(local), before=[ir.Declare(local, var(U))])
    arithmetic = kernel_text(ir.Binary("+", var(U), ir.Const(1, type=S.NODE), type=S.NODE))
    # The loop variable's own row (w -> u): the row changes at every iteration.
    reversed_ = kernel_text(var(V), extra=[ir.If(
        ir.GraphQuery("is_an_edge", G, (var(W), var(U)), type=S.BOOL), ir.Block(()))])
    assert "if (starc_find_edge(offsets, targets, u, w) >= 0)" in moved
    assert "if (starc_find_edge(offsets, targets, x, w) >= 0)" in from_local
    assert "if (starc_find_edge(offsets, targets, u + 1, w) >= 0)" in arithmetic
    assert "if (starc_find_edge(offsets, targets, w, u) >= 0)" in reversed_
    assert "w_in_w_pos" not in reversed_ and "w_in_v_pos" in reversed_
    for text in (moved, from_local, arithmetic):
        assert "_pos" not in text and "starc_gallop" not in text


def test_prelude_helpers_have_each_backends_signature():
    preludes = {
        opencl_prelude():
            "inline int starc_gallop(__global const int *ids, int *cursor, int end, int w) {",
        cuda_header(): "__host__ __device__ inline int starc_gallop("
                       "const int* ids, int* cursor, int end, int w) {",
        sycl_header():
            "inline int starc_gallop(const int* ids, int* cursor, int end, int w) {"}
    for text, signature in preludes.items():
        assert text.count(signature) == 1, signature
        assert text.index("starc_lower_bound(") < text.index("starc_gallop(")


# --- what the cursor answers: repeats, self-loops, skipped queries, get_edge ------------------

CURSORS_SP = """\
function Cursors(Graph g, propEdge<int> weight, propNode<int> closed, propNode<int> picky,
                 propNode<int> firstWeight, propNode<int> sideways) {
    g.attachNodeProperty(closed = 0, picky = 0, firstWeight = 0, sideways = 0);
    forall (v in g.nodes()) {
        for (u in g.neighbors(v)) {
            for (w in g.neighbors(v)) {
                if (g.is_an_edge(u, w)) {
                    v.closed = v.closed + 1;
                }
                if (w % 3 != 1 && g.is_an_edge(u, w)) {
                    v.picky = v.picky + w + 1;
                }
                if (w > u && g.is_an_edge(v, w)) {
                    edge e = g.get_edge(u, w);
                    if (g.is_an_edge(u, w)) {
                        v.firstWeight = v.firstWeight + e.weight;
                    }
                }
            }
            for (w in g.nodes_to(v).filter(w >= u)) {
                if (g.is_an_edge(u, w)) {
                    v.sideways = v.sideways + w;
                }
            }
        }
    }
}
"""


@pytest.mark.parametrize("backend", [pytest.param("opencl", marks=pytest.mark.opencl),
                                     pytest.param("sycl", marks=pytest.mark.sycl)])
def test_cursors_agree_with_the_reference_on_multigraphs(backend, tmp_path):
    source = tmp_path / "cursors.sp"
    source.write_text(CURSORS_SP)
    expected_program = starc.compile(str(source), "reference")
    program = starc.compile(str(source), backend)
    generated = "\n".join(program.compilation.generated.files.values())
    # the in-neighbour loop only tests edges to u: a merge with u's row
    assert "starc_advance(targets, &w_2_in_u_pos" in generated
    assert "int e = starc_gallop(targets, &w_in_u_pos" in generated   # get_edge
    assert "starc_find_edge(offsets, targets" not in generated
    rng = np.random.default_rng(11)
    for trial in range(4):
        n = 10 + 4 * trial
        m = 120
        # Many repeats (with different weights: get_edge must find the first) and self-loops.
        src = rng.integers(0, n, m)
        dst = np.where(rng.random(m) < 0.2, src, rng.integers(0, n // 2 + 1, m))
        weights = rng.integers(1, 50, m)
        graph = Graph.from_edges(n, src, dst, weights, True, f"multigraph {trial}")
        path = tmp_path / f"g{trial}.mtx"
        write_mtx(graph, path)
        expected = expected_program.run(path)
        actual = program.run(path)
        problems = compare_results(expected, actual)
        assert not problems, "\n".join(problems)
        assert expected.props["closed"].any() and expected.props["firstWeight"].any()
