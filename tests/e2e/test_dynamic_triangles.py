"""dsl/dynamic/dyn_tc.sp on the device backends and MPI (2 ranks) against the reference (which
tests/reference/test_dynamic_triangle_counts.py checks against an independent multigraph count), on a
multigraph with a hub, duplicate edges and self-loops and a stream whose batches put several
updates into one triangle; and an edge found by a search (``g.get_edge``) indexes an edge
property correctly in rows with slack, where slots run past the edge count.

CI time: the reference's counts are computed once per batch size for all backends."""

from __future__ import annotations

import functools
import subprocess
import sys

import numpy as np
import pytest

import starc
from starc.graphs import load_graph, rmat, write_edge_list
from starc.graphs.updates import generate_updates, write_updates
from starc.results import compare_results

from test_dynamic_programs import DYNAMIC

#: the backends that run Dynamic programs, each where its toolchain is here
BACKENDS = [pytest.param("opencl", marks=pytest.mark.opencl),
            pytest.param("sycl", marks=pytest.mark.sycl),
            pytest.param("openacc", marks=pytest.mark.openacc),
            pytest.param("cuda", marks=[pytest.mark.cuda, pytest.mark.gpu]),
            pytest.param("mpi", marks=pytest.mark.mpi)]

#: lines a generated stream does not have: a triangle's three new pairs (10-11, 11-12, 10-12),
#: a duplicate addition, a deletion and re-addition of one pair, self-loops, hub edges
CROWDED = ["a 10 11", "a 11 12", "a 10 12", "a 10 11", "d 0 1", "a 0 1", "a 0 1", "a 5 5",
           "d 5 5", "a 0 12", "d 0 2", "a 2 11", "d 11 12", "a 12 11", "a 0 0", "d 3 0"]


@pytest.fixture(scope="module")
def multigraph(tmp_path_factory):
    """A small R-MAT multigraph (repeated edges, self-loops) with vertex 0 joined to every
    vertex, and a stream of generated updates with CROWDED's lines spread through it."""
    folder = tmp_path_factory.mktemp("triangles")
    base = rmat(6, 6, seed=21, weights=False)
    n = base.num_nodes
    lines = [f"{u} {v}" for u, v in zip(base.sources.tolist(), base.targets.tolist())]
    lines += [f"0 {v}" for v in range(1, n)] + ["0 5", "7 7"]
    path = folder / "hub.el"
    path.write_text("\n".join(lines) + "\n")
    loaded = load_graph(str(path), undirected=True)
    generated = folder / "generated.updates"
    write_updates(generated, generate_updates(loaded, 48, seed=22))
    stream = generated.read_text().splitlines()
    for i, line in enumerate(CROWDED):
        stream.insert(3 * i, line)
    updates = folder / "hub.updates"
    updates.write_text("\n".join(stream) + "\n")
    return path, updates


@functools.lru_cache(maxsize=None)
def _reference_counts(path, updates, batch):
    return starc.compile(str(DYNAMIC / "dyn_tc.sp"), "reference").run(
        path, undirected=True, updates=str(updates), batchSize=batch)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("batch", [4, 16, 64])
def test_crowded_batches_give_the_reference_counts(multigraph, backend, batch):
    path, updates = multigraph
    runs = [_reference_counts(path, updates, batch),
            starc.compile(str(DYNAMIC / "dyn_tc.sp"), backend).run(
                path, undirected=True, updates=str(updates), batchSize=batch)]
    problems = compare_results(*runs)
    assert not problems, "\n".join(problems)
    assert runs[1].ret == int(runs[1].props["count"].sum()) > 0


SEARCHED = """
Dynamic Searched(Graph g, propNode<long> hits, updates<g> U, int batchSize) {
    propEdge<long> mark;
    g.attachEdgeProperty(mark = 0);
    g.attachNodeProperty(hits = 0);
    long batch = 0;
    Batch (U : batchSize) {
        batch = batch + 1;
        g.updateCSRDel(U);
        g.updateCSRAdd(U);
        OnAdd (u in U.currentBatch()) : {
            edge e = g.get_edge(u.source, u.destination);
            <e.mark> = <Max(e.mark, batch)>;
        }
        OnAdd (u in U.currentBatch()) : {
            edge e = g.get_edge(u.source, u.destination);
            node s = u.source;
            s.hits += e.mark;
        }
    }
}
"""


@pytest.mark.parametrize("backend", BACKENDS[:3])
def test_a_searched_edge_indexes_its_slot_in_rows_with_slack(tmp_path, backend):
    """Additions make rows outgrow their room (moved to slots past the edge count) and
    deletions lower the edge count: the searched edge's index check bounds it by the slots in
    use, not by the edge count (a false 'out of range' stopped such runs)."""
    program = tmp_path / "searched.sp"
    program.write_text(SEARCHED)
    graph = rmat(6, 4, seed=23, weights=False)
    path = tmp_path / "graph.el"
    write_edge_list(graph, path)
    updates = tmp_path / "graph.updates"
    write_updates(updates, generate_updates(load_graph(str(path)), 2 * graph.num_edges,
                                            delete_share=0.2, seed=24))
    out = tmp_path / "out"
    subprocess.run([sys.executable, "-m", "starc", str(program), "-b", backend, "-o", str(out)],
                   check=True, capture_output=True)
    assert "starc::SlackRows" in (out / "searched.cpp").read_text()
    runs = [starc.compile(str(program), which).run(path, updates=str(updates), batchSize=40)
            for which in ("reference", backend)]
    problems = compare_results(*runs)
    assert not problems, "\n".join(problems)
    assert np.any(runs[1].props["hits"] > 0)
