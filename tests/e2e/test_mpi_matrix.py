"""The MPI column of the matrix: every dsl program x the small graphs x 1-4 ranks, pairwise
(graphs with fewer vertices than ranks included), every program and every graph with 5-8 ranks
(pairwise, oversubscribed), hypothesis graphs with 2 and 3 ranks, and the communication plan
seen through --stats: one message per rank pair per phase, one entry per vertex per
superstep."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest
import numpy as np
from hypothesis import HealthCheck, example, given, settings

from starc.graphs import Graph, load_graph, write_mtx
from starc.graphs.generators import grid, uniform

from e2e_cases import PROGRAMS, small_graphs
from pairwise import all_pairs
from test_matrix import _check, compiled, edge_lists, graph_files  # noqa: F401 (a fixture)

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "reference"))
import reference_oracles as oracles  # noqa: E402  (the oracle module of tests/reference)

pytestmark = pytest.mark.mpi

RANKS = (1, 2, 3, 4)
#: Rank counts run pairwise rather than as the full cross product (CI time): with each, every
#: graph once and every program at least once (graph i runs program i + ranks, mod their
#: number), so each (program, ranks) and (graph, ranks) pair is covered; the pairwise matrix
#: above covers each (program, graph) pair.
MORE_RANKS = (5, 6, 7, 8)


#: programs x graphs x 1-4 ranks pairwise, not the full product (CI time: each case is an
#: mpirun and a reference run): every program on every graph, each pair with one rank count,
#: and every program and every graph with each of 1-4 ranks.
MATRIX = all_pairs(list(PROGRAMS), list(small_graphs()), RANKS)


@pytest.mark.parametrize("program, graph, ranks", MATRIX,
                         ids=[f"{p}-{g}-{r}" for p, g, r in MATRIX])
def test_matrix(program, graph, ranks, graph_files):
    path = graph_files[graph]
    _check(program, "mpi", path, load_graph(str(path)).num_nodes, ranks)


def _pairwise():
    programs, graphs = list(PROGRAMS), list(small_graphs())
    assert len(graphs) >= len(programs)     # (or a program would miss a rank count)
    for ranks in MORE_RANKS:
        for i, graph in enumerate(graphs):
            program = programs[(i + ranks) % len(programs)]
            yield pytest.param(program, graph, ranks, id=f"{program}-{graph}-{ranks}")


@pytest.mark.parametrize("program, graph, ranks", list(_pairwise()))
def test_more_ranks_pairwise(program, graph, ranks, graph_files):
    path = graph_files[graph]
    _check(program, "mpi", path, load_graph(str(path)).num_nodes, ranks)


@pytest.mark.parametrize("ranks", (2, 3))
@pytest.mark.parametrize("program", ["sssp", "cc", "bfs", "tc", "kcore", "pr"])
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(graph=edge_lists())
# Found by CI: on this graph 2 ranks took different BFS directions (each read its own slot
# count for g.num_edges()), waited in different collectives and hung.
@example(graph=Graph.from_edges(
    8, np.array([0, 1, 2, 2, 2, 3, 3, 3, 4, 5, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7]),
    np.array([4, 3, 1, 4, 4, 2, 2, 7, 7, 0, 0, 1, 3, 6, 7, 7, 1, 1, 5, 5, 7, 7]),
    np.array([78, 100, 86, 26, 20, 16, 30, 100, 82, 14, 32, 56, 35, 24, 62, 90, 100, 8, 93,
              68, 18, 73], dtype=np.float64), True, "diverged"))
def test_generated_graphs(program, ranks, graph, tmp_path):
    path = tmp_path / "g.mtx"        # .mtx keeps the vertex count of isolated vertices
    write_mtx(graph, path)
    _check(program, "mpi", path, graph.num_nodes, ranks)


def _stats_run(program: str, ranks: int, path, params, extra=()) -> str:
    """The standard error of the program run with --stats (``extra``: more of its options)."""
    built = compiled(program, "mpi", ranks)
    if built._built is None:
        built.run(path, **params)       # builds once (cached)
    argv = (built.launcher + built._built.argv_prefix + [str(path), "--stats", *extra]
            + [x for k, v in params.items() for x in (f"--{k}", str(v))])
    proc = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stderr


def _parsed_stats(stderr: str, ranks: int) -> list:
    """Per rank, the key=value pairs of its --stats line in ``stderr``."""
    lines = [line for line in stderr.splitlines() if line.startswith("starc-mpi-stats")]
    assert len(lines) == ranks, stderr
    return [dict(re.findall(r"(\w+)=(\d+)", line)) for line in lines]


def _stats(program: str, ranks: int, path, params, extra=()) -> list:
    """Per rank, the key=value pairs of the program's --stats line."""
    return _parsed_stats(_stats_run(program, ranks, path, params, extra), ranks)


@pytest.mark.parametrize("program", ["sssp", "pr", "bc", "cc"])
def test_messages_are_aggregated_and_combined(program, graph_files):
    params = PROGRAMS[program].params_for(64)
    stats = _stats(program, 3, graph_files["rmat"], params)
    for rank in stats:
        supersteps = int(rank["supersteps"])
        assert supersteps > 0
        # at most one message to each rank per phase (updates, refreshes) of a superstep
        assert int(rank["max_pair_messages_per_superstep"]) <= 2
        # every vertex's updates combined into one entry per superstep
        assert int(rank["max_entries_per_vertex"]) <= 1
        assert int(rank["exchanges"]) <= 2 * supersteps
    assert sum(int(rank["messages"]) for rank in stats) > 0     # the ranks did talk


def test_a_superstep_waits_once_per_exchange(tmp_path):
    """A superstep's exchange is one round of messages that carry their sizes, not a round of
    byte counts and then one of data (each round a point where a rank waits for its peers),
    and where that round reaches every rank it carries the scalars too, which then need no
    MPI_Allreduce. A BFS on a mesh cut by a row makes one superstep per level, top-down ones
    with both phases (updates, refreshes) and the frontier's scalars: with 2 ranks, each
    rank's only peer is the other one; with 3, the end ranks share no ghosts, so the scalars
    take an MPI_Allreduce. Either way the levels are the oracle's."""
    rows, cols = 60, 12
    path = tmp_path / "mesh.mtx"
    mesh = grid(rows, cols)
    write_mtx(mesh, path)
    params = PROGRAMS["bfs"].params_for(rows * cols)
    for ranks in (2, 3):
        for rank in _stats("bfs", ranks, path, params):
            exchanges, reductions = int(rank["exchanges"]), int(rank["reductions"])
            assert exchanges > int(rank["supersteps"]) > rows // 2 and reductions > 0, rank
            assert int(rank["rounds"]) == exchanges + (0 if ranks == 2 else reductions), rank
        _check("bfs", "mpi", path, rows * cols, ranks)


def test_stats_give_peak_memory_and_bytes_per_superstep(graph_files):
    """--stats also prints each rank's resident high-water mark and what one superstep sent
    (the mean and the largest), the figures the issue's memory and communication goals use."""
    stats = _stats("sssp", 2, graph_files["rmat"], PROGRAMS["sssp"].params_for(64))
    for rank in stats:
        assert int(rank["peak_memory_bytes"]) > 1 << 20     # an MPI process takes megabytes
        supersteps, sent = int(rank["supersteps"]), int(rank["bytes"])
        assert int(rank["bytes_per_superstep"]) == sent // supersteps
        assert int(rank["bytes_per_superstep"]) <= int(rank["max_superstep_bytes"]) <= sent
    assert any(int(rank["max_superstep_bytes"]) > 0 for rank in stats)


def test_stats_split_the_supersteps_time(graph_files):
    """--stats splits each rank's superstep time into its kernels, the runtime's own work and
    its MPI calls (transfers and waiting): all inside the timed trials, so on every rank their
    sum is at most the trials' times (each the slowest rank's), and the kernels took some."""
    stderr = _stats_run("sssp", 2, graph_files["rmat"], PROGRAMS["sssp"].params_for(64),
                        ("--time", "--trials", "3"))
    trials = [float(line.split()[1]) for line in stderr.splitlines()
              if line.startswith("starc-time ")]
    assert len(trials) == 3
    stats = _parsed_stats(stderr, 2)
    for rank in stats:
        spent = sum(int(rank[key]) for key in ("kernel_us", "runtime_us", "mpi_us"))
        assert spent <= sum(trials) * 1e6 + 3, (rank, trials)    # + the microseconds rounded
    assert sum(int(rank["kernel_us"]) for rank in stats) > 0


@pytest.mark.parametrize("ranks", [1, 3])
def test_stats_give_the_supersteps_balance(graph_files, ranks):
    """--stats ends with one balance line: every superstep's work (CPU time, less MPI calls')
    summed over the ranks, and the sum over the supersteps of the slowest rank's, the bound a
    run with a core per rank cannot beat. It lies between the work / ranks and the work, and
    equals the work on one rank."""
    stderr = _stats_run("sssp", ranks, graph_files["rmat"], PROGRAMS["sssp"].params_for(64),
                        ("--trials", "2"))
    lines = [line for line in stderr.splitlines() if line.startswith("starc-mpi-balance ")]
    assert len(lines) == 1, stderr
    balance = dict(word.split("=", 1) for word in lines[0].split()[1:])
    work, critical = int(balance["work_us"]), int(balance["critical_us"])
    kernel_work, kernel_critical = int(balance["kernel_work_us"]), int(balance["kernel_critical_us"])
    assert int(balance["ranks"]) == ranks
    assert [int(balance["supersteps"])] * ranks == \
        [int(rank["supersteps"]) for rank in _parsed_stats(stderr, ranks)]
    assert 0 < critical <= work <= ranks * critical + ranks     # + the microseconds rounded
    assert kernel_critical <= critical and kernel_work <= work
    assert 0 < float(balance["balance"]) <= 1.0
    if ranks == 1:
        assert (critical, float(balance["balance"])) == (work, 1.0)


@pytest.mark.parametrize("ranks", [1, 3])
def test_the_balance_counts_the_renumbering_as_a_phase(graph_files, ranks):
    """The ordered triangle count renumbers the graph by degree inside each timed trial, with
    the fetch of its ghost rows' slices: a collective phase outside the supersteps, which the
    balance line counts in the work and the critical path (without it, tc's bound left out a
    part that did not shrink with the ranks; bench/RESULTS.md, session 57). A program that
    renumbers nothing has no phase."""
    stderr = _stats_run("tc", ranks, graph_files["rmat"], {},
                        ("--undirected", "--trials", "2", "--degree-order", "always"))
    balance = dict(word.split("=", 1) for word in stderr.splitlines()[-1].split()[1:])
    assert stderr.splitlines()[-1].startswith("starc-mpi-balance "), stderr
    work, critical = int(balance["work_us"]), int(balance["critical_us"])
    phase_work, phase_critical = int(balance["phase_work_us"]), int(balance["phase_critical_us"])
    assert int(balance["phases"]) == 2 and int(balance["supersteps"]) == 2   # one each a trial
    assert 0 < phase_critical <= phase_work <= ranks * phase_critical + ranks  # (rounding)
    assert phase_critical + int(balance["kernel_critical_us"]) <= critical + 1
    assert phase_work + int(balance["kernel_work_us"]) <= work + 1
    if ranks == 1:
        assert (critical, phase_critical) == (work, phase_work)
    other = _stats_run("sssp", ranks, graph_files["rmat"], PROGRAMS["sssp"].params_for(64))
    assert " phases=0 phase_work_us=0 phase_critical_us=0" in other.splitlines()[-1]


def _write_sparse_mtx(path, num_nodes: int, ring: int) -> None:
    """A weighted .mtx of ``num_nodes`` vertices whose only edges are a ring over the first
    ``ring`` vertices and one edge from the last vertex: the vertex count dominates."""
    lines = ["%%MatrixMarket matrix coordinate integer general",
             f"{num_nodes} {num_nodes} {ring + 1}"]
    lines += [f"{i + 1} {(i + 1) % ring + 1} {i % 7 + 1}" for i in range(ring)]
    lines.append(f"{num_nodes} 1 3")
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("program", list(PROGRAMS))
def test_no_rank_holds_a_vertex_count_long_array(program, tmp_path):
    """Each rank holds per-vertex arrays of its own vertices and ghosts only (the local index
    space): where the vertex count dominates (1 M vertices, 9 edges), a rank's peak
    memory above the process's own floor (MPI, the program: the same run on a 2-vertex graph)
    is within 1.25x of the 1-rank figure divided by the ranks. One n-long float array on a
    rank (4 MB) exceeds the bound, as the full-length replicas of before did. (1 M vertices,
    not 2 M, for CI time: every figure scales with n, so the headroom under the bound is the
    same part of such an array, about two thirds, e.g. pr's 2.7 MB of 4 MB; 5.0 of 8 at 2 M.)"""
    case = PROGRAMS[program]
    ranks, num_nodes = 4, 1_000_000
    tiny, sparse = tmp_path / "tiny.mtx", tmp_path / "sparse.mtx"
    _write_sparse_mtx(tiny, 2, 1)
    _write_sparse_mtx(sparse, num_nodes, 8)
    extra = ["--out", os.devnull] + (["--undirected"] if case.undirected else [])

    def peak(ranks: int, path, vertices: int) -> int:
        stats = _stats(program, ranks, path, case.params_for(vertices), extra)
        return max(int(rank["peak_memory_bytes"]) for rank in stats)

    one = peak(1, sparse, num_nodes) - peak(1, tiny, 2)
    each = peak(ranks, sparse, num_nodes) - peak(ranks, tiny, 2)
    assert each <= 1.25 * one / ranks, (
        f"{program}: a rank's peak at {ranks} ranks is {each / 1e6:.1f} MB above its floor, "
        f"more than 1.25 x {one / 1e6:.1f} MB / {ranks} (1 rank): an n-long array?")


@pytest.mark.parametrize("ranks", (2, 3))
def test_pagerank_sends_values_only_in_the_ghost_order(ranks, graph_files):
    """pr's term kernel stores every own vertex's term: each of its supersteps sends every
    mirror's float and nothing else (no vertex names, no counts), so the ranks' bytes are
    the ghosts' count x 4 per iteration; the diff superstep sends nothing but its Allreduce."""
    stats = _stats("pr", ranks, graph_files["rmat"], PROGRAMS["pr"].params_for(64))
    iterations = int(stats[0]["supersteps"]) // 2
    ghosts = sum(int(rank["ghosts"]) for rank in stats)
    assert iterations > 0 and ghosts > 0
    assert sum(int(rank["bytes"]) for rank in stats) == iterations * ghosts * 4
    assert all(int(rank["exchanges"]) == iterations for rank in stats)
    # nothing to compare: no values are kept before the kernels
    assert all(int(rank["watched_per_superstep"]) == 0 for rank in stats)


def test_min_propagation_has_no_refresh_round(graph_files):
    """sssp's dist is read at ghosts only by its Min: the ghost copies keep the candidates
    sent and the owner's combine is the whole exchange, one round of updates per superstep
    (the refresh round after it is gone)."""
    stats = _stats("sssp", 3, graph_files["rmat"], PROGRAMS["sssp"].params_for(64))
    for rank in stats:
        assert int(rank["exchanges"]) <= int(rank["supersteps"])


def test_cc_runs_supersteps_over_trees_not_rounds_over_edges(graph_files):
    """cc's propagation runs as the runtime's least labels (starc_mpi_components.hpp): after
    the ids' superstep, one superstep per hop of the least labels between the ranks' trees
    and one that finds no change, whatever the graph's diameter; the hub's tree's label
    agreed by one all-reduce besides the supersteps' flags."""
    stats = _stats("cc", 3, graph_files["rmat"], PROGRAMS["cc"].params_for(64))
    supersteps = {int(rank["supersteps"]) for rank in stats}
    assert len(supersteps) == 1 and 3 <= supersteps.pop() <= 4


def test_a_constant_secondary_travels_not(graph_files):
    """sssp's <dist, modified> = <Min(...), True>: an entry is its vertex's name (one byte
    on a graph this small) and its dist; modified's True is stored by the owner where the
    dist won, so each message is its section's header (at most a byte here; a single entry's
    name folded in) and those entries alone: a byte of modified per entry would exceed it."""
    stats = _stats("sssp", 3, graph_files["rmat"], PROGRAMS["sssp"].params_for(64))
    for rank in stats:
        entries, messages = int(rank["entries"]), int(rank["messages"])
        assert 5 * entries <= int(rank["bytes"]) <= 5 * entries + messages
    assert sum(int(rank["entries"]) for rank in stats) > 0


def test_bfs_on_a_mesh_sends_little_more_than_its_values(tmp_path):
    """On a mesh a BFS superstep changes one or two vertices of each array at the cut: a
    section's header folds a single entry's name in, and a section's first name is its
    difference to the previous section's, so the bytes stay within 1.5x of the values sent
    (4 bytes an entry), where a count byte and a two-byte name per entry made 1.73x."""
    rows, cols = 24, 200            # 2 ranks: the cut is a row of 200 (names above 127)
    path = tmp_path / "mesh.mtx"
    write_mtx(grid(rows, cols), path)
    _check("bfs", "mpi", path, rows * cols, 2)
    stats = _stats("bfs", 2, path, PROGRAMS["bfs"].params_for(rows * cols))
    entries = sum(int(rank["entries"]) for rank in stats)
    sent = sum(int(rank["bytes"]) for rank in stats)
    assert entries > 0 and sent <= 1.5 * 4 * entries, f"{sent} bytes for {entries} entries"


@pytest.mark.parametrize("ranks", (1, 2, 4))
def test_dense_refreshes_send_a_bitmap_instead_of_names(ranks, tmp_path):
    """In a BFS on a random graph most of a rank's ghosts change in one or two supersteps: a
    refresh section is then a bitmap over the pair's shared list (a bit a ghost) and the
    values, no name per entry. Named sections cost at least 5 bytes an entry (a name byte and
    the 4-byte level); the bitmaps bring the whole run (updates' named sections included)
    below 4.6. The levels are the oracle's, on one rank too (no mirrors to mark: an index
    over none once crashed it)."""
    graph = uniform(500, 16, seed=1)
    path = tmp_path / "uniform.mtx"
    write_mtx(graph, path)
    _check("bfs", "mpi", path, graph.num_nodes, ranks)
    stats = _stats("bfs", ranks, path, PROGRAMS["bfs"].params_for(graph.num_nodes))
    entries = sum(int(rank["entries"]) for rank in stats)
    sent = sum(int(rank["bytes"]) for rank in stats)
    if ranks > 1:
        assert entries > graph.num_nodes // 2 and sent < 4.6 * entries, f"{sent} bytes for {entries} entries"


def test_a_superstep_keeps_only_the_values_it_compares(tmp_path):
    """A BFS superstep finds what to send by comparing values with those before the kernel:
    it keeps them only at the ghosts its updates may write and at the distinct mirrors its
    refreshes send (bfs_level at both, level at the mirrors), not whole arrays. On a mesh cut
    by a row of 200 vertices, that is at most 2 x (ghosts + mirrors) values per superstep,
    far fewer than a rank's 2400 own vertices (whole arrays: 2 x 2600 local vertices). A
    step's scalars (the frontier's size, and its edges while top-down) are one reduction: one
    per depth, the last reaching nobody; the other supersteps (a frontier's pending B1 before
    a bottom-up step that follows a top-down one, analysis/bfs.py) reduce nothing."""
    rows, cols = 24, 200
    path = tmp_path / "mesh.mtx"
    mesh = grid(rows, cols)
    write_mtx(mesh, path)
    params = PROGRAMS["bfs"].params_for(rows * cols)
    steps = int(oracles.bfs_levels(mesh, int(params["src"])).max()) + 1
    stats = _stats("bfs", 2, path, params)
    for rank in stats:
        watched, owned = int(rank["watched_per_superstep"]), int(rank["owned"])
        assert 0 < watched <= 2 * (int(rank["ghosts"]) + int(rank["mirrors"])) < owned, rank
        assert int(rank["reductions"]) == steps <= int(rank["supersteps"]), rank
