"""Unparser: canonical text, minimal parentheses, and parse -> unparse -> parse round trips."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings

from starc.frontend import parse, unparse
from starc.frontend.ast import Binary, IntLit, Name, Unary

from frontend.samples import DSL_FILES, SAMPLES, read_dsl
from frontend.strategies import expressions, programs, statements


def expr_text(text):
    return unparse(parse(f"function f() {{ x = {text}; }}").functions[0].body.stmts[0].value)


@pytest.mark.parametrize("text,canonical", [
    ("a - (b - c)", "a - (b - c)"),
    ("(a - b) - c", "a - b - c"),
    ("a / (b * c)", "a / (b * c)"),
    ("(a + b) * c", "(a + b) * c"),
    ("a * b + c", "a * b + c"),
    ("-1", "-1"),
    ("-(-x)", "-(-x)"),
    ("- -x", "-(-x)"),
    ("!(a && b)", "!(a && b)"),
    ("(a || b) && c", "(a || b) && c"),
    ("a == (b == c)", "a == (b == c)"),
    ("(-x).p", "(-x).p"),
    ("(a + b)[i]", "(a + b)[i]"),
    ("(1).p", "(1).p"),
    ("a - -1", "a - -1"),
    ("Min(a, (b))", "Min(a, b)"),
    ("1.", "1."),
    ("true", "true"),
    ("INT_MAX", "INT_MAX"),
])
def test_minimal_parentheses(text, canonical):
    assert expr_text(text) == canonical
    assert expr_text(canonical) == canonical


def test_unary_minus_of_literal_reparses_as_unary():
    tree = Binary("-", Name("a"), Unary("-", IntLit(1)))
    from starc.frontend.unparse import unparse_expr
    assert unparse_expr(tree) == "a - -1"
    assert parse("function f() { x = a - -1; }").functions[0].body.stmts[0].value == tree


def test_canonical_layout():
    text = "function f(int a){if(a)x=1;else{y=2;}<n.d>=<Min(n.d,a),(a<1)>;}"
    assert unparse(parse(text)) == (
        "function f(int a) {\n"
        "    if (a)\n"
        "        x = 1;\n"
        "    else {\n"
        "        y = 2;\n"
        "    }\n"
        "    <n.d> = <Min(n.d, a), (a < 1)>;\n"
        "}\n")


def roundtrip(text, name):
    first = parse(text, name)
    printed = unparse(first)
    second = parse(printed, name)
    assert second == first
    assert unparse(second) == printed   # the canonical text is a fixed point
    return printed


def test_dsl_programs_exist():
    # The algorithm library is the main round-trip corpus (bc, pr, sssp, tc, ...).
    assert DSL_FILES, "no dsl/*.sp found"


@pytest.mark.parametrize("path", DSL_FILES, ids=os.path.basename)
def test_round_trip_dsl_programs(path):
    roundtrip(read_dsl(path), path)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_round_trip_samples(name):
    roundtrip(SAMPLES[name], name)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_round_trip_generated_programs(program):
    printed = unparse(program)
    assert parse(printed, program.filename) == program, printed


@settings(max_examples=200, deadline=None)
@given(expressions(20))
def test_round_trip_generated_expressions(expression):
    from starc.frontend.unparse import unparse_expr
    text = f"function f() {{ x = {unparse_expr(expression)}; }}"
    assert parse(text).functions[0].body.stmts[0].value == expression, text


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(statements(2))
def test_round_trip_generated_statements(statement):
    printed = unparse(statement)
    (reparsed,) = parse("function f() {\n" + printed + "\n}").functions[0].body.stmts
    assert reparsed == statement, printed
