"""Mutation fuzzing: a mangled program parses or raises CompileError, never anything else."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from starc.diagnostics import CompileError
from starc.frontend import parse, unparse

from frontend.samples import DSL_FILES, SAMPLES, read_dsl
from frontend.strategies import programs

CORPUS = [read_dsl(path) for path in DSL_FILES] + list(SAMPLES.values())

_SNIPPETS = list("(){}[]<>;,.=+-*/%!&|:#@$\"'\\\x00\n\t") + [
    "/*", "*/", "//", "<=", ">=", "==", "!=", "&&", "||", "++", "--", "+=", "1.", ".5", "1e",
    "1e-6", "INF", "True", "false", "INT_MAX", "function", "Static", "forall", "for", "in",
    "if", "else", "while", "do", "return", "break", "continue", "fixedPoint", "until",
    "iterateInBFS", "iterateInReverse", "from", "filter", "Min", "Max", "Sum", "propNode",
    "propEdge<int>", "SetN", "node", "edge", "Graph", "int", "Dynamic", "Heap", "updates",
    "é", "\u00a0", "\ufeff", "g.nodes()", ".filter(", "<a> = <Min(a, b)>;",
]


@st.composite
def mutated_sources(draw):
    text = draw(st.sampled_from(CORPUS))
    for _ in range(draw(st.integers(1, 6))):
        size = len(text)
        position = draw(st.integers(0, size))
        kind = draw(st.sampled_from(["delete", "duplicate", "swap", "insert", "truncate"]))
        length = draw(st.integers(1, 12))
        if kind == "delete":
            text = text[:position] + text[position + length:]
        elif kind == "duplicate":
            text = text[:position] + text[position:position + length] + text[position:]
        elif kind == "swap" and size > 1:
            other = draw(st.integers(0, size - 1))
            a, b = sorted((min(position, size - 1), other))
            text = text[:a] + text[b] + text[a + 1:b] + text[a] + text[b + 1:]
        elif kind == "insert":
            snippet = draw(st.sampled_from(_SNIPPETS) | st.characters())
            text = text[:position] + snippet + text[position:]
        else:
            text = text[:position]
    return text


def check_parse(text):
    try:
        program = parse(text, "fuzz.sp")
    except CompileError as error:
        assert error.diagnostics
        assert all(d.loc.line >= 1 and d.loc.col >= 1 for d in error.diagnostics), error
        assert all(d.code.startswith("E01") for d in error.diagnostics)
        return None
    # Whatever parses also survives the unparse round trip.
    assert parse(unparse(program), "fuzz.sp") == program
    return program


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_sources())
def test_mutated_programs_never_crash_the_parser(text):
    check_parse(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200))
def test_random_text_never_crashes_the_parser(text):
    check_parse(text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.data())
def test_token_mutations_of_generated_programs(program, data):
    tokens = unparse(program).split(" ")
    for _ in range(data.draw(st.integers(1, 4))):
        position = data.draw(st.integers(0, len(tokens)))
        kind = data.draw(st.sampled_from(["delete", "duplicate", "insert"]))
        if kind == "delete" and position < len(tokens):
            del tokens[position]
        elif kind == "duplicate" and position < len(tokens):
            tokens.insert(position, tokens[position])
        else:
            tokens.insert(position, data.draw(st.sampled_from(_SNIPPETS)))
    check_parse(" ".join(tokens))
