"""The MPI runtime's distribution layer (starc_mpi.hpp) under mpirun with 1-4 ranks.

A driver (runtime_driver.cpp) compiled with mpicxx distributes a graph and writes every rank's
local graph (in its local index space), ghosts and mirrors; they are translated to global ids,
reassembled here and compared with the Python reader (``starc.graphs.load_graph``). Bad files
must give the sequential C++ reader's exact message (the same driver runs
``starc::read_graph`` without MPI), once, with exit status 1.
"""

from __future__ import annotations

import hashlib
import math
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

from starc.backends.common.runtime_paths import RUNTIME_DIR
from starc.graphs import Graph, load_graph, rmat

from pairwise import all_pairs

pytestmark = pytest.mark.mpi

HERE = Path(__file__).resolve().parent
MPI_RUNTIME_DIR = RUNTIME_DIR.parents[1] / "mpi" / "runtime"
MPICXX, MPIRUN = shutil.which("mpicxx"), shutil.which("mpirun")
# As root mpirun needs --allow-run-as-root; the tests start more ranks than there are cores.
MPIRUN_FLAGS = ["--allow-run-as-root", "--oversubscribe", "-q", "--mca", "btl", "self,vader",
                "--bind-to", "none"]


def _build_driver() -> Path:
    """runtime_driver built once per test session, in the session's build cache (keyed by
    its sources and the runtime's headers): this module and test_mpi_binary_graph, and
    pytest-xdist's workers, share one mpicxx build (CI time)."""
    from starc.cachedir import writable_cache_dir
    flags = ["-fopenmp", "-O2", "-std=c++17", "-fwrapv", "-Wall", "-Wextra", "-Werror",
             f"-I{RUNTIME_DIR}", f"-I{MPI_RUNTIME_DIR}"]
    digest = hashlib.sha256(" ".join([MPICXX, *flags]).encode())
    for source in [HERE / "runtime_driver.cpp", *sorted(RUNTIME_DIR.rglob("*")),
                   *sorted(MPI_RUNTIME_DIR.rglob("*"))]:
        if source.is_file():
            digest.update(str(source).encode() + b"\0" + source.read_bytes() + b"\0")
    exe = writable_cache_dir("test-runtime-driver") / f"runtime_driver-{digest.hexdigest()[:16]}"
    if not exe.exists():
        work = Path(tempfile.mkdtemp(dir=exe.parent))
        result = subprocess.run([MPICXX, *flags, str(HERE / "runtime_driver.cpp"), "-o",
                                 str(work / "runtime_driver")], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        os.replace(work / "runtime_driver", exe)     # whole or not at all
        shutil.rmtree(work, ignore_errors=True)
    return exe


@pytest.fixture(scope="module")
def driver() -> Path:
    if MPICXX is None or MPIRUN is None:
        pytest.skip("mpicxx or mpirun not found (Open MPI: apt-get install openmpi-bin libopenmpi-dev)")
    return _build_driver()


def mpirun(driver: Path, ranks: int, *args) -> subprocess.CompletedProcess:
    # The timeout turns a hang (a rank left waiting in a collective) into a failure. stdin is
    # /dev/null, as starc's runner gives it: mpirun forwards its stdin to rank 0. In this file's
    # abort test mpirun itself once died of SIGSEGV and once hung in PMIx_server_finalize (CI,
    # under load): a rank aborted while the others finalized. guarded_main's barrier before
    # MPI_Finalize closes that race (8 of 150 such runs failed under load before it, 0 after).
    return subprocess.run([MPIRUN, *MPIRUN_FLAGS, "-np", str(ranks), str(driver), *map(str, args)],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)


def parse_dump(text: str) -> dict:
    out = {}
    for line in text.splitlines():
        name, *values = line.split()
        if name == "weights":
            out[name] = np.array([float(v) for v in values])
        elif name in ("splits", "offsets", "targets", "sources", "rev_offsets", "rev_sources",
                      "rev_edge_ids", "global_id", "ghosts", "ghost_local", "ghost_displs",
                      "mirrors", "mirror_displs", "out_degree", "in_degree",
                      "global_out_degree", "global_in_degree", "peers"):
            out[name] = np.array([int(v) for v in values], dtype=np.int64)
        else:
            out[name] = int(values[0])
    return out


def distribute(driver, tmp_path, path, ranks, undirected=False, reverse=False, ghost_rows=False,
               global_degrees=False, slices=False, order=0, extra=(), appended=False):
    prefix = tmp_path / f"dump{ranks}"
    args = ["dump", path, "--out", prefix, "--reverse", int(reverse), "--ghostRows", int(ghost_rows),
            "--globalDegrees", int(global_degrees), "--ghostRowSlices", int(slices), "--order", order,
            "--appendedGhosts", int(appended),
            *extra]
    result = mpirun(driver, ranks, *args, *(["--undirected"] if undirected else []))
    assert result.returncode == 0, result.stderr
    return [parse_dump(Path(f"{prefix}.{r}").read_text()) for r in range(ranks)]


def check_distribution(dumps, g, reverse, ghost_rows, global_degrees=False, slices=False,
                       weights=True, kept_ghosts=False, appended=False):
    """Every rank's local graph, in its local index space, against the whole graph g
    (starc.graphs.Graph); no array on a rank is n long unless global degrees were asked for.
    With ``slices`` a ghost's row holds only what a search from below needs: ghosts below the
    rank's first vertex, their entries at or above it that the rank knows (no far vertices).
    ``weights``: whether the ranks keep the edge weights; ``kept_ghosts``: a rank may hold
    ghosts no edge reaches any more (updates applied in place keep them); ``appended``: the
    ghosts batches brought took the next local ids (Needs::appended_ghosts), so the local ids
    leave global-id order and rows and in-rows are sorted by local id (compared by global id
    after a stable sort)."""
    n, ranks = g.num_nodes, len(dumps)
    offsets, targets = np.asarray(g.offsets), np.asarray(g.targets)
    weights = None if g.weights is None or not weights else np.asarray(g.weights)
    rev_offsets, rev_sources = np.asarray(g.rev_offsets), np.asarray(g.rev_sources)
    rev_edge_ids = np.asarray(g.rev_edge_ids)
    out_degree, in_degree = np.diff(offsets), np.diff(rev_offsets)
    splits = dumps[0]["splits"]
    assert splits[0] == 0 and splits[-1] == n and np.all(np.diff(splits) >= 0)
    for r, d in enumerate(dumps):
        first, last = d["first"], d["last"]
        assert (d["rank"], d["ranks"], first, last) == (r, ranks, splits[r], splits[r + 1])
        np.testing.assert_array_equal(d["splits"], splits)
        assert (d["num_nodes"], d["global_edges"]) == (n, g.num_edges)
        assert d["has_weights"] == int(g.has_weights)
        assert d["weights_integral"] == int(g.weights_integral)
        # The local index space: owned vertices and the others the rank knows, in id order.
        gid = d["global_id"]
        L = d["local_nodes"]
        assert gid.size == L
        assert np.unique(gid).size == L if appended else np.all(np.diff(gid) > 0)
        local_of = {int(u): v for v, u in enumerate(gid.tolist())}

        def in_global_order(column, begin, end):  # a row's (in-row's) slots, by global id
            at = np.arange(begin, end)
            if appended:   # sorted by local id: the stable order of their global ids
                assert np.all(np.diff(d[column][at]) >= 0)
                at = at[np.argsort(gid[d[column][at]], kind="stable")]
            return at
        own_begin, own_end = d["own_begin"], d["own_end"]
        np.testing.assert_array_equal(gid[own_begin:own_end], np.arange(first, last))
        owned = set(range(first, last))
        expected_ghosts = {int(t) for t in targets[offsets[first]:offsets[last]]}
        if reverse:
            expected_ghosts |= {int(s) for s in rev_sources[rev_offsets[first]:rev_offsets[last]]}
        ghosts = sorted(expected_ghosts - owned)
        if kept_ghosts:
            assert set(ghosts) <= set(d["ghosts"].tolist()) and np.all(np.diff(d["ghosts"]) > 0)
            assert not owned & set(d["ghosts"].tolist())
            ghosts = d["ghosts"].tolist()
        else:
            assert d["ghosts"].tolist() == ghosts
        if slices:
            assert L == len(owned) + len(ghosts)
        np.testing.assert_array_equal(gid[d["ghost_local"]], d["ghosts"])
        owner = np.searchsorted(splits, d["ghosts"], side="right") - 1
        for s in range(ranks):
            assert np.all(owner[d["ghost_displs"][s]:d["ghost_displs"][s + 1]] == s)
        # Degrees of owned vertices and ghosts, whatever rows the rank holds.
        known = np.concatenate([np.arange(own_begin, own_end), d["ghost_local"]]).astype(np.int64)
        np.testing.assert_array_equal(d["out_degree"][known], out_degree[gid[known]])
        np.testing.assert_array_equal(d["in_degree"][known], in_degree[gid[known]])
        if global_degrees:
            np.testing.assert_array_equal(d["global_out_degree"], out_degree)
            np.testing.assert_array_equal(d["global_in_degree"], in_degree)
        else:   # nothing n long
            assert d["global_out_degree"].size == d["global_in_degree"].size == 0
            assert d["offsets"].size == L + 1 and d["out_degree"].size == L
        # Rows: owned rows always, ghost rows when asked for, every other row empty.
        local = d["offsets"]
        assert d["owned_begin"] == local[own_begin] and d["edge_base"] == offsets[first]
        assert d["owned_edges"] == offsets[last] - offsets[first]
        # --stats' cut: own out-edges (and in-edges, when read) another rank's vertex ends
        own_targets = targets[offsets[first]:offsets[last]]
        cut = np.count_nonzero((own_targets < first) | (own_targets >= last))
        if reverse:
            own_sources = rev_sources[rev_offsets[first]:rev_offsets[last]]
            cut += np.count_nonzero((own_sources < first) | (own_sources >= last))
        assert d["cut_edges"] == cut, f"rank {r}: cut_edges of the partition it holds"
        with_rows = owned | (set(ghosts) if ghost_rows else set())
        for v in range(L):
            begin, end = local[v], local[v + 1]
            u = int(gid[v])
            if u not in with_rows:
                assert begin == end, f"rank {r}: row of {u} should be empty"
                continue
            want = slice(offsets[u], offsets[u + 1])
            if slices and u not in owned:
                known = owned | set(ghosts)
                row = [t for t in targets[want].tolist() if u < first and t >= first and t in known]
                assert gid[d["targets"][begin:end]].tolist() == row, f"rank {r}: slice of {u}"
                continue
            row = in_global_order("targets", begin, end)
            np.testing.assert_array_equal(gid[d["targets"][row]], targets[want])
            if d["sources"].size:
                assert np.all(d["sources"][begin:end] == v)
            if weights is not None:
                np.testing.assert_array_equal(d["weights"][row], weights[want])
        copies = d["num_edges"] - local[L]
        assert copies >= 0 and (copies == 0 or reverse)
        # Reverse rows of the vertices with rows (owned, and ghosts with ghost rows: a
        # neighbour's in-row): same in-edges, each slot holding that very edge.
        in_copies = 0
        if not reverse:
            assert d["rev_sources"].size == 0 and np.all(d["rev_offsets"] == 0)
            continue
        for v in range(L):
            got = slice(d["rev_offsets"][v], d["rev_offsets"][v + 1])
            u_v = int(gid[v])
            if u_v not in with_rows:
                assert got.start == got.stop
                continue
            want = slice(rev_offsets[u_v], rev_offsets[u_v + 1])
            got = in_global_order("rev_sources", got.start, got.stop)
            np.testing.assert_array_equal(gid[d["rev_sources"][got]], rev_sources[want])
            for slot, edge in zip(d["rev_edge_ids"][got].tolist(), rev_edge_ids[want].tolist()):
                u = int(gid[d["sources"][slot]])
                assert (u, gid[d["targets"][slot]]) == (g.sources[edge], u_v)
                if weights is not None:
                    assert d["weights"][slot] == weights[edge]
                if slot < local[L]:  # in a row: the row's position is the global edge id
                    lu = local_of[u]   # (in the row's order by global id, where appended)
                    row = in_global_order("targets", local[lu], local[lu + 1])
                    place = int(np.nonzero(row == slot)[0][0])
                    assert place + offsets[u] == edge
                else:   # a copy of an edge whose source's row this rank does not hold
                    assert u not in with_rows
                    in_copies += 1
        assert in_copies == copies
    for r, d in enumerate(dumps):  # mirrors: what each other rank holds as ghosts of ours
        for s in range(ranks):
            theirs = dumps[s]["ghosts"][dumps[s]["ghost_displs"][r]:dumps[s]["ghost_displs"][r + 1]]
            np.testing.assert_array_equal(
                d["mirrors"][d["mirror_displs"][s]:d["mirror_displs"][s + 1]], theirs)
        if not d["ordered"]:  # the ranks it shares ghosts with, either way (order_by_degree's
            # are every rank: a superset)
            shared = [s for s in range(ranks) if s != r and (
                d["ghost_displs"][s + 1] > d["ghost_displs"][s]
                or d["mirror_displs"][s + 1] > d["mirror_displs"][s])]
            assert d["peers"].tolist() == shared, f"rank {r}: peers"


def _random_edge_list(seed: int, n: int, m: int) -> str:
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    dst[: m // 10] = src[: m // 10]  # self-loops
    src[m // 5: m // 3], dst[m // 5: m // 3] = src[: m // 3 - m // 5], dst[: m // 3 - m // 5]
    weights = rng.integers(-50, 50, m) / 4
    lines = [f"{a} {b} {w!r}" for a, b, w in zip(src.tolist(), dst.tolist(), weights.tolist())]
    lines.insert(m // 2, "# a comment in the middle")
    return "\n".join(lines) + "\n"


GRAPHS = {
    "empty.el": "",
    "only_comments.el": "# nothing\n\n% here\n",
    "one_vertex.el": "0 0\n",
    "fewer_vertices_than_ranks.el": "1 0\n",
    "loops_and_duplicates.el": "0 3\n3 0\n0 3\n5 5\n0 3\n2 2\n",
    "weighted_comments.el": "# h\n0 1 2\n\n1 0 3.5\n1\t0 1\n2 2 4\n0 1 7\r\n3 0 -1.25e1\n  \n",
    "no_final_newline.el": "0 1 5\n1 2 -3\n2 0 +7",
    "general.mtx": ("%%MatrixMarket matrix coordinate integer general\n% c\n5 5 5\n"
                    "1 2 10\n\n2 3 -4\n3 1 6\n1 2 3\n5 5 1\n"),
    "symmetric.mtx": ("%%MatrixMarket matrix coordinate real symmetric\n% comment\n4 4 5\n"
                      "2 1 1.5\n3 3 2\n4 1 4\n4 2 -0.25\n2 1 9\n"),
    "symmetric_pattern.mtx": "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 4\n2 1\n1 2\n3 3\n2 1\n",
    "random.el": _random_edge_list(7, 60, 700),
}


#: graphs x directed/undirected x 1-4 ranks pairwise, not the full product (CI time: each
#: case is an mpirun): every graph with every rank count and both ways of reading, and every
#: rank count both ways.
DISTRIBUTION_CASES = [
    pytest.param(name, undirected, ranks,
                 id=f"{name}-{'undirected' if undirected else 'directed'}-{ranks}")
    for name, undirected, ranks in all_pairs(sorted(GRAPHS), [False, True], [1, 2, 3, 4])]


@pytest.mark.parametrize("name, undirected, ranks", DISTRIBUTION_CASES)
def test_distribution_reassembles_the_graph(driver, tmp_path, name, undirected, ranks):
    path = tmp_path / name
    path.write_text(GRAPHS[name], newline="")
    g = load_graph(str(path), undirected=undirected)
    dumps = distribute(driver, tmp_path, path, ranks, undirected, reverse=True, ghost_rows=True)
    check_distribution(dumps, g, reverse=True, ghost_rows=True)


@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reverse"])
@pytest.mark.parametrize("name", ["random.el", "symmetric.mtx", "loops_and_duplicates.el"])
def test_distribution_without_ghost_rows(driver, tmp_path, name, reverse):
    path = tmp_path / name
    path.write_text(GRAPHS[name], newline="")
    g = load_graph(str(path))
    # (with in-rows, every vertex's degrees too: Needs::global_degrees)
    dumps = distribute(driver, tmp_path, path, 3, reverse=reverse, global_degrees=reverse)
    check_distribution(dumps, g, reverse=reverse, ghost_rows=False, global_degrees=reverse)


@pytest.mark.parametrize("ranks", [1, 2, 3, 5])
@pytest.mark.parametrize("name", ["random.el", "symmetric_pattern.mtx"])
def test_searched_slices_of_ghost_rows(driver, tmp_path, name, ranks):
    """Needs::ghost_row_slices (the ordered triangle count): only ghosts below a rank's
    vertices get rows, each only its entries from the rank's first vertex up that it knows."""
    path = tmp_path / name
    path.write_text(GRAPHS[name], newline="")
    g = load_graph(str(path), undirected=True)
    dumps = distribute(driver, tmp_path, path, ranks, True, ghost_rows=True, slices=True)
    check_distribution(dumps, g, reverse=False, ghost_rows=True, slices=True)


def _by_degree(g):
    """``g`` renumbered by ascending degree, ties by id, as every backend renumbers."""
    old = np.argsort(np.diff(np.asarray(g.offsets)), kind="stable")     # new id -> old id
    new = np.empty_like(old)
    new[old] = np.arange(g.num_nodes)
    return Graph.from_edges(g.num_nodes, new[np.asarray(g.sources)], new[np.asarray(g.targets)])


def _symmetric_simple_text(seed: int, n: int, m: int, both_ways: bool) -> str:
    rng = np.random.default_rng(seed)
    hubs = rng.integers(0, 4, m)                      # skewed: a few vertices hold most edges
    others = rng.integers(0, n, m)
    pairs = {(min(a, b), max(a, b)) for a, b in zip(hubs.tolist(), others.tolist()) if a != b}
    pairs |= {(v, v + 1) for v in range(4, n - 1)}
    edges = sorted(pairs) + (sorted((b, a) for a, b in pairs) if both_ways else [])
    return "".join(f"{a} {b}\n" for a, b in edges)


@pytest.mark.parametrize("ranks", [1, 2, 3, 4, 7])
@pytest.mark.parametrize("how", ["undirected", "both_ways"])
def test_renumbering_by_degree_redistributes_the_graph(driver, tmp_path, how, ranks):
    """order_by_degree: the ranks hold the distribution of the graph renumbered by degree (the
    reader's mirrors, or a file that lists both directions: checked by an exchange), with the
    slices of ghost rows; a second call starts again from the file's ids (--trials)."""
    path = tmp_path / "g.el"
    path.write_text(_symmetric_simple_text(5, 90, 400, how == "both_ways"))
    g = load_graph(str(path), undirected=how == "undirected")
    for calls in (1, 2):
        dumps = distribute(driver, tmp_path, path, ranks, how == "undirected", ghost_rows=True,
                           slices=True, order=calls)
        assert all(d["ordered"] == 1 for d in dumps)
        check_distribution(dumps, _by_degree(g), reverse=False, ghost_rows=True, slices=True)


@pytest.mark.parametrize("ranks", [3, 4, 7])
def test_the_renumbering_counts_the_slices_it_fetches(driver, tmp_path, ranks):
    """Of the slices of ghost rows below, the renumbering fetches from the ghosts' owners only
    the entries above the rank's own range (those in it are the own rows' own entries), and
    --stats' ghost_row_edges counts them after the distribution's own: all of a ghost's row
    above the range, of which the rank keeps the entries it holds as ghosts (the fetch that
    cost the renumbering most at 8 ranks and more: bench/RESULTS.md, session 57)."""
    path = tmp_path / "g.el"
    path.write_text(_symmetric_simple_text(7, 120, 600, False))
    ordered = _by_degree(load_graph(str(path), undirected=True))
    offsets, targets = np.asarray(ordered.offsets), np.asarray(ordered.targets)
    before = distribute(driver, tmp_path, path, ranks, True, ghost_rows=True, slices=True)
    after = distribute(driver, tmp_path, path, ranks, True, ghost_rows=True, slices=True,
                       order=1)
    total = 0
    for d0, d1 in zip(before, after):
        gid, local = d1["global_id"], d1["offsets"]
        below = gid[:d1["own_begin"]]
        sent = sum(int(np.count_nonzero(targets[offsets[u]:offsets[u + 1]] >= d1["last"]))
                   for u in below)
        kept = sum(int(np.count_nonzero(gid[d1["targets"][local[v]:local[v + 1]]] >= d1["last"]))
                   for v in range(d1["own_begin"]))
        assert d1["ghost_row_edges"] - d0["ghost_row_edges"] == sent >= kept, d1["rank"]
        total += kept
    assert total > 0        # (a graph where ghosts below have entries above a rank's range)


def _ordered_count_steps(g) -> np.ndarray:
    """The ordered triangle count's steps at each vertex of ``g`` (ids already by degree),
    counted on the rows themselves: per lower neighbour u of v, a binary search of u's entries
    above v (6 steps per halving) and the walk of v's upper neighbours up to u's largest."""
    offsets, targets = np.asarray(g.offsets), np.asarray(g.targets)
    rows = [np.sort(targets[offsets[v]:offsets[v + 1]]) for v in range(g.num_nodes)]
    steps = np.full(g.num_nodes, 9.0)
    for v, row in enumerate(rows):
        upper = row[row > v]
        for u in row[row < v]:
            above = len(rows[u]) - np.searchsorted(rows[u], v, side="right")
            steps[v] += 6 * math.log2(2 + above) + np.searchsorted(upper, rows[u][-1], side="right")
    return steps


@pytest.mark.parametrize("ranks", [2, 3, 4, 8])
def test_renumbered_ranges_balance_the_ordered_count_on_a_graph_with_hubs(driver, tmp_path, ranks):
    """work_splits estimates each pair's search and walk from degrees alone; on an R-MAT graph
    (hubs) the ranks' counted steps stay within 20% of their mean (at 8 ranks too: 1.17x), where
    ranges balanced by edges put 1.4-1.8x the mean on one rank."""
    rmat_graph = rmat(11, 16, seed=3)
    lo = np.minimum(rmat_graph.sources, rmat_graph.targets)
    hi = np.maximum(rmat_graph.sources, rmat_graph.targets)
    pairs = sorted({(a, b) for a, b in zip(lo.tolist(), hi.tolist()) if a != b})
    path = tmp_path / "hubs.el"
    path.write_text("".join(f"{a} {b}\n" for a, b in pairs))
    ordered = _by_degree(load_graph(str(path), undirected=True))
    prefix = np.concatenate([[0.0], np.cumsum(_ordered_count_steps(ordered))])
    dumps = distribute(driver, tmp_path, path, ranks, True, ghost_rows=True, slices=True, order=1)
    splits = np.asarray(dumps[0]["splits"])
    per_rank = prefix[splits[1:]] - prefix[splits[:-1]]
    assert per_rank.max() <= 1.2 * per_rank.mean(), per_rank
    edges = np.concatenate([[0], np.cumsum(np.diff(np.asarray(ordered.offsets)))])
    by_edges = np.searchsorted(edges, edges[-1] * np.arange(ranks + 1) / ranks)
    edge_balanced = prefix[by_edges[1:]] - prefix[by_edges[:-1]]
    assert edge_balanced.max() > 1.3 * edge_balanced.mean()  # the graph is one where it matters


@pytest.mark.parametrize("name, undirected", [("g.el", False), ("loops_and_duplicates.el", True)])
def test_renumbering_keeps_a_graph_that_is_not_symmetric_and_simple(driver, tmp_path, name,
                                                                   undirected):
    path = tmp_path / name
    path.write_text(GRAPHS.get(name) or _symmetric_simple_text(5, 90, 400, False))
    g = load_graph(str(path), undirected=undirected)
    dumps = distribute(driver, tmp_path, path, 3, undirected, ghost_rows=True, slices=True,
                       order=1)
    assert all(d["ordered"] == 0 for d in dumps)
    check_distribution(dumps, g, reverse=False, ghost_rows=True, slices=True)


def test_partition_is_balanced_by_edges(driver, tmp_path):
    path = tmp_path / "skewed.el"
    # Vertex 0 has 300 edges, the others one each: rank 0 should own little else.
    path.write_text("".join(f"0 {v}\n" for v in range(1, 301)) +
                    "".join(f"{v} 0\n" for v in range(1, 301)))
    dumps = distribute(driver, tmp_path, path, 4)
    owned_edges = [d["owned_edges"] for d in dumps]
    assert sum(owned_edges) == 600
    assert max(owned_edges) <= 600 // 4 + 301  # at most one vertex past the balanced share
    assert dumps[0]["last"] < 10


def test_values_are_streamed_and_read_from_their_owners(driver, tmp_path):
    path = tmp_path / "g.el"
    path.write_text(GRAPHS["random.el"])
    n = load_graph(str(path)).num_nodes
    result = mpirun(driver, 3, "values", path, "--stats")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"# starc results: values backend=mpi graph={path}"
    assert lines[1:n + 1] == [f"x {v} {3 * v + 1}" for v in range(n)]
    expected = " ".join(str(3 * v + 1) for v in range(n))
    assert lines[n + 1:] == [f"return {n}", f"read {expected}", "slowest 2.5"]
    *stats, balance = result.stderr.splitlines()
    assert [line.split()[1] for line in stats] == ["rank=0", "rank=1", "rank=2"]
    assert stats[2].split()[4:5] == ["supersteps=3"] and "bytes=200" in stats[2]
    assert all(line.startswith("starc-mpi-stats rank=") for line in stats)
    # (the driver sets the counters without running a superstep: no work to balance)
    assert balance.split()[:4] == ["starc-mpi-balance", "ranks=3", "supersteps=0", "work_us=0"]
    quiet = mpirun(driver, 2, "values", path)
    assert quiet.returncode == 0 and quiet.stderr == ""


def test_results_stream_in_pieces_without_an_n_long_array(driver, tmp_path):
    """More vertices than one piece of the stream (2^18) per rank: rank 0 writes every rank's
    values in vertex order, receiving them piece by piece."""
    n = 600_000
    path = tmp_path / "wide.el"
    path.write_text(f"0 1\n{n - 1} 0\n")
    out = tmp_path / "out.txt"
    result = mpirun(driver, 2, "values", path, "--out", out)
    assert result.returncode == 0, result.stderr
    lines = out.read_text().splitlines()
    assert len(lines) == n + 2
    assert lines[1] == "x 0 1" and lines[n] == f"x {n - 1} {3 * (n - 1) + 1}"
    assert lines[300_000] == f"x 299999 {3 * 299999 + 1}"


@pytest.mark.parametrize("args, status, fragment", [
    (["--device", "gpu"], 2, "unknown option '--device'"),
    (["--nosuch", "1"], 2, "unknown option '--nosuch'"),
])
def test_usage_errors_are_printed_once(driver, tmp_path, args, status, fragment):
    path = tmp_path / "g.el"
    path.write_text("0 1\n")
    result = mpirun(driver, 3, "values", path, *args)
    assert result.returncode == status
    assert result.stderr.count(fragment) == 1, result.stderr
    assert result.stdout == ""


def _numbered(lines: int, bad_line: int, bad: str) -> str:
    return "".join((bad if k == bad_line else f"{k % 50} {(k * 7) % 50} 1") + "\n"
                   for k in range(1, lines + 1))


BANNER = "%%MatrixMarket matrix coordinate real general\n"
MALFORMED = {
    "non_numeric_id.el": "0 1\n1 x\n",
    "one_column.el": "0 1\n\n7\n",
    "negative_id.el": "0 1\n-1 2\n",
    "id_too_large.el": "0 4294967296\n",
    "non_finite_weight.el": "0 1 2\n1 2 inf\n",
    "late_error.el": _numbered(400, 371, "5 oops 1"),
    "two_errors.el": _numbered(400, 390, "5 oops 1").replace("9 13 1\n", "9 13\n"),
    "weight_missing_far_away.el": _numbered(400, 300, "1 2"),
    "weight_on_a_later_line.el": "# c\n" + "0 1\n" * 200 + "1 2 3\n",
    "too_long_line.el": "0 1\n" * 100 + "1" * (3 << 20) + "\n0 1\n",
    "entry_out_of_range.mtx": BANNER + "3 3 2\n1 2 1\n4 1 1\n",
    "bad_banner.mtx": "%%MatrixMarket matrix array real general\n3 3 0\n",
    "missing_size_line.mtx": BANNER + "% only a comment\n",
    "empty.mtx": "",
    "not_square.mtx": BANNER + "3 4 0\n",
    "too_many_entries.mtx": BANNER + "3 3 150\n" + "1 2 1\n" * 151,
    "too_few_entries.mtx": BANNER + "3 3 300\n" + "1 2 1\n" * 150,
    "integer_field_real_value.mtx": ("%%MatrixMarket matrix coordinate integer general\n2 2 200\n"
                                     + "1 2 1\n" * 150 + "1 2 1.5\n" + "1 2 1\n" * 49),
}


#: Each damaged file with one rank count rather than all of 1, 2 and 4 (CI time: each case
#: is an mpirun), every count with six files: 4 ranks where the error lies late, on a later
#: rank than the first, or on two ranks (which must print it once, the first in the file);
#: 2 where it is on a middle line; 1 where the first lines already fail.
BAD_INPUT_RANKS = {
    "bad_banner.mtx": 1, "empty.mtx": 1, "missing_size_line.mtx": 1, "not_square.mtx": 1,
    "non_numeric_id.el": 1, "negative_id.el": 1,
    "id_too_large.el": 2, "one_column.el": 2, "non_finite_weight.el": 2,
    "entry_out_of_range.mtx": 2, "weight_on_a_later_line.el": 2, "too_few_entries.mtx": 2,
    "late_error.el": 4, "two_errors.el": 4, "weight_missing_far_away.el": 4,
    "too_long_line.el": 4, "too_many_entries.mtx": 4, "integer_field_real_value.mtx": 4,
}


def test_every_damaged_file_has_a_rank_count():
    assert set(BAD_INPUT_RANKS) == set(MALFORMED)
    assert set(BAD_INPUT_RANKS.values()) == {1, 2, 4}


@pytest.mark.parametrize("name, ranks", sorted(BAD_INPUT_RANKS.items()))
def test_bad_input_gives_the_sequential_message_once(driver, tmp_path, name, ranks):
    path = tmp_path / name
    path.write_text(MALFORMED[name])
    sequential = subprocess.run([str(driver), "read", str(path)], capture_output=True, text=True,
                                timeout=60)
    assert sequential.returncode == 1 and sequential.stderr.count("\n") == 1, sequential.stderr
    result = mpirun(driver, ranks, "dump", path, "--out", tmp_path / "dump")
    assert result.returncode == 1, result.stderr
    assert result.stderr == sequential.stderr
    assert result.stdout == ""


def test_missing_file_and_memory_limit(driver, tmp_path, monkeypatch):
    missing = tmp_path / "missing.el"
    result = mpirun(driver, 3, "dump", missing, "--out", tmp_path / "dump")
    assert result.returncode == 1
    assert result.stderr == f"runtime_driver: error: {missing}: cannot open: No such file or directory\n"
    path = tmp_path / "g.el"
    path.write_text(_random_edge_list(3, 50, 300))
    monkeypatch.setenv("STARC_MAX_MEMORY", "30k")  # 21600 bytes directed, 40800 undirected
    assert mpirun(driver, 2, "dump", path, "--out", tmp_path / "dump").returncode == 0
    result = mpirun(driver, 2, "dump", path, "--out", tmp_path / "dump", "--undirected")
    sequential = subprocess.run([str(driver), "read", str(path), "--undirected"],
                                capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "memory" in result.stderr
    assert result.stderr == sequential.stderr


def test_an_error_of_one_rank_aborts_the_job_and_names_the_rank(driver, tmp_path):
    path = tmp_path / "g.el"
    path.write_text("0 1\n1 2\n")
    (tmp_path / "dump.1").mkdir()  # only rank 1 cannot write its dump
    result = mpirun(driver, 3, "dump", path, "--out", tmp_path / "dump")
    assert result.returncode == 3
    assert f"runtime_driver: error: cannot write {tmp_path}/dump.1 (rank 1)" in result.stderr


def test_help_is_printed_once(driver):
    result = mpirun(driver, 3, "dump", "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("usage: ") == 1 and "--ghostRows" in result.stdout


@pytest.mark.parametrize("symmetry", ["general", "symmetric"])
def test_more_edges_than_32_bit_ids_pass_the_size_checks(driver, tmp_path, monkeypatch, symmetry):
    """The global edge count is 64-bit under MPI: a size line that claims 3 * 10^9 entries is
    read on (each rank holds a part), where the sequential reader stops at 32-bit edge ids.
    Nothing that large is allocated: the file's few entries fall short of the claim."""
    path = tmp_path / "huge.mtx"
    path.write_text(f"%%MatrixMarket matrix coordinate pattern {symmetry}\n4 4 3000000000\n"
                    "2 1\n3 2\n")
    monkeypatch.setenv("STARC_MAX_MEMORY", "2T")   # the claim needs ~190 GiB (400 symmetric)
    sequential = subprocess.run([str(driver), "read", str(path)], capture_output=True, text=True,
                                timeout=60)
    assert sequential.returncode == 1
    assert "entry count does not fit in a 32-bit int" in sequential.stderr
    for ranks in (1, 3):
        result = mpirun(driver, ranks, "dump", path, "--out", tmp_path / "dump")
        assert result.returncode == 1, result.stderr
        assert result.stderr == (f"runtime_driver: error: {path}:2: the size line declares "
                                 "3000000000 entries but the file has 2\n")


def python_varint(x: int) -> list:
    out = []
    while x >= 0x80:
        out.append((x & 0x7F) | 0x80)
        x >>= 7
    return out + [x]


def test_varints_and_compared_changes_match_an_independent_encoder(driver):
    """The superstep's message encoding (starc_mpi_values.hpp) written through a pointer, and
    the branch-free compare: each varint's bytes as LEB128 encodes them, decoded back; the
    changed positions exactly those that changed, ascending."""
    numbers = [0, 1, 127, 128, 300, 16383, 16384, 2**31 - 1, 2**32 - 1, 2**32, 2**63, 2**64 - 1]
    result = subprocess.run([str(driver), "encoding", *map(str, numbers)], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:-1] == [
        f"varint {x}: {' '.join(f'{b:02x}' for b in python_varint(x))} | {x}" for x in numbers]
    assert max(len(python_varint(x)) for x in numbers if x < 2**32) == 5   # kMaxIntVarint
    assert max(len(python_varint(x)) for x in numbers) == 10                # kMaxVarint
    assert lines[-1] == "changed: " + " ".join(str(k) for k in range(0, len(numbers), 3))


def test_ghost_runs_copy_and_compare_as_the_indexed_ghosts_do(driver):
    """A superstep copies, compares and restores the ghosts' values a run of consecutive local
    ids at a time (index_ghost_runs, gather/scatter/compare_runs): on ghosts in several runs
    (far vertices between them, runs longer and shorter than the 8-value blocks the comparison
    skips with one memcmp), the changed positions are exactly those changed, as the indexed
    compare lists them, and the restore puts every value back."""
    ghosts = [*range(0, 5), *range(9, 40), 41, *range(50, 67), 70, 71]
    changed = [0, 4, 5, 12, 13, 20, 35, 36, 37, 38, 40, 54, 55]
    result = subprocess.run([str(driver), "runs", *map(str, ghosts), "--", *map(str, changed)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    runs, listed, indexed, restored = result.stdout.splitlines()
    assert runs == "runs: 0+5 9+31 41+1 50+17 70+2"
    assert listed == "changed: " + " ".join(map(str, changed))
    assert indexed == listed.replace("changed", "indexed")
    assert restored == "restored 1"


def _zigzag(x: int) -> int:
    return 2 * x if x >= 0 else -2 * x - 1


@pytest.mark.parametrize("repeated", [False, True])
@pytest.mark.parametrize("op", ["min", "add", "store"])
def test_update_sections_apply_at_the_owner_as_sequential_updates_would(driver, op, repeated):
    """An update section (starc_mpi_sections.hpp), encoded from listed pairs and from a run of
    changed ghosts alike, as an independent encoder writes it (the header, then each name's
    step and value), then applied by the owner's typed combine (apply_section): the cells end
    as the entries applied in order with the operator would leave them, the constant
    secondary set exactly where an entry won, the winners' vertices recorded in order (-1 for
    a loss), a repeated name (a vertex twice, not combined) seen."""
    cells = [50, 7, -3, 20, 0, 9]
    names = [4, 0, 5, 2, 1, 3]              # list position -> the owner's vertex
    entries = [(0, 60), (1, 3), *([(1, 5)] if repeated else []), (2, -4), (4, 10), (5, 9)]
    args = [op, *cells, "--", *names, "--", *(x for entry in entries for x in entry)]
    result = subprocess.run([str(driver), "sections", *map(str, args)], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    expected_bytes = python_varint(2 * len(entries)) + python_varint(_zigzag(0 - (-1)))
    previous = None
    for name, value in entries:
        if previous is not None:
            expected_bytes += python_varint(name - previous)
        previous = name
        expected_bytes += list((value & 0xFFFFFFFF).to_bytes(4, "little"))
    want = list(cells)
    flags = [0] * len(cells)
    at = []
    for name, value in entries:
        v = names[name]
        won = {"min": value < want[v], "add": True, "store": True}[op]
        if won:
            want[v] = {"min": value, "add": want[v] + value, "store": value}[op]
            flags[v] = 1
        at.append(v if won else -1)
    assert result.stdout.splitlines() == [
        "bytes: " + " ".join(f"{b:02x}" for b in expected_bytes), "same -" if repeated else "same 1",
        "cells: " + " ".join(map(str, want)), "flags: " + " ".join(map(str, flags)),
        "at: 7 " + " ".join(map(str, at)), f"repeated {int(repeated)}", "read 1"]


def test_freed_heap_stays_resident_for_the_next_trial(driver):
    """After distribute() the heap keeps what a trial frees: a 16 MiB block written, freed and
    written again faults in no new pages the second time (4,096 with glibc's 128 KiB trim
    threshold, which fixing the mmap threshold also fixes: tc's renumbering faulted ~100 MB in
    again every trial)."""
    result = subprocess.run([str(driver), "heap"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    faults = int(result.stdout.split()[1])
    assert faults < 100, result.stdout
