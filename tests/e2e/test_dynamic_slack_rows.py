"""Rows with slack on OpenCL (issue 31, item 3): dsl/dynamic's programs give the reference's
results when the batches make rows outgrow their room and the slot space run out (mostly
additions), and under the forced schedules (``--schedule binned``, ``edges``), which keep rows
with slack where they apply to no kernel that walks edge ids and a compact CSR where they do."""

from __future__ import annotations

import dataclasses
import pathlib

import pytest

import starc
from starc.backends.base import BackendOptions
from starc.graphs import grid, load_graph, rmat, write_edge_list
from starc.graphs.updates import generate_updates, write_updates
from starc.results import compare_results

DYNAMIC = pathlib.Path(__file__).resolve().parents[2] / "dsl" / "dynamic"
PR = {"beta": "0.000001", "delta": "0.85", "maxIter": "100"}

pytestmark = pytest.mark.opencl


@pytest.fixture(scope="module")
def growing(tmp_path_factory):
    """name -> (graph, stream of twice its edges, nine in ten additions, undirected)."""
    folder = tmp_path_factory.mktemp("slack")
    made = {}
    for name, graph, undirected in [("rmat", rmat(7, 8, seed=11, weights=True), False),
                                    ("grid", grid(8, 9, seed=12, weights=True), True)]:
        path = folder / f"{name}.el"
        write_edge_list(graph, path)
        loaded = load_graph(str(path), undirected=undirected)
        updates = folder / f"{name}.updates"
        write_updates(updates, generate_updates(loaded, 2 * loaded.num_edges, delete_share=0.1,
                                                seed=13, weights=True))
        made[name] = (path, updates, undirected)
    return made


def _agree(name, case, batch, schedule=None, rtol=0.0, atol=0.0, skip=(), **params):
    path, updates, undirected = case
    options = BackendOptions(schedule=schedule)
    runs = [starc.compile(str(DYNAMIC / f"{name}.sp"), backend,
                          options=options if backend == "opencl" else None)
            .run(path, undirected=undirected, updates=str(updates), batchSize=batch, **params)
            for backend in ("reference", "opencl")]
    compared = [dataclasses.replace(run, props={k: v for k, v in run.props.items()
                                                if k not in skip}) for run in runs]
    problems = compare_results(*compared, rtol=rtol, atol=atol)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("batch", [7, 150, 100000])
def test_growing_rows_give_the_references_sssp_and_pagerank(growing, batch):
    _agree("dyn_sssp", growing["rmat"], batch, skip=("parent",), src="0")
    _agree("dyn_pr", growing["rmat"], batch, rtol=1e-4, atol=1e-6, **PR)


def test_growing_rows_give_the_references_triangle_count(growing):
    _agree("dyn_tc", growing["grid"], 40)


@pytest.mark.parametrize("schedule", ["binned", "edges"])
def test_forced_schedules_give_the_references_results(growing, schedule):
    _agree("dyn_sssp", growing["rmat"], 150, schedule=schedule, skip=("parent",), src="0")
    _agree("dyn_pr", growing["rmat"], 150, schedule=schedule, rtol=1e-4, atol=1e-6, **PR)


#: a kernel changes the (floating-point) weights in every batch: they are read back before
#: each update and scattered after it, at the slots the batch wrote, as doubles and floats
BUMPED = """\
Dynamic Bump(Graph g, propEdge<{type}> weight, propNode<{type}> total, updates<g> U,
             int batchSize) {{
    Batch (U : batchSize) {{
        forall (v in g.nodes()) {{
            for (w in g.neighbors(v)) {{
                edge e = g.get_edge(v, w);
                e.weight = e.weight + 1;
            }}
        }}
        g.updateCSRDel(U);
        g.updateCSRAdd(U);
    }}
    forall (v in g.nodes()) {{
        for (w in g.neighbors(v)) {{
            edge e = g.get_edge(v, w);
            v.total += e.weight;
        }}
    }}
}}
"""


@pytest.mark.parametrize("type_name", ["float", "double"])
def test_weights_a_kernel_changes_follow_their_slots(growing, tmp_path, type_name):
    path, updates, _ = growing["rmat"]
    program = tmp_path / f"bump_{type_name}.sp"
    program.write_text(BUMPED.format(type=type_name))
    runs = [starc.compile(str(program), backend).run(path, updates=str(updates), batchSize=150)
            for backend in ("reference", "opencl")]
    problems = compare_results(*runs, rtol=1e-5)
    assert not problems, "\n".join(problems)
