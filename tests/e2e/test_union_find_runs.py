"""Minimum-label propagation run as a union-find (analysis/union_find.py) on every backend
here, against networkx: dsl/cc.sp, and a propagation of labels that are not the vertices'
ids (each component's least label, wherever in it that sits), on directed graphs whose weak
components need both directions of their edges, with self-loops, duplicate edges, isolated
vertices and long paths through ids in a random order (many links retried from moved roots),
and a sampled hub outside the largest component, whose tree joins one of a less root late.
MPI keeps the rounds: the same programs there check the two agree."""

from __future__ import annotations

import functools
import pathlib
import sys

import networkx as nx
import numpy as np
import pytest

import starc
from starc.graphs import Graph, write_mtx
from starc.graphs.generators import grid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "reference"))
import reference_oracles as oracles  # noqa: E402  (the oracle module of tests/reference)

DSL = pathlib.Path(__file__).resolve().parents[2] / "dsl"

BACKENDS = {"opencl": [pytest.mark.opencl], "sycl": [pytest.mark.sycl],
            "cuda": [pytest.mark.cuda, pytest.mark.gpu], "openacc": [pytest.mark.openacc],
            "mpi": [pytest.mark.mpi]}
#: the backends that run the union-find (``Capabilities.union_find``)
UNION_FIND = ("opencl", "sycl", "cuda", "openacc")

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


def least_labels(graph: Graph) -> np.ndarray:
    """Each vertex's component's least (37 v + 11) mod 101, by networkx."""
    labels = (37 * np.arange(graph.num_nodes) + 11) % 101
    least = labels.copy()
    for members in nx.weakly_connected_components(oracles.digraph(graph)):
        members = list(members)
        least[members] = labels[members].min()
    return least


def _check(programs, tmp_path) -> None:
    """cc's components and the least labels of each graph, against networkx."""
    for graph in graphs():
        path = tmp_path / f"{graph.name}.mtx"
        write_mtx(graph, path)
        comp = programs["cc"].run(path).props["comp"]
        np.testing.assert_array_equal(comp, oracles.components(graph), err_msg=graph.name)
        lab = programs["labels"].run(path).props["lab"]
        np.testing.assert_array_equal(lab, least_labels(graph), err_msg=graph.name)


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
