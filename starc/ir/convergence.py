"""The ``signed-sum`` warning: a loop that runs while a sum of differences exceeds a bound, where
the differences are added with their sign, so changes of opposite sign cancel and the loop can
stop long before it converges (StarPlat's PageRank programs, ``diff += val - v.pageRank``)."""

from __future__ import annotations

from typing import List, Optional, Set

from starc.diagnostics import DiagnosticSink
from starc.ir import nodes as ir

__all__ = ["report_signed_sums"]

_COMPARISONS = ("<", "<=", ">", ">=")


def _bounded_from_below(cond: ir.Expr) -> Set[int]:
    """Uids of the variables ``cond`` requires to exceed something (``s > e``, ``e < s``),
    through ``&&``."""
    if isinstance(cond, ir.Binary) and cond.op == "&&":
        return _bounded_from_below(cond.left) | _bounded_from_below(cond.right)
    found: Set[int] = set()
    if isinstance(cond, ir.Binary):
        if cond.op in (">", ">=") and isinstance(cond.left, ir.VarRef):
            found.add(cond.left.sym.uid)
        if cond.op in ("<", "<=") and isinstance(cond.right, ir.VarRef):
            found.add(cond.right.sym.uid)
    return found


def _difference(value: ir.Expr) -> Optional[ir.Binary]:
    while isinstance(value, ir.Cast):
        value = value.expr
    return value if isinstance(value, ir.Binary) and value.op == "-" else None


def _orders(cond: ir.Expr, diff: ir.Binary) -> bool:
    """Whether ``cond`` compares the two sides of ``diff`` (an ``if`` that picks the sign)."""
    if not (isinstance(cond, ir.Binary) and cond.op in _COMPARISONS):
        return False
    return (cond.left, cond.right) in ((diff.left, diff.right), (diff.right, diff.left))


def _unguarded_sums(node: ir.Node, sums: Set[int], guards: List[ir.Expr],
                    found: List[ir.Reduce]) -> None:
    if isinstance(node, ir.Reduce) and node.op in ("+", "-") and \
            isinstance(node.target, ir.VarRef) and node.target.sym.uid in sums:
        diff = _difference(node.value)
        if diff is not None and not any(_orders(cond, diff) for cond in guards):
            found.append(node)
        return
    inner = guards + [node.cond] if isinstance(node, ir.If) else guards
    for child in ir.children(node):
        _unguarded_sums(child, sums, inner, found)


def report_signed_sums(body: ir.Block, sink: DiagnosticSink) -> None:
    """Warn at each ``s += a - b`` inside a ``while`` / ``do ... while`` loop that runs while
    ``s`` exceeds a bound, unless an enclosing ``if`` compares ``a`` and ``b`` (taking the
    difference's absolute value)."""
    for loop in ir.walk(body):
        if not isinstance(loop, (ir.While, ir.DoWhile)):
            continue
        sums = _bounded_from_below(loop.cond)
        if not sums:
            continue
        found: List[ir.Reduce] = []
        _unguarded_sums(loop.body, sums, [], found)
        for node in found:
            name = node.target.sym.name
            sink.warning("signed-sum",
                         f"'{name}' adds differences with their sign, so changes of opposite "
                         f"sign cancel and the loop's test on '{name}' can end it before it "
                         "converges", node.loc,
                         hint="add the absolute difference: if (a > b) { s += a - b; } else "
                              "{ s += b - a; }")
