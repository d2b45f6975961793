"""Binding strength of the DSL's operators, shared by the grammar, the unparser and the IR printer."""

from __future__ import annotations

__all__ = ["BINARY_PRECEDENCE", "UNARY", "POSTFIX", "ATOM"]

# Higher binds tighter. The parser's expression levels (or_expr ... multiplicative_expr)
# follow this table; the printers read it to place the fewest parentheses.
BINARY_PRECEDENCE = {
    "||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, "<=": 4, ">": 4, ">=": 4,
    "+": 5, "-": 5, "*": 6, "/": 6, "%": 6,
}
UNARY = 7      # -x, !x
POSTFIX = 8    # v.p, g.f(...), calls
ATOM = 9       # names and literals
