"""Dynamic programs in the reference executor (issue 31): update values, OnAdd/OnDelete, and the
Dynamic function's run over its update stream.

The closures of ``interpreter`` are compiled for one graph (its CSR lists are captured), and a
Dynamic function changes its graph at ``g.updateCSRDel`` / ``g.updateCSRAdd``. So a Dynamic
function runs as: the statements before its Batch, compiled for the input graph; then per batch
the Batch body cut at each graph update into segments, each compiled for the graph as it is
then (a fresh ``ProgramCompiler``, so the functions it calls see that graph too); then the
statements after the Batch, for the final graph. Every segment shares the function's slots
(``env``), assigned once up front. After an update the edge properties the function holds are
carried to the new edge ids (docs/language-notes.md, "Issue 31: dynamic graphs").
"""

from __future__ import annotations

import dataclasses
from typing import Callable, List, Optional, Tuple

import numpy as np

from starc.graphs.updates import ADD, DELETE, UpdateStream, add_edges, delete_edges
from starc.ir import nodes as ir
from starc.ir.types import PropType, Scalar, is_integer
from starc.reference.graphview import GraphView, expand_ranges
from starc.reference.loops import RETURN
from starc.reference.values import ExecutionError, numpy_dtype

__all__ = ["DynamicStatements", "compile_dynamic_body", "EMPTY_UPDATES"]

EMPTY_UPDATES = UpdateStream(np.zeros(0, np.int8), np.zeros(0, np.int64),
                             np.zeros(0, np.int64), None)
_PART = {None: None, 0: DELETE, 1: ADD, "delete": DELETE, "add": ADD}


def update_items(stream: UpdateStream, only) -> List[Tuple[int, int, float, int]]:
    """``(source, destination, weight, kind)`` of each update (of one kind with ``only``)."""
    if _PART[only] is not None:
        stream = stream.part(_PART[only])
    weights = stream.weights if stream.weights is not None else np.zeros(len(stream))
    return list(zip(stream.src.tolist(), stream.dst.tolist(), weights.tolist(),
                    stream.kinds.tolist()))


class DynamicStatements:
    """The dynamic-graph nodes of ``interpreter.FunctionCompiler`` (mixin)."""

    def _e_CurrentBatch(self, e: ir.CurrentBatch):
        slot = self.batch_slots[e.stream.uid]
        part = _PART[e.part]
        if part is None:
            return lambda env: env[slot]
        return lambda env: env[slot].part(part)

    def _e_UpdateField(self, e: ir.UpdateField):
        update = self.expr(e.update)
        index = {"source": 0, "destination": 1, "weight": 2}[e.field]
        if e.field != "weight":
            return lambda env: update(env)[index]
        if is_integer(e.type) or e.type is Scalar.BOOL:
            convert = int if e.type is not Scalar.BOOL else bool
        else:
            convert = float
        return lambda env: convert(update(env)[2])

    def update_loop_items(self, d: ir.UpdateMembers):
        updates, only = self.expr(d.updates), d.only
        return lambda env: update_items(updates(env), only)

    def _s_PropagateFlags(self, s: ir.PropagateFlags):
        slot, view = self.slot(s.prop), self.view

        def propagate(env):
            flags = env[slot]
            frontier = np.flatnonzero(flags)
            while frontier.size:
                positions, _ = expand_ranges(view.offsets, frontier)
                reached = view.targets[positions]
                frontier = np.unique(reached[~flags[reached]])
                flags[frontier] = True
            return None
        return propagate

    def _s_Batch(self, s: ir.Batch):
        raise AssertionError("a Batch runs only through compile_dynamic_body")

    _s_UpdateGraph = _s_Batch


@dataclasses.dataclass
class _Segment:
    """Statements of a Batch body up to a graph update (``update`` None: the last ones)."""

    block: ir.Block
    update: Optional[ir.UpdateGraph]


def _segments(body: ir.Block) -> List[_Segment]:
    segments, current = [], []
    for stmt in body.stmts:
        if isinstance(stmt, ir.UpdateGraph):
            segments.append(_Segment(ir.Block(tuple(current)), stmt))
            current = []
        else:
            current.append(stmt)
    segments.append(_Segment(ir.Block(tuple(current)), None))
    return segments


def _symbols(fn: ir.Function):
    """Every symbol ``fn`` names: its slots are assigned before any segment is compiled."""
    yield from fn.params
    for node in ir.walk(fn.body):
        for f in dataclasses.fields(node):
            value = getattr(node, f.name)
            if isinstance(value, ir.Symbol):
                yield value


def compile_dynamic_body(compiler, fn: ir.Function) -> Callable:
    """The body of Dynamic function ``fn`` as ``run(env) -> signal`` (see the module
    docstring); ``compiler`` is its ``FunctionCompiler`` for the input graph."""
    symbols = list(_symbols(fn))
    for sym in symbols:
        compiler.slot(sym)
    stmts = fn.body.stmts
    at = next((i for i, s in enumerate(stmts) if isinstance(s, ir.Batch)), len(stmts))
    before = compiler.stmt(ir.Block(stmts[:at]))
    if at == len(stmts):
        return before
    batch: ir.Batch = stmts[at]
    after = ir.Block(stmts[at + 1:])
    compiler.batch_slots[batch.stream.uid] = compiler._new_slot()
    stream_slot, batch_slot = compiler.slot(batch.stream), compiler.batch_slots[batch.stream.uid]
    size = compiler.expr(batch.size)
    segments = _segments(batch.body)
    edge_props = {sym.uid: (compiler.slot(sym), sym.kind is ir.SymbolKind.PARAM, sym.type.elem)
                  for sym in symbols
                  if isinstance(sym.type, PropType) and sym.type.kind == "edge"}
    owner = compiler.owner

    def compiled_for(program_compiler, block: ir.Block, env) -> Callable:
        sub = type(compiler)(program_compiler, fn)
        sub.slots, sub.next_slot = dict(compiler.slots), compiler.next_slot
        sub.batch_slots = compiler.batch_slots
        run = sub.stmt(block)
        env.extend([None] * (sub.next_slot - len(env)))    # its own temporaries
        return run

    def run(env):
        if before(env) is RETURN:
            return RETURN
        count = size(env)
        if count < 1:
            raise ExecutionError(f"the batch size is {count}; it must be at least 1",
                                 batch.loc)
        stream: UpdateStream = env[stream_slot]
        current = owner
        for start in range(0, stream.line_count, count):
            env[batch_slot] = stream.batch(start, start + count)
            for segment in segments:
                if compiled_for(current, segment.block, env)(env) is RETURN:
                    return RETURN
                if segment.update is not None:
                    graph = _apply(current.view.graph, env[batch_slot], segment.update.kind,
                                   env, edge_props)
                    current = type(owner)(owner.program, GraphView(graph), owner.vectorize)
                    current.stats = owner.stats
        return compiled_for(current, after, env)(env)
    return run


def _apply(graph, batch: UpdateStream, kind: str, env, edge_props) -> object:
    """The graph after the batch's deletions or additions, the function's edge properties
    carried over (an added edge: its weight in parameters, 0 in locals)."""
    if kind == "delete":
        part = batch.part(DELETE)
        new_graph, new_ids = delete_edges(graph, part.src, part.dst)
        added, weights = np.zeros(0, np.int64), None
    else:
        part = batch.part(ADD)
        new_graph, new_ids, added = add_edges(graph, part.src, part.dst, part.weights,
                                              part.weights_integral)
        weights = part.weights
    kept = new_ids >= 0
    for slot, is_param, elem in edge_props.values():
        old = env[slot]
        if old is None:
            continue
        new = np.zeros(new_graph.num_edges, dtype=numpy_dtype(elem))
        new[new_ids[kept]] = old[kept]
        if is_param and weights is not None:
            new[added] = weights.astype(new.dtype) if elem is not Scalar.BOOL else weights != 0
        env[slot] = new
    return new_graph
