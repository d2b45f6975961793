"""How each neighbour loop of a kernel scans its sorted CSR row, decided once for the printers.

Every CSR row is sorted by id, so a neighbour loop may (``sorted_ranges``) iterate only the
binary-searched run its filter's comparisons allow, with those searches moved before the
outermost enclosing loop that changes neither the row nor their bounds; and (``edge_cursors``)
answer its edge queries ``g.is_an_edge(u, w)`` / ``g.get_edge(u, w)`` with a forward cursor
into u's row, stopping early when the body only acts on such an edge. ``scan_rows`` records
this per loop (``plan.RowScan``), leaves in the loop's filter only what the run does not
decide, and marks each query a cursor answers (``plan.CursorQuery``). The specialize stage
runs it last; what it decides is the same on every backend.
"""

from __future__ import annotations

import dataclasses
from typing import List, Optional, Set, Tuple

from starc.analysis import plan as P
from starc.analysis.edge_cursors import cursor_rows, query_row
from starc.analysis.sorted_ranges import Bound, split_range_filter, written_symbols
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["scan_rows"]


def scan_rows(kernel: P.Kernel) -> P.Kernel:
    """``kernel`` with a ``RowScan`` per neighbour loop (see the module docstring)."""
    private = _private_symbols(kernel)
    scans: List[P.RowScan] = []
    body = _rewrite(kernel.body, [], lambda sym: sym.uid in private, scans)
    return dataclasses.replace(kernel, body=body, row_scans=tuple(scans))


def _private_symbols(kernel: P.Kernel) -> Set[int]:
    """Symbols whose value is the work item's own: the index, the body's locals and loop
    variables, and the host scalars the kernel takes by value (not a reduced or stored
    scalar, which lives in device memory other work items change)."""
    private = {kernel.index.uid}
    private.update(p.sym.uid for p in kernel.params if p.array is None and p.sym is not None)
    for node in ir.walk(kernel.body):
        if isinstance(node, ir.Declare):
            private.add(node.sym.uid)
        elif isinstance(node, ir.Loop):
            private.add(node.var.uid)
            edge = getattr(node.domain, "edge", None)
            if edge is not None:
                private.add(edge.uid)
    return private


def _rewrite(node, enclosing: List[ir.Loop], private, scans: List[P.RowScan]):
    """``node`` with its neighbour loops rewritten, top-down (a loop's decisions depend on
    the loops around it)."""
    if isinstance(node, ir.Loop):
        node = _scan(node, enclosing, private, scans)
        body = _rewrite(node.body, enclosing + [node], private, scans)
        return dataclasses.replace(node, body=body)
    if isinstance(node, tuple):
        items = tuple(_rewrite(item, enclosing, private, scans) for item in node)
        return node if all(a is b for a, b in zip(items, node)) else items
    if not isinstance(node, ir.Stmt):
        return node
    changes = {}
    for field in dataclasses.fields(node):
        value = getattr(node, field.name)
        if field.name in ("loc", "type") or not isinstance(value, (ir.Stmt, tuple)):
            continue
        new = _rewrite(value, enclosing, private, scans)
        if new is not value:
            changes[field.name] = new
    return dataclasses.replace(node, **changes) if changes else node


def _scan(loop: ir.Loop, enclosing: List[ir.Loop], private, scans: List[P.RowScan]) -> ir.Loop:
    domain = loop.domain
    if not isinstance(domain, (ir.Neighbors, ir.InNeighbors)):
        return loop
    bounds: Tuple[Bound, ...] = ()
    hoist = 0
    ranged = split_range_filter(loop, private)
    if ranged is not None:
        bounds = ranged.bounds
        hoist = _hoist(domain.of, bounds, enclosing)
        loop = dataclasses.replace(loop, filter=ranged.rest)
    cursors = cursor_rows(loop, private)
    exhausted = _only_edge_test(loop, cursors)
    if cursors:
        loop = _answered(loop, tuple(cursors))
    # a cursor starts at its row's first id past the loop's start bound: searched further
    # out where neither its row nor the bound changes there
    start = tuple(b for b in bounds if b.side == "start")
    cursor_hoists = tuple(_hoist(ir.VarRef(row, type=row.type), start, enclosing) if start
                          else 0 for row in cursors)
    if bounds or cursors:
        scans.append(P.RowScan(loop.var, bounds, hoist, tuple(cursors.items()), exhausted,
                               cursor_hoists))
    return loop


def _hoist(row: ir.Expr, bounds, enclosing: List[ir.Loop]) -> int:
    """How many enclosing loops further out the sorted-range searches of a loop over
    ``row``'s neighbours can run once instead of once per iteration: none of the loops from
    there inwards writes the row or a variable the bounds read, and the row is certainly a
    vertex there (a node variable of an enclosing vertex loop, as an edge cursor's row:
    ``offsets[row]`` is read even if the loop runs no iteration). 0: just before the loop."""
    if not (isinstance(row, ir.VarRef) and row.sym.kind is ir.SymbolKind.LOOP
            and row.sym.type is Scalar.NODE):
        return 0
    read = {row.sym.uid}
    for bound in bounds:
        read.update(n.sym.uid for n in ir.walk(bound.value) if isinstance(n, ir.VarRef))
    levels = 0
    for distance, outer in enumerate(reversed(enclosing), 1):
        if written_symbols(outer) & read:
            break
        levels = distance
    return levels


def _only_edge_test(loop: ir.Loop, cursors) -> Optional[ir.Symbol]:
    """The row ``u`` when ``loop`` (filter already a range) does nothing but ``if
    (g.is_an_edge(u, w)) ...`` without else, answered by u's cursor; else None."""
    stmts = loop.body.stmts
    if loop.filter is not None or len(stmts) != 1 or not isinstance(stmts[0], ir.If):
        return None
    test = stmts[0]
    if test.orelse is not None or not isinstance(test.cond, ir.GraphQuery) or \
            test.cond.op != "is_an_edge":
        return None
    row = query_row(test.cond, loop.var)
    return row if row in cursors else None


def _answered(loop: ir.Loop, rows: Tuple[ir.Symbol, ...]) -> ir.Loop:
    """``loop`` with each edge query a cursor of its answers marked ``CursorQuery``."""
    def mark(node: ir.Node):
        if isinstance(node, ir.GraphQuery):
            row = query_row(node, loop.var)
            if row is not None and row in rows:
                return P.CursorQuery(node, loop.var, row, type=node.type, loc=node.loc)
        return None
    body = ir.transform(loop.body, mark)
    filt = None if loop.filter is None else ir.transform(loop.filter, mark)
    return dataclasses.replace(loop, body=body, filter=filt)
