"""Plan rewrites that must not change a result (issue 15, item 3): swap instead of copy and
the hoisting of per-vertex terms out of neighbour loops, on every backend against the
reference, for the programs where the rewrite applies and those where it must not.

Each (program, backend) builds once and runs its graphs. For MPI the product programs x rank
counts x graphs is covered pairwise (CI time: every MPI launch costs about a second): each
program runs on every graph and with 2 and with 3 ranks, each rank count on every graph; the
other backends run every program on every graph."""

from __future__ import annotations

import functools
import pathlib

import pytest

from starc.results import compare_results

from e2e_cases import compile_for, write_graph_files
from pairwise import all_pairs

PROGRAMS = pathlib.Path(__file__).resolve().parent / "programs"
BACKENDS = [pytest.param("opencl", None, marks=pytest.mark.opencl, id="opencl"),
            pytest.param("sycl", None, marks=pytest.mark.sycl, id="sycl"),
            pytest.param("openacc", None, marks=pytest.mark.openacc, id="openacc"),
            pytest.param("mpi", 2, marks=pytest.mark.mpi, id="mpi-2"),
            pytest.param("mpi", 3, marks=pytest.mark.mpi, id="mpi-3")]
GRAPHS = ("rmat", "isolated", "self_loops_dups", "disconnected", "one_vertex")
#: program -> run parameters (3 rounds: a wrong swap shows from the second round on)
CASES = {"swap_safe": {"rounds": "3"}, "swap_filtered": {"rounds": "3"},
         "swap_conditional": {"rounds": "3"}, "swap_read_after": {"rounds": "3"},
         "hoist_terms": {}}


@pytest.fixture(scope="module")
def graph_files(tmp_path_factory):
    return write_graph_files(tmp_path_factory.mktemp("graphs"))


@functools.lru_cache(maxsize=None)
def _compiled(name: str, backend: str, ranks=None):
    path = str(PROGRAMS / f"{name}.sp")
    return compile_for(path, backend, ranks)


#: (program, ranks) -> the graphs MPI runs it on with that many ranks: all pairs of programs,
#: rank counts and graphs
MPI_GRAPHS = {}
for _name, _ranks, _graph in all_pairs(sorted(CASES), (2, 3), GRAPHS):
    MPI_GRAPHS.setdefault((_name, _ranks), []).append(_graph)


@pytest.mark.parametrize("backend, ranks", BACKENDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_rewritten_and_kept_programs_agree_with_the_reference(name, backend, ranks,
                                                               graph_files):
    graphs = GRAPHS if ranks is None else MPI_GRAPHS[name, ranks]
    for graph in graphs:
        expected = _compiled(name, "reference").run(graph_files[graph], **CASES[name])
        actual = _compiled(name, backend, ranks).run(graph_files[graph], **CASES[name])
        problems = compare_results(expected, actual)
        assert not problems, f"{name} on {graph} ({backend}, {ranks} ranks):\n" \
            + "\n".join(problems)


def test_the_mpi_cases_cover_every_program_rank_count_and_graph():
    """The pairwise MPI cases: every program with both rank counts, every graph with both,
    and every program on every graph."""
    pairs = [(name, ranks, graph) for (name, ranks), graphs in MPI_GRAPHS.items()
             for graph in graphs]
    assert {(n, r) for n, r, _ in pairs} == {(n, r) for n in CASES for r in (2, 3)}
    assert {(r, g) for _, r, g in pairs} == {(r, g) for r in (2, 3) for g in GRAPHS}
    assert {(n, g) for n, _, g in pairs} == {(n, g) for n in CASES for g in GRAPHS}
