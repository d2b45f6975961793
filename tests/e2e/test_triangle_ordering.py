"""Degree ordering of the triangle count (issue 15, item 4): dsl/tc.sp on every backend, with
the renumbering forced, refused and left to the skew test, on skewed and regular graphs,
against the reference and networkx; a per-vertex count keeps the ids and its results.

CI time (an MPI launch costs about a second, more with 5 ranks on 2 cores): MPI runs rank
counts x graphs x numberings (always, never, auto, and a directed run) pairwise, every graph
in every numbering with some rank count and every rank count on every graph and in every
numbering; the other backends run every graph in every numbering."""

from __future__ import annotations

import dataclasses
import functools
import pathlib

import networkx as nx
import numpy as np
import pytest

from starc.analysis import plan as P
from starc.analysis import row_swap
from starc.ir import nodes as ir
from starc.graphs import Graph, grid, load_graph, rmat, write_edge_list
from starc.results import compare_results

from e2e_cases import compile_for
from pairwise import all_pairs

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROGRAMS = {"tc": ROOT / "dsl" / "tc.sp",
            "tc_per_vertex": pathlib.Path(__file__).resolve().parent / "programs" /
            "tc_per_vertex.sp"}
BACKENDS = [pytest.param("opencl", None, marks=pytest.mark.opencl, id="opencl"),
            pytest.param("sycl", None, marks=pytest.mark.sycl, id="sycl"),
            pytest.param("openacc", None, marks=pytest.mark.openacc, id="openacc"),
            pytest.param("mpi", 2, marks=pytest.mark.mpi, id="mpi-2"),
            # MPI renumbers by sending rows to their new owners: ranks that own few vertices
            pytest.param("mpi", 5, marks=pytest.mark.mpi, id="mpi-5")]


@functools.lru_cache(maxsize=None)
def _compiled(name: str, backend: str, ranks=None, schedule=None):
    path = str(PROGRAMS[name])
    return compile_for(path, backend, ranks, schedule)


def _simple_symmetric(graph: Graph, name: str) -> Graph:
    lo = np.minimum(graph.sources, graph.targets).astype(np.int64)
    hi = np.maximum(graph.sources, graph.targets).astype(np.int64)
    keys = np.unique((lo << 32 | hi)[lo != hi])
    return Graph.from_edges(graph.num_nodes, keys >> 32, keys & 0xFFFFFFFF, name=name)


@pytest.fixture(scope="module")
def graphs(tmp_path_factory):
    """name -> (path, whether it is symmetric and simple when read with --undirected)."""
    folder = tmp_path_factory.mktemp("tc_graphs")
    hub = 40
    star_edges = [(0, i) for i in range(1, hub)] + [(i, i + 1) for i in range(1, hub - 1)]
    made = {
        "rmat": _simple_symmetric(rmat(9, edge_factor=12, seed=11), "rmat"),
        "star": Graph.from_edges(hub, [a for a, _ in star_edges], [b for _, b in star_edges],
                                 name="star with a rim"),
        "grid": _simple_symmetric(grid(8, 8), "grid"),
        "rmat_repeats": rmat(7, edge_factor=8, seed=2),     # repeated edges and self-loops
    }
    files = {}
    for name, graph in made.items():
        path = folder / f"{name}.el"
        write_edge_list(graph, path)
        files[name] = path
    return files


def _networkx_triangles(path) -> int:
    g = load_graph(str(path), undirected=True)
    nxg = nx.Graph()
    nxg.add_nodes_from(range(g.num_nodes))
    nxg.add_edges_from((int(s), int(t)) for s, t in zip(g.sources, g.targets) if s != t)
    return sum(nx.triangles(nxg).values()) // 3


def test_the_plans_say_which_program_is_renumbered():
    def orders(name):
        plan = _compiled(name, "opencl").compilation.plan
        return any(isinstance(s, P.OrderByDegree) for s in plan.host.stmts)
    assert orders("tc") and not orders("tc_per_vertex")


@pytest.mark.opencl
def test_one_item_per_edge_reads_the_renumbered_sources(graphs):
    """--schedule edges: the count's kernel runs over the edges and finds its vertex in
    ``sources``, which the renumbering must rewrite too (it once kept the file's: R-MAT 10
    counted 22725 triangles instead of 75274)."""
    expected = _compiled("tc", "reference").run(graphs["rmat"], undirected=True)
    program = _compiled("tc", "opencl", None, "edges")
    assert any(k.schedule == "edges" for k in program.compilation.specialized.kernels)
    for mode in ("always", "never"):
        actual = program.run(graphs["rmat"], undirected=True, **{"degree-order": mode})
        assert not compare_results(expected, actual), mode


GRAPHS = ("rmat", "star", "grid", "rmat_repeats")
MODES = ("always", "never", "auto", "directed")      # directed: --degree-order always
#: ranks -> the (graph, numbering) runs MPI makes with that many ranks: all pairs
MPI_RUNS = {}
for _ranks, _graph, _mode in all_pairs((2, 5), GRAPHS, MODES):
    MPI_RUNS.setdefault(_ranks, set()).add((_graph, _mode))


def test_the_mpi_runs_cover_every_pair():
    runs = [(ranks, graph, mode) for ranks, cells in MPI_RUNS.items() for graph, mode in cells]
    assert {(g, m) for _, g, m in runs} == {(g, m) for g in GRAPHS for m in MODES}
    assert {(r, g) for r, g, _ in runs} == {(r, g) for r in (2, 5) for g in GRAPHS}
    assert {(r, m) for r, _, m in runs} == {(r, m) for r in (2, 5) for m in MODES}


@pytest.mark.parametrize("backend, ranks", BACKENDS)
def test_tc_counts_alike_in_every_numbering(backend, ranks, graphs):
    assert tuple(graphs) == GRAPHS
    for name, path in graphs.items():
        cells = {(name, mode) for mode in MODES} if ranks is None else \
            {cell for cell in MPI_RUNS[ranks] if cell[0] == name}
        expected = _compiled("tc", "reference").run(path, undirected=True)
        if name != "rmat_repeats":
            assert int(expected.ret) == _networkx_triangles(path), name
        for mode in ("always", "never", "auto"):
            if (name, mode) not in cells:
                continue
            actual = _compiled("tc", backend, ranks).run(path, undirected=True,
                                                         **{"degree-order": mode})
            problems = compare_results(expected, actual)
            assert not problems, f"tc on {name}, --degree-order {mode} ({backend}):\n" + \
                "\n".join(problems)
        if (name, "directed") in cells:
            directed = _compiled("tc", backend, ranks).run(path, **{"degree-order": "always"})
            assert not compare_results(_compiled("tc", "reference").run(path), directed), name


@pytest.mark.parametrize("backend, ranks", BACKENDS)
def test_a_per_vertex_count_keeps_the_ids(backend, ranks, graphs):
    for name in ("rmat", "star"):
        expected = _compiled("tc_per_vertex", "reference").run(graphs[name], undirected=True)
        actual = _compiled("tc_per_vertex", backend, ranks).run(graphs[name], undirected=True)
        problems = compare_results(expected, actual)
        assert not problems, f"tc_per_vertex on {name} ({backend}):\n" + "\n".join(problems)


#: how many times a marked swapped-row variant counts each triangle
_MARK = 1000


def _marked(swapped):
    """``row_swap._swapped`` whose variant counts ``_MARK`` per triangle: its result shows which
    kernel ran."""
    def mark(kernel):
        variant, why = swapped(kernel)
        if variant is None:
            return variant, why
        add = next(n for n in ir.walk(variant.body) if isinstance(n, P.AtomicReduce))
        marked = dataclasses.replace(add, value=ir.Const(_MARK, type=add.value.type))
        body = ir.transform(variant.body, lambda n: marked if n is add else None)
        return dataclasses.replace(variant, body=body), why
    return mark


@pytest.mark.parametrize("backend, ranks", [BACKENDS[0], BACKENDS[3]])
def test_the_swapped_rows_run_exactly_where_the_graph_is_renumbered(backend, ranks, graphs,
                                                                   monkeypatch):
    """The count's swapped-row variant (``row_swap``) runs where the run renumbered the graph
    (``always`` on a simple graph), the count as written where it did not (``never``; a graph
    with repeated edges, which the renumbering refuses): marked to count each triangle
    ``_MARK`` times, its result tells them apart (the unmarked runs above check its count)."""
    monkeypatch.setattr(row_swap, "_swapped", _marked(row_swap._swapped))
    program = compile_for(str(PROGRAMS["tc"]), backend, ranks)
    for name, mode, scale in (("rmat", "always", _MARK), ("rmat", "never", 1),
                              ("rmat_repeats", "always", 1)):
        expected = int(_compiled("tc", "reference").run(graphs[name], undirected=True).ret)
        actual = program.run(graphs[name], undirected=True, **{"degree-order": mode})
        assert int(actual.ret) == scale * expected, (name, mode)
