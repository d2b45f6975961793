"""owner_updates: on MPI a loop over a batch's updates runs each statement whose node properties
are all at one update endpoint on that endpoint's owner only, so those properties leave the
full-length replicas; a statement at two vertices keeps the loop's properties replicas, with
the reason and its line."""

from __future__ import annotations

import pytest

from analysis_helpers import plan_of
from starc.analysis.local_index import RankTable
from starc.analysis.specialize import specialize
from starc.backends import get_backend
from starc.ir import nodes as ir

PROGRAM = """Dynamic D(Graph g, propNode<int> hits, propNode<int> seen, propNode<int> near,
          updates<g> U, int batchSize) {
    g.attachNodeProperty(hits = 0, seen = 0, near = 0);
    Batch (U : batchSize) {
        OnDelete (u in U.currentBatch()) : {
            node d = u.destination;
            d.hits += 2;
            if (u.source != d) {
                d.seen = d.seen + 1;
            }
        }
        g.updateCSRDel(U);
        OnAdd (u in U.currentBatch()) : {
            STATEMENT
        }
        forall (v in g.nodes()) {
            forall (w in g.neighbors(v)) {
                v.near += w.hits;
            }
        }
    }
}
"""


def _distribution(statement: str):
    plan = specialize(plan_of(PROGRAM.replace("STATEMENT", statement), "D"),
                      get_backend("mpi").capabilities)
    return plan.target.distribution


def _update_steps(distribution):
    return [step for name, step in distribution.steps.items() if "_updates_" in name]


def test_statements_at_one_endpoint_run_on_its_owner_and_leave_the_replicas():
    distribution = _distribution("node s = u.source;\n<s.hits> = <Max(s.hits, s.seen + 5)>;")
    assert distribution.replicas == {}
    deleted, added = _update_steps(distribution)
    assert set(deleted.owner_computes) == {"hits", "seen"}
    assert set(added.owner_computes) == {"hits", "seen"}
    # hits is read at neighbours: its ghost copies are refreshed after each loop; seen is not
    assert deleted.refresh == ("hits",) and added.refresh == ("hits",)
    # each statement holding a node property is guarded by its endpoint's owner, and indexes
    # the local arrays by the endpoint's local id
    kernel = next(k for k in distribution.kernels if "_updates_" in k.name)
    # (the second inside the condition every rank evaluates alike)
    guards = [s for s in ir.walk(kernel.body) if isinstance(s, ir.If)
              and isinstance(s.cond, RankTable) and s.cond.table == "owns"]
    assert len(guards) == 2 and guards[0] in kernel.body.stmts, kernel.body
    assert any(isinstance(n, RankTable) and n.table == "local_id"
               for n in ir.walk(kernel.body))


@pytest.mark.parametrize("statement, reason", [
    ("node s = u.source;\nnode t = u.destination;\n<t.hits> = <Max(t.hits, s.seen + 5)>;",
     "reads or writes node properties at both endpoints of an update"),
    ("node s = u.source;\nnode p = s.seen;\np.hits = 1;",
     "'hits' is read or written at a vertex that is not one update endpoint"),
    ("node s = u.source;\nint k = 0;\nif (s.seen > 0) { k = 1; }\ns.hits = k;",
     "writes something other than the endpoint's node properties and its own variables"),
])
def test_a_statement_no_one_owner_can_run_keeps_the_loops_properties_replicas(statement,
                                                                               reason):
    distribution = _distribution(statement)
    added = _update_steps(distribution)[1]
    assert not added.owner_computes and reason in added.replicas_why, added.replicas_why
    line = next(n for n, text in enumerate(PROGRAM.splitlines(), 1) if "STATEMENT" in text)
    # located at the offending statement, each case's third line
    assert added.replicas_why.startswith(f"test.sp:{line + 2}: "), added.replicas_why
    for name in ("hits", "seen"):
        assert reason in distribution.replicas[name], distribution.replicas
