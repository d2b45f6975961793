"""The edges schedule of a worklist round: a work-group splits its entries' edges evenly.

A data-driven fixedPoint's sparse round (``Kernel.extent == "frontier"``) runs one work item
per worklist entry: ``node v = frontier[item]; if (test of v) { push loops over v }``. On a
power-law graph the items of a warp wait for the warp's largest entry, and the binned
schedule's precomputed order does not apply (the worklist changes every round). Instead, a
work-group of ``B`` items takes ``B`` entries: each item finds its entry's work (the degrees
of its loops, 0 where the test fails), a prefix sum in local memory gives every entry's first
edge among the group's, and the group walks those edges ``B`` at a time: item i takes edge
``base + i``, finds its entry by a binary search over the prefix sums and runs the iteration
of the entry's loop (one after the other per entry) that the edge belongs to. Every lane is
busy but in each group's last step; no order is precomputed, nothing goes to the host
(``teaching/simt.py`` models it as ``frontier-edges``). The loops must be pushes, every
iteration independent of the others (``binned.push_refusal``), as the dense round's
``edges`` schedule needs.

A round with a priority window (``priority_window``: ``if (test) { if (key below the window)
{loops} else {defer} }``) keeps it: the entry's item tests the window with the entry, defers
the entry itself (it appends it again: no edge of it is walked) and gives it no work, so the
group splits only the edges of the entries that run (Davidson et al.'s near-far pile is a GPU
method: its rounds are this kernel's).
"""

from __future__ import annotations

from typing import Optional, Tuple

from starc.analysis import plan as P
from starc.analysis.binned import push_refusal, shared_between
from starc.analysis.edge_cursors import query_row
from starc.analysis.fixedpoint import constant_value
from starc.analysis.wrapping import WrappingArith
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["frontier_edges"]


def frontier_edges(kernel: P.Kernel) -> Tuple[Optional[P.FrontierEdges], str]:
    """``(split, "")`` when ``kernel``'s group may split its worklist entries' edges, else
    ``(None, why not)``."""
    if kernel.extent != "frontier":
        return None, "it runs over no worklist"
    stmts = kernel.body.stmts
    entry = stmts[0] if stmts else None
    if not isinstance(entry, ir.Declare) or not isinstance(entry.init, ir.PropRead) or \
            not _entry_index(entry.init.index, kernel.index):
        return None, "its body does not start by reading its entry's vertex"
    vertex = entry.sym
    rest = stmts[1:]
    # the round's reset of the next queue length (``QueueReset``) reads and races with nothing
    resets = len(rest) > 1 and _resets_length(rest[-1], kernel)
    if resets:
        rest = rest[:-1]
    clears = len(rest) > 1 and _clears_entry_flag(rest[-1], vertex, rest[:-1])
    if clears:
        rest = rest[:-1]
    tested = len(rest) == 1 and isinstance(rest[0], ir.If)
    if tested:
        if rest[0].orelse is not None:
            return None, "its test of the vertex has an else"
        why = _test_refusal(rest[0].cond, vertex)
        if why:
            return None, why
        rest = rest[0].then.stmts
    windowed = len(rest) == 1 and _windowed(rest[0], kernel)
    if windowed:
        rest = rest[0].then.stmts
    if not rest or not all(isinstance(s, ir.Loop) and
                           isinstance(s.domain, (ir.Neighbors, ir.InNeighbors)) for s in rest):
        return None, "its entry's body is not a sequence of neighbour loops"
    for loop in rest:
        why = push_refusal(kernel, loop, vertex)
        if why:
            return None, why
        if kernel.row_scan(loop.var) is not None or any(
                query_row(n, loop.var) is not None for n in ir.walk(loop.body)):
            return None, "a loop's edge queries walk its row in order"
        if any(isinstance(n, ir.Loop) for n in ir.walk(loop.body)):
            return None, "a loop has a loop inside"
    why = shared_between(rest)
    if why:
        return None, why
    return P.FrontierEdges(tested, _work(vertex, rest), int(clears) + int(resets),
                           windowed), ""


def _windowed(stmt: ir.Stmt, kernel: P.Kernel) -> bool:
    """Whether ``stmt`` is the round's priority window (``priority_window.windowed_round``):
    ``if (key below the window) {loops} else {defer the entry}``."""
    return kernel.window is not None and isinstance(stmt, ir.If) and \
        stmt.orelse is not None and ir.reads_prop(stmt.cond, kernel.window.slots.sym)


def _entry_index(index: ir.Expr, item: ir.Symbol) -> bool:
    """Whether ``index`` is the item's entry: ``item``, or ``start + item`` with ``start`` a
    kernel argument (a BFS level's first entry in its order: ``bfs_queue.py``)."""
    own = ir.VarRef(item, type=item.type)
    return index == own or (isinstance(index, (ir.Binary, WrappingArith)) and index.op == "+"
                            and isinstance(index.left, P.KernelScalar) and index.right == own)


def _resets_length(stmt: ir.Stmt, kernel: P.Kernel) -> bool:
    """Whether ``stmt`` is ``if (item == 0) { QueueReset }`` (``frontier.py``), with the
    clear of the next round's window slot where the round has a window (``priority_window``:
    no item of this round reads that slot)."""
    item = kernel.index
    if not (isinstance(stmt, ir.If) and stmt.orelse is None and
            isinstance(stmt.cond, ir.Binary) and stmt.cond.op == "==" and
            stmt.cond.left == ir.VarRef(item, type=item.type) and stmt.then.stmts and
            isinstance(stmt.then.stmts[0], P.QueueReset)):
        return False
    slots = kernel.window.slots.sym if kernel.window is not None else None
    return all(isinstance(s, ir.Assign) and isinstance(s.target, ir.PropRead) and
               slots is not None and s.target.prop.uid == slots.uid
               for s in stmt.then.stmts[1:])


def _clears_entry_flag(stmt: ir.Stmt, vertex: ir.Symbol, before: Tuple[ir.Stmt, ...]) -> bool:
    """Whether ``stmt`` is a sparse round's clear of its entry's own flag (``frontier.py``:
    ``p[v] = False`` after the body, where the round's kernel clears its entries' flags) that
    the entry's item may run once it has tested the entry: nothing ``before`` it but that test
    reads ``p`` (the other items walking the entry's edges would race with the clear)."""
    if not (isinstance(stmt, ir.Assign) and isinstance(stmt.target, ir.PropRead)
            and isinstance(stmt.target.index, ir.VarRef) and stmt.target.index.sym == vertex
            and constant_value(stmt.value) is False):
        return False
    return not any(ir.reads_prop(s.then if isinstance(s, ir.If) else s, stmt.target.prop)
                   for s in before)


def _test_refusal(cond: ir.Expr, vertex: ir.Symbol) -> str:
    """Why ``cond`` is no test of the entry's vertex alone (\"\" where it is)."""
    own = ir.VarRef(vertex, type=vertex.type)
    for node in ir.walk(cond):
        if isinstance(node, ir.PropRead) and node.index != own:
            return "its test reads another vertex than its entry's"
        if isinstance(node, (ir.CallExpr, ir.Random, ir.GraphQuery)):
            return "its test calls a function"
    return ""


def _work(vertex: ir.Symbol, loops) -> ir.Expr:
    """The entry's work: the sum of its loops' degrees."""
    own = ir.VarRef(vertex, type=vertex.type)
    total = None
    for loop in loops:
        query = "count_outNbrs" if isinstance(loop.domain, ir.Neighbors) else "count_inNbrs"
        degree = ir.GraphQuery(query, loop.domain.graph, (own,), type=Scalar.INT, loc=loop.loc)
        total = degree if total is None else ir.Binary("+", total, degree, type=Scalar.INT,
                                                        loc=loop.loc)
    return total
