"""Rows with slack on OpenCL, SYCL and OpenACC (issue 31, item 3): dsl/dynamic's programs give
the reference's results when the batches make rows outgrow their room and the slot space run
out (mostly additions), and under the forced schedules (``--schedule binned``, ``edges``), which
keep rows with slack where they apply to no kernel that walks edge ids and a compact CSR where
they do; the plan lays the graph out in rows with slack on each of them, and CUDA's program
of rows with slack compiles with nvcc."""

from __future__ import annotations

import dataclasses
import pathlib
import subprocess
import sys

import pytest

import starc
from starc.backends.base import BackendOptions
from starc.graphs import grid, load_graph, rmat, write_edge_list
from starc.graphs.updates import generate_updates, write_updates
from starc.results import compare_results

DYNAMIC = pathlib.Path(__file__).resolve().parents[2] / "dsl" / "dynamic"
PR = {"beta": "0.000001", "delta": "0.85", "maxIter": "100"}

#: the backends whose kernels read rows with slack and run here, each where its toolchain is
SLACK_BACKENDS = [pytest.param("opencl", marks=pytest.mark.opencl),
                  pytest.param("sycl", marks=pytest.mark.sycl),
                  pytest.param("openacc", marks=pytest.mark.openacc)]


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


def _agree(name, case, batch, backend, schedule=None, rtol=0.0, atol=0.0, skip=(), **params):
    path, updates, undirected = case
    options = BackendOptions(schedule=schedule)
    runs = [starc.compile(str(DYNAMIC / f"{name}.sp"), which,
                          options=options if which != "reference" else None)
            .run(path, undirected=undirected, updates=str(updates), batchSize=batch, **params)
            for which in ("reference", backend)]
    compared = [dataclasses.replace(run, props={k: v for k, v in run.props.items()
                                                if k not in skip}) for run in runs]
    problems = compare_results(*compared, rtol=rtol, atol=atol)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("backend", SLACK_BACKENDS)
@pytest.mark.parametrize("batch", [7, 150, 100000])
def test_growing_rows_give_the_references_sssp_and_pagerank(growing, batch, backend):
    _agree("dyn_sssp", growing["rmat"], batch, backend, skip=("parent",), src="0")
    _agree("dyn_pr", growing["rmat"], batch, backend, rtol=1e-4, atol=1e-6, **PR)


@pytest.mark.parametrize("backend", SLACK_BACKENDS)
def test_growing_rows_give_the_references_triangle_count(growing, backend):
    _agree("dyn_tc", growing["grid"], 40, backend)


@pytest.mark.parametrize("backend", SLACK_BACKENDS)
@pytest.mark.parametrize("schedule", ["binned", "edges"])
def test_forced_schedules_give_the_references_results(growing, schedule, backend):
    _agree("dyn_sssp", growing["rmat"], 150, backend, schedule=schedule, skip=("parent",),
           src="0")
    _agree("dyn_pr", growing["rmat"], 150, backend, schedule=schedule, rtol=1e-4, atol=1e-6,
           **PR)


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


@pytest.mark.parametrize("backend", SLACK_BACKENDS)
@pytest.mark.parametrize("type_name", ["float", "double"])
def test_weights_a_kernel_changes_follow_their_slots(growing, tmp_path, type_name, backend):
    path, updates, _ = growing["rmat"]
    program = tmp_path / f"bump_{type_name}.sp"
    program.write_text(BUMPED.format(type=type_name))
    runs = [starc.compile(str(program), which).run(path, updates=str(updates), batchSize=150)
            for which in ("reference", backend)]
    problems = compare_results(*runs, rtol=1e-5)
    assert not problems, "\n".join(problems)


@pytest.mark.cuda
@pytest.mark.parametrize("name", ["dyn_tc", "bump_double"])
def test_cudas_program_of_rows_with_slack_builds_with_nvcc(tmp_path, name):
    """CUDA reads rows with slack where its schedules allow (dyn_tc; dyn_sssp's edges and
    dyn_pr's binned schedules keep a compact CSR, ``test_batches``): the program's scatter and
    gather (of dyn_tc's marks, of the weights a kernel writes under ``--schedule vertex``)
    build under nvcc -arch=sm_75 with every warning an error (its runs, which need a GPU, are
    test_dynamic_programs')."""
    if name == "dyn_tc":
        program, schedule = DYNAMIC / "dyn_tc.sp", []
    else:
        program, schedule = tmp_path / "bump_double.sp", ["--schedule", "vertex"]
        program.write_text(BUMPED.format(type="double"))
    out = tmp_path / "out"
    built = subprocess.run([sys.executable, "-m", "starc", "build", str(program), "-b", "cuda",
                            "--gpu-arch", "sm_75", *schedule, "-o", str(out)],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    text = (out / f"{program.stem}.cu").read_text()
    assert "starc::SlackRows" in text and "starc_scatter(" in text
    # both write an edge property on the device (dyn_tc its marks of updated pairs), read
    # back at the slots a batch moves
    assert "starc_gather(" in text
    assert (out / program.stem).is_file()
