"""Semantic analysis never fails internally: mutated library programs give diagnostics or IR,
never an internal compiler error, and printable IR whenever it succeeds."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings, strategies as st

from sema_helpers import DSL_PROGRAMS, SAMPLES
from starc.diagnostics import CompileError, DiagnosticSink
from starc.frontend.parser import parse
from starc.ir.printer import print_program
from starc.ir.sema import analyze

SOURCES = [p.read_text() for p in DSL_PROGRAMS + SAMPLES]
TOKEN = re.compile(r"[A-Za-z_]\w*|\d+\.?\d*|\S")
REPLACEMENTS = ["v", "g", "w", "0", "1.5", "INF", "True", "dist", "modified", "e", "src", "x",
                "(", ")", "!", "-", "+", "<", "node", "int", "float", "edge", "forall", ";"]


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(SOURCES))
    tokens = [(m.start(), m.end()) for m in TOKEN.finditer(text)]
    for _ in range(draw(st.integers(1, 3))):
        start, end = tokens[draw(st.integers(0, len(tokens) - 1))]
        replacement = draw(st.sampled_from(REPLACEMENTS + [""]))
        text = text[:start] + replacement + text[end:]
        tokens = [(m.start(), m.end()) for m in TOKEN.finditer(text)]
    return text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_programs_never_crash_sema(text):
    try:
        program = parse(text, "m.sp")
    except CompileError:
        return
    sink = DiagnosticSink()
    result = analyze(program, sink)
    assert not [d for d in sink.diagnostics if d.code == "E0901"], [
        d.header() for d in sink.diagnostics]
    if result is not None:
        again = analyze(parse(print_program(result), "m.sp"), DiagnosticSink())
        assert again == result


def test_misspelt_names_get_a_did_you_mean_hint():
    from starc.diagnostics import DiagnosticSink
    from starc.driver import compile_source
    sink = DiagnosticSink()
    compile_source("function f(Graph g, propNode<int> dist) {\n"
                   "    int total = 0;\n"
                   "    totl = 1;\n"
                   "    forall (v in g.nodes()) { v.dst = 1; }\n"
                   "}\n", "t.sp", sink, stop_after="sema")
    hints = {d.code: d.hint for d in sink.errors}
    assert hints == {"E0201": "did you mean 'total'?", "E0203": "did you mean 'dist'?"}
