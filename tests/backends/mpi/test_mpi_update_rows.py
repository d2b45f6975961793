"""Batches of updates applied to a rank's rows in place (starc_mpi_update_rows.hpp, issue 31):
after every batch of a stream the runtime driver's distribution is that of the updated graph
(starc.graphs.updates applied in Python), whether a part was applied in place or laid out
again; deletions (every copy, missing edges, a vertex's last edges) and additions whose ends the
ranks know are applied in place, with in-rows, global degrees, both readings and 1-8 ranks; so
are additions that bring new ghosts (inserted in the local index space, the owners' mirrors
alongside), and only ghost-row programs lay their part out again."""

from __future__ import annotations

import numpy as np
import pytest

from starc.graphs import load_graph
from starc.graphs.updates import ADD, DELETE, UpdateStream, add_edges, delete_edges, write_updates

from pairwise import all_pairs
from test_mpi_runtime import GRAPHS, _random_edge_list, check_distribution, distribute, driver  # noqa: F401

pytestmark = pytest.mark.mpi


def _stream(g, seed: int, how: str) -> UpdateStream:
    """``deletions``: existing edges (each with all its copies, some twice), missing edges and
    every out-edge of one vertex; ``known``: those deletions with additions of edges the graph
    has (so each end knows the other) and self-loops, in place on every rank; ``new``: random
    additions as well (new ghosts)."""
    rng = np.random.default_rng(seed)
    n, m = g.num_nodes, g.num_edges
    picks = rng.integers(0, m, max(1, m // 8)) if m else np.zeros(0, np.int64)
    src = [int(g.sources[e]) for e in picks] + [int(s) for s in rng.integers(0, n, 4)]
    dst = [int(g.targets[e]) for e in picks] + [int(t) for t in rng.integers(0, n, 4)]
    hub = int(np.argmax(np.diff(g.offsets)))   # every out-edge of the vertex with most
    src += [hub] * int(g.offsets[hub + 1] - g.offsets[hub])
    dst += [int(t) for t in g.targets[g.offsets[hub]:g.offsets[hub + 1]]]
    src, dst = src + src[:3], dst + dst[:3]    # deleted twice
    kinds = [DELETE] * len(src)
    if how != "deletions":
        more = rng.integers(0, m, max(1, m // 8)) if m else np.zeros(0, np.int64)
        src += [int(g.sources[e]) for e in more] + [int(v) for v in rng.integers(0, n, 3)]
        dst += [int(g.targets[e]) for e in more] + src[-3:]
        if how == "new":
            src += [int(v) for v in rng.integers(0, n, 6)]
            dst += [int(v) for v in rng.integers(0, n, 6)]
        kinds += [ADD] * (len(src) - len(kinds))
    order = rng.permutation(len(src))
    kinds, src, dst = (np.asarray(x, np.int64)[order] for x in (kinds, src, dst))
    weights = np.where(kinds == ADD, rng.integers(-9, 9, len(src)), 0).astype(np.float64)
    return UpdateStream(kinds.astype(np.int8), src, dst, weights)


def _updated(g, stream: UpdateStream, batch: int):
    """g after every batch: its deletions, then its additions."""
    for first in range(0, stream.line_count, batch):
        part = stream.batch(first, first + batch)
        gone = part.part(DELETE)
        g, _ = delete_edges(g, gone.src, gone.dst)
        new = part.part(ADD)
        g, _, _ = add_edges(g, new.src, new.dst, new.weights, True)
    return g


CASES = [pytest.param(*case, id="-".join(map(str, case))) for case in all_pairs(
    ["random.el", "loops_and_duplicates.el", "weighted_comments.el", "general.mtx"],
    ["deletions", "known", "new"], [1, 2, 3, 4, 8], ["directed", "undirected"],
    ["reverse", "global", "neither"])]


@pytest.mark.parametrize("name, how, ranks, reading, needs", CASES)
def test_batches_in_place_give_the_updated_graphs_distribution(driver, tmp_path, name, how,
                                                              ranks, reading, needs):
    _check_in_place(driver, tmp_path, name, how, ranks, reading, needs)


@pytest.mark.parametrize("ranks", [2, 3, 4, 8])
@pytest.mark.parametrize("needs", ["reverse", "neither"])
@pytest.mark.parametrize("appended", [False, True], ids=["global-order", "appended"])
def test_additions_bring_new_ghosts_in_place(driver, tmp_path, ranks, needs, appended):
    """Random additions give ranks vertices they did not know: inserted in place (owners'
    mirrors, degrees, the carried array's values and the peers follow), never laid out; at
    their places in global-id order or, with Needs::appended_ghosts, at the next local ids
    (the ids the rank held before stay: rows sorted by local id)."""
    sparse = _random_edge_list(11, 300, 240)    # (few vertices a rank knows)
    grew = _check_in_place(driver, tmp_path, "sparse.el", "new", ranks, "directed", needs, sparse,
                           appended)
    assert grew > 0


def _check_in_place(driver, tmp_path, name, how, ranks, reading, needs, text=None,
                    appended=False) -> int:
    """The distribution after every batch against a fresh layout of the updated graph (ghosts
    no edge reaches may stay); how many parts inserted new ghosts."""
    path = tmp_path / name
    path.write_text(GRAPHS[name] if text is None else text)
    undirected = reading == "undirected"
    g = load_graph(str(path), undirected=undirected)
    stream = _stream(g, sum(map(ord, name)) + ranks, how)
    updates = tmp_path / "stream.updates"
    write_updates(updates, stream)
    batch = max(1, stream.line_count // 3)
    reverse, global_degrees = needs == "reverse", needs == "global"
    dumps = distribute(driver, tmp_path, path, ranks, undirected, reverse=reverse,
                       global_degrees=global_degrees,
                       extra=["--updates", updates, "--batchSize", batch], appended=appended)
    expected = _updated(g, stream.symmetrised() if undirected else stream, batch)
    check_distribution(dumps, expected, reverse=reverse, ghost_rows=False,
                       global_degrees=global_degrees, kept_ghosts=True, appended=appended)
    if appended and how == "new" and ranks > 1:   # the ids leave global-id order
        assert any(np.any(np.diff(d["global_id"]) < 0) for d in dumps)
    parts = 2 * -(-stream.line_count // batch)
    assert {d["in_place"] for d in dumps} == {parts}, "no ghost rows: every part in place"
    grew = {d["grew"] for d in dumps}
    assert len(grew) == 1, "every rank decides alike"
    if how != "new" or ranks == 1:     # every end of an addition known: no new ghost
        assert grew == {0}
    assert all(d["carried"] == 1 for d in dumps), "the arrays' values, new ghosts' included"
    assert all(d["indexed"] == 1 for d in dumps), "ghost runs and mirror indexes current"
    return grew.pop()


@pytest.mark.parametrize("ranks", [2, 3])
def test_ghost_rows_lay_the_part_out_again(driver, tmp_path, ranks):
    """A ghost's row is another rank's: those programs lay their part out again, retiring the
    ghosts no edge reaches (exactly the updated graph's ghosts)."""
    path = tmp_path / "random.el"
    path.write_text(GRAPHS["random.el"])
    g = load_graph(str(path))
    stream = _stream(g, ranks, "known")
    updates = tmp_path / "stream.updates"
    write_updates(updates, stream)
    dumps = distribute(driver, tmp_path, path, ranks, reverse=True, ghost_rows=True,
                       extra=["--updates", updates, "--batchSize", stream.line_count])
    check_distribution(dumps, _updated(g, stream, stream.line_count), reverse=True,
                       ghost_rows=True)
    assert {d["in_place"] for d in dumps} == {0}
