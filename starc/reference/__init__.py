"""The reference executor: runs the typed IR sequentially with LANGUAGE.md §6 semantics.

``execute(program, graph, options)`` is the oracle every backend is compared against. It
compiles the IR to Python closures (``interpreter``) and runs the hot loop shapes with numpy
(``vectorize``) where that provably gives the same result as some legal order of the
iterations; see those modules for the rules. Results use backend name ``reference``.

Semantic decisions (where LANGUAGE.md leaves room):
- forall iterations run in ascending order; ``for`` over a SetN in the order given;
- ``fixedPoint until (fin : !p)`` is a do-while: each round sets ``fin = True``, clears the
  next flags, runs the body (reads of ``p`` see the current flags, writes go to the next
  ones), then the next flags become current and any set flag makes ``fin = False``; the loop
  ends when ``fin`` stays True. The general form runs the body until ``cond`` holds after a
  round, then sets ``fin = True``. Passing ``p`` to a function from inside the body passes
  the current flags;
- iterateInBFS traverses every vertex reachable from the root along out-edges; the
  ``.filter`` decides which reached vertices run the body, never which are traversed; within
  a level, vertices run in ascending id order; the reverse sweep visits levels deepest first
  and includes the root when the condition allows; a parent (child) is a reached vertex one
  level up (down), so the root has no parents (``graphview.bfs_related``);
- ``get_edge(u, v)`` is the first edge u -> v in CSR order (stable input order among
  duplicates), -1 when there is none; ``is_an_edge`` is a binary search in u's sorted row;
- ``INF``/``-INF`` are the largest/lowest value of the type (``INT_MIN`` for ``-INF`` of int,
  ``-FLT_MAX`` for float); float -> int conversions of NaN or out-of-range values give the
  lowest value of the integer type (what x86 does); locals and properties without an
  initialiser start at zero / False;
- integer division or modulo by zero, and vertex/edge ids out of range, raise
  ``ExecutionError`` naming the DSL location;
- a Dynamic function runs over its update stream batch by batch, its graph changing at
  ``updateCSRDel`` / ``updateCSRAdd`` (``dynamic``; docs/language-notes.md, issue 31).
"""

from __future__ import annotations

from typing import Dict, Mapping, Optional, Union

import numpy as np

from starc.ir import nodes as ir
from starc.reference.graphview import GraphView
from starc.reference.interpreter import ProgramCompiler
from starc.reference.values import ExecutionError, numpy_dtype
from starc.results import Results
from starc.runcontract import UsageError, bind_arguments, entry_function, param_specs

__all__ = ["execute", "run_reference", "ExecutionError", "UsageError", "BACKEND_NAME"]

BACKEND_NAME = "reference"


def execute(program: ir.Program, graph, options: Optional[Mapping] = None,
            function: Optional[str] = None, *, graph_name: Optional[str] = None,
            vectorize: bool = True, stats: Optional[Dict[str, int]] = None,
            updates=None) -> Results:
    """Run ``function`` (see ``entry_function``) of ``program`` on ``graph``.

    ``options`` is either the raw ``{"src": "0"}`` option dict (keys with or without ``--``)
    or already bound arguments ``{Symbol: value}`` from ``bind_arguments``. Raises
    ``UsageError`` for bad options and ``ExecutionError`` for run-time errors. With
    ``vectorize=False`` everything runs in the closure interpreter (slow; for cross-checks).
    ``stats``, when given, receives how many loops ran vectorised / fell back. ``updates``:
    the ``UpdateStream`` a Dynamic function runs over (already symmetrised for an
    undirected run).
    """
    fn = entry_function(program, function)
    options = dict(options or {})
    if options and all(isinstance(key, ir.Symbol) for key in options):
        bound = options
    else:
        bound = bind_arguments(fn, graph, options, updates)
    view = GraphView(graph)
    compiler = ProgramCompiler(program, view, vectorize=vectorize)
    compiled = compiler.function(fn.name)
    args = []
    outputs = {}
    for spec in param_specs(fn):
        if spec.kind == "propNode":
            array = np.zeros(view.num_nodes, dtype=numpy_dtype(spec.scalar))
            outputs[spec.name] = (array, spec.scalar)
            args.append(array)
        elif spec.kind == "propEdge" and spec.symbol not in bound:
            args.append(np.zeros(view.num_edges, dtype=numpy_dtype(spec.scalar)))
        else:
            value = bound[spec.symbol]
            if spec.kind == "propEdge":
                value = np.array(value, dtype=numpy_dtype(spec.scalar))  # the run may write it
            args.append(value)
    with np.errstate(all="ignore"):
        ret = compiled.call(args)
    if stats is not None:
        stats.update(compiler.stats)
    results = Results(function=fn.name, backend=BACKEND_NAME,
                      graph=graph_name if graph_name is not None else getattr(graph, "name", ""))
    for name, (array, scalar) in outputs.items():
        results.props[name] = array
        results.prop_types[name] = scalar
    if fn.return_type is not None:
        results.ret = ret
        results.ret_type = fn.return_type
    return results


def _compile_source(text: str, filename: str) -> ir.Program:
    from starc.diagnostics import CompileError, DiagnosticSink
    from starc.frontend.parser import parse
    from starc.ir.sema import analyze
    sink = DiagnosticSink()
    sink.add_source(filename, text)
    program = analyze(parse(text, filename), sink)
    if program is None or sink.has_errors:
        raise CompileError(sink.errors)
    return program


def run_reference(program: Union[ir.Program, str], graph, options: Optional[Mapping] = None,
                  function: Optional[str] = None, *, undirected: bool = False,
                  vectorize: bool = True) -> Results:
    """Convenience front: ``program`` may be an IR program, a ``.sp`` path or source text
    (containing a newline or a brace); ``graph`` a Graph or a graph file path."""
    if isinstance(program, str):
        if "{" in program or "\n" in program:
            program = _compile_source(program, "<input>")
        else:
            with open(program, encoding="utf-8") as handle:
                program = _compile_source(handle.read(), program)
    graph_name = None
    if isinstance(graph, str):
        from starc.graphs.readers import load_graph
        graph_name = graph
        graph = load_graph(graph, undirected=undirected)
    elif undirected:
        graph = graph.symmetrised()
    return execute(program, graph, options, function, graph_name=graph_name,
                   vectorize=vectorize)
