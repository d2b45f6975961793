"""The generated programs' update streams (``runtime/starc_update_stream.hpp``, applied by
``runtime/starc_updates.hpp``): the C++ reader gives the Python reader's updates and its
``path:line: what`` messages, and merging a batch's deletions and additions into the CSR gives,
batch after batch, the graph and the edge renumbering that starc/graphs/updates.py (the
reference executor's) gives, on multigraphs with self-loops, duplicate additions and deletions
of missing edges, directed and undirected."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from starc.backends.common.runtime_paths import RUNTIME_DIR
from starc.graphs import Graph, load_graph, write_edge_list
from starc.graphs.errors import GraphFormatError
from starc.graphs.updates import (ADD, DELETE, UpdateStream, add_edges, delete_edges,
                                  read_updates, write_updates)
from starc.teaching.simt import binned_order

GXX = shutil.which("g++")
pytestmark = pytest.mark.skipif(GXX is None, reason="g++ not found")

DRIVER = r"""
#include "starc_runtime.hpp"
#include "starc_updates.hpp"
#include <cstdio>
#include <cstring>
static void ints(const char* name, const std::vector<int>& a) {
  std::printf("%s", name);
  for (int x : a) std::printf(" %d", x);
  std::printf("\n");
}
int main(int argc, char** argv) {
  try {
    bool undirected = std::strcmp(argv[3], "1") == 0;
    starc::Graph g = starc::read_graph(argv[1], undirected);
    starc::UpdateStream s = starc::read_updates(argv[2], g.num_nodes);
    if (undirected) s = starc::symmetrised(s);
    long long size = std::atoll(argv[4]);
    bool keep_ids = argc < 6 || std::strcmp(argv[5], "1") == 0;   // the reverse CSR's edge ids
    g.binned_order(false, 2);   // derived before the updates, so it must be rebuilt after them
    // edge properties carried through every change: each edge's id in the file's graph (-1
    // for an added one), and a copy of the weights (an added edge: its update's weight)
    std::vector<int> origin(static_cast<size_t>(g.num_edges));
    for (int e = 0; e < g.num_edges; ++e) origin[static_cast<size_t>(e)] = e;
    std::vector<double> weights = g.weights;
    for (long long first = 0; first < s.line_count(); first += size) {
      starc::BatchPart gone = starc::batch_part(s, first, first + size, 'd');
      starc::EdgeRenumbering deletion = starc::delete_edges(g, gone.src, gone.dst, keep_ids);
      ints("deleted", deletion.new_ids());
      origin = deletion.carried(origin, g.num_edges, -1);
      if (g.has_weights) weights = deletion.carried(weights, g.num_edges);
      starc::BatchPart added = starc::batch_part(s, first, first + size, 'a');
      starc::EdgeRenumbering change = starc::add_edges(g, added.src, added.dst, added.weights, keep_ids);
      ints("kept", change.new_ids());
      ints("added", change.added);
      origin = change.carried(origin, g.num_edges, -1);
      if (g.has_weights) {
        std::vector<double> given = added.weights;
        given.resize(added.src.size(), 0.0);   // additions without weights: 0
        weights = change.carried(weights, g.num_edges, 0.0, &given);
      }
    }
    ints("origin", origin);
    ints("offsets", g.offsets);
    ints("targets", g.targets);
    ints("sources", g.sources);
    ints("rev_offsets", g.rev_offsets);
    ints("rev_sources", g.rev_sources);
    ints("rev_edge_ids", g.rev_edge_ids);
    ints("binned_order", g.binned_order(false, 2));
    std::printf("weights");
    for (double w : g.weights) std::printf(" %.17g", w);
    std::printf("\ncarried_weights");
    for (double w : weights) std::printf(" %.17g", w);
    std::printf("\n");
  } catch (const starc::InputError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
"""


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    folder = tmp_path_factory.mktemp("updates")
    (folder / "driver.cpp").write_text(DRIVER)
    subprocess.run([GXX, "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{RUNTIME_DIR}",
                    "-o", str(folder / "driver"), str(folder / "driver.cpp")], check=True)
    return folder / "driver"


def _run(driver, graph_path, updates_path, undirected, batch_size, keep_ids=True):
    done = subprocess.run([str(driver), str(graph_path), str(updates_path),
                           "1" if undirected else "0", str(batch_size),
                           "1" if keep_ids else "0"],
                          capture_output=True, text=True)
    return done


def _expected(graph_path, updates_path, undirected, batch_size, keep_ids=True):
    """The same batches through starc/graphs/updates.py: the lines the driver prints."""
    graph = load_graph(str(graph_path), undirected=undirected)
    stream = read_updates(str(updates_path), graph.num_nodes)
    if undirected:
        stream = stream.symmetrised()
    lines = []
    origin = np.arange(graph.num_edges)
    for first in range(0, stream.line_count, batch_size):
        batch = stream.batch(first, first + batch_size)
        gone = batch.part(DELETE)
        graph, new_ids = delete_edges(graph, gone.src, gone.dst)
        lines.append(("deleted", new_ids))
        origin = _carried(origin, new_ids, graph.num_edges)
        added = batch.part(ADD)
        graph, old_ids, ids = add_edges(graph, added.src, added.dst, added.weights,
                                        added.weights_integral)
        lines += [("kept", old_ids), ("added", ids)]
        origin = _carried(origin, old_ids, graph.num_edges)
    lines.append(("origin", origin))
    for name in ("offsets", "targets", "sources", "rev_offsets", "rev_sources",
                 "rev_edge_ids"):
        lines.append((name, getattr(graph, name)))
    if not keep_ids and stream.line_count > 0:
        # not kept: the reverse rows are the same, their edge ids emptied by the first batch
        lines[-1] = ("rev_edge_ids", [])
    lines.append(("binned_order", binned_order(np.diff(graph.offsets), 2)))
    weights = graph.weights if graph.weights is not None else []
    return lines + [("weights", weights), ("carried_weights", weights)]


def _carried(values, new_ids, num_edges):
    """``values`` of the old edges at their new ids; -1 at the added edges."""
    out = np.full(num_edges, -1)
    kept = new_ids >= 0
    out[new_ids[kept]] = values[kept]
    return out


def _parsed(stdout):
    out = []
    for line in stdout.strip("\n").split("\n"):
        name, *values = line.split(" ")
        out.append((name, np.array([float(x) for x in values])))
    return out


def _assert_same(driver, graph_path, updates_path, undirected, batch_size, keep_ids=True):
    done = _run(driver, graph_path, updates_path, undirected, batch_size, keep_ids)
    assert done.returncode == 0, done.stderr
    got = _parsed(done.stdout)
    want = _expected(graph_path, updates_path, undirected, batch_size, keep_ids)
    assert [name for name, _ in got] == [name for name, _ in want]
    for (name, values), (_, expected) in zip(got, want):
        assert np.array_equal(values, np.asarray(expected, dtype=np.float64)), name


def write_example(tmp_path, edges, updates, weighted):
    """A drawn graph of 8 vertices and update stream (``edges_strategy``,
    ``update_strategy``) as files: their paths."""
    n = 8
    src = np.array([e[0] for e in edges] + [n - 1], dtype=np.int64)   # n vertices, always
    dst = np.array([e[1] for e in edges] + [n - 1], dtype=np.int64)
    weights = np.arange(1, src.size + 1, dtype=np.float64) if weighted else None
    graph_path = tmp_path / "g.el"
    write_edge_list(Graph.from_edges(n, src, dst, weights), graph_path)
    kinds = np.array([ADD if u[0] == "a" else DELETE for u in updates], np.int8)
    stream = UpdateStream(kinds, np.array([u[1] for u in updates], np.int64),
                          np.array([u[2] for u in updates], np.int64),
                          np.array([float(u[3]) if u[0] == "a" else 0.0 for u in updates])
                          if weighted else None, True)
    updates_path = tmp_path / "u.txt"
    write_updates(updates_path, stream)
    return graph_path, updates_path


edges_strategy = st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=40)
update_strategy = st.lists(st.tuples(st.sampled_from("ad"), st.integers(0, 7),
                                     st.integers(0, 7), st.integers(1, 9)), max_size=30)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edges=edges_strategy, updates=update_strategy, undirected=st.booleans(),
       weighted=st.booleans(), batch_size=st.integers(1, 12), keep_ids=st.booleans())
def test_batches_merged_into_the_csr_give_the_references_graph(
        driver, tmp_path, edges, updates, undirected, weighted, batch_size, keep_ids):
    graph_path, updates_path = write_example(tmp_path, edges, updates, weighted)
    _assert_same(driver, graph_path, updates_path, undirected, batch_size, keep_ids)


def test_a_thousand_updates_on_an_rmat_graph(driver, tmp_path):
    from starc.graphs import rmat
    from starc.graphs.updates import generate_updates
    graph = rmat(9, edge_factor=8, seed=3, weights=True)
    graph_path = tmp_path / "g.el"
    write_edge_list(graph, graph_path)
    updates_path = tmp_path / "u.txt"
    write_updates(updates_path, generate_updates(graph, 1000, seed=4, weights=True))
    for undirected, batch_size in ((False, 100), (True, 333)):
        for keep_ids in (True, False):
            _assert_same(driver, graph_path, updates_path, undirected, batch_size, keep_ids)


BAD_LINES = [
    "x 0 1",                 # not a or d
    "add 0 1",
    "a 0",                   # too few fields
    "d 0 1 5",               # a deletion with a weight
    "a 0 1 2 3",
    "a zero 1",
    "d 0 1.5",
    "a 0 9",                 # not a vertex
    "d -1 2",
    "a +007 2 1\na 0 99999999999999999999",
    "a 0 1 abc",
    "a 0 1 inf",
    "a 0 1 0x10",
    "a 0 1 2\na 1 2",        # weights on some additions only
    "a 0 1\n\n# c\na 1 2 3",
]


@pytest.mark.parametrize("text", BAD_LINES)
def test_a_bad_line_gets_the_python_readers_message(driver, tmp_path, text):
    graph_path = tmp_path / "g.el"
    graph_path.write_text("0 1\n1 2\n2 3\n3 4\n")
    updates_path = tmp_path / "u.txt"
    updates_path.write_text(text + "\n")
    with pytest.raises(GraphFormatError) as info:
        read_updates(str(updates_path), 5)
    done = _run(driver, graph_path, updates_path, False, 1)
    assert done.returncode == 2
    assert done.stderr.strip() == str(info.value)
