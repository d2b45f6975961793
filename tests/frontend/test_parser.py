"""Parser: every statement and expression form of LANGUAGE.md §1–5 builds the expected tree."""

from __future__ import annotations

import pytest

from starc.diagnostics import SourceLoc
from starc.frontend import ast, parse
from starc.frontend.ast import (
    Assign, Attach, Binary, Block, BoolLit, Break, Call, CompoundAssign, Continue, Declarator,
    DoWhile, ExprStmt, FixedPoint, FloatLit, If, IncDec, Index, InfLit, IntLit, IterateInBFS,
    IterateInReverse, IterSource, Loop, Member, MethodCall, MinMaxAssign, Name, Return,
    TypeExpr, Unary, VarDecl, While)

from frontend.samples import SAMPLES


def body(text):
    """The statements of a one-function program whose body is ``text``."""
    return parse("function f() {\n" + text + "\n}").functions[0].body.stmts


def stmt(text):
    (only,) = body(text)
    return only


def expr(text):
    return stmt(f"x = {text};").value


N = Name


# --- functions and types -------------------------------------------------------------------------

def test_functions_params_and_keywords():
    program = parse("function A(Graph g, propNode<int> d, propEdge<float> w, node s, "
                    "SetN<g> set, SetE<g> es, dirGraph h, long n) { }\nStatic B() { }",
                    "p.sp")
    a, b = program.functions
    assert program.filename == "p.sp"
    assert (a.name, a.keyword, b.name, b.keyword, b.params) == ("A", "function", "B", "Static", ())
    assert [p.type for p in a.params] == [
        TypeExpr("Graph"), TypeExpr("propNode", (TypeExpr("int"),)),
        TypeExpr("propEdge", (TypeExpr("float"),)), TypeExpr("node"),
        TypeExpr("SetN", ("g",)), TypeExpr("SetE", ("g",)), TypeExpr("dirGraph"),
        TypeExpr("long")]
    assert [p.name for p in a.params] == ["g", "d", "w", "s", "set", "es", "h", "n"]


def test_property_of_node_and_edge():
    assert stmt("propNode<node> parent;").type == TypeExpr("propNode", (TypeExpr("node"),))
    assert stmt("propEdge<edge> e2;").type == TypeExpr("propEdge", (TypeExpr("edge"),))


# --- declarations and assignments -------------------------------------------------------------------

def test_declarations_with_several_declarators():
    assert stmt("int a = 0, b, c = a + 1;") == VarDecl(TypeExpr("int"), (
        Declarator("a", IntLit(0)), Declarator("b"),
        Declarator("c", Binary("+", N("a"), IntLit(1)))))
    assert stmt("propNode<bool> modified;") == VarDecl(
        TypeExpr("propNode", (TypeExpr("bool"),)), (Declarator("modified"),))


def test_assignments():
    assert stmt("x = 1;") == Assign(N("x"), IntLit(1))
    assert stmt("v.p = 2.5;") == Assign(Member(N("v"), "p"), FloatLit(2.5, "2.5"))
    assert stmt("p = q;") == Assign(N("p"), N("q"))
    assert stmt("a[i] = 0;") == Assign(Index(N("a"), N("i")), IntLit(0))


@pytest.mark.parametrize("op", list("+-*/&|"))
def test_compound_assignments(op):
    assert stmt(f"v.p {op}= e;") == CompoundAssign(Member(N("v"), "p"), op, N("e"))


def test_increment_and_decrement():
    assert body("x++; x--; v.p++;") == (IncDec(N("x"), "++"), IncDec(N("x"), "--"),
                                        IncDec(Member(N("v"), "p"), "++"))


def test_increment_is_located_at_the_operator():
    """Messages about an update (a bool target, a data race) point at the '++'."""
    program = parse("function f(Graph g) {\n  count++;\n  v.deg--;\n}\n", "t.sp")
    first, second = program.functions[0].body.stmts
    assert (first.loc.line, first.loc.col) == (2, 8)
    assert (second.loc.line, second.loc.col) == (3, 8)


def test_attach_with_any_number_of_pairs():
    assert stmt("g.attachNodeProperty(dist = INF, modified = False, p = 1);") == Attach(
        N("g"), "node", (("dist", InfLit()), ("modified", BoolLit(False, "False")),
                         ("p", IntLit(1))))
    assert stmt("g.attachEdgeProperty(w = 0);") == Attach(N("g"), "edge", (("w", IntLit(0)),))
    assert stmt("g.attachNodeProperty();") == Attach(N("g"), "node", ())


# --- Min/Max -----------------------------------------------------------------------------------------

def test_min_max_multi_assignment_forms():
    assert stmt("<n.dist, n.modified, n.parent> = <Min(n.dist, v.dist + e.weight), True, v>;") \
        == MinMaxAssign(
            (Member(N("n"), "dist"), Member(N("n"), "modified"), Member(N("n"), "parent")),
            "Min", (Member(N("n"), "dist"),
                    Binary("+", Member(N("v"), "dist"), Member(N("e"), "weight"))),
            (BoolLit(True, "True"), N("v")))
    assert stmt("<n.dist> = <Max(n.dist, x)>;") == MinMaxAssign(
        (Member(N("n"), "dist"),), "Max", (Member(N("n"), "dist"), N("x")), ())
    assert stmt("<a>=<Min(a, b)>;") == MinMaxAssign((N("a"),), "Min", (N("a"), N("b")), ())


def test_expressions_after_min_and_comparisons_in_parentheses():
    s = stmt("<a, b, c> = <Min(a, x < y), b + 1 * 2, (x > y)>;")
    assert s.args == (N("a"), Binary("<", N("x"), N("y")))
    assert s.rest == (Binary("+", N("b"), Binary("*", IntLit(1), IntLit(2))),
                      Binary(">", N("x"), N("y")))


def test_single_target_min_stays_a_plain_assignment():
    assert stmt("n.dist = Min(n.dist, d);") == Assign(
        Member(N("n"), "dist"), Call("Min", (Member(N("n"), "dist"), N("d"))))


# --- control flow ------------------------------------------------------------------------------------

def test_if_else_and_dangling_else():
    assert stmt("if (a) x = 1; else { x = 2; }") == If(
        N("a"), Assign(N("x"), IntLit(1)), Block((Assign(N("x"), IntLit(2)),)))
    inner = stmt("if (a) if (b) x = 1; else x = 2;")
    assert inner.orelse is None and inner.then.orelse == Assign(N("x"), IntLit(2))


def test_while_do_while_break_continue_return():
    assert stmt("while (x > 0) { break; continue; }") == While(
        Binary(">", N("x"), IntLit(0)), Block((Break(), Continue())))
    assert stmt("do x = x - 1; while (x);") == DoWhile(
        Assign(N("x"), Binary("-", N("x"), IntLit(1))), N("x"))
    assert body("return; return x + 1;") == (Return(), Return(Binary("+", N("x"), IntLit(1))))


@pytest.mark.parametrize("keyword,parallel", [("forall", True), ("for", False)])
@pytest.mark.parametrize("source,expected", [
    ("g.nodes()", IterSource(N("g"), "nodes")),
    ("g.edges()", IterSource(N("g"), "edges")),
    ("g.neighbors(v)", IterSource(N("g"), "neighbors", (N("v"),))),
    ("g.neighbours(v)", IterSource(N("g"), "neighbours", (N("v"),))),
    ("g.nodes_to(v)", IterSource(N("g"), "nodes_to", (N("v"),))),
    ("sourceSet", IterSource(N("sourceSet"), None)),
    ("g.nodes().filter(modified == True)", IterSource(
        N("g"), "nodes", (), Binary("==", N("modified"), BoolLit(True, "True")))),
    ("g.neighbors(v).filter(w < 3)", IterSource(
        N("g"), "neighbors", (N("v"),), Binary("<", N("w"), IntLit(3)))),
    ("s.filter(p)", IterSource(N("s"), None, (), N("p"))),
])
def test_loops_over_every_source(keyword, parallel, source, expected):
    assert stmt(f"{keyword} (v in {source}) {{ }}") == Loop("v", expected, Block(()), parallel)


def test_fixed_point():
    assert stmt("fixedPoint until (finished : !modified) { }") == FixedPoint(
        "finished", Unary("!", N("modified")), Block(()))


def test_iterate_in_bfs_with_filter_and_reverse():
    s = stmt("iterateInBFS (v in g.nodes() from src).filter(v.p) { x = 1; }\n"
             "iterateInReverse (v != src) { y = 1; }")
    assert s == IterateInBFS(
        "v", N("g"), N("src"), Member(N("v"), "p"), Block((Assign(N("x"), IntLit(1)),)),
        IterateInReverse(Binary("!=", N("v"), N("src")), Block((Assign(N("y"), IntLit(1)),))))


def test_iterate_in_reverse_forms():
    for text in ["iterateInReverse () { }", "iterateInReverse { }"]:
        assert stmt("iterateInBFS (v in g.nodes() from s) { } " + text).reverse == \
            IterateInReverse(None, Block(()))
    assert stmt("iterateInBFS (v in g.nodes() from s) { }").reverse is None


def test_standalone_iterate_in_reverse_is_a_statement():
    first, second = body("x = 1;\niterateInReverse (v != s) { }")
    assert second == IterateInReverse(Binary("!=", N("v"), N("s")), Block(()))


def test_expression_statements():
    assert stmt("Compute(g, 1);") == ExprStmt(Call("Compute", (N("g"), IntLit(1))))
    assert stmt("g.foo();") == ExprStmt(MethodCall(N("g"), "foo", ()))


def test_empty_statements_are_dropped():
    assert body(";; x = 1;;") == (Assign(N("x"), IntLit(1)),)


# --- expressions ------------------------------------------------------------------------------------

def test_precedence_low_to_high():
    assert expr("a || b && c == d < e + f * -g") == Binary("||", N("a"), Binary(
        "&&", N("b"), Binary("==", N("c"), Binary("<", N("d"), Binary(
            "+", N("e"), Binary("*", N("f"), Unary("-", N("g"))))))))


def test_left_associativity_and_parentheses():
    assert expr("a - b - c") == Binary("-", Binary("-", N("a"), N("b")), N("c"))
    assert expr("a - (b - c)") == Binary("-", N("a"), Binary("-", N("b"), N("c")))
    assert expr("a / b % c") == Binary("%", Binary("/", N("a"), N("b")), N("c"))


def test_minus_never_in_literals():
    assert expr("a-1") == Binary("-", N("a"), IntLit(1))
    assert expr("-1") == Unary("-", IntLit(1))
    assert expr("-x.p") == Unary("-", Member(N("x"), "p"))
    assert expr("!!b") == Unary("!", Unary("!", N("b")))


def test_literals_and_aliases():
    assert expr("1.") == FloatLit(1.0, "1.")
    assert expr(".5") == FloatLit(0.5, ".5")
    assert expr("1e-6") == FloatLit(1e-6, "1e-6")
    assert expr("2.5e3") == FloatLit(2500.0, "2.5e3")
    assert expr("true") == BoolLit(True, "true")
    assert expr("False") == BoolLit(False, "False")
    assert expr("INT_MAX") == InfLit("INT_MAX")
    assert expr("-INF") == Unary("-", InfLit("INF"))


def test_calls_methods_members_index():
    assert expr("Min(a, b) + Max(c, d)") == Binary(
        "+", Call("Min", (N("a"), N("b"))), Call("Max", (N("c"), N("d"))))
    assert expr("minWt(w)") == Call("minWt", (N("w"),))
    assert expr("g.get_edge(u, v).weight") == Member(
        MethodCall(N("g"), "get_edge", (N("u"), N("v"))), "weight")
    assert expr("g.is_an_edge(u, w)") == MethodCall(N("g"), "is_an_edge", (N("u"), N("w")))
    assert expr("g.count_outNbrs(v) * g.num_nodes()") == Binary(
        "*", MethodCall(N("g"), "count_outNbrs", (N("v"),)), MethodCall(N("g"), "num_nodes", ()))
    assert expr("e.source") == Member(N("e"), "source")
    assert expr("a[i][j + 1]") == Index(Index(N("a"), N("i")), Binary("+", N("j"), IntLit(1)))
    assert expr("f()") == Call("f", ())


# --- locations ---------------------------------------------------------------------------------------

def _all_nodes(node):
    yield node
    for child in ast.children(node):
        yield from _all_nodes(child)


def test_every_node_has_the_location_of_its_first_token():
    program = parse("function f(int a) {\n  x = a - 1;\n    if (b) { v.d = Min(v.d, 2); }\n}",
                    "loc.sp")
    assign = program.functions[0].body.stmts[0]
    assert assign.loc == SourceLoc("loc.sp", 2, 3)
    assert assign.value.loc == SourceLoc("loc.sp", 2, 7)
    assert assign.value.right.loc == SourceLoc("loc.sp", 2, 11)
    if_stmt = program.functions[0].body.stmts[1]
    assert if_stmt.loc == SourceLoc("loc.sp", 3, 5)
    call = if_stmt.then.stmts[0].value
    assert call.loc == SourceLoc("loc.sp", 3, 20)
    assert program.functions[0].params[0].loc == SourceLoc("loc.sp", 1, 12)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_no_node_without_location(name):
    for node in _all_nodes(parse(SAMPLES[name], name)):
        assert node.loc.file == name and node.loc.line >= 1 and node.loc.col >= 1, node


def test_no_ply_object_escapes():
    for node in _all_nodes(parse(SAMPLES["statements"])):
        for value in vars(node).values():
            assert "ply" not in type(value).__module__
