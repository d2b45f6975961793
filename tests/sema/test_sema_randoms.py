"""g.randSP and g.combineRandom in sema (issue 16, item 5): the StarPlat-style colouring loop
is accepted and lowered to foralls of ir.Random with an implicit optional seed; bad uses are
located errors; the numbers are pinned; the run contract's optional --seed."""

from __future__ import annotations

import numpy as np
import pytest

from starc.graphs import Graph
from starc.ir import nodes as ir
from starc.ir.types import Scalar
from starc.reference.randoms import starc_random
from starc.runcontract import UsageError, bind_arguments, param_specs

from sema_helpers import ROOT, all_of, analyze_ok, check, headers

# StarPlat's graphColoring style, also run end to end by tests/e2e/test_random_programs.py.
COLOURING = (ROOT / "tests" / "e2e" / "programs" / "colouring_randsp.sp").read_text()


def test_colouring_program_is_lowered_to_foralls_with_an_optional_seed():
    fn = analyze_ok(COLOURING).functions[0]
    assert [p.name for p in fn.params] == ["g", "colour", "prio", "seed"]
    assert fn.params[-1].type is Scalar.LONG and fn.defaults == (("seed", 0),)
    draw = fn.body.stmts[0]
    assert isinstance(draw, ir.Declare) and draw.init == ir.Const(0, type=Scalar.LONG)
    loop = all_of(fn, ir.DoWhile)[0].body.stmts
    fill, step, combine = loop[0], loop[1], loop[2]
    assert isinstance(fill, ir.Loop) and fill.parallel and isinstance(fill.domain, ir.AllNodes)
    values = [s.value for s in fill.body.stmts]
    assert [v.position.value for v in values] == [0, 1]
    assert all(v.draw == ir.VarRef(draw.sym, type=Scalar.LONG) for v in values)
    assert all(v.seed.sym is fn.params[-1] for v in values)
    assert all(v.vertex.sym is fill.var for v in values)
    assert step == ir.Reduce("+", ir.VarRef(draw.sym, type=Scalar.LONG),
                             ir.Const(1, type=Scalar.LONG))
    stored = combine.body.stmts[0]
    assert stored.target.prop.name == "prio" and stored.value.op == "+"
    assert stored.value.left.right == ir.Const(2 ** 32, type=Scalar.LONG)


def test_a_declared_seed_parameter_seeds_randsp_and_stays_required():
    fn = analyze_ok("function F(Graph g, propNode<long> p, int seed) {\n"
                    "    g.randSP(p);\n}\n").functions[0]
    assert [p.name for p in fn.params] == ["g", "p", "seed"] and fn.defaults == ()
    random = all_of(fn, ir.Random)[0]
    assert isinstance(random.seed, ir.Cast) and random.seed.expr.sym is fn.params[2]
    assert all_of(fn, ir.Assign)[0].value == ir.Cast(random, type=Scalar.LONG)


@pytest.mark.parametrize("body, expected", [
    ("propNode<double> d;\n    g.randSP(d);",
     "3:14: error[E0204]: 'randSP' is not supported on 'd' (a 'propNode<double>'): it needs "
     "'propNode<int>' or 'propNode<long>'"),
    ("propNode<bool> b;\n    g.randSP(p, b);",
     "3:17: error[E0204]: 'randSP' is not supported on 'b' (a 'propNode<bool>'): it needs "
     "'propNode<int>' or 'propNode<long>'"),
    ("int k = 0;\n    g.randSP(k);",
     "3:14: error[E0204]: 'k' has type 'int', but 'randSP' fills node properties"),
    ("g.randSP(q);", "2:14: error[E0201]: undeclared name 'q'"),
    ("g.randSP();", "2:5: error[E0204]: 'randSP' needs the properties to fill"),
    ("forall (v in g.nodes()) {\n        g.randSP(p);\n    }",
     "3:9: error[E0204]: 'randSP' inside a forall"),
    ("g.combineRandom(p, p);",
     "2:5: error[E0204]: 'combineRandom' takes 3 properties (c, a, b), got 2"),
    ("propNode<float> f;\n    g.combineRandom(p, f, p);",
     "3:24: error[E0204]: 'combineRandom' is not supported on 'f' (a 'propNode<float>'): it "
     "needs 'propNode<int>' or 'propNode<long>'"),
    ("int seed = 3;\n    g.randSP(p);",
     "2:9: error[E0204]: 'seed' is the program option that seeds randSP ('--seed S'); a local "
     "cannot have that name"),
    ("int x = g.randSP(p);",
     "2:13: error[E0204]: 'randSP' is not supported: 'g.randSP(p, ...)' is a statement: it "
     "fills every vertex's 'p' and gives no value"),
])
def test_bad_uses_are_located_errors(body, expected):
    program, sink = check(f"function F(Graph g, propNode<long> p) {{\n    {body}\n}}\n")
    assert program is None and expected in headers(sink)
    assert all(d.hint for d in sink.errors if d.code == "E0204")


def test_randsp_in_a_called_function_is_refused_at_the_call_of_randsp():
    program, sink = check("function Fill(Graph g, propNode<int> p) {\n    g.randSP(p);\n}\n"
                          "function Main(Graph g, propNode<int> p) {\n    Fill(g, p);\n}\n")
    assert program is None
    assert headers(sink) == ["2:5: error[E0204]: 'randSP' is supported in the function the "
                             "program runs, but 'Fill' is called by another function"]


def test_a_seed_parameter_of_another_type_is_refused():
    program, sink = check("function F(Graph g, propNode<int> p, double seed) {\n"
                          "    g.randSP(p);\n}\n")
    assert program is None and headers(sink)[0].startswith(
        "1:38: error[E0204]: 'randSP' is seeded by the parameter 'seed', which must be")


def _splitmix_chain(seed, draw, j, v):
    """An independent pure-Python statement of the definition (LANGUAGE.md §5)."""
    mask = 2 ** 64 - 1

    def mix(z):
        z = (z + 0x9E3779B97F4A7C15) & mask
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        return z ^ (z >> 31)
    h = mix(seed & mask)
    for part in (draw, j, v):
        h = mix(h ^ (part & mask))
    return h >> 33


def test_random_values_are_pinned():
    assert list(starc_random(0, 0, 0, np.arange(5))) == [
        278411845, 354912397, 667000482, 885456340, 489353735]
    assert int(starc_random(7, 1, 1, 3)) == 1656717266
    for args in [(0, 0, 0, 0), (7, 1, 1, 3), (-1, 5, 2, 99), (2 ** 63 - 1, 2 ** 40, 0, 123456)]:
        assert int(starc_random(*args)) == _splitmix_chain(*args)
    values = starc_random(12345, 3, 1, np.arange(100000))
    assert values.dtype == np.int32 and values.min() >= 0
    assert len(np.unique(values)) > 99990      # no visible structure: few collisions


def _graph():
    return Graph.from_edges(3, [0, 1], [1, 2])


def test_run_contract_seed_is_optional_with_default_zero():
    fn = analyze_ok(COLOURING).functions[0]
    spec = param_specs(fn)[-1]
    assert spec.name == "seed" and spec.default == 0 and spec.is_input
    assert bind_arguments(fn, _graph(), {})[spec.symbol] == 0
    assert bind_arguments(fn, _graph(), {"--seed": "7"})[spec.symbol] == 7
    with pytest.raises(UsageError, match="--seed expects a long, got 'x'"):
        bind_arguments(fn, _graph(), {"seed": "x"})
    with pytest.raises(UsageError, match="takes: --seed"):
        bind_arguments(fn, _graph(), {"sed": "1"})
