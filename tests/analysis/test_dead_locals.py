"""Dead kernel locals (analysis/dead_locals.py): a local no statement reads is not declared,
a value that holds a run-time check stays as an expression statement, and a chain of dead
locals goes at once."""

from __future__ import annotations

from analysis_helpers import nodes_of, params, plan_of
from starc.analysis.checks import CheckedDivide
from starc.ir import nodes as ir

PROGRAM = """\
function F(Graph g, propNode<int> a, propNode<int> b, propEdge<int> weight, int k) {
    g.attachNodeProperty(a = 0, b = 1);
    forall (v in g.nodes()) {
        int kept = v.b + 1;
        int unused = 5;
        int chain = kept * 2;
        int longer = chain + 1;
        int later;
        later = 3;
        node same = v;
        int checked = v.b / k;
        forall (w in g.neighbors(v)) {
            edge e = g.get_edge(v, w);
            int heavy = e.weight;
            w.a += kept;
        }
    }
}
"""


def test_unread_locals_are_not_declared_and_checked_values_stay():
    kernel = plan_of(PROGRAM).kernels[0]
    declared = [d.sym.name for d in nodes_of(kernel.body, ir.Declare)]
    assert declared == ["kept"]
    assert not [s for s in nodes_of(kernel.body, ir.Assign)
                if isinstance(s.target, ir.VarRef)]
    # 'checked' is gone but its division by k stays: the reference stops there when k is 0
    kept_values = nodes_of(kernel.body, ir.ExprStmt)
    assert len(kept_values) == 1 and nodes_of(kept_values[0], CheckedDivide)
    # the dead weight read took its array with it
    assert "weight" not in params(kernel)


def test_a_local_that_is_only_read_by_a_dead_one_goes_too():
    text = PROGRAM.replace("int unused = 5;", "int feeder = 4;\n        int sink = feeder;")
    kernel = plan_of(text).kernels[0]
    names = {d.sym.name for d in nodes_of(kernel.body, ir.Declare)}
    assert "feeder" not in names and "sink" not in names
