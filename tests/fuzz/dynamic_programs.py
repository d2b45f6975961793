"""Hypothesis strategies for Dynamic programs and update streams (issue 31): a static function
built from the differential fuzzer's phases, run once and then in every batch of a Batch loop
with OnDelete / OnAdd bodies, a recomputation between the deletions and the additions or not,
and both parts of each batch applied; streams with deletions of missing edges, duplicate
additions and self-loops.

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

from programs import HELPER, PHASES, FuzzProgram, _indent, int_exprs, programs

__all__ = ["dynamic_programs", "update_streams", "graph_after"]

_PROPS = ("Graph g, propNode<int> a, propNode<int> b, propNode<bool> flag, propNode<float> f, "
          "propNode<double> d, propEdge<int> weight")
_ARGS = "g, a, b, flag, f, d, weight"


@st.composite
def _update_body(draw, stream: str, which: str):
    """``OnAdd`` / ``OnDelete`` over the batch: reductions into the endpoints' ``a`` and a
    count, from the other endpoint's values (and an addition's weight)."""
    leaves = ["s.a", "s.b", "t.b"] + (["u.weight"] if which == "OnAdd" else [])
    value = draw(int_exprs(leaves, max_leaves=3))
    target = draw(st.sampled_from(["t.a", "s.a"]))
    op = draw(st.sampled_from(["+=", "-=", "|="]))
    return [f"{which} (u in {stream}.currentBatch()) : {{", "    node s = u.source;",
            "    node t = u.destination;", f"    {target} {op} {value};", "    seen += 1;", "}"]


@st.composite
def dynamic_programs(draw) -> FuzzProgram:
    """``Base`` (the phases of ``programs()``, returning their total) and the Dynamic
    function ``Fuzz`` running it over the stream ``U``."""
    base = draw(programs(max_phases=2, phases=PHASES))
    static = base.text[len(HELPER):].replace(
        "function Fuzz(Graph g, propNode<int> a, propNode<int> b, propNode<bool> flag, "
        "propNode<float> f, propNode<double> d, propEdge<int> weight, node src)",
        f"Static Base({_PROPS}, node src)", 1)
    call = f"Base({_ARGS}, src)"
    body = []
    # True first: Hypothesis's simplest example (the first one drawn, and one of the few of
    # the CI budget) then has every part, OnDelete, the recomputation and OnAdd
    present = st.sampled_from([True, False])
    if draw(present):
        body += draw(_update_body("U", "OnDelete"))
    body.append("g.updateCSRDel(U);")
    if draw(present):
        body.append(f"total = {call};")
    if draw(present):
        body += draw(_update_body("U", "OnAdd"))
    body += ["g.updateCSRAdd(U);", f"total = {call};"]
    lines = [f"int total = {call};", "int seen = 0;", "Batch (U : batchSize) {",
             *_indent(body), "}", "return total + 1000 * seen;"]
    text = HELPER + static + f"Dynamic Fuzz({_PROPS}, updates<g> U, int batchSize, node src) " \
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
