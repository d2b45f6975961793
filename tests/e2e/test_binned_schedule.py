"""The degree-binned schedule end to end (analysis/binned.py): every dsl program with a kernel
it applies to, forced with --schedule binned on OpenCL (PoCL) and SYCL, against the reference,
on graphs whose hubs really go to a work-group (in-degree at least the group size); and the
edges schedule of a body of several push loops (cc's, analysis/schedules.py) on the same hubs.

CI time: the work-group size is the built program's own run-time option (``--block-size N``;
starc's --block-size only sets its default, the code is otherwise the same), so each (program,
backend, schedule) is built once, with the backend's default size, and run at every size of
the test with ``--block-size`` (the default size without it)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import starc
from starc.backends.base import BackendOptions
from starc.graphs import load_graph, write_edge_list
from starc.results import compare_results

from e2e_cases import CASES, PROGRAMS, hub_graph, small_graphs, write_graph_files


#: the dsl programs with a kernel the binned schedule applies to (pr's sum over in-neighbours,
#: bc's reverse sweep over children; bfs's and bc's BFS steps, bodies of several loops run step
#: by step: analysis/cooperative.py; tests/analysis/test_binned.py says why the others' loops
#: do not qualify)
BINNED_PROGRAMS = ("pr", "bc", "bfs")


@functools.lru_cache(maxsize=None)
def _compiled(program: str, backend: str, block_size=None, schedule=None):
    options = BackendOptions(block_size=block_size, schedule=schedule)
    return starc.compile(str(CASES[program].path), backend, options=options)


@functools.lru_cache(maxsize=None)
def _expected(program: str, path):
    case = CASES[program]
    params = case.params_for(load_graph(str(path)).num_nodes)
    return _compiled(program, "reference").run(path, undirected=case.undirected, **params)


@pytest.fixture(scope="module")
def hub_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("hubs") / "hubs.el"
    write_edge_list(hub_graph(), path)
    return path


@pytest.fixture(scope="module")
def weighted_hub_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("hubs") / "weighted_hubs.el"
    write_edge_list(hub_graph(weighted=True), path)
    return path


@pytest.fixture(scope="module")
def graph_files(tmp_path_factory):
    return write_graph_files(tmp_path_factory.mktemp("graphs"))


#: the backends' default work-group sizes: a run at this size passes no --block-size
DEFAULT_BLOCK = {"opencl": 256, "sycl": 256, "cuda": 256}


def _check(program: str, path, block_size: int, schedule: str = "binned",
           backend: str = "opencl") -> None:
    case = CASES[program]
    graph = load_graph(str(path))
    params = case.params_for(graph.num_nodes)
    compiled = _compiled(program, backend, None, schedule)
    if block_size is not None and block_size != DEFAULT_BLOCK[backend]:
        params["block-size"] = str(block_size)
    assert any(k.schedule == schedule for k in compiled.compilation.specialized.kernels)
    expected = _expected(program, path)
    actual = compiled.run(path, undirected=case.undirected, **params)
    problems = compare_results(expected, actual, rtol=case.rtol, atol=case.atol)
    assert not problems, (f"{program} on {path.name} ({backend}, --schedule {schedule}, "
                          f"--block-size {block_size}):\n" + "\n".join(problems))


@pytest.mark.opencl
@pytest.mark.parametrize("program", BINNED_PROGRAMS)
def test_binned_onhub_graph(program, hub_file):
    """Groups of 256 take the star's centre; groups of 8 and 2 the R-MAT hubs too, with many
    heavy vertices per group (2: the smallest tree; 3: a tree of odd width)."""
    in_degrees = np.diff(load_graph(str(hub_file)).rev_offsets)
    assert (in_degrees >= 32).sum() >= 2 * 32          # several heavy runs in the order
    for block_size in (2, 3, 8, 256):
        assert in_degrees[0] == 300 and (in_degrees >= block_size).sum() >= 2
        _check(program, hub_file, block_size)


@pytest.mark.opencl
@pytest.mark.parametrize("program", BINNED_PROGRAMS)
@pytest.mark.parametrize("graph", list(small_graphs()))
def test_binned_on_the_matrix_graphs(program, graph, graph_files):
    """Groups of 2: every vertex of in-degree 2 or more is heavy, so each graph shape of the
    matrix (self-loops, duplicates, isolated vertices, no edges) runs both bins."""
    _check(program, graph_files[graph], 2)


@pytest.mark.opencl
def test_edges_over_two_push_loops_onhub_graph(hub_file):
    """cc's round (kept as rounds: tests/label_rounds.py) pushes the vertex's label over its
    out-edges, then its in-edges: one work item per edge runs both loops' iterations of its
    edge, each behind the vertex's filter; the hub's 300 edges each way land in many groups
    (of 3 and of 256), racing on its label."""
    compiled = _compiled("cc_in_rounds", "opencl", None, "edges")
    [dense] = [k for k in compiled.compilation.specialized.kernels if k.name.endswith("_dense")]
    assert dense.extent == "edges" and len(dense.body.stmts) == 2
    for block_size in (3, 256):
        _check("cc_in_rounds", hub_file, block_size, "edges")


@pytest.mark.opencl
@pytest.mark.parametrize("program", ("sssp", "sswp", "cc_in_rounds"))
def test_edges_over_a_worklists_entries_onhub_graph(program, weighted_hub_file):
    """A data-driven round over a small worklist (analysis/frontier_edges.py): the work-group
    sums its entries' degrees (cc: out- plus in-degree) and splits their edges, each item
    finding its entry by a binary search; the star's centre (300 edges each way) enters the
    worklist of the first round from it and spreads over many steps of the group (of 2, 3 and
    256 items)."""
    compiled = _compiled(program, "opencl", None, "edges")
    [sparse] = [k for k in compiled.compilation.specialized.kernels
                if k.name.endswith("_sparse")]
    assert sparse.schedule == "edges" and sparse.frontier_edges is not None
    text = "".join(compiled.compilation.generated.files.values())
    assert "starc_ends[starc_middle] > starc_edge" in text
    for block_size in (2, 3, 256):
        _check(program, weighted_hub_file, block_size, "edges")


#: SYCL bins single pull loops only (pr's, bc's reverse sweep): no bodies of several loops
#: (starc/backends/sycl/kernels.py CAPABILITIES says why)
SYCL_BINNED_PROGRAMS = ("pr", "bc")


@pytest.mark.sycl
@pytest.mark.parametrize("program", SYCL_BINNED_PROGRAMS)
def test_sycl_binned_on_hubs(program, hub_file):
    """SYCL's binned kernels (local_accessors, group barriers, the fold tree in local memory)
    in groups of 2 (the smallest), 8 and 256 (64 on a CPU device: starc_work_group_size),
    which the star's centre exceeds. (SYCL's --block-size is a power of two.)"""
    compiled = _compiled(program, "sycl", None, "binned")
    text = "".join(compiled.compilation.generated.files.values())
    assert "sycl::local_accessor<int, 1> starc_heavy(" in text
    for block_size in (2, 8, 256):
        _check(program, hub_file, block_size, backend="sycl")


@pytest.mark.sycl
@pytest.mark.parametrize("program", ("sssp", "cc_in_rounds"))
def test_sycl_edges_over_a_worklists_entries_on_hubs(program, weighted_hub_file):
    """SYCL's split worklist rounds (analysis/frontier_edges.py) on the hubs, as OpenCL's
    (groups of 2 and 256)."""
    compiled = _compiled(program, "sycl", None, "edges")
    [sparse] = [k for k in compiled.compilation.specialized.kernels
                if k.name.endswith("_sparse")]
    assert sparse.schedule == "edges" and sparse.frontier_edges is not None
    for block_size in (2, 256):
        _check(program, weighted_hub_file, block_size, "edges", backend="sycl")


@pytest.mark.cuda
@pytest.mark.gpu
@pytest.mark.parametrize("program", BINNED_PROGRAMS)
def test_cuda_binned_onhub_graph(program, hub_file):
    """CUDA's binned kernels (with their warp tier) against the reference, in blocks of one
    warp (no warp tier), of a warp and a half (no warp tier: a ballot over a partial warp with
    the whole mask is undefined) and of eight warps."""
    for block_size in (32, 48, 256):
        _check(program, hub_file, block_size, backend="cuda")


#: the programs whose kernels OpenACC's binned schedule gives a gang of vector lanes per
#: vertex sharing its neighbour loops: the pulls (a reduction clause for the fold), the folds
#: and pushes of the BFS steps of bfs and bc (their searches stay on one lane) and the push
#: loops of sssp, sswp, cc (two loops in a row) and tc (the count's clause on the loop too)
VECTOR_PROGRAMS = BINNED_PROGRAMS + ("sssp", "sswp", "cc", "tc")


@pytest.mark.openacc
@pytest.mark.parametrize("program", VECTOR_PROGRAMS)
def test_openacc_vector_loops_onhub_graph(program, weighted_hub_file):
    """OpenACC (g++ -fopenacc; on the host where no offload compiler is installed) with
    --schedule binned: the vertex loop a gang loop, its neighbour loops `loop vector`."""
    compiled = _compiled(program, "openacc", None, "binned")
    assert any(k.vector_loops for k in compiled.compilation.specialized.kernels)
    assert any("#pragma acc loop vector" in text
               for text in compiled.compilation.generated.files.values())
    _check(program, weighted_hub_file, None, backend="openacc")


@pytest.mark.openacc
@pytest.mark.parametrize("program", ("pr", "bc", "cc", "bfs"))
@pytest.mark.parametrize("graph", list(small_graphs()))
def test_openacc_vector_loops_on_the_matrix_graphs(program, graph, graph_files):
    """The same on each graph shape of the matrix (self-loops, duplicates, no edges)."""
    _check(program, graph_files[graph], None, backend="openacc")
