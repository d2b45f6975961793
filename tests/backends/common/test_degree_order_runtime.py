"""The run-time renumbering by degree (``runtime/starc_degree_order.hpp``): which graphs it
renumbers, and the renumbered CSR against one computed here with numpy, built without OpenMP
and with it (three threads, so that the edges' passes are split)."""

from __future__ import annotations

import os
import shutil
import subprocess

import numpy as np
import pytest

from starc.backends.common.runtime_paths import RUNTIME_DIR
from starc.graphs import Graph, load_graph, rmat, write_edge_list

GXX = shutil.which("g++")
pytestmark = pytest.mark.skipif(GXX is None, reason="g++ not found")

DRIVER = r"""
#include "starc_runtime.hpp"
#include <cstring>
int main(int argc, char** argv) {
  starc::Graph g = starc::read_graph(argv[1], std::strcmp(argv[2], "1") == 0);
  std::string mode = argv[3];
  starc::DegreeOrder o = starc::order_by_degree(g, mode == "always" ? starc::DegreeOrderMode::Always :
      mode == "never" ? starc::DegreeOrderMode::Never : starc::DegreeOrderMode::Auto);
  std::printf("%d\n", o.applied ? 1 : 0);
  for (int x : o.offsets) std::printf("%d ", x);
  std::printf("\n");
  for (int x : o.targets) std::printf("%d ", x);
  std::printf("\n");
}
"""


@pytest.fixture(scope="module", params=["one thread", "openmp"])
def driver(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp("degree_order")
    (folder / "driver.cpp").write_text(DRIVER)
    openmp = ["-fopenmp"] if request.param == "openmp" else []
    subprocess.run([GXX, "-std=c++17", "-O1", "-Wall", "-Werror", *openmp, f"-I{RUNTIME_DIR}",
                    "-o", str(folder / "driver"), str(folder / "driver.cpp")], check=True)
    return folder / "driver"


def _run(driver, path, undirected: bool, mode: str):
    env = dict(os.environ, OMP_NUM_THREADS="3")
    out = subprocess.run([str(driver), str(path), "1" if undirected else "0", mode],
                         capture_output=True, text=True, check=True, env=env).stdout.split("\n")
    ints = [np.array(line.split(), dtype=np.int64) for line in out[1:3]]
    return out[0] == "1", ints[0], ints[1]


def _simple_symmetric(graph: Graph, name: str) -> Graph:
    lo = np.minimum(graph.sources, graph.targets).astype(np.int64)
    hi = np.maximum(graph.sources, graph.targets).astype(np.int64)
    keys = np.unique((lo << 32 | hi)[lo != hi])
    return Graph.from_edges(graph.num_nodes, keys >> 32, keys & 0xFFFFFFFF, name=name)


def _expected(path) -> tuple:
    """Ascending degree, ties by id; rows sorted by the new ids."""
    g = load_graph(str(path), undirected=True)
    n = g.num_nodes
    degree = np.diff(g.offsets)
    old_of_new = np.lexsort((np.arange(n), degree))
    new_of_old = np.empty(n, dtype=np.int64)
    new_of_old[old_of_new] = np.arange(n)
    offsets = np.concatenate([[0], np.cumsum(degree[old_of_new])])
    rows = [np.sort(new_of_old[g.targets[g.offsets[v]:g.offsets[v + 1]]]) for v in old_of_new]
    targets = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    return offsets, targets


def test_a_symmetric_simple_graph_is_renumbered_by_ascending_degree(driver, tmp_path):
    path = tmp_path / "rmat.el"
    write_edge_list(_simple_symmetric(rmat(7, edge_factor=8, seed=5), "rmat"), path)
    applied, offsets, targets = _run(driver, path, True, "always")
    assert applied
    want_offsets, want_targets = _expected(path)
    assert np.array_equal(offsets, want_offsets) and np.array_equal(targets, want_targets)
    assert not _run(driver, path, True, "never")[0]


def test_auto_renumbers_a_skewed_graph_and_keeps_a_regular_one(driver, tmp_path):
    skewed = tmp_path / "skewed.el"
    write_edge_list(_simple_symmetric(rmat(12, edge_factor=16, seed=3), "rmat"), skewed)
    assert _run(driver, skewed, True, "auto")[0]
    # a ring lattice: every degree 12, mean = median
    n = 3000
    src = np.repeat(np.arange(n), 6)
    dst = (src + np.tile(np.arange(1, 7), n)) % n
    regular = tmp_path / "regular.el"
    write_edge_list(Graph.from_edges(n, src, dst, name="ring"), regular)
    assert not _run(driver, regular, True, "auto")[0]


def test_graphs_whose_count_could_depend_on_ids_keep_them(driver, tmp_path):
    directed = tmp_path / "directed.el"
    directed.write_text("0 1\n1 2\n0 2\n")
    assert not _run(driver, directed, False, "always")[0]
    repeated = tmp_path / "repeated.el"
    repeated.write_text("0 1\n0 1\n1 2\n0 2\n")
    assert not _run(driver, repeated, True, "always")[0]
    both_ways = tmp_path / "both_ways.el"   # mirrored by --undirected: every edge twice
    both_ways.write_text("0 1\n1 0\n1 2\n2 1\n0 2\n2 0\n")
    assert not _run(driver, both_ways, True, "always")[0]
    # Read as directed, the same file is symmetric and simple: checked edge by edge.
    assert _run(driver, both_ways, False, "always")[0]
    one_way = tmp_path / "one_way.el"     # same degrees both ways, but not symmetric
    one_way.write_text("0 1\n1 2\n2 0\n")
    assert not _run(driver, one_way, False, "always")[0]
    loops = tmp_path / "loops.el"         # a self-loop is its own mirror
    loops.write_text("0 1\n1 2\n0 2\n1 1\n")
    applied, offsets, targets = _run(driver, loops, True, "always")
    assert applied
    assert np.array_equal(offsets, _expected(loops)[0])
    assert np.array_equal(targets, _expected(loops)[1])
    empty = tmp_path / "empty.el"
    empty.write_text("# no edges\n")
    assert _run(driver, empty, True, "always")[0]


def test_long_and_short_rows_and_a_symmetric_file_read_as_directed(driver, tmp_path):
    # n = 16384: rows of degree >= 10 are sorted through the bitmap (8 d log2 d >= 256 words),
    # shorter ones by comparison
    graph = _simple_symmetric(rmat(14, edge_factor=8, seed=11), "rmat")
    path = tmp_path / "rmat.el"
    write_edge_list(graph, path)
    degree = np.bincount(np.concatenate([graph.sources, graph.targets]), minlength=graph.num_nodes)
    assert degree.max() >= 1000 and (degree[degree > 0] < 10).sum() > 1000
    want = _expected(path)
    applied, offsets, targets = _run(driver, path, True, "always")
    assert applied and np.array_equal(offsets, want[0]) and np.array_equal(targets, want[1])
    # Both directions in the file, read as directed: checked edge by edge on every thread's rows.
    both = tmp_path / "both.el"
    src = np.concatenate([graph.sources, graph.targets])
    dst = np.concatenate([graph.targets, graph.sources])
    write_edge_list(Graph.from_edges(graph.num_nodes, src, dst, name="both"), both)
    applied, offsets, targets = _run(driver, both, False, "always")
    assert applied and np.array_equal(offsets, want[0]) and np.array_equal(targets, want[1])
    # Not symmetric, so kept: one edge of the highest rows (the last thread's share) without
    # its mirror, or an edge 0 -> v added without v -> 0.
    all_but_one = np.arange(len(src)) != int(np.argmax(np.maximum(src, dst)))
    v = int(np.setdiff1d(np.arange(1, graph.num_nodes), dst[src == 0])[0])
    for broken_src, broken_dst in ((src[all_but_one], dst[all_but_one]), (np.append(src, 0), np.append(dst, v))):
        broken = tmp_path / "broken.el"
        write_edge_list(Graph.from_edges(graph.num_nodes, broken_src, broken_dst, name="b"), broken)
        assert not _run(driver, broken, False, "always")[0]
