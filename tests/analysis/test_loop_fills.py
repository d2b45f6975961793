"""Redundant fills at the top of a batch loop (``analysis/loop_fills.py``): dropped only where
the array holds the fill's value on entry and at the back edge, with the reason in the plan."""

from __future__ import annotations

import pytest

from starc.analysis import plan as P
from starc.analysis.dump import plan_dump

from analysis_helpers import dsl_text, host_nodes, plan_of

#: a Dynamic program whose batch re-attaches a flag that only a fixedPoint on it uses
BATCHED = """
Dynamic D(Graph g, propNode<int> dist, propEdge<int> weight, updates<g> U, int batchSize) {
    propNode<bool> modified;
    Batch (U : batchSize) {
        g.attachNodeProperty(modified = False);
        g.updateCSRAdd(U);
        OnAdd (u in U.currentBatch()) : {
            node s = u.source;
            s.modified = True;
        }
        bool fin = False;
        fixedPoint until (fin : !modified) {
            forall (v in g.nodes().filter(modified == True)) {
                forall (w in g.neighbors(v)) {
                    edge e = g.get_edge(v, w);
                    <w.dist, w.modified> = <Min(w.dist, v.dist + e.weight), True>;
                }
            }
        }
    }
}
"""


def _batch(text: str, function: str = "D") -> P.BatchLoop:
    [batch] = [s for s in host_nodes(plan_of(text, function=function).host)
               if isinstance(s, P.BatchLoop)]
    return batch


def _fills_in(batch: P.BatchLoop, name: str) -> int:
    return sum(1 for s in batch.body.stmts if isinstance(s, P.Fill) and s.array.name == name)


def test_a_flag_false_on_entry_and_after_its_fixedpoint_is_not_refilled_each_batch():
    batch = _batch(BATCHED)
    assert _fills_in(batch, "modified") == 0
    [(fill, why)] = batch.dropped_fills
    assert fill.array.name == "modified"
    assert "on entry" in why and "fixedPoint on it exits with it all False" in why
    assert "no fill modified each batch" in plan_dump(plan_of(BATCHED, function="D"))


def test_dyn_sssp_keeps_gone_refills_and_drops_modified():
    """gone is set by the deletions' kernel and Decremental: its fill stays."""
    batch = _batch(dsl_text("dynamic/dyn_sssp"), "DynSSSP")
    assert [f.array.name for f, _ in batch.dropped_fills] == ["modified"]
    assert _fills_in(batch, "gone") == 1 and _fills_in(batch, "modified") == 0


@pytest.mark.parametrize("change, reason", [
    # not False on entry: the declaration's fill is True
    ("    propNode<bool> modified;\n",
     "    propNode<bool> modified;\n    g.attachNodeProperty(modified = True);\n"),
    # set after the fixedPoint: the back edge brings a True in
    ("        }\n    }\n}\n",
     "        }\n        forall (v in g.nodes()) { v.modified = True; }\n    }\n}\n"),
    # written before the fill in the body: the fill is what clears it
    ("        g.attachNodeProperty(modified = False);\n",
     "        forall (v in g.nodes()) { v.modified = True; }\n"
     "        g.attachNodeProperty(modified = False);\n"),
    # the fill sets another value than the one the loop leaves
    ("        g.attachNodeProperty(modified = False);\n",
     "        g.attachNodeProperty(modified = True);\n"),
])
def test_the_fill_stays_where_the_flag_may_differ(change, reason):
    changed = BATCHED.replace(change, reason)
    assert changed != BATCHED
    assert _fills_in(_batch(changed), "modified") == 1
    assert _batch(changed).dropped_fills == ()
