"""Plan rewrites that must not change a result (issue 15, item 3): swap instead of copy and
the hoisting of per-vertex terms out of neighbour loops, on every backend against the
reference, for the programs where the rewrite applies and those where it must not.

CI time: the backends build the four swap programs as one, SWAPS (their bodies in turn, each
one's names suffixed with its own), whose plan still swaps exactly where swap_safe does and
copies where the others do (tests/analysis/test_swap.py), and whose reference run equals the
four programs' own.

Each (program, backend) builds once and runs its graphs. For MPI the product programs x rank
counts x graphs is covered pairwise (CI time: every MPI launch costs about a second): each
program runs on every graph and with 2 and with 3 ranks, each rank count on every graph; the
other backends run every program on every graph."""

from __future__ import annotations

import functools
import pathlib
import re

import pytest

import starc
from starc.results import compare_results

from e2e_cases import compile_for, write_graph_files
from pairwise import all_pairs
from plan_moves import moves

PROGRAMS = pathlib.Path(__file__).resolve().parent / "programs"
BACKENDS = [pytest.param("opencl", None, marks=pytest.mark.opencl, id="opencl"),
            pytest.param("sycl", None, marks=pytest.mark.sycl, id="sycl"),
            pytest.param("openacc", None, marks=pytest.mark.openacc, id="openacc"),
            pytest.param("mpi", 2, marks=pytest.mark.mpi, id="mpi-2"),
            pytest.param("mpi", 3, marks=pytest.mark.mpi, id="mpi-3")]
GRAPHS = ("rmat", "isolated", "self_loops_dups", "disconnected", "one_vertex")
#: the swap programs, each of its own (tests/analysis/test_swap.py: swap_safe's copy becomes a
#: swap, the others' stay copies)
SWAP_PROGRAMS = ("swap_safe", "swap_filtered", "swap_conditional", "swap_read_after")
#: the names of a swap program that SWAPS suffixes with the program's
_OWN = re.compile(r"\b(out|nxt|pick|seen|r|s|u)\b")


def _swaps() -> str:
    """The four swap programs as one function: their bodies in turn, their properties and
    locals renamed ``out_safe``, ``nxt_filtered`` and so on, one ``rounds``."""
    params, bodies = ["Graph g", "int rounds"], []
    for name in SWAP_PROGRAMS:
        text = (PROGRAMS / f"{name}.sp").read_text()
        text = text[text.index("function "):]
        suffix = name[len("swap_"):]
        text = _OWN.sub(lambda m: f"{m.group(1)}_{suffix}", text)
        head, body = text.split("{", 1)
        params += [p.strip() for p in head[head.index("(") + 1:head.rindex(")")].split(",")
                   if p.strip() not in params]
        bodies.append(body[:body.rindex("}")].rstrip() + "\n")
    return f"function swaps({', '.join(params)}) {{" + "".join(bodies) + "}\n"


SWAPS = _swaps()
#: program (a file of programs/, or SWAPS) -> run parameters (3 rounds: a wrong swap shows
#: from the second round on)
CASES = {"swaps": {"rounds": "3"}, "hoist_terms": {}}


def test_the_swaps_together_swap_and_copy_as_each_alone(graph_files):
    """SWAPS keeps each program's decision in the plan the backends generate (so every
    backend runs a swap and the kept copies; OpenCL's plan: the build waits for a first run),
    and its reference run gives each program's results under its own names."""
    assert sorted(moves(_compiled("swaps", "opencl").compilation.plan)) == sorted(
        [("swap", "out_safe", "nxt_safe")] + [("copy", f"out_{n}", f"nxt_{n}")
                                              for n in ("filtered", "conditional", "read_after")])
    for graph in GRAPHS:
        together = _compiled("swaps", "reference").run(graph_files[graph], rounds="3")
        for name in SWAP_PROGRAMS:
            alone = _compiled(name, "reference").run(graph_files[graph], rounds="3")
            suffix = name[len("swap_"):]
            for prop, values in alone.props.items():
                assert together.props[f"{prop}_{suffix}"].tolist() == values.tolist(), \
                    (graph, name, prop)


@pytest.fixture(scope="module")
def graph_files(tmp_path_factory):
    return write_graph_files(tmp_path_factory.mktemp("graphs"))


@functools.lru_cache(maxsize=None)
def _compiled(name: str, backend: str, ranks=None):
    if name == "swaps":
        return starc.compile(SWAPS, backend, ranks=ranks, oversubscribe=ranks is not None)
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
