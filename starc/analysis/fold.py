"""Comparisons of a value with itself, folded to the constant they always give (and
``Min(x, x)`` to ``x``, an update ``x = Min(x, x)`` to nothing).

``v != v`` on a vertex is always false and ``x >= x`` on an integer always true; C and C++
compilers say so (``-Wtautological-compare``), and the strict builds that run generated code
reject it (issue 32: a legal program OpenACC and MPI failed to build). The plan holds the
constant instead, on every backend. Floating-point comparisons are kept (``x != x`` is the
NaN test), and so is any operand that may fail at run time (a division, an index the
analysis cannot prove in range): the check must still happen, and the printed form of a
checked operand is a call, about which the compilers say nothing.
"""

from __future__ import annotations

from typing import FrozenSet, Optional

from starc.analysis.checks import is_safe_divisor, is_safe_index, trusted_locals
from starc.ir import nodes as ir
from starc.ir.types import Scalar, is_floating

__all__ = ["fold_self_comparisons"]

#: what ``x op x`` gives for every ``x`` that is not a NaN
_OUTCOME = {"==": True, "<=": True, ">=": True, "!=": False, "<": False, ">": False}
_QUERIES = ("num_nodes", "num_edges")
_DEGREES = ("count_outNbrs", "count_inNbrs")


def _cannot_fail(expr: ir.Expr, trusted: FrozenSet[int]) -> bool:
    """Whether evaluating ``expr`` has no effect and no run-time check (``trusted``: the
    locals that only ever hold an id the graph produced, as the checks see them)."""
    if isinstance(expr, (ir.Const, ir.Inf, ir.VarRef)):
        return True
    if isinstance(expr, ir.Cast):
        return _cannot_fail(expr.expr, trusted)
    if isinstance(expr, ir.Unary):
        return _cannot_fail(expr.operand, trusted)
    if isinstance(expr, ir.Binary):
        if expr.op in ("/", "%") and not is_floating(expr.type) and \
                not is_safe_divisor(expr.right):
            return False
        return _cannot_fail(expr.left, trusted) and _cannot_fail(expr.right, trusted)
    if isinstance(expr, ir.MinMax):
        return _cannot_fail(expr.left, trusted) and _cannot_fail(expr.right, trusted)
    if isinstance(expr, ir.PropRead):
        return is_safe_index(expr.index, trusted)
    if isinstance(expr, ir.EdgeEndpoint):
        return is_safe_index(expr.edge, trusted)
    if isinstance(expr, ir.GraphQuery):
        return expr.op in _QUERIES or (expr.op in _DEGREES and
                                       is_safe_index(expr.args[0], trusted))
    return False


def fold_self_comparisons(function: ir.Function) -> ir.Function:
    """``function`` with every comparison of a value with itself replaced by its outcome."""
    # (an edge local declared from the neighbour loop's edge, ``edge e = g.get_edge(v, w)``,
    # indexes as safely as the loop's edge: the checks trust it, so must the fold)
    trusted = trusted_locals(function)

    def fold(node: ir.Node) -> Optional[ir.Node]:
        if isinstance(node, ir.Binary) and node.op in _OUTCOME and node.left == node.right \
                and not is_floating(node.left.type) and _cannot_fail(node.left, trusted):
            return ir.Const(_OUTCOME[node.op], type=Scalar.BOOL, loc=node.loc)
        # Min(x, x) and Max(x, x) are x, and x = Min(x, x) (with any secondary targets) never
        # stores: printed as comparisons (an update is `if (x > x) ...`), the compilers flag
        # them as self-comparisons too
        if isinstance(node, ir.MinMax) and node.left == node.right \
                and not is_floating(node.left.type) and _cannot_fail(node.left, trusted):
            return node.left
        if isinstance(node, ir.MinMaxAssign) and node.candidate == node.target \
                and not is_floating(node.target.type) and _cannot_fail(node.target, trusted):
            return ir.Block((), loc=node.loc)
        return None
    return ir.transform(function, fold)
