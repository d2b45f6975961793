"""The IR printer round trip (print, re-parse, re-analyse: equal IR) and the IR dump."""

from __future__ import annotations

import pytest

from sema_helpers import DSL_PROGRAMS, SAMPLES, analyze_ok, check, headers
from starc.ir import nodes as ir
from starc.ir.dump import dump_ir
from starc.ir.printer import format_expr, print_program
from starc.ir.types import Scalar as S


def roundtrip(program: ir.Program) -> ir.Program:
    text = print_program(program)
    # The snippets declare locals only to look at how they print.
    again, sink = check(text, program.filename, disabled=("unused",))
    assert again is not None, headers(sink, program.filename)
    assert not sink.diagnostics, headers(sink, program.filename)
    return again


@pytest.mark.parametrize("path", DSL_PROGRAMS + SAMPLES, ids=lambda p: p.name)
def test_print_reparse_reanalyse_is_identity(path):
    program, sink = check(path.read_text(), path.name)
    assert program is not None, headers(sink, path.name)
    again = roundtrip(program)
    assert again == program
    # printing is canonical: a second round prints the same text
    assert print_program(again) == print_program(program)


def test_printer_canonical_forms():
    text = ("function F(Graph g, propNode<int> dist, propNode<int> base, propNode<bool> modified, "
            "propEdge<int> weight) {\n"
            "    int x = 0;\n    x++;\n    x = Min(x, 2);\n"
            "    forall (v in g.nodes().filter(modified == true)) {\n"
            "        forall (n in g.neighbors(v)) {\n"
            "            n.dist = Min(n.dist, v.base + g.get_edge(v, n).weight);\n"
            "        }\n    }\n    float f = -INF;\n    int y = (x + 1) * -(x - 2);\n}\n")
    program, _ = check(text)
    printed = print_program(program)
    assert "x += 1;" in printed
    assert "<x> = <Min(x, 2)>;" in printed
    assert ".filter(v.modified == True)" in printed
    assert "<n.dist> = <Min(n.dist, v.base + g.get_edge(v, n).weight)>;" in printed
    assert "float f = -INF;" in printed
    assert "int y = (x + 1) * -(x - 2);" in printed
    assert roundtrip(program) == program


def test_min_max_rest_elements_are_parenthesised():
    program = analyze_ok(
        "function F(Graph g, propNode<int> dist, propNode<int> base, propNode<bool> flag) {\n"
        "    forall (v in g.nodes()) {\n        forall (n in g.neighbors(v)) {\n"
        "            <n.dist, n.flag> = <Min(n.dist, v.base + 1), (v.base > 3)>;\n"
        "        }\n    }\n}\n")
    assert "<Min(n.dist, v.base + 1), (v.base > 3)>" in print_program(program)
    assert roundtrip(program) == program


def test_format_expr_omits_casts():
    expr = ir.Cast(ir.Binary("+", ir.Const(1, type=S.INT), ir.Const(2, type=S.INT), type=S.INT),
                   type=S.DOUBLE)
    assert format_expr(expr) == "1 + 2"
    assert format_expr(ir.Inf(negative=True, type=S.INT)) == "-INF"
    assert format_expr(ir.Const(1e-6, type=S.DOUBLE)) == "1e-06"


def test_dump_shows_types_symbols_and_locations():
    path = next(p for p in DSL_PROGRAMS if p.name == "sssp.sp")
    program, _ = check(path.read_text(), path.name)
    dump = dump_ir(program)
    assert dump.startswith("Program sssp.sp\n  Function Compute_SSSP(g#1: Graph, "
                           "dist#2: propNode<int>, weight#3: propEdge<int>, src#4: node) -> void")
    assert "MinMaxAssign(func='Min') @" in dump
    assert "Inf(negative=False) : int" in dump
    assert "(loop edge)" in dump
    for fn_line in dump.splitlines():
        assert "ERROR" not in fn_line
