"""Hypothesis strategies for Dynamic programs and update streams (issue 31): a static function
built from the differential fuzzer's phases, run once and then in every batch of a Batch loop
with OnDelete / OnAdd bodies (writing one endpoint or both), a recomputation between the
deletions and the additions or not, Decremental / Incremental shortest distances (fixedPoint
and Min over the weights, added edges' weights included) or not, and both parts of each batch
applied; streams with deletions of missing edges, duplicate additions and self-loops.

The last statement of every batch recomputes the static function, which attaches every
property it reads first, so after the last batch the results must be what the static function
gives on the graph the stream leaves (the issue's oracle), whatever the OnAdd / OnDelete bodies
did in between.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from starc.graphs import Graph
from starc.graphs.updates import ADD, DELETE, UpdateStream

from programs import FIXED_SIGNATURE_PHASES, HELPER, FuzzProgram, _indent, int_exprs, programs

__all__ = ["dynamic_programs", "update_streams", "graph_after", "distances"]

_PROPS = ("Graph g, propNode<int> a, propNode<int> b, propNode<bool> flag, propNode<float> f, "
          "propNode<double> d, propEdge<int> weight")
_ARGS = "g, a, b, flag, f, d, weight"


_INF = 2147483647      # INF of int (starc/reference: the type's largest value)

# Incremental / Decremental keeping ``dist`` (shortest distances from src over ``weight``) by a
# fixedPoint of Min relaxations: the deletions start over from src, the additions relax on
# from their sources (marked in OnAdd); the test's oracle is a Bellman-Ford of the final graph
_RELAX = """function Relax(Graph g, propNode<int> dist, propEdge<int> weight,
               propNode<bool> modified) {
    bool finished = False;
    fixedPoint until (finished : !modified) {
        forall (v in g.nodes().filter(modified == True)) {
            forall (nbr in g.neighbors(v)) {
                edge e = g.get_edge(v, nbr);
                <nbr.dist, nbr.modified> = <Min(nbr.dist, v.dist + e.weight), True>;
            }
        }
    }
}
Decremental(Graph g, propNode<int> dist, propEdge<int> weight, propNode<bool> modified,
            node src) {
    g.attachNodeProperty(dist = INF, modified = False);
    src.dist = 0;
    src.modified = True;
    Relax(g, dist, weight, modified);
}
Incremental(Graph g, propNode<int> dist, propEdge<int> weight, propNode<bool> modified) {
    Relax(g, dist, weight, modified);
}
"""


@st.composite
def _update_body(draw, stream: str, which: str, mark: bool = False):
    """``OnAdd`` / ``OnDelete`` over the batch: reductions into the endpoints' ``a`` (one or
    both) and a count, from the endpoints' values (and an addition's weight); ``mark``: an
    addition from a reached vertex marks it for Incremental."""
    leaves = ["s.a", "s.b", "t.b"] + (["u.weight"] if which == "OnAdd" else [])
    targets = draw(st.sampled_from([["t.a"], ["s.a"], ["s.a", "t.a"]]))
    body = [f"{which} (u in {stream}.currentBatch()) : {{", "    node s = u.source;",
            "    node t = u.destination;"]
    op = draw(st.sampled_from(["+=", "-=", "|="]))   # one: two would not commute (E0402)
    for target in targets:
        value = draw(int_exprs(leaves, max_leaves=3))
        body.append(f"    {target} {op} {value};")
    if mark:
        body += ["    if (s.dist != INF) {", "        s.modified = True;", "    }"]
    return body + ["    seen += 1;", "}"]


@st.composite
def dynamic_programs(draw) -> FuzzProgram:
    """``Base`` (the phases of ``programs()``, returning their total) and the Dynamic
    function ``Fuzz`` running it over the stream ``U``."""
    base = draw(programs(max_phases=2, phases=FIXED_SIGNATURE_PHASES))
    static = base.text[len(HELPER):].replace(
        "function Fuzz(Graph g, propNode<int> a, propNode<int> b, propNode<bool> flag, "
        "propNode<float> f, propNode<double> d, propEdge<int> weight, node src)",
        f"Static Base({_PROPS}, node src)", 1)
    call = f"Base({_ARGS}, src)"
    body = []
    # True first: Hypothesis's simplest example (the first one drawn, and one of the few of
    # the CI budget) then has every part, OnDelete, the recomputation and OnAdd
    present = st.sampled_from([True, False])
    relax = draw(present)
    if draw(present):
        body += draw(_update_body("U", "OnDelete"))
    body.append("g.updateCSRDel(U);")
    if relax:
        body.append("Decremental(g, dist, weight, modified, src);")
    if draw(present):
        body.append(f"total = {call};")
    if draw(present) or relax:
        body += draw(_update_body("U", "OnAdd", mark=relax))
    body += ["g.updateCSRAdd(U);"] + (["Incremental(g, dist, weight, modified);"] * relax)
    body.append(f"total = {call};")
    lines = [f"int total = {call};", "int seen = 0;"]
    if relax:
        lines += ["propNode<bool> modified;", "Decremental(g, dist, weight, modified, src);"]
    lines += ["Batch (U : batchSize) {", *_indent(body), "}", "return total + 1000 * seen;"]
    params = _PROPS + (", propNode<int> dist" if relax else "")
    text = HELPER + (_RELAX if relax else "") + static + \
        f"Dynamic Fuzz({params}, updates<g> U, int batchSize, node src) " \
        "{\n" + "\n".join(_indent(lines)) + "\n}\n"
    return FuzzProgram(text, tuple(base.phases) + ("dynamic",))


@st.composite
def update_streams(draw, graph: Graph, min_size: int = 0) -> UpdateStream:
    """min_size to 12 updates of ``graph``'s vertices: deletions of its edges and of missing
    ones, additions (duplicates and self-loops included) with weights 1..9."""
    n = graph.num_nodes
    edges = list(zip(graph.sources.tolist(), graph.targets.tolist()))
    vertex = st.integers(0, n - 1)
    existing = st.sampled_from(edges) if edges else st.tuples(vertex, vertex)
    deletion = st.one_of(existing, st.tuples(vertex, vertex)).map(lambda e: ("d", *e, 0))
    addition = st.tuples(vertex, vertex, st.integers(1, 9)).map(lambda t: ("a", *t))
    items = draw(st.lists(st.one_of(deletion, addition), min_size=min_size, max_size=12))
    return UpdateStream(np.array([ADD if i[0] == "a" else DELETE for i in items], np.int8),
                        np.array([i[1] for i in items], np.int64),
                        np.array([i[2] for i in items], np.int64),
                        np.array([float(i[3]) for i in items]), True, "fuzz-updates")


def graph_after(graph: Graph, stream: UpdateStream, batch_size: int) -> Graph:
    """The graph the stream leaves, from edge lists (independently of starc.graphs.updates):
    per batch, every deletion removes all copies of its edge, then every addition adds one."""
    edges = list(zip(graph.sources.tolist(), graph.targets.tolist(), graph.weights.tolist()))
    items = list(zip(stream.kinds.tolist(), stream.src.tolist(), stream.dst.tolist(),
                     stream.weights.tolist()))
    for first in range(0, len(items), batch_size):
        batch = items[first:first + batch_size]
        gone = {(u, v) for kind, u, v, _ in batch if kind == DELETE}
        edges = [e for e in edges if (e[0], e[1]) not in gone]
        edges += [(u, v, w) for kind, u, v, w in batch if kind == ADD]
    return Graph.from_edges(graph.num_nodes, np.array([e[0] for e in edges], np.int64),
                            np.array([e[1] for e in edges], np.int64),
                            np.array([e[2] for e in edges], np.float64), True, "after")


def distances(graph: Graph, source: int = 0) -> np.ndarray:
    """Shortest distances from ``source`` over the integer weights (Bellman-Ford), INF of
    int where unreached: the oracle of the programs' ``dist``."""
    dist = [_INF] * graph.num_nodes
    dist[source] = 0
    edges = list(zip(graph.sources.tolist(), graph.targets.tolist(), graph.weights.tolist()))
    for _ in range(graph.num_nodes):
        for u, v, w in edges:
            if dist[u] != _INF and dist[u] + int(w) < dist[v]:
                dist[v] = dist[u] + int(w)
    return np.array(dist, np.int64)
