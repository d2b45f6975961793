"""Golden diagnostics: one small program per error code / warning id, and the dsl library."""

from __future__ import annotations

import re

import pytest

from starc.diagnostics import ERROR_CODES, DiagnosticSink
from sema_helpers import DSL_PROGRAMS, GOLDEN, check, headers

EXPECT = re.compile(r"^// expect: (.*)$")


def _expected(text: str):
    lines = []
    for line in text.splitlines():
        match = EXPECT.match(line)
        if not match:
            break
        lines.append(match.group(1))
    return lines


@pytest.mark.parametrize("path", DSL_PROGRAMS, ids=lambda p: p.name)
def test_dsl_program_checks_clean(path):
    program, sink = check(path.read_text(), path.name)
    assert headers(sink, path.name) == []
    assert program is not None
    assert [f.name for f in program.functions]


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_golden_diagnostics(path):
    text = path.read_text()
    expected = _expected(text)
    assert expected, f"{path.name} has no '// expect:' line"
    program, sink = check(text, path.name)
    assert headers(sink, path.name) == expected
    has_errors = any("error[" in line for line in expected)
    assert (program is None) == has_errors


def test_golden_files_cover_every_sema_code_and_warning():
    seen = set()
    for path in GOLDEN:
        for line in _expected(path.read_text()):
            seen.update(re.findall(r"(?:error|warning)\[([\w-]+)\]", line))
    wanted = {c for c in ERROR_CODES if "E0201" <= c <= "E0206" or "E0301" <= c <= "E0305"
              or "E0401" <= c <= "E0409" or c in ("E0411", "E0412", "E0413", "E0414")}
    wanted |= {"compat-alias", "node-int-conversion", "data-race", "narrowing"}
    assert wanted - seen == set()


def test_errors_keep_going_within_a_function():
    text = ("function F(Graph g, propNode<int> dist) {\n"
            "    int a = b;\n"
            "    int c = a + d;\n"
            "    forall (v in g.nodes()) { v.nope = 1; v.dist = e + 1; }\n"
            "}\n")
    program, sink = check(text)
    assert program is None
    assert headers(sink) == [
        "2:13: error[E0201]: undeclared name 'b'",
        "3:17: error[E0201]: undeclared name 'd'",
        "4:31: error[E0203]: undeclared property 'nope'",
        "4:52: error[E0201]: undeclared name 'e'",
    ]


def test_push_form_brandes_is_rejected_with_its_pull_form():
    """StarPlat's push-form forward phase: the message says why (w is a parent here), the help
    line is the same statement from v's side, the note points at the neighbour loop."""
    from starc.diagnostics import render
    text = ("function F(Graph g, propNode<float> sigma, node src) {\n"
            "    g.attachNodeProperty(sigma = 0);\n"
            "    src.sigma = 1;\n"
            "    iterateInBFS (v in g.nodes() from src) {\n"
            "        forall (w in g.neighbors(v)) {\n"
            "            w.sigma = w.sigma + v.sigma;\n"
            "        }\n"
            "    }\n"
            "}\n")
    program, sink = check(text)
    assert program is None
    (diag,) = sink.diagnostics
    assert render(diag, sink.sources).splitlines() == [
        "test.sp:6:13: error[E0303]: cannot write 'w.sigma' inside iterateInBFS: 'w' is a BFS "
        "parent of 'v', not a child",
        "    6 |             w.sigma = w.sigma + v.sigma;",
        "      |             ^",
        "      = help: pull from the parent instead of pushing to the child: "
        "'v.sigma = v.sigma + w.sigma;'",
        "test.sp:5:9: note: inside iterateInBFS, g.neighbors(v) visits the BFS parents of 'v': "
        "edges w -> v with level(w) = level(v) - 1, one level closer to the source (inside "
        "iterateInReverse: the children)",
        "    5 |         forall (w in g.neighbors(v)) {",
        "      |         ^",
    ]
    # the suggested pull form is accepted
    fixed, sink = check(text.replace("w.sigma = w.sigma + v.sigma", "v.sigma += w.sigma"))
    assert fixed is not None and not sink.diagnostics


def test_duplicate_declaration_points_at_the_first():
    program, sink = check("function F(Graph g) {\n    int x = 0;\n    int x = 1;\n}\n")
    (diag,) = sink.diagnostics
    assert diag.code == "E0202"
    assert diag.notes and diag.notes[0].loc.line == 2


def test_warnings_can_be_disabled_and_promoted():
    text = "function F(Graph g, propNode<bool> p) {\n    bool b = true;\n" \
           "    g.attachNodeProperty(p = b);\n}\n"
    from starc.diagnostics import DiagnosticSink
    from starc.frontend.parser import parse
    from starc.ir.sema import analyze
    quiet = DiagnosticSink(disabled={"compat-alias"})
    assert analyze(parse(text, "t.sp"), quiet) is not None and not quiet.diagnostics
    strict = DiagnosticSink(werror=True)
    assert analyze(parse(text, "t.sp"), strict) is None
    assert strict.has_errors


def test_weight_hint_names_the_parameter_to_add():
    path = next(p for p in GOLDEN if p.stem.startswith("E0305"))
    _, sink = check(path.read_text(), path.name)
    capacity, weight = sink.sorted()
    assert capacity.hint == "add 'propEdge<int> capacity' to the function's parameters"
    assert weight.hint == ("add 'propEdge<int> weight' to the function's parameters (a "
                           "function that another calls gets its weights from the caller)")


def test_implicit_weight_note_is_silenced_and_never_an_error():
    """-W no-starplat-compat silences the note; -Werror does not turn it into an error; the
    function gains the parameter the run contract binds to the graph's weights."""
    from starc.frontend.parser import parse
    from starc.ir.sema import analyze
    path = next(p for p in GOLDEN if p.stem == "N_starplat_compat_weight")
    text = path.read_text()
    quiet = DiagnosticSink(disabled={"starplat-compat"})
    program = analyze(parse(text, "t.sp"), quiet)
    assert program is not None and not quiet.diagnostics
    (weight,) = [p for p in program.functions[0].params if p.name == "weight"]
    assert str(weight.type) == "propEdge<int>"
    strict = DiagnosticSink(werror=True)
    assert analyze(parse(text, "t.sp"), strict) is not None
    assert [d.severity.value for d in strict.diagnostics] == ["note"]


def test_werror_reports_every_promoted_warning_in_one_run():
    """A promoted data race left the later passes unrun: the unused local came only after
    the race was fixed (README: `starc check` reports every error)."""
    text = ("function F(Graph g, propNode<int> p) {\n    int spare = 3;\n    int x = 0;\n"
            "    forall (v in g.nodes()) {\n        x = v.p;\n    }\n"
            "    g.attachNodeProperty(p = x);\n}\n")
    program, sink = check(text, werror=True)
    assert program is None
    assert headers(sink) == [
        "2:9: error[unused]: 'spare' is declared but never read [-Werror=unused]",
        "5:9: error[data-race]: plain write to 'x', declared outside a forall, may race with "
        "other iterations [-Werror=data-race]"]
