"""A BFS's small steps over each rank's own queue on MPI (analysis/rank_queues.py): a rank
queues the vertices its claims reach and those other ranks' claims won at it, appended by
the superstep's exchange. On graphs whose levels cross ranks at every step (a directed path
that zigzags between the first and the last vertices), whose levels stay small (a grid) or go
small, large and small again (a broom), bfs and bc on 1 to 5 ranks against networkx."""

from __future__ import annotations

import functools
import pathlib
import sys

import numpy as np
import pytest

from starc.graphs import Graph, write_mtx
from starc.graphs.generators import grid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "reference"))
import reference_oracles as oracles  # noqa: E402  (the oracle module of tests/reference)
from e2e_cases import compile_for  # noqa: E402
from test_bfs_small_levels import broom  # noqa: E402

pytestmark = pytest.mark.mpi

DSL = pathlib.Path(__file__).resolve().parents[2] / "dsl"


def zigzag(n: int = 400) -> Graph:
    """The directed path 0 -> n-1 -> 1 -> n-2 -> ...: each level one vertex, on another rank
    than the level before (ranks own ranges of ids), so every vertex after the root is
    queued by its owner when another rank's claim of it arrives."""
    order = [v for pair in zip(range(n // 2), range(n - 1, n // 2 - 1, -1)) for v in pair]
    src = np.array(order[:-1], dtype=np.int64)
    dst = np.array(order[1:], dtype=np.int64)
    return Graph.from_edges(n, src, dst, None, False, "zigzag")


@functools.lru_cache(maxsize=None)
def _compiled(program: str, ranks: int):
    return compile_for(DSL / f"{program}.sp", "mpi", ranks=ranks)


def test_the_zigzag_crosses_ranks_at_every_level():
    graph = zigzag()
    level = oracles.bfs_levels(graph, 0)
    assert level.max() == graph.num_nodes - 1
    assert level[graph.num_nodes - 1] == 1 and level[1] == 2


@pytest.mark.parametrize("ranks", [1, 2, 3, 5])
def test_levels_and_bc_over_the_ranks_queues(ranks, tmp_path):
    graphs = {"zigzag": zigzag(), "grid": grid(40, 40), "broom": broom()}
    for name, graph in graphs.items():
        path = tmp_path / f"{name}.mtx"
        write_mtx(graph, path)
        levels = _compiled("bfs", ranks).run(path, src=0).props["level"]
        np.testing.assert_array_equal(levels, oracles.bfs_levels(graph, 0),
                                      err_msg=f"{name}, {ranks} ranks")
        if name == "broom" and ranks > 2:
            continue    # (bc on the broom, 2 ranks and fewer: its sweep is the long part)
        sources = [0, 7]
        scores = _compiled("bc", ranks).run(path, sourceSet="0,7").props["BC"]
        np.testing.assert_allclose(scores, oracles.betweenness(graph, sources, False),
                                   rtol=1e-4, atol=1e-3, err_msg=f"{name}, {ranks} ranks")
