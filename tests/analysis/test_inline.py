"""Call inlining for the device backends: the reference's meaning (properties by reference,
scalars by value), fresh names, located errors for what stays unsupported."""

from __future__ import annotations

import pytest

from analysis_helpers import plan_of, program_of
from starc.analysis.inline import inline_calls
from starc.analysis.naming import SymbolFactory, symbols_in
from starc.backends.base import BackendError
from starc.ir import nodes as ir

CALLS = """\
function addk(Graph h, propNode<long> acc, int k) {
    int twice = k * 2;
    forall (v in h.nodes()) {
        v.acc = v.acc + twice;
    }
    k = k + 100;
}
function total(Graph h, propNode<long> p) {
    long s = 0;
    forall (v in h.nodes()) {
        s += v.p;
    }
    return s;
}
function Main(Graph g, propNode<long> acc, int k) {
    g.attachNodeProperty(acc = 1);
    addk(g, acc, k);
    addk(g, acc, k + 1);
    long t = total(g, acc);
    if (total(g, acc) > 10) {
        t = t + total(g, acc) * 1000;
    }
    return t + k;
}
"""


def _inlined(text: str, name: str) -> ir.Function:
    program = program_of(text)
    return inline_calls(program, program.function(name), SymbolFactory(program))


def test_inlined_function_has_no_calls_and_unique_local_names():
    fn = _inlined(CALLS, "Main")
    assert not [n for n in ir.walk(fn.body) if isinstance(n, ir.CallExpr)]
    declared = [n.sym for n in ir.walk(fn.body) if isinstance(n, ir.Declare)]
    assert len({s.name for s in declared}) == len(declared)
    assert len({s.uid for s in symbols_in(fn.body)}) == len({(s.name, s.uid)
                                                             for s in symbols_in(fn.body)})


def test_properties_by_reference_and_scalars_by_value():
    fn = _inlined(CALLS, "Main")
    main_acc = fn.params[1]
    # Every property the inlined foralls write is Main's own 'acc': passed by reference.
    written = {n.target.prop.uid for n in ir.walk(fn.body)
               if isinstance(n, ir.Assign) and isinstance(n.target, ir.PropRead)}
    assert written == {main_acc.uid}
    # 'k = k + 100' in addk assigns its own copy, never Main's parameter 'k'.
    main_k = fn.params[2]
    assigned = {n.target.sym.uid for n in ir.walk(fn.body)
                if isinstance(n, ir.Assign) and isinstance(n.target, ir.VarRef)}
    assert main_k.uid not in assigned


def test_plan_of_a_program_with_calls_has_a_kernel_per_inlined_forall():
    plan = plan_of(CALLS, "Main")
    assert len(plan.kernels) == 5      # addk twice, total three times


@pytest.mark.parametrize("body, line, words", [
    ("    forall (v in g.nodes()) {\n        int x = f(g, 1);\n        v.a = x;\n    }\n", 6,
     "calling 'f' inside a forall"),
    ("    int i = 0;\n    while (f(g, i) < 3) {\n        i = i + 1;\n    }\n", 6,
     "calling 'f' in a loop condition"),
])
def test_calls_that_stay_unsupported_are_located(body, line, words):
    text = ("function f(Graph g, int x) {\n    return x + 1;\n}\n"
            "function M(Graph g, propNode<int> a) {\n" + body + "}\n")
    with pytest.raises(BackendError, match=words) as info:
        plan_of(text, "M")
    assert info.value.loc.line == line


def test_callee_with_a_return_inside_a_loop_is_located():
    text = ("function f(Graph g, int x) {\n    while (x > 1) {\n        return 1;\n    }\n"
            "    return 2;\n}\n"
            "function M(Graph g) {\n    int y = f(g, 3);\n    return y;\n}\n")
    with pytest.raises(BackendError, match="'return' inside a loop") as info:
        plan_of(text, "M")
    assert info.value.loc.line == 3


def test_early_returns_become_a_flag_and_guards():
    text = ("function f(Graph g, int x) {\n    if (x == 0) {\n        return 0;\n    }\n"
            "    int y = x * 2;\n    return y;\n}\n"
            "function M(Graph g) {\n    int y = f(g, 3);\n    return y;\n}\n")
    fn = _inlined(text, "M")
    assert not [n for n in ir.walk(fn.body) if isinstance(n, ir.CallExpr)]
    guards = [n for n in ir.walk(fn.body) if isinstance(n, ir.If)
              and isinstance(n.cond, ir.Unary) and n.cond.operand.sym.name == "f_returned"]
    assert len(guards) == 1


def test_a_failure_while_inlining_is_reported_at_the_statement(monkeypatch):
    """The plan stage names the host statement the inliner was rewriting (E0901)."""
    from starc.analysis import inline
    from starc.diagnostics import DiagnosticSink
    from starc.driver import compile_source

    def broken(self, s, exclude=()):
        raise KeyError("boom")
    monkeypatch.setattr(inline._Inliner, "hoist", broken)
    sink = DiagnosticSink()
    compile_source(CALLS, "calls.sp", sink, stop_after="plan", function="Main")
    (diag,) = sink.diagnostics
    assert (diag.code, diag.loc.line) == ("E0901", 19)   # long t = total(g, acc);
    assert diag.message == ("internal compiler error in plan while processing Declare: "
                            "KeyError: 'boom'")
