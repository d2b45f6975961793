"""Generated programs read the .sg binary graph: the same results as from the text file on
every backend, a damaged file is a located error, and ``starc run --cache`` serves the cache."""

from __future__ import annotations

import os
import pathlib
import struct
import subprocess
import sys

import numpy as np
import pytest

import starc
from starc.graphs import load_graph, rmat
from starc.graphs.binary import save_sg
from starc.graphs.writers import write_edge_list

from e2e_cases import compile_for

DSL = pathlib.Path(__file__).resolve().parents[2] / "dsl"

BACKENDS = [pytest.param("opencl", None, marks=pytest.mark.opencl, id="opencl"),
            pytest.param("openacc", None, marks=pytest.mark.openacc, id="openacc"),
            pytest.param("mpi", 2, marks=pytest.mark.mpi, id="mpi-2"),
            pytest.param("mpi", 3, marks=pytest.mark.mpi, id="mpi-3")]


@pytest.fixture(scope="module")
def graphs(tmp_path_factory):
    """A weighted R-MAT graph (duplicates, self-loops, isolated vertices) as .el and .sg, and
    its symmetrised .sg written with the flag that says so."""
    folder = tmp_path_factory.mktemp("graphs")
    graph = rmat(9, 6, seed=11, weights=True)
    text, binary, symmetric = (str(folder / name) for name in ("g.el", "g.sg", "u.sg"))
    write_edge_list(graph, text)
    save_sg(load_graph(text), binary)
    save_sg(load_graph(text, undirected=True), symmetric, undirected=True)
    return text, binary, symmetric


def assert_same(got, expected):
    assert got.props.keys() == expected.props.keys()
    for name in expected.props:
        np.testing.assert_array_equal(got.props[name], expected.props[name], err_msg=name)
    assert got.ret == expected.ret


@pytest.mark.parametrize("backend,ranks", BACKENDS)
def test_sssp_and_cc_agree_on_text_and_binary(graphs, backend, ranks):
    text, binary, symmetric = graphs
    sssp = compile_for(DSL / "sssp.sp", backend, ranks)
    cc = compile_for(DSL / "cc.sp", backend, ranks)
    reference = starc.compile(str(DSL / "sssp.sp"), "reference")
    expected = sssp.run(text, src=3)
    assert_same(expected, reference.run(text, src=3))      # the text run itself is right
    assert_same(sssp.run(binary, src=3), expected)
    undirected = sssp.run(text, undirected=True, src=3)
    assert_same(sssp.run(binary, undirected=True, src=3), undirected)
    assert_same(sssp.run(symmetric, undirected=True, src=3), undirected)   # not twice
    assert_same(sssp.run(symmetric, src=3), undirected)
    assert_same(cc.run(binary), cc.run(text))


@pytest.mark.parametrize("backend,ranks", BACKENDS)
@pytest.mark.parametrize("where", ["payload", "header"])
def test_damaged_binary_graph_is_a_located_error(graphs, tmp_path, backend, ranks, where):
    """A damaged payload fails the checksum; damaged vertex-count bytes (issue 34) are the
    header's sizes against the file's length, never a graph of 6e18 vertices."""
    _, binary, _ = graphs
    damaged = tmp_path / "bad.sg"
    raw = bytearray(pathlib.Path(binary).read_bytes())
    if where == "payload":
        raw[200] ^= 0x10
        what = "checksum mismatch"
    else:
        raw[16 + 7] ^= 0x58
        n, m = struct.unpack_from("<QQ", raw, 16)
        what = f"its header says {n} vertices and {m} edges, more than 32-bit ids allow"
    damaged.write_bytes(bytes(raw))
    program = compile_for(DSL / "sssp.sp", backend, ranks)
    with pytest.raises(RuntimeError) as caught:
        program.run(str(damaged), src=0)
    message = str(caught.value)
    assert f"{damaged}: damaged .sg file: {what}; write it again with `starc graph convert " \
           f"SOURCE {damaged}`" in message
    assert "(exit 1)" in message


@pytest.mark.opencl
def test_run_with_cache_builds_serves_and_rebuilds(graphs, tmp_path):
    text, _, _ = graphs
    source = tmp_path / "g.el"
    source.write_bytes(pathlib.Path(text).read_bytes())
    env = {**os.environ, "STARC_CACHE_DIR": str(tmp_path / "cache")}

    def run(*extra):
        out = tmp_path / "out.txt"
        proc = subprocess.run([sys.executable, "-m", "starc", "run", str(DSL / "sssp.sp"),
                               "-b", "opencl", "--graph", str(source), "--cache", "--src", "0",
                               "--out", str(out), *extra], capture_output=True, text=True,
                              env=env, timeout=600)
        assert proc.returncode == 0, proc.stderr
        return starc.results.parse_results(out.read_text())

    expected = starc.compile(str(DSL / "sssp.sp"), "reference").run(str(source), src=0)
    assert_same(run(), expected)
    cached = list((tmp_path / "cache" / "graphs").glob("*.sg"))
    assert len(cached) == 1
    assert load_graph(str(cached[0])) == load_graph(str(source))
    assert_same(run(), expected)                                   # served from the cache
    with open(source, "a") as handle:                              # the source changes
        handle.write("0 1 1\n")
    assert_same(run(), starc.compile(str(DSL / "sssp.sp"), "reference").run(str(source), src=0))
    assert load_graph(str(cached[0])) == load_graph(str(source))
