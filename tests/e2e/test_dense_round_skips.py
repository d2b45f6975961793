"""Dense rounds that skip a flagged vertex whose values are those it last ran with
(``analysis/pushed_values.py``), on OpenCL's CPU device with every core racing: cc, sssp and
sswp on R-MAT graphs (thousands of vertices, so that work items run concurrently and push into
each other's runs) against networkx and textbook Dijkstra."""

from __future__ import annotations

import pathlib
import sys

import pytest

import starc
from starc.graphs import rmat, write_mtx

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "reference"))
import reference_oracles as oracles  # noqa: E402  (the oracle module of tests/reference)

DSL = pathlib.Path(__file__).resolve().parents[2] / "dsl"

pytestmark = pytest.mark.opencl

ORACLES = {"cc": ("comp", {}, oracles.components),
           "sssp": ("dist", {"src": 0}, lambda g: oracles.dijkstra(g, 0)),
           "sswp": ("width", {"src": 0}, lambda g: oracles.widest(g, 0))}


@pytest.mark.parametrize("program", sorted(ORACLES))
def test_dense_rounds_that_skip_match_the_oracles(program, tmp_path):
    prop, params, oracle = ORACLES[program]
    compiled = starc.compile(str(DSL / f"{program}.sp"), "opencl")
    for seed in (1, 2):
        graph = rmat(13, edge_factor=8, seed=seed, weights=True)
        path = tmp_path / f"rmat{seed}.mtx"
        write_mtx(graph, path)
        expected = oracle(graph)
        for _ in range(2):      # the races differ from run to run
            actual = compiled.run(path, **params)
            assert actual.props[prop].tolist() == expected.tolist(), (program, seed)
