"""Minimum-label propagation run as a union-find (analysis/union_find.py) on every backend
here, against networkx: dsl/cc.sp, and a propagation of labels that are not the vertices'
ids (each component's least label, wherever in it that sits), on directed graphs whose weak
components need both directions of their edges, with self-loops, duplicate edges, isolated
vertices and long paths through ids in a random order (many links retried from moved roots),
and a sampled hub outside the largest component, whose tree joins one of a less root late.
MPI's runtime joins the ranks' forests through their ghosts (``LeastLabels``): the same
programs on 1 to 8 ranks, with graphs whose hub is in a small component (most ranks do not
know it) and whose big trees, on different ranks, join by one edge each."""

from __future__ import annotations

import functools
import pathlib
import sys

import networkx as nx
import numpy as np
import pytest

import starc
from starc.graphs import Graph, rmat, write_mtx
from starc.graphs.generators import grid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "reference"))
import reference_oracles as oracles  # noqa: E402  (the oracle module of tests/reference)
from e2e_cases import compile_for  # noqa: E402

DSL = pathlib.Path(__file__).resolve().parents[2] / "dsl"

BACKENDS = {"opencl": [pytest.mark.opencl], "sycl": [pytest.mark.sycl],
            "cuda": [pytest.mark.cuda, pytest.mark.gpu], "openacc": [pytest.mark.openacc],
            "mpi": [pytest.mark.mpi]}
#: the backends that run the union-find (``Capabilities.union_find``)
UNION_FIND = ("opencl", "sycl", "cuda", "openacc", "mpi")

#: labels that are not ids: a vertex's is (37 v + 11) mod 101, so many vertices share one
#: and a component's least is rarely at its least id
LABELS = """function Least(Graph g, propNode<int> lab) {
    propNode<bool> changed;
    g.attachNodeProperty(changed = True);
    forall (v in g.nodes()) {
        v.lab = (37 * v + 11) % 101;
    }
    bool done = False;
    fixedPoint until (done : !changed) {
        forall (v in g.nodes().filter(changed == True)) {
            forall (u in g.nodes_to(v)) {
                <u.lab, u.changed> = <Min(u.lab, v.lab), True>;
            }
            forall (w in g.neighbors(v)) {
                <w.lab, w.changed> = <Min(w.lab, v.lab), True>;
            }
        }
    }
}
"""


def graphs():
    rng = np.random.default_rng(63)
    yield grid(40, 40)
    n = 3000
    # directed edges, a third of them reversed, with self-loops and duplicates: weak
    # components join only through both directions
    src, dst = rng.integers(0, n, n), rng.integers(0, n, n)
    src[:50] = dst[:50]
    yield Graph.from_edges(n, np.concatenate([src, src[:100]]),
                           np.concatenate([dst, dst[:100]]), None, True, "directed")
    # paths through the ids in a random order, one direction each
    order = rng.permutation(4000).reshape(4, 1000)
    yield Graph.from_edges(4000 + 7, order[:, :-1].ravel(), order[:, 1:].ravel(), None, True,
                           "paths")
    # the sampled hub (50, every vertex sampled) in a smaller component than a path's: its
    # out-neighbours past the first join it only by their in-edges; with the bridge
    # 70 -> 3, the hub's tree joins one of a less root after the choice
    path = np.arange(49)
    hub = np.arange(60, 100)
    for name, bridge in (("hub", ()), ("bridge", ((70, 3),))):
        extra = np.array(bridge, dtype=np.int64).reshape(-1, 2)
        yield Graph.from_edges(
            100, np.concatenate([path, np.full(40, 50), extra[:, 0]]),
            np.concatenate([path + 1, hub, extra[:, 1]]), None, True, name)


#: LABELS with a second kernel that changes some labels: their ghost copies, refreshed by
#: change, are not known exact when the loop starts (MPI refreshes them first)
LATE_LABELS = LABELS.replace("""    bool done = False;""", """    forall (v in g.nodes()) {
        if (v % 7 == 0) {
            v.lab = 500 + v;
        }
    }
    bool done = False;""")


def start_labels(n: int, late: bool = False) -> np.ndarray:
    """What LABELS (or LATE_LABELS) starts its vertices with."""
    ids = np.arange(n)
    labels = (37 * ids + 11) % 101
    return np.where(ids % 7 == 0, 500 + ids, labels) if late else labels


def least_labels(graph: Graph, late: bool = False) -> np.ndarray:
    """Each vertex's component's least start label, by networkx."""
    labels = start_labels(graph.num_nodes, late)
    least = labels.copy()
    for members in nx.weakly_connected_components(oracles.digraph(graph)):
        members = list(members)
        least[members] = labels[members].min()
    return least


def ranks_graphs():
    """Besides ``graphs()``: what a rank's skipped edges must not lose."""
    yield from graphs()
    rng = np.random.default_rng(65)
    # two stars on different ranks, the first the graph's hub, joined by one edge between
    # two leaves: each rank's big tree skips the edges of its own vertices
    leaves_a, leaves_b = np.arange(100, 200), np.arange(200, 299)
    yield Graph.from_edges(300, np.concatenate([np.full(100, 10), leaves_b, [150]]),
                           np.concatenate([leaves_a, np.full(99, 20), [250]]), None, True,
                           "two stars")
    # the hub (1: a self-loop first, then in-edges) alone in its tree on its own rank, where
    # every rank of five holds one vertex: it takes the least label of the others' trees of it
    yield Graph.from_edges(5, np.array([0, 0, 1, 1, 2, 3, 0, 2]), np.array([1, 1, 1, 2, 3, 3, 2, 4]),
                           None, True, "lonely hub")
    # paths of 60 on most ranks of eight, each joined to the next by one edge between two
    # middles, either way: a path is a rank's big tree where the rank does not know the hub
    # (a star on the first path); its vertices skip their edges to their own rank's only
    paths = np.arange(480).reshape(8, 60)
    middles = paths[:, 30]
    forward = np.arange(7) % 2 == 0
    yield Graph.from_edges(
        480, np.concatenate([paths[:, :-1].ravel(), np.full(20, 0),
                             np.where(forward, middles[:-1], middles[1:])]),
        np.concatenate([paths[:, 1:].ravel(), np.arange(40, 60),
                        np.where(forward, middles[1:], middles[:-1])]), None, True, "bridged paths")
    # a power-law graph of many components, its edges in random directions
    g = rmat(11, 2, seed=65)
    flip = rng.random(len(g.sources)) < 0.5
    yield Graph.from_edges(g.num_nodes, np.where(flip, g.targets, g.sources),
                           np.where(flip, g.sources, g.targets), None, True, "rmat")


def _check(programs, tmp_path, each=graphs) -> None:
    """cc's components and the least labels of each graph, against networkx."""
    for graph in each():
        path = tmp_path / f"{graph.name}.mtx"
        write_mtx(graph, path)
        comp = programs["cc"].run(path).props["comp"]
        np.testing.assert_array_equal(comp, oracles.components(graph), err_msg=graph.name)
        lab = programs["labels"].run(path).props["lab"]
        np.testing.assert_array_equal(lab, least_labels(graph), err_msg=graph.name)
        if "late" in programs:
            lab = programs["late"].run(path).props["lab"]
            np.testing.assert_array_equal(lab, least_labels(graph, True), err_msg=graph.name)


@functools.lru_cache(maxsize=None)
def compiled(backend: str, source: str):
    return starc.compile(source, backend)


@pytest.mark.parametrize("backend", [pytest.param(b, marks=m) for b, m in BACKENDS.items()])
def test_label_propagation_matches_networkx(backend, tmp_path):
    programs = {"cc": compiled(backend, str(DSL / "cc.sp")), "labels": compiled(backend, LABELS)}
    for name, program in programs.items():
        forms = {f.form for f in program.compilation.specialized.target.loop_forms}
        assert ("union-find" in forms) == (backend in UNION_FIND), (name, forms)
    _check(programs, tmp_path)


@pytest.mark.parametrize("backend", [pytest.param(b, marks=BACKENDS[b])
                                     for b in ("opencl", "sycl")])
def test_the_gpu_form_matches_networkx(backend, tmp_path, monkeypatch):
    """The union-find's form for a lockstep device (every out-edge links its two trees, one
    work item per edge, with no sampled links), run on the CPU device as on a GPU."""
    programs = {"cc": compiled(backend, str(DSL / "cc.sp")), "labels": compiled(backend, LABELS)}
    for program in programs.values():
        [link] = [k for k in program.compilation.specialized.kernels
                  if k.variant_of.endswith("_link_every")]
        assert link.extent == "edges" and link.schedule == "edges"
    monkeypatch.setenv(f"STARC_{backend.upper()}_LOCKSTEP", "1")
    _check(programs, tmp_path)


@pytest.mark.mpi
@pytest.mark.parametrize("ranks", [1, 3, 5, 8])
def test_the_ranks_forests_match_networkx(ranks, tmp_path):
    """MPI's least labels (each rank's edges in a union-find over its vertices and ghosts, the
    hub's tree agreed by all-reduce, the other labels through the ghosts) on 1 to 8 ranks."""
    programs = {"cc": compile_for(DSL / "cc.sp", "mpi", ranks=ranks)}
    for name, text in (("labels", LABELS), ("late", LATE_LABELS)):
        (tmp_path / f"{name}.sp").write_text(text)
        programs[name] = compile_for(tmp_path / f"{name}.sp", "mpi", ranks=ranks)
    # (the ghost copies exact when the loop starts, where the kernel before stored every
    # vertex's label; else the runtime refreshes them first)
    fresh = {name: program.compilation.specialized.target.distribution.fresh_labels
             for name, program in programs.items()}
    assert fresh == {"cc": ("comp",), "labels": ("lab",), "late": ()}
    _check(programs, tmp_path, ranks_graphs)
