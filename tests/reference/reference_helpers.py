"""Helpers for the reference-executor tests: compile DSL text, build small graphs, run both ways."""

from __future__ import annotations

import pathlib

import numpy as np

from starc.diagnostics import CompileError, DiagnosticSink
from starc.frontend.parser import parse
from starc.graphs.csr import Graph
from starc.ir.sema import analyze
from starc.reference import execute

DSL = pathlib.Path(__file__).resolve().parents[2] / "dsl"


def compile_text(text: str, filename: str = "test.sp"):
    sink = DiagnosticSink()
    sink.add_source(filename, text)
    program = analyze(parse(text, filename), sink)
    if program is None or sink.has_errors:
        raise CompileError(sink.errors)
    return program


_CACHE = {}


def dsl_program(name: str):
    if name not in _CACHE:
        path = DSL / f"{name}.sp"
        _CACHE[name] = compile_text(path.read_text(), str(path))
    return _CACHE[name]


def make_graph(n, edges, weights=None, name="test.el", undirected=False) -> Graph:
    src = np.array([e[0] for e in edges], dtype=np.int64)
    dst = np.array([e[1] for e in edges], dtype=np.int64)
    graph = Graph.from_edges(n, src, dst, None if weights is None else np.asarray(weights, float),
                             True, name)
    return graph.symmetrised() if undirected else graph


def run_both(program, graph, options, function=None):
    """Run vectorised and interpreted; assert they agree exactly; return the first."""
    stats = {}
    fast = execute(program, graph, options, function, stats=stats)
    slow = execute(program, graph, options, function, vectorize=False)
    for name in slow.props:
        a, b = fast.props[name], slow.props[name]
        assert a.dtype == b.dtype, name
        assert np.array_equal(a, b, equal_nan=np.issubdtype(a.dtype, np.floating)), (
            name, np.flatnonzero(a != b)[:5], a[a != b][:5], b[a != b][:5])
    assert fast.ret == slow.ret
    fast.stats = stats
    return fast


# Counts, per vertex, the BFS parents seen by B1 and the BFS children seen by B2.
RELATION = """function F(Graph g, propNode<int> parents, propNode<int> children, node src) {
  g.attachNodeProperty(parents = 0, children = 0);
  iterateInBFS (v in g.nodes() from src)FILTER {
    for (w in g.neighbors(v)) { v.parents = v.parents + 1; }
  }
  iterateInReverse (COND) {
    for (w in g.neighbors(v)) { v.children = v.children + 1; }
  }
}"""


def relation(graph, src=0, bfs_filter="", cond="True"):
    """(parents, children) lists of RELATION, with an optional BFS filter and reverse condition."""
    text = RELATION.replace("FILTER", bfs_filter).replace("COND", cond)
    r = run_both(compile_text(text), graph, {"src": str(src)})
    return r.props["parents"].tolist(), r.props["children"].tolist()
