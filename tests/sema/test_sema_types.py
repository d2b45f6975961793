"""Typed IR produced by semantic analysis: casts, literal and INF typing, sugar removal,
filter rewriting, get_edge resolution, BFS roles, symbols and return types."""

from __future__ import annotations

import pytest

from sema_helpers import all_of, analyze_ok, check, first, headers
from starc.ir import nodes as ir
from starc.ir.types import PropType, Scalar as S


def wrap(body: str, params: str = "Graph g, propNode<int> dist, propNode<float> rank") -> str:
    return f"function F({params}) {{\n{body}\n}}\n"


def decl_init(program, name):
    for d in all_of(program, ir.Declare):
        if d.sym.name == name:
            return d.init
    raise AssertionError(name)


def test_every_expression_is_typed_and_arithmetic_operands_match():
    program = analyze_ok(wrap("int i = 3;\nfloat f = 2.5;\ndouble d = i * f + i / 2;\n"
                              "long l = i + 1;\nbool b = i < f && !(d > 0);"))
    for node in ir.walk(program):
        if isinstance(node, ir.Expr):
            assert node.type is not None
        if isinstance(node, ir.Binary):
            if node.op in ("+", "-", "*", "/", "%"):
                assert node.left.type == node.right.type == node.type
            elif node.op in ("&&", "||"):
                assert node.left.type == node.right.type == node.type == S.BOOL
            else:
                assert node.left.type == node.right.type and node.type == S.BOOL


def test_usual_arithmetic_conversions_insert_casts():
    program = analyze_ok(wrap("int i = 3;\nfloat f = 2.5;\ndouble d = i * f;"))
    init = decl_init(program, "d")
    # i * f is float (i cast to float), then the value is cast to the double target
    assert init == ir.Cast(ir.Binary("*", ir.Cast(ir.VarRef(init.expr.left.expr.sym, type=S.INT),
                                                  type=S.FLOAT),
                                     ir.VarRef(init.expr.right.sym, type=S.FLOAT), type=S.FLOAT),
                           type=S.DOUBLE)


def test_literals_take_the_type_they_meet():
    program = analyze_ok(wrap("float a = 0.5;\nfloat b = 1;\nlong c = 7;\nfloat x = a * 0.25;"))
    assert decl_init(program, "a") == ir.Const(0.5, type=S.FLOAT)
    assert decl_init(program, "b") == ir.Const(1.0, type=S.FLOAT)
    assert decl_init(program, "c") == ir.Const(7, type=S.LONG)
    x = decl_init(program, "x")
    assert x.type == S.FLOAT and x.right == ir.Const(0.25, type=S.FLOAT)


def test_float_literal_with_an_int_promotes_like_c():
    program, sink = check(wrap("int i = 3;\nint h = i / 2.5;"), disabled=("unused",))
    h = decl_init(program, "h")
    assert isinstance(h, ir.Cast) and h.type == S.INT
    assert h.expr.type == S.DOUBLE and h.expr.right == ir.Const(2.5, type=S.DOUBLE)
    # storing the double quotient in an int drops its fraction, as C does: a warning
    assert headers(sink) == ["3:9: warning[narrowing]: implicit conversion from 'double' to "
                             "'int' drops the fraction"]


def test_narrowing_warns_only_where_a_fraction_can_be_lost():
    """Floating to integer warns; integer to floating, a literal that meets its type, a
    node id stored as an int (node-int-conversion's business) and -W no-narrowing do not."""
    _, sink = check(wrap("int i = 3;\nfloat f = i;\ndouble d = f;\nint k = 7;\n"
                         "long l = i;\nfloat c = 2.5;\nint n = 2;\ni = f * 2;\nk = d;"),
                    disabled=("unused",))
    assert headers(sink) == [
        "9:5: warning[narrowing]: implicit conversion from 'float' to 'int' drops the fraction",
        "10:5: warning[narrowing]: implicit conversion from 'double' to 'int' drops the fraction"]
    program, quiet = check(wrap("int i = 3;\nfloat f = 1.5;\ni = f;"),
                           disabled=("unused", "narrowing"))
    assert program is not None and not quiet.diagnostics


def test_inf_takes_the_type_it_meets():
    program = analyze_ok(wrap("float big = INF;\ng.attachNodeProperty(dist = INF);\n"
                              "long low = -INF;\nforall (v in g.nodes().filter(dist == INF)) {\n"
                              "    v.rank = 1;\n}"))
    assert decl_init(program, "big") == ir.Inf(type=S.FLOAT)
    assert first(program, ir.Attach).inits[0][1] == ir.Inf(type=S.INT)
    assert decl_init(program, "low") == ir.Inf(negative=True, type=S.LONG)
    loop = first(program, ir.Loop)
    assert loop.filter.right == ir.Inf(type=S.INT)


def test_logical_operators_cast_numbers_to_bool():
    program = analyze_ok(wrap("int i = 1;\nbool b = i && True;\nbool c = !i;"))
    b = decl_init(program, "b")
    assert b.left == ir.Cast(ir.VarRef(b.left.expr.sym, type=S.INT), type=S.BOOL)
    assert decl_init(program, "c").operand.type == S.BOOL


def test_sugar_is_removed():
    program = analyze_ok(wrap("int x = 0;\nx++;\nx--;\nx /= 2;\nfloat s = 0;\ns++;"))
    reduces = all_of(program, ir.Reduce)
    assert [(r.op, r.value) for r in reduces] == [
        ("+", ir.Const(1, type=S.INT)), ("-", ir.Const(1, type=S.INT)),
        ("+", ir.Const(1.0, type=S.FLOAT))]
    (assign,) = [a for a in all_of(program, ir.Assign)]
    assert assign.value.op == "/" and assign.value.left == assign.target


def test_increment_in_a_forall_is_the_same_reduction_as_plus_equals_one():
    """count++ on a shared scalar and w.p-- on another vertex lower exactly like += 1 / -= 1
    (same checks, same Reduce node: every backend gets the count reduction for free)."""
    def loop(inc, dec):
        return ("int count = 0;\nforall (v in g.nodes()) {\n    count" + inc + ";\n"
                "    forall (w in g.neighbors(v)) {\n        w.dist" + dec + ";\n    }\n}")
    sugar = all_of(analyze_ok(wrap(loop("++", "--"))), ir.Reduce)
    plain = all_of(analyze_ok(wrap(loop(" += 1", " -= 1"))), ir.Reduce)
    assert sugar == plain and [r.op for r in sugar] == ["+", "-"]
    # ... and messages still say what was written
    assert [r.written for r in sugar] == ["++", "--"]
    assert [r.written for r in plain] == ["+=", "-="]


def test_data_race_warning_names_the_update_as_written():
    program = ("function F(Graph g, propNode<int> dist) {\n"
               "    forall (v in g.nodes()) {\n        int local = v.dist;\n"
               "        forall (m in g.neighbors(v)) {\n            m.dist++;\n        }\n"
               "    }\n}\n")
    _, sink = check(program, disabled=("unused",))
    assert headers(sink) == ["3:21: warning[data-race]: 'dist' is read in a forall whose "
                             "iterations also update it ('++' at line 5): the value read "
                             "depends on the order the iterations run"]


def test_min_assignment_forms():
    # The candidates read base/score, which this single pass does not update (reading
    # dist/rank would make it order-dependent: a data-race warning).
    program = analyze_ok(wrap(
        "int x = 5;\nx = Min(x, 3);\ndouble y = Max(x, 2.5);\n"
        "forall (v in g.nodes()) {\n    forall (w in g.neighbors(v)) {\n"
        "        <w.dist, w.rank> = <Min(w.dist, v.base + 1), v.score>;\n"
        "        <w.rank> = <Max(w.rank, 1)>;\n    }\n}",
        "Graph g, propNode<int> dist, propNode<float> rank, propNode<int> base, "
        "propNode<float> score"))
    single, pair, maximum = all_of(program, ir.MinMaxAssign)
    assert single.func == "Min" and single.others == () and single.candidate == ir.Const(3, type=S.INT)
    assert isinstance(decl_init(program, "y"), ir.MinMax) and decl_init(program, "y").type == S.DOUBLE
    assert isinstance(pair.target, ir.PropRead) and len(pair.others) == 1
    assert pair.others[0][0].prop.name == "rank"
    assert maximum.func == "Max" and maximum.candidate == ir.Const(1.0, type=S.FLOAT)


def test_filter_bare_property_is_rewritten_to_the_loop_variable():
    program = analyze_ok(wrap("propNode<bool> modified;\n"
                              "forall (v in g.nodes().filter(modified == True)) {\n"
                              "    v.dist = 0;\n}"))
    loop = first(program, ir.Loop)
    read = loop.filter.left
    assert isinstance(read, ir.PropRead) and read.prop.name == "modified"
    assert read.index == ir.VarRef(loop.var, type=S.NODE)


def test_get_edge_resolves_to_the_loop_edge():
    program = analyze_ok(wrap(
        "forall (v in g.nodes()) {\n"
        "    forall (w in g.neighbors(v)) {\n        edge a = g.get_edge(v, w);\n"
        "        edge b = g.get_edge(w, v);\n    }\n"
        "    for (u in g.nodes_to(v)) {\n        edge c = g.get_edge(u, v);\n    }\n}",
        "Graph g"))
    out_loop, in_loop = [l for l in all_of(program, ir.Loop) if l.var.name in "wu"]
    assert decl_init(program, "a") == ir.VarRef(out_loop.domain.edge, type=S.EDGE)
    assert isinstance(decl_init(program, "b"), ir.GraphQuery)   # w -> v is another edge
    assert decl_init(program, "c") == ir.VarRef(in_loop.domain.edge, type=S.EDGE)
    assert out_loop.domain.edge.kind is ir.SymbolKind.EDGE
    assert out_loop.domain.edge.name == "e_w"


def test_bfs_roles_and_edges():
    program = analyze_ok(wrap(
        "iterateInBFS (v in g.nodes() from src) {\n"
        "    for (w in g.neighbors(v)) {\n        edge up = g.get_edge(w, v);\n"
        "        v.rank = v.rank + w.rank;\n    }\n    for (x in g.neighbors(src)) {\n    }\n}\n"
        "iterateInReverse (v != src) {\n    for (w in g.neighbors(v)) {\n"
        "        edge down = g.get_edge(v, w);\n        v.rank = v.rank + w.rank;\n    }\n}",
        "Graph g, propNode<float> rank, node src"))
    bfs = first(program, ir.IterateBFS)
    parents, other, children = all_of(program, ir.Loop)
    assert parents.domain.role == "bfs_parents"
    assert other.domain.role == "out"
    assert children.domain.role == "bfs_children"
    assert decl_init(program, "up") == ir.VarRef(parents.domain.edge, type=S.EDGE)
    assert decl_init(program, "down") == ir.VarRef(children.domain.edge, type=S.EDGE)
    assert bfs.reverse.cond.type == S.BOOL and bfs.var.type == S.NODE


def test_fixed_point_forms():
    program = analyze_ok(wrap(
        "propNode<bool> modified;\nbool fin = False;\nint n = 0;\n"
        "fixedPoint until (fin : !modified) {\n    n += 1;\n}\n"
        "fixedPoint until (fin : n > 10) {\n    n += 1;\n}", "Graph g"))
    flagged, general = all_of(program, ir.FixedPoint)
    assert flagged.prop.name == "modified" and flagged.prop.type == PropType("node", S.BOOL)
    assert flagged.flag.name == "fin"
    assert general.prop is None and general.cond.type == S.BOOL


def test_prop_copy_and_declarations():
    program = analyze_ok(wrap("propNode<int> other;\ndist = other;\nint a = 1, b;\nb = a;"))
    copy = first(program, ir.PropCopy)
    assert copy.dst.name == "dist" and copy.src.name == "other"
    declares = all_of(program, ir.Declare)
    assert [d.sym.name for d in declares] == ["other", "a", "b"]
    assert declares[0].init is None and declares[2].init is None


def test_symbols_have_deterministic_uids_and_shadowing_gets_new_symbols():
    text = wrap("int x = 1;\nif (x > 0) {\n    int x = 2;\n    x = 3;\n}\nx = 4;")
    one, two = analyze_ok(text), analyze_ok(text)
    assert one == two
    outer, inner = [d.sym for d in all_of(one, ir.Declare)]
    assert outer.uid < inner.uid and outer != inner
    assigns = all_of(one, ir.Assign)
    assert assigns[0].target.sym == inner and assigns[1].target.sym == outer
    params = one.functions[0].params
    assert [p.uid for p in params] == sorted(p.uid for p in params)


def test_return_types_and_calls_of_later_functions():
    program = analyze_ok(
        "function A(Graph g) {\n    long t = B(g, 2);\n    return t;\n}\n"
        "function B(Graph g, int k) {\n    if (k > 1) {\n        return 0;\n    }\n"
        "    return g.num_nodes() * k;\n}\n"
        "function C(Graph g) {\n    B(g, 1);\n}\n")
    a, b, c = program.functions
    assert a.return_type == S.LONG and b.return_type == S.INT and c.return_type is None
    call = first(a, ir.CallExpr)
    assert call.function == "B" and call.type == S.INT
    assert [p.name for p in program.functions] == ["A", "B", "C"]


def test_literal_returns_take_the_function_type():
    program = analyze_ok("function F(double x) {\n    if (x > 1) {\n        return 0;\n    }\n"
                         "    return x;\n}\n")
    first_return = first(program, ir.Return)
    assert first_return.value == ir.Const(0.0, type=S.DOUBLE)
    assert program.functions[0].return_type == S.DOUBLE


def test_call_argument_checks():
    program, sink = check(
        "function A(Graph g, propNode<int> d) {\n    B(g, d);\n}\n"
        "function B(Graph g, propNode<float> r) {\n}\n")
    assert program is None
    assert headers(sink) == ["2:10: error[E0301]: argument 'r' of 'B' must be a "
                             "'propNode<float>', found 'propNode<int>'"]


def test_node_comparisons_and_node_arithmetic_are_silent():
    program = analyze_ok(wrap("forall (u in g.nodes()) {\n"
                              "    forall (w in g.neighbors(u).filter(w > u)) {\n"
                              "        int diff = w - u + 1;\n    }\n}", "Graph g"))
    loop = [l for l in all_of(program, ir.Loop) if l.var.name == "w"][0]
    assert loop.filter.left.type == S.NODE and loop.filter.right.type == S.NODE
    assert decl_init(program, "diff").type == S.INT


def test_data_race_rule_is_precise():
    ok = ("function F(Graph g, propNode<int> dist, propEdge<int> w, propNode<bool> flag) {\n"
          "    bool done = False;\n"
          "    forall (v in g.nodes()) {\n        int local = 0;\n        local = v.dist;\n"
          "        v.dist = local;\n        done = True;\n"
          "        for (n in g.neighbors(v)) {\n            edge e = g.get_edge(v, n);\n"
          "            e.w = 1 + local;\n            n.flag = True;\n            local = n;\n"
          "        }\n        forall (m in g.neighbors(v)) {\n"
          "            m.dist += 1;\n            g.get_edge(v, m).w = local;\n        }\n    }\n}\n")
    program, sink = check(ok, disabled=("unused",))
    assert program is not None
    # no plain-write race; reading v.dist while other iterations add to m.dist is one
    assert headers(sink) == ["5:17: warning[data-race]: 'dist' is read in a forall whose "
                             "iterations also update it ('+=' at line 15): the value read "
                             "depends on the order the iterations run",
                             "12:21: warning[node-int-conversion]: implicit conversion from "
                             "'node' to 'int'"]
    racy = ("function F(Graph g, propNode<int> dist) {\n"
            "    forall (v in g.nodes()) {\n        int local = 0;\n"
            "        forall (m in g.neighbors(v)) {\n            local = m.dist;\n"
            "            v.dist = 1 + m.dist;\n        }\n    }\n}\n")
    _, sink = check(racy, disabled=("unused",))
    assert [d.code for d in sink.diagnostics] == ["data-race", "data-race"]
    assert [d.loc.line for d in sink.sorted()] == [5, 6]


def test_undeclared_property_and_error_suppression():
    _, sink = check(wrap("forall (v in g.nodes()) {\n    v.dist = v.nope + v.nope2 * 2;\n}"))
    assert [d.code for d in sink.diagnostics] == ["E0203", "E0203"]


def test_internal_errors_are_reported_not_raised(monkeypatch):
    from starc.ir import sema
    monkeypatch.setattr(sema.FunctionAnalyzer, "_stmt_Assign",
                        lambda self, node: 1 / 0)
    program, sink = check(wrap("int x = 0;\nx = 1;"))
    assert program is None
    assert [d.code for d in sink.diagnostics] == ["E0901"]
    assert (sink.diagnostics[0].loc.line, sink.diagnostics[0].loc.col) == (3, 1)
    assert sink.diagnostics[0].message == ("internal compiler error in sema while processing "
                                           "Assign: ZeroDivisionError: division by zero")


# --- integer literal range (issue 13 item 5) ---------------------------------------------------

@pytest.mark.parametrize("decl, literal, type_", [
    ("int a = 2147483648;", "2147483648", "int"),
    ("int a = -2147483649;", "-2147483649", "int"),
    ("long a = 9223372036854775808;", "9223372036854775808", "long"),
    ("long a = -9223372036854775809;", "-9223372036854775809", "long"),
    ("long a = 99999999999999999999;", "99999999999999999999", "long"),
    ("int a = 1;\nint b = a + 3000000000;", "3000000000", "int"),
])
def test_integer_literal_out_of_its_types_range_is_an_error_at_the_literal(decl, literal, type_):
    _, sink = check(wrap(decl))
    found = [d for d in sink.diagnostics if d.is_error]
    assert len(found) == 1, headers(sink)
    assert found[0].code == "E0304"
    assert f"integer literal {literal} is out of range for '{type_}'" in found[0].message
    line = wrap(decl).splitlines()
    assert found[0].loc.line == next(i + 1 for i, text in enumerate(line)
                                     if literal.lstrip("-") in text)


def test_integer_literals_at_the_ends_of_their_range_are_accepted():
    program = analyze_ok(wrap("int a = 2147483647;\nint b = -2147483648;\n"
                              "long c = 9223372036854775807;\nlong d = -9223372036854775808;\n"
                              "long e = 3000000000;\nfloat f = 3000000000;"))
    assert program is not None
