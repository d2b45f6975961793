"""Signed integer arithmetic in kernels that wraps on every backend (LANGUAGE.md §2).

The language defines ``+ - *`` and unary ``-`` on ``int`` and ``long`` to wrap (two's
complement). The C++ host code and the MPI kernels are built with ``-fwrapv``; the OpenCL C,
CUDA, SYCL and OpenACC device compilers have no such option and may assume that signed
overflow never happens: OpenCL folded ``t < v.d`` after ``int t = v.d + 5`` to false at
``v.d = INF`` (issue 32). ``wrap_arithmetic`` marks each such operation in a kernel that the
analysis cannot prove in range as a ``WrappingArith``; a backend whose kernel compiler does not
wrap prints it through its prelude's ``starc_add_int`` ... helpers, which compute in unsigned
arithmetic (defined to wrap) and convert back; the others print the operator.

Proven in range, so left as they are: operations whose operands' ranges are known and whose
result fits the type, e.g. ``v + 1`` for a vertex ``v`` (ids are at most 2^31 - 2), a degree
plus a small constant, the BFS level plus one, or a product of two ``int`` values widened to
``long``.
"""

from __future__ import annotations

import dataclasses
from typing import Optional, Tuple

from starc.analysis.bfs import DEPTH
from starc.analysis.frontier import FRONTIER_COUNT
from starc.analysis.plan import KernelScalar
from starc.ir import nodes as ir
from starc.ir.types import Scalar
from starc.records import record

__all__ = ["WrappingArith", "wrap_arithmetic", "value_range"]

Range = Tuple[int, int]

_INT_RANGE: Range = (-2 ** 31, 2 ** 31 - 1)
_BOUNDS = {Scalar.INT: _INT_RANGE, Scalar.NODE: _INT_RANGE, Scalar.EDGE: _INT_RANGE,
           Scalar.LONG: (-2 ** 63, 2 ** 63 - 1)}
#: the largest vertex id (LANGUAGE.md, the generated-program contract)
_VERTEX: Range = (0, 2 ** 31 - 2)
_COUNT: Range = (0, 2 ** 31 - 1)
#: by-value kernel arguments the plan adds: a BFS level, a worklist's length
_KERNEL_SCALARS = {DEPTH: _VERTEX, FRONTIER_COUNT: _COUNT}


@record
class WrappingArith(ir.Expr):
    """``left op right`` (``op`` one of ``+ - *``) or ``-left`` (``op`` is ``neg``, no
    ``right``) on a signed integer type, wrapping on overflow."""

    op: str
    left: ir.Expr
    right: Optional[ir.Expr] = None


def value_range(expr: ir.Expr) -> Optional[Range]:
    """The smallest and largest value ``expr`` may have, where the analysis knows them."""
    if expr.type is Scalar.BOOL:
        return (0, 1)
    if isinstance(expr, ir.Const) and isinstance(expr.value, (bool, int)):
        return (int(expr.value), int(expr.value))
    if isinstance(expr, ir.Cast):
        inner = value_range(expr.expr) if expr.expr.type in _BOUNDS or \
            expr.expr.type is Scalar.BOOL else None
        bounds = _BOUNDS.get(expr.type)
        if inner is not None and bounds is not None and _within(inner, bounds):
            return inner
        return None
    if isinstance(expr, ir.VarRef) and expr.sym.kind is ir.SymbolKind.LOOP \
            and expr.sym.type is Scalar.NODE:
        return _VERTEX
    if isinstance(expr, ir.EdgeEndpoint):
        return _VERTEX
    if isinstance(expr, KernelScalar):
        return _KERNEL_SCALARS.get(expr.name)
    if isinstance(expr, ir.GraphQuery) and expr.op in ("num_nodes", "count_outNbrs",
                                                        "count_inNbrs"):
        return _COUNT
    if isinstance(expr, ir.MinMax):
        left, right = value_range(expr.left), value_range(expr.right)
        if left is None or right is None:
            return None
        pick = min if expr.func == "Min" else max
        return (pick(left[0], right[0]), pick(left[1], right[1]))
    if isinstance(expr, ir.Binary) and expr.op in ("+", "-", "*"):
        return _combine(expr.op, value_range(expr.left), value_range(expr.right))
    if isinstance(expr, ir.Binary) and expr.op == "%" and isinstance(expr.right, ir.Const) \
            and expr.right.type in _BOUNDS and int(expr.right.value) > 0:
        # C's remainder by c > 0 has the dividend's sign and a magnitude below c
        divisor, left = int(expr.right.value), value_range(expr.left)
        return (0 if left is not None and left[0] >= 0 else 1 - divisor, divisor - 1)
    if isinstance(expr, ir.Unary) and expr.op == "-":
        inner = value_range(expr.operand)
        return None if inner is None else (-inner[1], -inner[0])
    return None


def _combine(op: str, left: Optional[Range], right: Optional[Range]) -> Optional[Range]:
    if left is None or right is None:
        return None
    if op == "+":
        return (left[0] + right[0], left[1] + right[1])
    if op == "-":
        return (left[0] - right[1], left[1] - right[0])
    products = [a * b for a in left for b in right]
    return (min(products), max(products))


def _within(inner: Range, bounds: Range) -> bool:
    return bounds[0] <= inner[0] and inner[1] <= bounds[1]


def _may_overflow(expr: ir.Expr) -> bool:
    bounds = _BOUNDS[expr.type]
    result = value_range(expr)
    return result is None or not _within(result, bounds)


def _wrap(node: ir.Node) -> Optional[ir.Node]:
    if isinstance(node, ir.Binary) and node.op in ("+", "-", "*") and \
            node.type in _BOUNDS and _may_overflow(node):
        return WrappingArith(node.op, node.left, node.right, type=node.type, loc=node.loc)
    if isinstance(node, ir.Unary) and node.op == "-" and node.type in _BOUNDS and \
            _may_overflow(node):
        return WrappingArith("neg", node.operand, type=node.type, loc=node.loc)
    return None


def wrap_arithmetic(plan, symbols=None):
    """``plan`` with every signed ``+ - *`` and unary ``-`` of its kernels that may overflow
    marked ``WrappingArith`` (host code is C++ built with ``-fwrapv`` on every backend)."""
    kernels = tuple(dataclasses.replace(
        kernel, body=ir.transform(kernel.body, _wrap),
        guard=None if kernel.guard is None else ir.transform(kernel.guard, _wrap))
        for kernel in plan.kernels)
    return dataclasses.replace(plan, kernels=kernels)
