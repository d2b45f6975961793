"""A batch's adjacent updateCSRDel and updateCSRAdd as one graph update (``batches.fuse_updates``):
on MPI each rank lays its part out once for both (an edge property a kernel writes carried by
slot) or rewrites it in place twice with no relayout, on OpenCL's compact CSR (the binned
schedule) the host applies both and uploads once. After every batch the results are the
reference's, on streams that delete and add the same edge in one batch (the deletions go
first: one copy, with the addition's weight and a fresh mark, is left), add then delete an
edge, add a vertex's first edges (new ghosts) and repeat an edge. A part laid out again keeps
the whole ghost rows it held up to date from the stream (``KeptRows``): the owners send only
new ghosts' rows.

CI time: the two programs x MPI with 1-3 ranks and OpenCL x the two graphs, all pairs."""

from __future__ import annotations

import subprocess
import sys

import pytest

from e2e_cases import compile_for
from test_mpi_dynamic import DYNAMIC, _prefixes
from pairwise import all_pairs
from starc.analysis import plan as P
from starc.analysis.host_tree import walk_host
from starc.graphs import load_graph, rmat, write_edge_list
from starc.graphs.updates import generate_updates, write_updates
from starc.results import compare_results, parse_results

#: a kernel writes an edge property before the two updates and reads it after them: on MPI
#: the part is laid out again (the mark carried by slot); an added edge's mark starts at 0
MARKED = """\
Dynamic Fused(Graph g, propEdge<int> weight, propNode<long> total, updates<g> U, int batchSize) {
    propEdge<long> mark;
    g.attachEdgeProperty(mark = 0);
    g.attachNodeProperty(total = 0);
    long batch = 0;
    Batch (U : batchSize) {
        batch = batch + 1;
        forall (v in g.nodes()) {
            for (w in g.neighbors(v)) {
                edge e = g.get_edge(v, w);
                e.mark = e.mark + batch;
            }
        }
        g.updateCSRDel(U);
        g.updateCSRAdd(U);
        forall (v in g.nodes()) {
            v.total = 0;
            for (w in g.neighbors(v)) {
                edge e = g.get_edge(v, w);
                v.total = v.total + e.mark * 1000 + e.weight * (w + 1);
            }
        }
    }
}
"""
#: no edge property a kernel writes: on MPI both parts are applied in place
PLAIN = MARKED.replace("                e.mark = e.mark + batch;\n", "") \
    .replace("e.mark * 1000 + ", "").replace("    propEdge<long> mark;\n", "") \
    .replace("    g.attachEdgeProperty(mark = 0);\n", "")
PROGRAMS = {"marked": MARKED, "plain": PLAIN}

EDGES = "".join(f"{u} {v} {w}\n" for u, v, w in [
    (0, 1, 3), (1, 2, 2), (2, 3, 4), (3, 4, 1), (4, 5, 6), (5, 9, 2), (9, 0, 9), (2, 7, 5),
    (7, 8, 3), (8, 2, 1), (11, 11, 1), (10, 10, 2)])
#: batches of 4: 0-1 deleted and added again, 2-3 added and deleted (both: one new copy),
#: vertex 11's first edges to and from others, 1-2 deleted and added twice
UPDATES = """d 0 1
a 0 1 5
a 2 3 4
d 2 3
a 0 11 3
d 0 11
a 11 3 6
d 5 9
d 1 2
a 1 2 3
a 1 2 4
d 9 0
"""
#: (backend, ranks) -> its marker
TARGETS = {("mpi", 1): pytest.mark.mpi, ("mpi", 2): pytest.mark.mpi, ("mpi", 3): pytest.mark.mpi,
           ("opencl", None): pytest.mark.opencl}
CASES = [pytest.param(program, target, graph, marks=TARGETS[target],
                      id=f"{program}-{target[0]}{target[1] or ''}-{graph}")
         for program, target, graph in all_pairs(sorted(PROGRAMS), TARGETS, ["edges", "rmat"])]


@pytest.fixture(scope="module")
def streams(tmp_path_factory):
    """name -> (graph path, update stream path, batch size)."""
    folder = tmp_path_factory.mktemp("fused")
    edges, updates = folder / "edges.el", folder / "edges.updates"
    edges.write_text(EDGES)
    updates.write_text(UPDATES)
    graph = folder / "rmat.el"
    write_edge_list(rmat(7, 8, seed=3, weights=True), graph)
    stream = generate_updates(load_graph(str(graph)), 24, seed=7, weights=True)
    generated = folder / "rmat.updates"
    write_updates(generated, stream)
    # the same edge deleted and added in each batch of the generated stream too
    lines = generated.read_text().splitlines()
    deleted = [line for line in lines if line.startswith("d ")]
    again = [f"a {line.split()[1]} {line.split()[2]} 9" for line in deleted]
    generated.write_text("\n".join(lines + again) + "\n")
    return {"edges": (edges, updates, 4), "rmat": (graph, generated, 9)}


@pytest.mark.parametrize("program, target, graph", CASES)
def test_fused_updates_give_the_references_results_after_every_batch(streams, tmp_path,
                                                                     program, target, graph):
    source = tmp_path / f"{program}.sp"
    source.write_text(PROGRAMS[program])
    backend, ranks = target
    # OpenCL: a binned kernel's degree order keeps a compact CSR (rows with slack keep the
    # two updates apart)
    built = compile_for(source, backend, ranks,
                        schedule="binned" if backend == "opencl" else None)
    (update,) = [s for s in walk_host(built.compilation.specialized.host)
                 if isinstance(s, P.ApplyUpdates)]
    assert update.kinds == ("delete", "add")      # the fused path
    reference = compile_for(source, "reference")
    path, updates, batch = streams[graph]
    for prefix in _prefixes(updates, batch, tmp_path):
        expected = reference.run(path, updates=str(prefix), batchSize=batch)
        actual = built.run(path, updates=str(prefix), batchSize=batch)
        problems = compare_results(expected, actual)
        assert not problems, (prefix.read_text(), "\n".join(problems))


def _ghost_row_edges(graph, updates, out):
    """Per rank, the ghost-row edges its owners sent it in a run of dsl/dynamic/dyn_tc.sp on 2
    ranks (--stats), and its results."""
    proc = subprocess.run([sys.executable, "-m", "starc", "run", str(DYNAMIC / "dyn_tc.sp"),
                           "-b", "mpi", "--np", "2", "--stats", "--graph", str(graph),
                           "--undirected", "--updates", str(updates), "--batchSize", "5",
                           "--out", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return [int(field.split("=")[1]) for line in proc.stderr.splitlines()
            if line.startswith("starc-mpi-stats") for field in line.split()
            if field.startswith("ghost_row_edges=")], parse_results(out.read_text())


@pytest.mark.mpi
def test_a_batch_sends_no_ghost_row_again(streams, tmp_path):
    """dyn_tc holds whole ghost rows, and each batch lays the ranks' parts out again: the rows
    of the ghosts a rank keeps are brought up to date from the stream it holds, so batches
    that bring no new ghost (deletions only) make the owners send no row again, and the
    results are the reference's."""
    path = streams["rmat"][0]
    sources, targets, _ = load_graph(str(path)).edge_list()
    deletions = [f"d {u} {v}" for u, v in list(zip(sources, targets))[::7][:20]]
    updates, empty = tmp_path / "deletions.updates", tmp_path / "none.updates"
    updates.write_text("\n".join(deletions) + "\n")
    empty.write_text("")
    before, _ = _ghost_row_edges(path, empty, tmp_path / "none.out")
    after, results = _ghost_row_edges(path, updates, tmp_path / "deletions.out")
    assert len(before) == 2 and all(count > 0 for count in before)
    assert after == before
    expected = compile_for(DYNAMIC / "dyn_tc.sp", "reference").run(
        path, undirected=True, updates=str(updates), batchSize=5)
    problems = compare_results(expected, results)
    assert not problems, "\n".join(problems)
