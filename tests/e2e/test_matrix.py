"""Every dsl program x every available backend x the small graphs, against the reference.

Each (program, backend[, schedule]) is one test case that builds once and runs every graph it
checks (CI time: the build is the cost, a run on a small graph is milliseconds); the product
programs x backends is full, and so is the graphs axis (every graph on every case)."""

from __future__ import annotations

import functools

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import numpy as np

from starc.graphs import Graph, load_graph
from starc.results import compare_results

from e2e_cases import PROGRAMS, compile_for, small_graphs, write_graph_files

# One marker per backend (strict markers): `-m opencl` runs one column of the matrix.
BACKENDS = {
    "opencl": [pytest.mark.opencl],
    "cuda": [pytest.mark.cuda, pytest.mark.gpu],
    "sycl": [pytest.mark.sycl],
    "openacc": [pytest.mark.openacc],
}


@functools.lru_cache(maxsize=None)
def compiled(program: str, backend: str, ranks=None, schedule=None):
    """Compile (and, on first run, build) once per program, backend, number of MPI
    processes (None: the backend's own) and forced kernel schedule per process."""
    return compile_for(PROGRAMS[program].path, backend, ranks, schedule)


@pytest.fixture(scope="module")
def graph_files(tmp_path_factory):
    return write_graph_files(tmp_path_factory.mktemp("graphs"))


def _check(program: str, backend: str, path, num_nodes: int, ranks=None,
           schedule=None) -> None:
    case = PROGRAMS[program]
    params = case.params_for(num_nodes)
    expected = compiled(program, "reference").run(path, undirected=case.undirected, **params)
    actual = compiled(program, backend, ranks, schedule).run(path, undirected=case.undirected,
                                                             **params)
    problems = compare_results(expected, actual, rtol=case.rtol, atol=case.atol)
    where = backend if ranks is None else f"{backend}, {ranks} ranks"
    where += f", --schedule {schedule}" if schedule else ""
    assert not problems, f"{program} on {path.name} ({where}):\n" + "\n".join(problems)


def _check_graphs(program: str, backend: str, graph_files, graphs, schedule=None) -> None:
    """``_check`` on each of ``graphs`` with one build; every graph's failure reported."""
    failures = []
    for graph in graphs:
        path = graph_files[graph]
        try:
            _check(program, backend, path, load_graph(str(path)).num_nodes, schedule=schedule)
        except AssertionError as failure:
            failures.append(str(failure))
    assert not failures, "\n".join(failures)


def _matrix():
    for backend, marks in BACKENDS.items():
        for program in PROGRAMS:
            yield pytest.param(program, backend, marks=marks, id=f"{backend}-{program}")


@pytest.mark.parametrize("program, backend", list(_matrix()))
def test_matrix(program, backend, graph_files):
    """One build, every small graph."""
    _check_graphs(program, backend, graph_files, list(small_graphs()))


#: the programs with a kernel whose loops may run one work item per edge (analysis/schedules.py;
#: cc's body is two push loops)
PUSH_PROGRAMS = ("sssp", "sswp", "tc", "cc")
#: the schedule each backend's auto does not take (CUDA runs edges, the others vertex)
OTHER_SCHEDULE = {"opencl": "edges", "sycl": "edges", "openacc": "edges", "cuda": "vertex"}


#: the programs with a kernel whose loops a work-group may share (analysis/binned.py; bfs's and
#: bc's BFS steps: analysis/cooperative.py): CUDA's auto bins them, so its other schedule is vertex (OpenCL's forced binned: test_binned_schedule)
FOLD_PROGRAMS = ("pr", "bc", "bfs")


def _forced():
    """Every push program on every small graph with OpenCL; on the other backends, three
    graph shapes (a power-law graph, duplicates and self-loops, isolated vertices). SYCL bins
    pr's and bc's pulls too (OpenCL's binned: test_binned_schedule)."""
    for backend, marks in BACKENDS.items():
        graphs = list(small_graphs()) if backend == "opencl" else \
            ["rmat", "self_loops_dups", "isolated"]
        cases = [(program, OTHER_SCHEDULE[backend]) for program in PUSH_PROGRAMS]
        if backend == "cuda":
            cases += [(program, OTHER_SCHEDULE[backend]) for program in FOLD_PROGRAMS]
        if backend == "sycl":     # (single pull loops only: bfs's steps stay per vertex)
            cases += [(program, "binned") for program in FOLD_PROGRAMS if program != "bfs"]
        for program, schedule in cases:
            yield pytest.param(program, backend, tuple(graphs), schedule, marks=marks,
                               id=f"{backend}-{schedule}-{program}")


@pytest.mark.parametrize("program, backend, graphs, schedule", list(_forced()))
def test_matrix_with_the_other_schedule(program, backend, graphs, schedule, graph_files):
    """One build with the forced schedule, each of its graphs."""
    _check_graphs(program, backend, graph_files, graphs, schedule=schedule)


@st.composite
def edge_lists(draw):
    """Small random weighted directed graphs (ids dense from 0, self-loops and duplicates
    allowed), at least one vertex so that `--src 0` is valid."""
    n = draw(st.integers(min_value=1, max_value=24))
    m = draw(st.integers(min_value=0, max_value=3 * n))
    src = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    dst = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    w = draw(st.lists(st.integers(1, 100), min_size=m, max_size=m))
    return Graph.from_edges(n, np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64),
                            np.array(w, dtype=np.float64), True, "hypothesis")


@pytest.mark.parametrize("backend", [pytest.param("opencl", marks=pytest.mark.opencl),
                                     pytest.param("openacc", marks=pytest.mark.openacc)])
@pytest.mark.parametrize("program", ["sssp", "cc", "bfs", "sswp", "tc", "kcore"])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(graph=edge_lists())
def test_generated_graphs(program, backend, graph, tmp_path):
    from starc.graphs import write_mtx
    path = tmp_path / "g.mtx"        # .mtx keeps the vertex count of isolated vertices
    write_mtx(graph, path)
    _check(program, backend, path, graph.num_nodes)
