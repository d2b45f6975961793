"""Held-back programs (tests/e2e/programs/heldback, written apart from the dsl programs and
the MPI backend) give the reference's results with MPI on 2 and 3 ranks (each graph with one
of them, in turn: pairwise, for CI time) and with OpenACC (one process: the same program, so a
failure there is about the language, not distribution), on graphs that include fewer vertices
than ranks; the ones MPI refuses on purpose fail with E0501 at the located construct."""

from __future__ import annotations

import functools
import pathlib

import pytest

from starc.diagnostics import CompileError
from starc.graphs import load_graph
from starc.results import compare_results

from e2e_cases import compile_for, write_graph_files

HELD_BACK = pathlib.Path(__file__).resolve().parent / "programs" / "heldback"
GRAPHS = ("rmat", "star", "self_loops_dups", "one_vertex")


def _ids(num_nodes: int, *ids: int) -> str:
    return ",".join(str(i) for i in ids if i < num_nodes)


# Each program's parameters for a graph of n vertices (vertex ids that exist in every graph).
PARAMS = {
    "anywhere_access": lambda n: {"hub": str(n - 1)},
    "anywhere_degree": lambda n: {"hub": str(n - 1)},
    "bfs_parent_pointers": lambda n: {"src": "0", "probe": str(n - 1)},
    "bfs_reverse_filtered": lambda n: {"src": "0"},
    "calls_and_copies": lambda n: {"pick": str(n - 1)},
    "edge_counts": lambda n: {},
    "edge_properties": lambda n: {},
    "host_control": lambda n: {"src": str(n // 2)},
    "in_rows_of_neighbours": lambda n: {},
    "max_secondary_bool": lambda n: {"src": "0"},
    "multi_forall_fixedpoint": lambda n: {},
    "neighbour_reductions": lambda n: {},
    "nested_fixedpoint": lambda n: {},
    "pull_degrees": lambda n: {},
    "remote_is_an_edge": lambda n: {},
    "source_set": lambda n: {"sources": _ids(n, 0, 3, 2)},
    "wide_types": lambda n: {},
}

# Programs MPI refuses on purpose, with where and why (docs/architecture.md, "MPI").
REFUSED = {
    # the owner applies one combined operator per array and superstep
    "refused_two_operators": ":6:5: error[E0501]: the MPI backend cannot distribute this "
                             "program: 'plus' is written at other vertices with two operators "
                             "(+ and -) in one forall",
    # a rank holds the rows of its own vertices and their neighbours only
    "refused_anywhere_row": ":6:13: error[E0501]: the MPI backend cannot distribute this "
                            "program: g.is_an_edge of a vertex that is neither the forall's "
                            "own vertex nor one of its neighbours",
    # every rank runs the host code; one rank holds the row
    "refused_host_edge": ":5:9: error[E0501]: the MPI backend cannot distribute this program: "
                         "g.is_an_edge outside a forall",
}

BACKENDS = [pytest.param("mpi", marks=pytest.mark.mpi),
            pytest.param("openacc", marks=pytest.mark.openacc)]


def _ranks(name: str, graph: str) -> int:
    """Programs x graphs x 2 or 3 ranks pairwise, not the full product (CI time: an mpirun
    each): each program runs every graph once, with 2 and 3 ranks in turn (starting from
    the program's place in the list), so each program and each graph meets both counts."""
    return (2, 3)[(sorted(PARAMS).index(name) + GRAPHS.index(graph)) % 2]


def test_every_held_back_program_is_listed():
    assert {p.stem for p in HELD_BACK.glob("*.sp")} == set(PARAMS) | set(REFUSED)


@functools.lru_cache(maxsize=None)
def _compiled(name: str, backend: str, ranks=None):
    path = str(HELD_BACK / f"{name}.sp")
    return compile_for(path, backend, ranks)


@pytest.fixture(scope="module")
def graph_files(tmp_path_factory):
    return write_graph_files(tmp_path_factory.mktemp("graphs"))


@functools.lru_cache(maxsize=None)
def _expected(name: str, path):
    params = PARAMS[name](load_graph(str(path)).num_nodes)
    return params, _compiled(name, "reference").run(path, **params)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(PARAMS))
def test_held_back_program_agrees_with_the_reference(name, backend, graph_files):
    for graph in GRAPHS:
        path = graph_files[graph]
        params, expected = _expected(name, path)
        ranks = _ranks(name, graph) if backend == "mpi" else None
        actual = _compiled(name, backend, ranks).run(path, **params)
        problems = compare_results(expected, actual)
        assert not problems, f"{name} on {graph} ({backend}, {ranks} ranks):\n" \
            + "\n".join(problems)


@pytest.mark.mpi
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_on_purpose_with_a_located_e0501(name, graph_files):
    with pytest.raises(CompileError) as info:
        _compiled(name, "mpi", 2)
    assert f"{name}.sp{REFUSED[name]}" in str(info.value)


@pytest.mark.openacc
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_what_mpi_refuses_runs_elsewhere(name, graph_files):
    path = graph_files["rmat"]
    params = {"refused_anywhere_row": {"hub": "3"},
              "refused_host_edge": {"hub": "3", "other": "5"}}.get(name, {})
    expected = _compiled(name, "reference").run(path, **params)
    assert compare_results(expected, _compiled(name, "openacc").run(path, **params)) == []
