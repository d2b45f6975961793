"""Dynamic programs on MPI (issue 31 item 3): every rank reads the update stream, applies a
batch to the rows it owns, in place (new ghosts inserted) unless the program holds ghost rows
(``starc_mpi_updates.hpp``, ``starc_mpi_update_rows.hpp``), and runs a
loop over a batch's updates on every rank alike. dyn_pr and dyn_sssp with 1-4 ranks (programs x
graphs x ranks pairwise, for CI time) give the reference's results after every batch (each
prefix of the stream's batches run as a stream of its own) on the e2e graphs and on a stream of duplicates, self-loops, deletions of missing
edges, a vertex's first edges (new ghosts) and the deletion of every edge into a vertex
(ghosts inserted and kept in place, counted by --stats); bad update lines stop every rank with the reference's
message; the plan says what MPI does per batch. dyn_tc (--undirected, 1-3 ranks) runs its
loops over an update endpoint's row on the row's owner, and reads the marks those write on
ghost rows, refreshed by their owners; an edge property a kernel writes follows its edges
through a batch; a loop over updates that reads any other row is a located E0501."""

from __future__ import annotations

import dataclasses
import functools
import pathlib
import subprocess
import sys

import pytest

import starc
from starc.graphs import grid, load_graph, rmat, uniform, write_edge_list
from starc.graphs.updates import generate_updates, write_updates
from starc.results import compare_results, parse_results
from e2e_cases import compile_for

pytestmark = pytest.mark.mpi

DYNAMIC = pathlib.Path(__file__).resolve().parents[2] / "dsl" / "dynamic"
PR = {"beta": "0.000001", "delta": "0.85", "maxIter": "100"}
RANKS = (1, 2, 3, 4)

#: a graph of 12 vertices (11 with only a self-loop) and a stream that adds vertex 11's first
#: edges to and from other vertices
#: (ghosts where 11's owner is another rank), repeats an edge, adds and deletes self-loops,
#: deletes missing edges, and deletes every edge into vertex 10 (its ghost copies retire)
EDGES = """0 1 3
0 10 8
1 2 2
1 10 5
2 3 4
3 4 1
4 5 6
5 6 2
6 7 7
7 8 3
8 9 2
9 0 9
9 4 4
5 1 5
11 11 1
"""
UPDATES = """a 0 11 3
a 6 11 5
a 11 3 6
a 1 2 3
a 1 2 4
a 3 3 3
d 5 9
d 2 7
d 0 10
d 1 10
a 8 8 3
d 3 3
d 1 2
a 10 2 3
d 11 4
a 4 11 3
"""


@functools.lru_cache(maxsize=None)
def _compiled(name: str, backend: str, ranks=None):
    return compile_for(DYNAMIC / f"{name}.sp", backend, ranks)


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    """name -> (graph path, update stream path, whether the run is --undirected)."""
    folder = tmp_path_factory.mktemp("mpi_dynamic")
    made = {}
    for name, graph, undirected in [
            ("rmat", rmat(7, 8, seed=3, weights=True), False),
            ("uniform", uniform(90, 5, seed=4, weights=True), False),
            ("grid", grid(8, 9, seed=5, weights=True), True)]:
        path = folder / f"{name}.el"
        write_edge_list(graph, path)
        stream = generate_updates(load_graph(str(path), undirected=undirected),
                                  24, seed=7, weights=True)
        updates = folder / f"{name}.updates"
        write_updates(updates, stream)
        made[name] = (path, updates, undirected)
    path, updates = folder / "edges.el", folder / "edges.updates"
    path.write_text(EDGES)
    updates.write_text(UPDATES)
    made["edges"] = (path, updates, False)
    made["edges-undirected"] = (path, updates, True)
    return made


def _prefixes(updates: pathlib.Path, batch: int, folder: pathlib.Path):
    """Streams of the first 1, 2, ... batches of ``updates`` (the last one whole): a run of
    each gives the results after that batch."""
    lines = [line for line in updates.read_text().splitlines() if line.strip()]
    for count in range(batch, len(lines) + batch, batch):
        prefix = folder / f"{updates.stem}-{count}.updates"
        prefix.write_text("\n".join(lines[:count]) + "\n")
        yield prefix


def _agree_after_every_batch(name, case, batch, ranks, folder, rtol=0.0, atol=0.0, skip=(),
                             **params):
    path, updates, undirected = case
    for prefix in _prefixes(updates, batch, folder):
        runs = [_compiled(name, "reference").run(path, undirected=undirected,
                                                 updates=str(prefix), batchSize=batch,
                                                 **params),
                _compiled(name, "mpi", ranks).run(path, undirected=undirected,
                                                  updates=str(prefix), batchSize=batch,
                                                  **params)]
        compared = [dataclasses.replace(run, props={k: v for k, v in run.props.items()
                                                    if k not in skip}) for run in runs]
        problems = compare_results(*compared, rtol=rtol, atol=atol)
        assert not problems, (prefix.read_text(), "\n".join(problems))


#: dyn_pr and dyn_sssp x the graphs x 1-4 ranks pairwise, not the full product (CI time: an
#: mpirun per batch): each program runs every graph with two rank counts (graph i with counts
#: i and i + 2, dyn_sssp one further, mod 4), so every program and every graph meets each
#: count, and each (graph, count) pair runs once.
BATCHES = {"dyn_pr": {"rmat": 9, "uniform": 12, "grid": 10, "edges": 3, "edges-undirected": 5},
           "dyn_sssp": {"rmat": 7, "uniform": 12, "grid": 10, "edges": 3, "edges-undirected": 4}}
DYNAMIC_CASES = [(program, graph, RANKS[(i + p + k) % len(RANKS)])
                 for p, program in enumerate(BATCHES)
                 for i, graph in enumerate(BATCHES[program]) for k in (0, 2)]


def _cases(program: str):
    return [pytest.param(graph, BATCHES[program][graph], ranks, id=f"{graph}-{ranks}")
            for name, graph, ranks in DYNAMIC_CASES if name == program]


def test_the_pairwise_cases_cover_every_graph_and_rank_count():
    for program in BATCHES:
        assert {graph for name, graph, _ in DYNAMIC_CASES if name == program} == set(BATCHES[program])
        assert {ranks for name, _, ranks in DYNAMIC_CASES if name == program} == set(RANKS)
    assert {(graph, ranks) for _, graph, ranks in DYNAMIC_CASES} == \
        {(graph, ranks) for graph in BATCHES["dyn_pr"] for ranks in RANKS}


@pytest.mark.parametrize("graph, batch, ranks", _cases("dyn_pr"))
def test_dynamic_pagerank_after_every_batch(cases, tmp_path, graph, batch, ranks):
    _agree_after_every_batch("dyn_pr", cases[graph], batch, ranks, tmp_path, rtol=1e-4,
                             atol=1e-6, **PR)


@pytest.mark.parametrize("graph, batch, ranks", _cases("dyn_sssp"))
def test_dynamic_sssp_after_every_batch(cases, tmp_path, graph, batch, ranks):
    """Distances exactly (a parent may be any vertex a shortest path comes from)."""
    _agree_after_every_batch("dyn_sssp", cases[graph], batch, ranks, tmp_path,
                             skip=("parent",), src="0")


def _ghosts(cases, tmp_path, text: str) -> int:
    """The ghosts of both ranks of a dyn_pr run on the 12-vertex graph after stream ``text``
    (``--stats``)."""
    updates = tmp_path / "stream.updates"
    updates.write_text(text)
    status, err = _run("dyn_pr.sp", cases["edges"][0], updates, "-b", "mpi", "--np", "2",
                       "--stats", "--batchSize", "1", *(f"--{k}={v}" for k, v in PR.items()))
    assert status == 0, err
    stats = [line.split() for line in err.splitlines() if line.startswith("starc-mpi-stats")]
    assert len(stats) == 2, err
    return sum(int(field.split("=")[1]) for line in stats for field in line
               if field.startswith("ghosts="))


def test_ghosts_come_with_a_vertexs_first_edge_and_stay(cases, tmp_path):
    """On 2 ranks vertex 0 and 1 are the first rank's, 9, 10 and 11 the second's: 0 -> 11
    makes 11 a ghost of the first rank (the second holds 0 already, for 9 -> 0), inserted in
    place; deleting 0 -> 10 and 1 -> 10 is applied in place, which keeps 10 as a ghost of the
    first rank (and 1, the source of an in-edge of 10, of the second), and so does a later
    batch that brings a new ghost (only a ghost-row program's relayout retires them)."""
    before = _ghosts(cases, tmp_path, "")
    assert _ghosts(cases, tmp_path, "a 0 11 3\n") == before + 1
    assert _ghosts(cases, tmp_path, "d 0 10\nd 1 10\n") == before
    assert _ghosts(cases, tmp_path, "d 0 10\nd 1 10\na 0 11 3\n") == before + 1


def _sssp_stats(graph, updates, batches: int) -> list:
    """Per rank, dyn_sssp's ``--stats`` counters (name -> value) over the first ``batches``
    batches of 4 updates of ``updates``, with the reference's distances."""
    lines = updates.read_text().splitlines()[:4 * batches]
    prefix = updates.with_name(f"{updates.stem}-first-{batches}.updates")
    prefix.write_text("\n".join(lines) + "\n")
    expected = _compiled("dyn_sssp", "reference").run(graph, updates=str(prefix), batchSize=4,
                                                      src="0")
    out = prefix.with_suffix(".out")
    status, err = _run("dyn_sssp.sp", graph, prefix, "-b", "mpi", "--np", "2", "--stats",
                       "--batchSize", "4", "--src", "0", "--out", str(out))
    assert status == 0, err
    actual = parse_results(out.read_text())
    assert list(expected.props["dist"]) == list(actual.props["dist"])
    return [{name: int(value) for name, value in (field.split("=") for field in line.split()[1:])}
            for line in err.splitlines() if line.startswith("starc-mpi-stats")]


def _update_allocations(graph, updates, batches: int) -> list:
    """Per rank, the slot arrays dyn_sssp's in-place updates allocated (``--stats``)."""
    return [rank["update_allocations"] for rank in _sssp_stats(graph, updates, batches)]


def test_in_place_updates_write_into_the_previous_batchs_arrays(cases):
    """A batch part applied in place writes the rank's new slot arrays into spares and swaps
    them with the graph's, so the next part reuses the old arrays' memory: the allocations
    (a few while the spares first grow) stay the same over 6 batches as over 2, where fresh
    arrays each part cost a third of it (page faults and zeroing, Kronecker 18)."""
    path, updates, _ = cases["rmat"]
    two = _update_allocations(path, updates, 2)
    assert len(two) == 2 and all(count > 0 for count in two)
    assert _update_allocations(path, updates, 6) == two


def test_new_ghosts_take_the_next_local_ids_without_renumbering_the_slots(cases):
    """dyn_sssp's plan appends a batch's new ghosts (no kernel reads a row as sorted by
    global id): on 2 ranks the batches bring new ghosts, yet no local id a slot or an in-row
    holds is renumbered (``--stats`` renumbered_ids, which counted every slot and in-row
    entry of a rank for each part that brought ghosts), and the distances stay the
    reference's."""
    path, updates, _ = cases["rmat"]
    ranks = _sssp_stats(path, updates, 6)
    assert len(ranks) == 2 and sum(rank["new_ghosts"] for rank in ranks) > 0
    assert [rank["renumbered_ids"] for rank in ranks] == [0, 0]


def _run(program, graph, updates, *extra):
    proc = subprocess.run([sys.executable, "-m", "starc", "run", str(DYNAMIC / program), *extra,
                           "--graph", str(graph), "--updates", str(updates)],
                          capture_output=True, text=True)
    return proc.returncode, proc.stderr


@pytest.mark.parametrize("text, message", [
    ("a 1 2 5\nx 3 4\n", ":2: an update starts with 'a' (add) or 'd' (delete), not 'x'"),
    ("a 1 2 5\nd 3 99999\n", ":2: target id 99999 is not a vertex of the graph"),
])
def test_bad_update_lines_stop_every_rank_with_the_references_message(cases, tmp_path, text,
                                                                      message):
    bad = tmp_path / "bad.updates"
    bad.write_text(text)
    options = ["--batchSize", "2", *(f"--{k}={v}" for k, v in PR.items())]
    results = {}
    for backend in (["-b", "reference"], ["-b", "mpi", "--np", "2"]):
        status, err = _run("dyn_pr.sp", cases["uniform"][0], bad, *backend, *options)
        assert status == 1, (backend, err)
        assert f"{bad}{message}" in err, (backend, err)
        assert err.count(message) == 1, err     # printed once, not by every rank
        assert "Traceback" not in err
        results[backend[1]] = status
    assert results["reference"] == results["mpi"]


def test_the_plan_says_what_mpi_does_per_batch():
    proc = subprocess.run([sys.executable, "-m", "starc", str(DYNAMIC / "dyn_pr.sp"), "-b",
                           "mpi", "--emit", "plan"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    line = next(line for line in proc.stdout.splitlines() if "graph updates:" in line)
    assert "applies a batch to the rows it owns" in line
    assert "lays its part out again on the same partition" in line
    explained = subprocess.run([sys.executable, "-m", "starc", "explain", str(DYNAMIC / "dyn_pr.sp"),
                                "-b", "mpi"], capture_output=True, text=True)
    assert explained.returncode == 0, explained.stderr
    assert "lays its part out again on the same partition" in " ".join(explained.stdout.split())
    sssp = subprocess.run([sys.executable, "-m", "starc", "explain",
                           str(DYNAMIC / "dyn_sssp.sp"), "-b", "mpi"], capture_output=True,
                          text=True)
    assert sssp.returncode == 0, sssp.stderr
    said = " ".join(sssp.stdout.split())
    assert ("every rank runs every update alike (an OpenMP loop), its statements at one "
            "endpoint (of parent, gone) on the endpoint's owner only; then the other ranks' "
            "copies of gone refreshed from their owners") in said
    assert "full-length replicas on every rank" not in said     # (no array of dyn_sssp is)
    tc = subprocess.run([sys.executable, "-m", "starc", "explain", str(DYNAMIC / "dyn_tc.sp"),
                         "-b", "mpi"], capture_output=True, text=True)
    assert tc.returncode == 0, tc.stderr
    assert ("a loop over an update endpoint's row on the row's owner only; then the ghost "
            "rows' copies of updated refreshed from their owners") in " ".join(tc.stdout.split())


#: a propEdge bound to the file's weights that kernels write before and after each batch's
#: additions: the values of kept edges follow them to their new slots, an added edge starts
#: from its update's weight
WRITTEN = """Dynamic D(Graph g, propEdge<int> weight, propNode<int> total,
          updates<g> U, int batchSize) {
    g.attachNodeProperty(total = 0);
    Batch (U : batchSize) {
        g.updateCSRDel(U);
        forall (v in g.nodes()) {
            forall (w in g.neighbors(v)) {
                edge e = g.get_edge(v, w);
                e.weight = e.weight + 1;
            }
        }
        g.updateCSRAdd(U);
        forall (v in g.nodes()) {
            forall (w in g.neighbors(v)) {
                edge e = g.get_edge(v, w);
                e.weight = e.weight + v;
                v.total += e.weight;
            }
        }
    }
}
"""


@pytest.mark.parametrize("ranks", [1, 3])
def test_an_edge_property_a_kernel_writes_follows_its_edges(cases, tmp_path, ranks):
    """Each rank carries its own edges' values to their slots in its rebuilt rows
    (``starc_mpi::carry_edges``); with --trials 2 the second trial starts from the input
    weights again, in arrays that outgrew them."""
    program = tmp_path / "written.sp"
    program.write_text(WRITTEN)
    path, updates, _ = cases["rmat"]
    built, reference = compile_for(program, "mpi", ranks), compile_for(program, "reference")
    for prefix in _prefixes(updates, 8, tmp_path):
        expected = reference.run(path, updates=str(prefix), batchSize=8)
        actual = built.run(path, updates=str(prefix), batchSize=8, trials=2)
        problems = compare_results(expected, actual)
        assert not problems, (prefix.read_text(), "\n".join(problems))


#: dyn_tc's loops over updates run the loops over an endpoint's row on its owner; what such a
#: loop cannot do on one rank alone is a located E0501 (the line holding ``HERE``)
REFUSED = {
    "a node property written in the row's loop": ("""
            for (c in g.neighbors(a)) {
                a.seen = c;  // HERE
            }""", "writes something other than the row's edges' properties"),
    "the row of a neighbour of an endpoint": ("""
            for (c in g.neighbors(a)) {
                for (w in g.neighbors(c)) {  // HERE
                    a.seen = w;
                }
            }""", "reads a row other than its endpoints'"),
    "an edge searched outside a loop over the row": ("""
            edge e = g.get_edge(a, b);  // HERE
            <e.mark> = <Max(e.mark, 1)>;""", "g.get_edge in a loop over a batch's updates "
                                               "outside a loop over an update endpoint's row"),
    "an edge property of another row": ("""
            for (c in g.neighbors(a)) {
                edge e = g.get_edge(b, c);  // HERE
                <e.mark> = <Max(e.mark, 1)>;
            }""", "reads a row other than its endpoints'"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_loop_over_updates_mpi_cannot_distribute_is_refused_at_its_line(tmp_path, case):
    body, message = REFUSED[case]
    program = tmp_path / "refused.sp"
    program.write_text("""Dynamic D(Graph g, propNode<int> seen, updates<g> U, int batchSize) {
    propEdge<int> mark;
    g.attachEdgeProperty(mark = 0);
    g.attachNodeProperty(seen = 0);
    Batch (U : batchSize) {
        g.updateCSRAdd(U);
        OnAdd (u in U.currentBatch()) : {
            node a = u.source;
            node b = u.destination;""" + body + """
        }
    }
}
""")
    line = next(n for n, text in enumerate(program.read_text().splitlines(), 1)
                if "HERE" in text)
    proc = subprocess.run([sys.executable, "-m", "starc", str(program), "-b", "mpi", "-o",
                           str(tmp_path / "out")], capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr
    assert f"refused.sp:{line}:" in proc.stderr and "error[E0501]" in proc.stderr, proc.stderr
    assert message in " ".join(proc.stderr.split()), proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "out").exists()


#: dyn_tc (--undirected) on every graph, each with one rank count, 1 to 3 in all
TC_CASES = {"rmat": (6, 3), "uniform": (8, 1), "grid": (7, 2), "edges-undirected": (4, 3)}


@pytest.mark.parametrize("graph", list(TC_CASES))
def test_dynamic_triangles_after_every_batch(cases, tmp_path, graph):
    """Its loops over updates mark the pairs' edges on their rows' owners, which refresh the
    marks' copies on the other ranks' ghost rows; ChangeTerms reads them there, and its
    per-vertex terms and total, summed over the ranks, are the reference's exactly."""
    batch, ranks = TC_CASES[graph]
    path, updates, _ = cases[graph]
    _agree_after_every_batch("dyn_tc", (path, updates, True), batch, ranks, tmp_path)


def test_every_trial_starts_from_the_input_distribution(cases):
    """--trials 3: each rank restores its input part (rows, ghosts, mirrors) before each
    trial's clock, so the results are one trial's (a trial from the updated graph would add
    the stream's edges twice, and PageRank would tell)."""
    path, updates, _ = cases["rmat"]
    argv = [sys.executable, "-m", "starc", "run", str(DYNAMIC / "dyn_pr.sp"), "-b", "mpi",
            "--np", "3", "--oversubscribe", "--batchSize", "5", "--graph", str(path),
            "--updates", str(updates), *(f"--{k}={v}" for k, v in PR.items())]
    once = subprocess.run(argv, capture_output=True, text=True)
    thrice = subprocess.run(argv + ["--trials", "3", "--time"], capture_output=True, text=True)
    assert once.returncode == 0 and thrice.returncode == 0, (once.stderr, thrice.stderr)
    assert thrice.stderr.count("starc-time ") == 3
    # the slowest rank's time applying the batches, a part of the slowest rank's time in the
    # Batch loop, itself a part of the slowest rank's starc-time
    times, updates_times, batch_times = (
        [float(line.split()[1]) for line in thrice.stderr.splitlines()
         if line.startswith(tag + " ")]
        for tag in ("starc-time", "starc-update-time", "starc-batch-time"))
    assert len(updates_times) == len(batch_times) == 3 and all(
        0 < u < b < t for u, b, t in zip(updates_times, batch_times, times))
    ranks = [line for line in once.stdout.splitlines() if line.startswith("pageRank ")]
    assert ranks and ranks == [line for line in thrice.stdout.splitlines()
                               if line.startswith("pageRank ")]


#: 12 vertices in cycles (0 1 2, 4 5, 6 7, 9 10 11) and self-loops (3, 8) that no rank
#: boundary cuts at 2, 3 or 4 ranks (3 | 6 | 9, 4 | 8, 6), so no rank starts with a peer, and
#: a stream whose every batch of one update adds or deletes an edge across ranks: each makes
#: or retires ghosts and so changes some ranks' peers (a new distributed-graph communicator)
ISLANDS = "0 1 2\n1 2 1\n2 0 3\n3 3 1\n4 5 2\n5 4 1\n6 7 4\n7 6 1\n8 8 1\n9 10 2\n10 11 1\n11 9 3\n"
CROSSING = "a 1 10 1\nd 1 10\na 2 6 2\nd 2 6\na 10 1 1\na 7 2 3\nd 10 1\nd 7 2\na 0 6 1\n"


@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_communicators_of_changed_peers_are_freed_across_batches_and_trials(tmp_path, ranks):
    """Issue 31: a part laid out again after a batch whose peers changed gets a new peers'
    communicator; the old one goes with its last user (the input distribution each --trials
    run restores holds one too). With 3 trials of 9 batches the results are the reference's
    and --stats counts at most three live communicators per rank (every rank's, the current
    peers', the input's peers'), where one per changed batch and trial accumulated before."""
    graph, updates = tmp_path / "islands.el", tmp_path / "crossing.updates"
    graph.write_text(ISLANDS)
    updates.write_text(CROSSING)
    expected = _compiled("dyn_sssp", "reference").run(graph, updates=str(updates),
                                                      batchSize=1, src="0")
    out = tmp_path / "mpi.txt"
    proc = subprocess.run([sys.executable, "-m", "starc", "run", str(DYNAMIC / "dyn_sssp.sp"),
                           "-b", "mpi", "--np", str(ranks), "--oversubscribe", "--trials", "3",
                           "--stats", "--graph", str(graph), "--updates", str(updates),
                           "--batchSize", "1", "--src", "0", "--out", str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    actual = parse_results(out.read_text())
    problems = compare_results(dataclasses.replace(expected, props={"dist": expected.props["dist"]}),
                               dataclasses.replace(actual, props={"dist": actual.props["dist"]}))
    assert not problems, "\n".join(problems)
    live = [int(field.split("=")[1]) for line in proc.stderr.splitlines()
            if line.startswith("starc-mpi-stats") for field in line.split()
            if field.startswith("communicators=")]
    assert len(live) == ranks and max(live) <= 3, proc.stderr
