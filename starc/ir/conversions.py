"""Implicit conversions of semantic analysis: C's rules (LANGUAGE.md §2) as explicit casts.

A numeric literal or ``INF`` takes the type it meets (so ``float x = 0.5`` needs no cast and
``dist = INF`` is an ``Inf`` of type ``int``); an integer literal must fit that type; node and
edge ids convert to integers with a warning and to nothing else. ``ImplicitConversions`` is a
mixin of ``starc.ir.typecheck.ExpressionTyper``; it relies on the analyzer's ``sink``.
"""

from __future__ import annotations

from typing import Optional

from starc.diagnostics import SourceLoc
from starc.ir import nodes as ir
from starc.ir.scope import ERROR, is_error
from starc.ir.types import VOID, Scalar, common_type, is_floating

__all__ = ["ImplicitConversions", "is_flexible", "is_constant", "error_value"]

S = Scalar
_INTEGRAL = (S.INT, S.LONG)
_IDS = (S.NODE, S.EDGE)
# The value range of each integer type, for literals (LONG_MAX + 1 is only valid negated).
_RANGES = {S.INT: (-2 ** 31, 2 ** 31 - 1), S.LONG: (-2 ** 63, 2 ** 63 - 1)}


def is_flexible(expr: ir.Expr) -> bool:
    """A literal number or ``INF`` (possibly negated): it adapts to the type it meets."""
    if isinstance(expr, ir.Const):
        return expr.type is not S.BOOL and not isinstance(expr.value, bool)
    if isinstance(expr, ir.Inf):
        return True
    if isinstance(expr, ir.Unary) and expr.op == "-":
        return is_flexible(expr.operand)
    return False


def is_constant(expr: ir.Expr) -> bool:
    """A literal of any kind (``True``, ``3``, ``-INF`` ...), possibly behind a cast."""
    if isinstance(expr, ir.Cast):
        return is_constant(expr.expr)
    return isinstance(expr, ir.Const) or is_flexible(expr)


def _is_inf(expr: ir.Expr) -> bool:
    if isinstance(expr, ir.Unary):
        return _is_inf(expr.operand)
    return isinstance(expr, ir.Inf)


def error_value(loc: SourceLoc) -> ir.Expr:
    """The stand-in for an expression that already produced an error (see ``ERROR``)."""
    return ir.Const(0, type=ERROR, loc=loc)


class ImplicitConversions:
    """Conversions between scalar types (mixin; see the module docstring)."""

    def convert(self, expr: ir.Expr, target, loc: SourceLoc, what: str = "") -> ir.Expr:
        source = expr.type
        if is_error(source) or is_error(target) or source == target:
            return expr
        if not isinstance(target, Scalar) or not isinstance(source, Scalar):
            self._mismatch(source, target, loc, what)
            return error_value(loc)
        if is_flexible(expr):
            adapted = self._adapt_literal(expr, target)
            if adapted is not None:
                return adapted
        if source in _IDS or target in _IDS:
            if source in _IDS and target in _IDS or not (source in _INTEGRAL or target in _INTEGRAL):
                self._mismatch(source, target, loc, what)
                return error_value(loc)
            self.sink.warning(
                "node-int-conversion", f"implicit conversion from '{source}' to '{target}'", loc,
                hint="node and edge ids convert to integers implicitly; check that this is meant")
        elif is_floating(source) and target in _INTEGRAL:
            self.sink.warning(
                "narrowing", f"implicit conversion from '{source}' to '{target}' drops the "
                f"fraction", loc, hint="the value is truncated toward zero, as in C; "
                "'-W no-narrowing' silences this where that is meant")
        return ir.Cast(expr, type=target, loc=expr.loc)

    def to_bool(self, expr: ir.Expr, loc: SourceLoc) -> ir.Expr:
        if is_error(expr.type) or expr.type is S.BOOL:
            return expr
        if expr.type in _IDS or not isinstance(expr.type, Scalar):
            self._mismatch(expr.type, S.BOOL, loc, "a condition")
            return error_value(loc)
        return ir.Cast(expr, type=S.BOOL, loc=expr.loc)

    def _adapt_literal(self, expr: ir.Expr, target: Scalar,
                       negated: bool = False) -> Optional[ir.Expr]:
        """The literal rebuilt with type ``target``, or None where a ``Cast`` is needed.

        An integer literal outside ``target``'s range is an error at its location (E0304):
        accepting it would leave its value to each backend's C compiler."""
        if isinstance(expr, ir.Unary):
            inner = self._adapt_literal(expr.operand, target, not negated)
            if inner is None or is_error(inner.type):
                return inner
            return ir.Unary("-", inner, type=target, loc=expr.loc)
        if isinstance(expr, ir.Inf):
            return None if target is S.BOOL else ir.Inf(expr.negative, type=target, loc=expr.loc)
        if is_floating(target):
            return ir.Const(float(expr.value), type=target, loc=expr.loc)
        if target in _INTEGRAL and isinstance(expr.value, int):
            if not self._literal_fits(-expr.value if negated else expr.value, target, expr.loc):
                return error_value(expr.loc)
            return ir.Const(expr.value, type=target, loc=expr.loc)
        return None

    def _literal_fits(self, value: int, target: Scalar, loc: SourceLoc) -> bool:
        low, high = _RANGES[target]
        if low <= value <= high:
            return True
        self.sink.error("E0304", f"integer literal {value} is out of range for '{target}' "
                        f"({low}..{high})", loc,
                        hint="use a 'long' variable for larger values" if target is S.INT
                        else None)
        return False

    def _meet(self, left: ir.Expr, right: ir.Expr, comparison: bool):
        """The common type of two operands, letting a literal take the other's type."""
        lt, rt = left.type, right.type
        if lt == rt:
            return lt if comparison or lt not in (S.BOOL, S.NODE, S.EDGE) else S.INT
        left_literal, right_literal = is_flexible(left), is_flexible(right)
        if left_literal != right_literal:
            literal, other = (left, rt) if left_literal else (right, lt)
            if is_floating(other):
                return other
            if other in _INTEGRAL and (_is_inf(literal) or not is_floating(literal.type)):
                return other
            if comparison and other in _IDS and _is_inf(literal):
                return other
        return common_type(lt, rt)

    def _silent_convert(self, expr: ir.Expr, target: Scalar) -> ir.Expr:
        """Operand conversion (usual arithmetic conversions): never warns."""
        if expr.type == target:
            return expr
        if is_flexible(expr):
            adapted = self._adapt_literal(expr, target)
            if adapted is not None:
                return adapted
        return ir.Cast(expr, type=target, loc=expr.loc)

    def _mismatch(self, source, target, loc: SourceLoc, what: str) -> None:
        if source is VOID:
            self.sink.error("E0301", "a function without a return value used as a value", loc)
            return
        where = f" for {what}" if what else ""
        self.sink.error("E0301", f"type mismatch{where}: expected '{target}', found '{source}'", loc)
