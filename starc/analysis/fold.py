"""Comparisons of a value with itself, folded to the constant they always give.

``v != v`` on a vertex is always false and ``x >= x`` on an integer always true; C and C++
compilers say so (``-Wtautological-compare``), and the strict builds that run generated code
reject it (issue 32: a legal program OpenACC and MPI failed to build). The plan holds the
constant instead, on every backend. Floating-point comparisons are kept (``x != x`` is the
NaN test), and so is any operand that may fail at run time (a division, an index the
analysis cannot prove in range): the check must still happen, and the printed form of a
checked operand is a call, about which the compilers say nothing.
"""

from __future__ import annotations

from typing import Optional

from starc.analysis.checks import is_safe_divisor, is_safe_index
from starc.ir import nodes as ir
from starc.ir.types import Scalar, is_floating

__all__ = ["fold_self_comparisons"]

#: what ``x op x`` gives for every ``x`` that is not a NaN
_OUTCOME = {"==": True, "<=": True, ">=": True, "!=": False, "<": False, ">": False}
_QUERIES = ("num_nodes", "num_edges")
_DEGREES = ("count_outNbrs", "count_inNbrs")


def _cannot_fail(expr: ir.Expr) -> bool:
    """Whether evaluating ``expr`` has no effect and no run-time check."""
    if isinstance(expr, (ir.Const, ir.Inf, ir.VarRef)):
        return True
    if isinstance(expr, ir.Cast):
        return _cannot_fail(expr.expr)
    if isinstance(expr, ir.Unary):
        return _cannot_fail(expr.operand)
    if isinstance(expr, ir.Binary):
        if expr.op in ("/", "%") and not is_floating(expr.type) and \
                not is_safe_divisor(expr.right):
            return False
        return _cannot_fail(expr.left) and _cannot_fail(expr.right)
    if isinstance(expr, ir.MinMax):
        return _cannot_fail(expr.left) and _cannot_fail(expr.right)
    if isinstance(expr, ir.PropRead):
        return is_safe_index(expr.index)
    if isinstance(expr, ir.EdgeEndpoint):
        return is_safe_index(expr.edge)
    if isinstance(expr, ir.GraphQuery):
        return expr.op in _QUERIES or (expr.op in _DEGREES and is_safe_index(expr.args[0]))
    return False


def _fold(node: ir.Node) -> Optional[ir.Node]:
    if isinstance(node, ir.Binary) and node.op in _OUTCOME and node.left == node.right \
            and not is_floating(node.left.type) and _cannot_fail(node.left):
        return ir.Const(_OUTCOME[node.op], type=Scalar.BOOL, loc=node.loc)
    return None


def fold_self_comparisons(function: ir.Function) -> ir.Function:
    """``function`` with every comparison of a value with itself replaced by its outcome."""
    return ir.transform(function, _fold)
