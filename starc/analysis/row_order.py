"""Whether a Dynamic program's rows with slack must stay sorted, or a batch may leave them in any order."""

from __future__ import annotations

from typing import Iterable, Optional, Tuple

from starc.analysis import plan as P
from starc.analysis.wrapping import WrappingArith
from starc.ir import nodes as ir

__all__ = ["unsorted_rows", "UNSORTED_ROWS_WHY"]

#: why a batch leaves the rows in any order (``Specialization.unsorted_rows``)
UNSORTED_ROWS_WHY = (
    "no kernel reads a row as sorted (no is_an_edge / get_edge search, edge cursor, range "
    "filter on a neighbour's id, or neighbour loop whose result depends on the order it takes "
    "the row in), so a deletion fills its hole with the row's last live edge and an addition "
    "appends into the row's room: one slot moved per deleted edge (runtime SlackRows::sorted "
    "false) where sorted rows shift the spans between the holes and the row's end (Kronecker "
    "18: ~0.8 M slots per batch of 2,097 deletions)")


def unsorted_rows(kernels: Iterable[P.Kernel], slack: bool) -> Tuple[bool, str]:
    """Whether the rows with slack (``slack``) of a program whose kernels (row scans already
    decided: ``row_scans.scan_rows``) are ``kernels`` may be left in any order by a batch,
    and why (or which kernel reads them sorted); ``(False, "")`` without rows with slack."""
    if not slack:
        return False, ""
    for kernel in kernels:
        reader = _sorted_reader(kernel)
        if reader:
            return False, (f"rows kept sorted: kernel {kernel.name} {reader}, so a deletion "
                           "closes its holes and an addition merges in key order")
    return True, UNSORTED_ROWS_WHY


def _sorted_reader(kernel: P.Kernel) -> Optional[str]:
    """How ``kernel`` reads a row as sorted, or None."""
    for scan in kernel.row_scans:
        if scan.bounds:
            return (f"narrows its loop over {scan.var.name} to a searched run of the row (a "
                    "filter on the neighbour's id)")
        if scan.cursors:
            return f"keeps a forward cursor into a sorted row in its loop over {scan.var.name}"
    for node in ir.walk(kernel.body):
        if isinstance(node, P.CursorQuery):
            return "answers an edge query with a forward cursor into a sorted row"
        if isinstance(node, ir.GraphQuery) and node.op in ("is_an_edge", "get_edge"):
            return f"searches a row ({node.op})"
        if isinstance(node, ir.Loop) and isinstance(node.domain, (ir.Neighbors, ir.InNeighbors)):
            order = _order_shows(node)
            if order:
                return order
    return None


def _order_shows(loop: ir.Loop) -> Optional[str]:
    """Why the result of the neighbour loop ``loop`` may depend on the order it takes its row
    in, or None: a descending walk, a sequential loop that leaves early, or one whose plain
    assignment of a computed value to something other than the neighbour's own elements
    keeps the last neighbour's (a reduction, a fold ``x = x + e``, Min/Max and a constant
    store do not: their order shows at most in a float's rounding, or a Min's companion
    between ties, as a forall's atomics')."""
    if getattr(loop.domain, "descending", False):
        return f"walks the row of its loop over {loop.var.name} backwards"
    if loop.parallel:       # a forall's iterations are unordered already
        return None
    guarded = {id(stmt) for node in ir.walk(loop.body) if _is_min_max(node)
               for stmt in node.then.stmts}
    for node in ir.walk(loop.body):
        if isinstance(node, (ir.Break, ir.Return)):
            return f"leaves its sequential loop over {loop.var.name} early"
        if isinstance(node, ir.Assign) and not isinstance(node.value, (ir.Const, ir.Inf)) \
                and id(node) not in guarded \
                and not _of_neighbour(node.target, loop) and not _folds(node):
            return (f"keeps the last neighbour's value in its sequential loop over "
                    f"{loop.var.name}")
    return None


def _is_min_max(node: ir.Node) -> bool:
    """Whether ``node`` is a Min/Max assignment as a work item that owns its target runs it
    (``reductions.lower_minmax``): ``if (c < t) { t = c; o1 = e1; ... }`` (``>`` for Max).
    The minimum is the same in any order; the companions ``o1, ...`` (a parent) differ only
    between ties, as they do under a forall's atomic Min."""
    if not isinstance(node, ir.If) or node.orelse is not None or not node.then.stmts:
        return False
    cond, first = node.cond, node.then.stmts[0]
    return isinstance(cond, ir.Binary) and cond.op in ("<", ">") \
        and isinstance(first, ir.Assign) and first.target == cond.right \
        and first.value == cond.left \
        and all(isinstance(stmt, ir.Assign) for stmt in node.then.stmts)


def _of_neighbour(target, loop: ir.Loop) -> bool:
    """Whether ``target`` is an element of the loop's own neighbour (or edge)."""
    if not isinstance(target, ir.PropRead) or not isinstance(target.index, ir.VarRef):
        return False
    edge = getattr(loop.domain, "edge", None)
    return target.index.sym.uid in {loop.var.uid, *((edge.uid,) if edge is not None else ())}


def _folds(assign: ir.Assign) -> bool:
    """Whether ``assign`` is ``x = x op e`` (or ``x = e op x``) for a commutative, associative
    ``op`` and an ``e`` that does not read ``x``: the same value in any order."""
    value = assign.value
    # (a wrapping target's + and * are WrappingArith: the same fold)
    if not isinstance(value, (ir.Binary, WrappingArith)) or value.op not in ("+", "*", "&&", "||"):
        return False
    for mine, other in ((value.left, value.right), (value.right, value.left)):
        if mine == assign.target and all(node != assign.target for node in ir.walk(other)):
            return True
    return False
