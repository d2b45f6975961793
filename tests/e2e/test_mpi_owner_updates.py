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

from starc.analysis.specialize import specialize
from starc.backends import get_backend
from starc.results import compare_results
from e2e_cases import compile_for

pytestmark = pytest.mark.mpi

#: each update loop counts at one endpoint and reads what it counted there; a kernel then
#: reads the counts at neighbours (ghosts: refreshed after the loops) and the last batch's
#: marks at own vertices
OWNER = """Dynamic D(Graph g, propNode<int> hits, propNode<int> seen, propNode<int> near,
          updates<g> U, int batchSize) {
    g.attachNodeProperty(hits = 0, seen = 0, near = 0);
    Batch (U : batchSize) {
        OnDelete (u in U.currentBatch()) : {
            node d = u.destination;
            d.hits += 2;
            if (d.hits > 3 && u.source != d) {
                d.seen = d.seen + 1;
            }
        }
        g.updateCSRDel(U);
        OnAdd (u in U.currentBatch()) : {
            node s = u.source;
            <s.hits> = <Max(s.hits, s.seen + 5)>;
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

#: one statement reads at the source and writes at the destination: no one rank holds both
BOTH = OWNER.replace("<s.hits> = <Max(s.hits, s.seen + 5)>;",
                     "node t = u.destination;\n            <t.hits> = <Max(t.hits, s.seen + 5)>;")

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
