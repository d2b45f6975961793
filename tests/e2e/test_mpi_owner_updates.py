"""Loops over a batch's updates on MPI, owner computes (``analysis/owner_updates.py``): a
statement whose node properties are all at one update endpoint runs on that endpoint's owner
only, and those properties live in the local index space; ghost copies of what it wrote are
refreshed after the loop. A statement at both endpoints keeps its properties full-length
replicas, with the reason in ``starc explain``. Both give the reference's results after every
batch with 1-3 ranks, on a graph with an isolated vertex, self-loop updates, duplicates and
deletions of missing edges."""

from __future__ import annotations

import subprocess
import sys

import pytest

from starc.analysis.local_index import RankTable
from starc.analysis.lower import lower_function
from starc.analysis.specialize import specialize
from starc.backends import get_backend
from starc.diagnostics import DiagnosticSink
from starc.frontend.parser import parse
from starc.ir import nodes as ir
from starc.ir.sema import analyze
from starc.results import compare_results
from e2e_cases import compile_for


#: each update loop counts at one endpoint and reads what it counted there (STATEMENT: the
#: additions' loop); a kernel then reads the counts at neighbours (ghosts: refreshed after the
#: loops)
PROGRAM = """Dynamic D(Graph g, propNode<int> hits, propNode<int> seen, propNode<int> near,
          updates<g> U, int batchSize) {
    g.attachNodeProperty(hits = 0, seen = 0, near = 0);
    Batch (U : batchSize) {
        OnDelete (u in U.currentBatch()) : {
            node d = u.destination;
            d.hits += 2;
            if (u.source != d) {
                d.seen += 1;
            }
        }
        g.updateCSRDel(U);
        OnAdd (u in U.currentBatch()) : {
            STATEMENT
        }
        g.updateCSRAdd(U);
        forall (v in g.nodes()) {
            v.near = 0;
            forall (w in g.neighbors(v)) {
                v.near += w.hits;
            }
        }
    }
}
"""
OWNER = PROGRAM.replace("STATEMENT", "node s = u.source;\n<s.hits> = <Max(s.hits, s.seen + 5)>;")
#: one statement reads at the source and writes at the destination: no one rank holds both
BOTH = PROGRAM.replace("STATEMENT", "node s = u.source;\nnode t = u.destination;\n"
                       "<t.hits> = <Max(t.hits, s.seen + 5)>;")


#: 12 vertices: 10 has no edge at all, 11 only a self-loop; the stream adds and deletes
#: self-loops (also at 10), edges out of and into 10, duplicates, and deletes missing edges
GRAPH = "0 1\n1 2\n2 3\n3 4\n4 5\n5 6\n6 7\n7 8\n8 9\n9 0\n9 4\n5 1\n11 11\n"
UPDATES = """a 10 10
a 3 3
d 10 5
a 1 2
a 1 2
d 7 8
d 11 11
a 10 3
d 4 4
a 11 11
a 6 10
d 10 10
d 5 6
a 5 6
d 0 10
a 10 0
"""
BATCH = 4


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("owner_updates")
    graph = folder / "g.el"
    graph.write_text(GRAPH)
    prefixes = []
    lines = UPDATES.splitlines()
    for count in range(BATCH, len(lines) + BATCH, BATCH):
        prefix = folder / f"u-{count}.updates"
        prefix.write_text("\n".join(lines[:count]) + "\n")
        prefixes.append(prefix)
    return folder, graph, prefixes


@pytest.mark.mpi
@pytest.mark.parametrize("name", ["owner", "both"])
def test_update_loops_agree_with_the_reference_after_every_batch(files, name):
    folder, graph, prefixes = files
    program = folder / f"{name}.sp"
    program.write_text(OWNER if name == "owner" else BOTH)
    reference = compile_for(program, "reference")
    for ranks in (1, 2, 3):
        built = compile_for(program, "mpi", ranks)
        for prefix in prefixes:
            expected = reference.run(graph, updates=str(prefix), batchSize=BATCH)
            actual = built.run(graph, updates=str(prefix), batchSize=BATCH)
            problems = compare_results(expected, actual)
            assert not problems, (ranks, prefix.read_text(), "\n".join(problems))


# --- the plan: which statements run on an owner, and why the others cannot --------------
def _distribution(statement: str):
    text = PROGRAM.replace("STATEMENT", statement)
    sink = DiagnosticSink()
    sink.add_source("test.sp", text)
    program = analyze(parse(text, "test.sp"), sink)
    assert program is not None and not sink.has_errors, [d.header() for d in sink.diagnostics]
    plan = specialize(lower_function(program, program.functions[0]),
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
    ("node s = u.source;\nnode p = s;\np.hits = s.seen;",
     "'hits' is read or written at a vertex that is not one update endpoint"),
    ("node s = u.source;\nint k = 0;\nif (s.seen > 0) { k = 1; }\ns.hits = k;",
     "writes something other than the endpoint's node properties and its own variables"),
    ("node s = u.source;\nint z = 1;\nint k = s.seen + z;\ns.hits = k;",
     "a variable declared from a node property"),
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


def test_explain_shows_where_each_loops_statements_run_and_why_properties_stay_replicas(
        tmp_path):
    program = tmp_path / "both.sp"
    program.write_text(BOTH)
    proc = subprocess.run([sys.executable, "-m", "starc", "explain", str(program), "-b", "mpi"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    said = " ".join(proc.stdout.split())
    assert ("every rank runs every update alike (an OpenMP loop), its statements at one "
            "endpoint (of hits, seen) on the endpoint's owner only; then the other ranks' "
            "copies of hits, seen refreshed from their owners") in said
    line = next(n for n, text in enumerate(BOTH.splitlines(), 1) if "<t.hits>" in text)
    assert ("its node properties stay full-length replicas why: every rank holds the whole "
            "update stream") in said
    assert (f"they stay replicas because at both.sp:{line}: a statement reads or writes node "
            "properties at both endpoints of an update") in said
    assert (f"hits (used in a loop over a batch's updates whose statements cannot run on an "
            f"endpoint's owner (both.sp:{line}:") in said


@pytest.mark.mpi
def test_a_check_failing_on_one_owner_stops_every_rank_with_the_references_message(files):
    """A guarded statement's division by zero happens on the endpoint's owner alone: the
    superstep after the loop gives every rank the error word (no hang, one message), as the
    reference words it; an endpoint as an index needs no such superstep (the stream reader
    checked every id)."""
    from starc.reference import ExecutionError
    folder, graph, prefixes = files
    program = folder / "divides.sp"
    program.write_text(PROGRAM.replace("STATEMENT", "node s = u.source;\n"
                                       "s.hits = 10 / (s.seen - s.seen);"))
    with pytest.raises(ExecutionError) as expected:
        compile_for(program, "reference").run(graph, updates=str(prefixes[0]), batchSize=BATCH)
    for ranks in (2, 3):
        with pytest.raises(ExecutionError) as raised:
            compile_for(program, "mpi", ranks).run(graph, updates=str(prefixes[0]),
                                                   batchSize=BATCH)
        assert str(raised.value) == str(expected.value)
    steps = _update_steps(_distribution("node s = u.source;\ns.hits = 10 / (s.seen + 1);"))
    assert [bool(step.scalars) for step in steps] == [False, True]
    assert not any(step.scalars for step in _update_steps(_distribution("node s = u.source;")))
