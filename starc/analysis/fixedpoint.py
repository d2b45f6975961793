"""fixedPoint lowering: double-buffered flag property, one device flag, the host loop.

Inside the body of ``fixedPoint until (fin : !p)`` every kernel write of ``p`` (a plain
assignment, or an ``others`` target of a Min/Max assignment) goes to ``p``'s next-iteration
buffer and sets the device flag when the value written is true; reads keep seeing the current
array. The host runs a ``FixedPointLoop``. The general form (``until (fin : expr)``) becomes
``do { body } while (!expr); fin = True;`` (LANGUAGE.md §6, as the reference executor runs it).
"""

from __future__ import annotations

from typing import List, Optional

from starc.analysis.lowering import FixedPointScope, HostLowerer
from starc.analysis.plan import FixedPointLoop, FlagSet, HostAssign, HostDoWhile, HostStmt
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["flag_set_for", "is_constant", "constant_value",
           "assigns_scalar", "lower_fixedpoint"]


def _strip_casts(expr: ir.Expr) -> ir.Expr:
    while isinstance(expr, ir.Cast):
        expr = expr.expr
    return expr


def is_constant(expr: ir.Expr) -> bool:
    """A literal after casts and unary minus: ``True``, ``0``, ``-1``, ``INF``."""
    expr = _strip_casts(expr)
    if isinstance(expr, ir.Unary) and expr.op == "-":
        expr = _strip_casts(expr.operand)
    return isinstance(expr, (ir.Const, ir.Inf))


def constant_value(expr: ir.Expr):
    """The Python value of a ``Const`` after casts, else None."""
    expr = _strip_casts(expr)
    return expr.value if isinstance(expr, ir.Const) else None


def flag_set_for(scope: FixedPointScope, value: ir.Expr, loc) -> Optional[FlagSet]:
    """The flag update that accompanies writing ``value`` to the property (None if it is
    the constant False: a false flag never asks for another iteration)."""
    const = constant_value(value)
    if const is not None and not isinstance(const, float):
        if const:
            return FlagSet(scope.flag, None, if_clear=True, loc=loc)
        return None
    return FlagSet(scope.flag, value, if_clear=True, loc=loc)


def assigns_scalar(node: ir.Node, sym: ir.Symbol) -> bool:
    """Whether ``sym`` is the target of any assignment/update below ``node``."""
    for n in ir.walk(node):
        targets = []
        if isinstance(n, (ir.Assign, ir.Reduce)):
            targets.append(n.target)
        elif isinstance(n, ir.MinMaxAssign):
            targets.append(n.target)
            targets.extend(t for t, _ in n.others)
        if any(isinstance(t, ir.VarRef) and t.sym == sym for t in targets):
            return True
    return False


def _bool(value: bool, loc) -> ir.Const:
    return ir.Const(value, type=Scalar.BOOL, loc=loc)


def lower_fixedpoint(stmt: ir.FixedPoint, host: HostLowerer) -> List[HostStmt]:
    loc = stmt.loc
    if stmt.prop is None:
        # Run the body until the condition holds after an iteration; then fin is True
        # (as the reference executor does; assignments to fin in the body do not force).
        body = host.block(stmt.body)
        cond = ir.Unary("!", host.expr(stmt.cond), type=Scalar.BOOL, loc=loc)
        return [HostDoWhile(body, cond, loc=loc),
                HostAssign(stmt.flag, _bool(True, loc), loc=loc)]
    table = host.table
    next_array, next_sym = table.next_buffer(stmt.prop)
    scope = FixedPointScope(stmt.prop, next_sym, next_array, table.flag(stmt.flag))
    with host.fixedpoint_scope(scope):
        body = host.block(stmt.body)
    forced = assigns_scalar(stmt.body, stmt.flag)
    return [FixedPointLoop(stmt.flag, table.prop(stmt.prop), next_array, scope.flag, body,
                           forced=forced, loc=loc)]
