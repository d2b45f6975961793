"""Typed-IR expressions to C text through a ``Dialect``, with C operator precedence.

Printers return (text, precedence) pairs and parenthesise an operand only where C needs it.
"""

from __future__ import annotations

import math
from typing import Dict, Tuple

from starc.analysis import plan as P
from starc.analysis.checks import CheckedDivide, CheckedIndex
from starc.analysis.wrapping import WrappingArith
from starc.backends.common.dialect import Dialect
from starc.backends.common.kernel_arguments import KernelArguments
from starc.diagnostics import tracks_construct
from starc.ir import nodes as ir
from starc.ir.types import Scalar, is_floating, is_integer

__all__ = ["CExpressionPrinter", "PRECEDENCE", "POSTFIX"]

#: C precedence of the binary operators the printer emits (higher binds tighter); printers
#: return (text, precedence) pairs and parenthesise an operand below the precedence needed.
PRECEDENCE = {"||": 4, "&&": 5, "|": 6, "&": 8, "==": 9, "!=": 9, "<": 10, "<=": 10, ">": 10, ">=": 10,
              "+": 12, "-": 12, "*": 13, "/": 13, "%": 13}
#: The precedence of a postfix expression (a call, an index): never parenthesised.
POSTFIX = 15
_UNARY, _PRIMARY = 14, 16
_CONDITIONAL = 3    # c ? a : b
_NEGATED = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}


def _negated_literal(e: ir.Expr):
    """The value of an integer literal under one or more unary minuses, wrapped as they wrap
    (LANGUAGE.md §2), or None for anything else."""
    if isinstance(e, ir.Const) and e.type in (Scalar.INT, Scalar.LONG):
        return int(e.value)
    if isinstance(e, ir.Unary) and e.op == "-" and e.type in (Scalar.INT, Scalar.LONG):
        inner = _negated_literal(e.operand)
        if inner is not None:
            half = 2 ** 63 if e.type is Scalar.LONG else 2 ** 31
            return (half - inner) % (2 * half) - half
    return None


class CExpressionPrinter:
    """Prints typed-IR expressions through a dialect and a context (a kernel's, or the
    host's, which answers the same questions)."""

    def __init__(self, dialect: Dialect, context: KernelArguments) -> None:
        self.d = dialect
        self.ctx = context
        #: (loop variable w, row u) -> (position, end) of the cursor in u's row while the
        #: loop over w is printed (``plan.RowScan.cursors``)
        self._cursors: Dict[Tuple[ir.Symbol, ir.Symbol], Tuple[str, str]] = {}
        #: loop variable w -> (row u, its linear flag) while the loop over w is printed as a
        #: merge with u's cursor (``CPrinter._merge``)
        self._merged: Dict[ir.Symbol, Tuple[ir.Symbol, str]] = {}

    def _note_type(self, t) -> None:
        if t is Scalar.DOUBLE:
            self.ctx.features.add("double")

    # --- expressions -------------------------------------------------------------------------
    def expr(self, e: ir.Expr) -> str:
        return self._expr(e)[0]

    def _operand(self, e: ir.Expr, min_prec: int) -> str:
        text, prec = self._expr(e)
        return f"({text})" if prec < min_prec else text

    @tracks_construct
    def _expr(self, e: ir.Expr) -> Tuple[str, int]:
        self._note_type(e.type)
        method = getattr(self, "_expr_" + type(e).__name__, None)
        if method is None:
            self.d.missing(f"the expression {type(e).__name__}", e.loc)
        return method(e)

    def _expr_Const(self, e: ir.Const):
        if e.type is Scalar.BOOL:
            return self.d.bool_literal(bool(e.value)), _PRIMARY
        if is_floating(e.type):
            negative = math.copysign(1.0, float(e.value)) < 0      # -0.0 prints a sign too
            return self.d.float_literal(e.value, e.type), (_UNARY if negative else _PRIMARY)
        value = int(e.value)
        lowest = -2 ** 63 if e.type is Scalar.LONG else -2 ** 31
        if value == lowest:   # the literal 2147483648 does not fit: spell INT_MIN
            return f"{self.d.int_literal(value + 1, e.type)} - 1", PRECEDENCE["-"]
        text = self.d.int_literal(value, e.type)
        return text, (_UNARY if value < 0 else _PRIMARY)

    def _expr_Inf(self, e: ir.Inf):
        # -INF may be a negated constant (-FLT_MAX) or a name (INT_MIN): treat it as negated
        return self.d.inf(e.type, e.negative), (_UNARY if e.negative else _PRIMARY)

    def _expr_VarRef(self, e: ir.VarRef):
        sym = e.sym
        name = self.ctx.names.lookup(sym)
        if name is not None:
            return name, _PRIMARY
        if sym.uid in self.ctx.by_value:
            return self.ctx.by_value[sym.uid].name, _PRIMARY
        if sym.uid in self.ctx.reduction_arrays:
            return self.d.index(self.ctx.reduction_arrays[sym.uid].name, "0"), POSTFIX
        self.d.missing(f"a reference to '{sym.name}' in kernel {self.ctx.kernel.name} (not a "
                       "local, parameter or reduction)", e.loc)

    def _expr_PropRead(self, e: ir.PropRead):
        array = self.ctx.prop(e.prop, e.loc)
        return self.d.index(array, self.expr(e.index)), POSTFIX

    def _expr_EdgeEndpoint(self, e: ir.EdgeEndpoint):
        array = "sources" if e.end == "source" else "targets"
        return self.d.index(self.ctx.graph_array(array), self.expr(e.edge)), POSTFIX

    def _expr_Unary(self, e: ir.Unary):
        if e.op == "!" and isinstance(e.operand, ir.Binary) and e.operand.op in _NEGATED \
                and not is_floating(e.operand.left.type):
            inner = e.operand
            return self._expr(ir.Binary(_NEGATED[inner.op], inner.left, inner.right,
                                        type=inner.type, loc=inner.loc))
        if e.op == "!" and isinstance(e.operand, ir.Unary) and e.operand.op == "!":
            return self._expr(e.operand.operand)
        value = _negated_literal(e)
        if value is not None:
            # the literal of -2147483648 is an int (LANGUAGE.md §2), but C's 2147483648 is a
            # long and so would be the negation, and -(INT_MIN) a constant overflow that
            # -Werror rejects: print the (wrapped) value as one constant
            return self._expr_Const(ir.Const(value, type=e.type, loc=e.loc))
        operand = self._operand(e.operand, _UNARY)
        if e.op == "-" and operand.startswith("-"):
            operand = f"({operand})"
        return f"{e.op}{operand}", _UNARY

    def _expr_Binary(self, e: ir.Binary):
        if e.op in ("==", "!=") and e.left.type is Scalar.BOOL:
            # x == true is x, x != true is !x (bools are stored as 0/1)
            for value, other in ((e.right, e.left), (e.left, e.right)):
                if isinstance(value, ir.Const) and not isinstance(other, ir.Const):
                    if bool(value.value) == (e.op == "=="):
                        return self._expr(other)
                    return self._expr(ir.Unary("!", other, type=Scalar.BOOL, loc=e.loc))
        prec = PRECEDENCE[e.op]
        left_min, right_min = prec, prec + 1
        if e.op == "||":       # spell a && b inside || with parentheses (as -Wparentheses asks)
            left_min = right_min = PRECEDENCE["&&"] + 1
        elif prec == PRECEDENCE["=="]:
            left_min = right_min = PRECEDENCE["<"] + 1
        elif e.op in "&|":     # only from v.p &= x / |= x: parenthesise any binary operand
            left_min = right_min = _UNARY
        left = self._operand(e.left, left_min)
        right = self._operand(e.right, right_min)
        if right.startswith("-") and e.op in "+-":
            right = f"({right})"
        return f"{left} {e.op} {right}", prec

    def _expr_Cast(self, e: ir.Cast):
        inner = e.expr
        if isinstance(inner.type, Scalar) and \
                self.d.type_name(inner.type) == self.d.type_name(e.type):
            return self._expr(inner)
        if isinstance(inner, ir.Const) and e.type is not Scalar.BOOL:
            value = inner.value
            if is_floating(e.type):
                return self._expr_Const(ir.Const(float(value), type=e.type))
            if is_integer(e.type) and not isinstance(value, float):
                return self._expr_Const(ir.Const(int(value), type=e.type))
        return f"({self.d.type_name(e.type)}){self._operand(inner, _UNARY)}", _UNARY

    def _expr_MinMax(self, e: ir.MinMax):
        args = [self.expr(x if x.type == e.type else ir.Cast(x, type=e.type))
                for x in (e.left, e.right)]
        return self.d.minmax(e.func, e.type, *args), POSTFIX

    def _expr_GraphQuery(self, e: ir.GraphQuery):
        if e.op == "num_nodes":
            return self.ctx.num_nodes(), _PRIMARY
        if e.op == "num_edges":
            return self.d.edge_count() or self.ctx.num_edges(), _PRIMARY
        if e.op in ("count_outNbrs", "count_inNbrs"):
            kept = self.d.kept_degree(e.op, self.expr(e.args[0]))
            if kept is not None:
                return kept, POSTFIX
            v = self._operand(e.args[0], PRECEDENCE["+"])
            begin, end = self.ctx.row_bounds(e.op == "count_outNbrs", v)
            return f"{end} - {begin}", PRECEDENCE["-"]
        if e.op in ("is_an_edge", "get_edge"):
            call = self.d.find_edge(self.ctx.graph_array("offsets"),
                                    self.ctx.graph_array("targets"),
                                    self.expr(e.args[0]), self.expr(e.args[1]),
                                    self.ctx.row_ends(True))
            return self._edge_answer(e.op, call)
        self.d.missing(f"the graph query '{e.op}'", e.loc)

    def _expr_CursorQuery(self, e: P.CursorQuery):
        if self._merged.get(e.var, (None,))[0] == e.row:
            # a merge (CPrinter._merge): the cursor already stands at the first id >= w
            pos, _ = self._cursors[(e.var, e.row)]
            w = self._operand(e.query.args[1], PRECEDENCE["<"] + 1)
            found = f"{self.d.index(self.ctx.graph_array('targets'), pos)} == {w}"
            if e.query.op == "is_an_edge":
                return found, PRECEDENCE["=="]
            return f"{found} ? {pos} : -1", _CONDITIONAL
        call = self.d.gallop(self.ctx.graph_array("targets"), *self._cursors[(e.var, e.row)],
                             self.expr(e.query.args[1]))
        return self._edge_answer(e.query.op, call)

    @staticmethod
    def _edge_answer(op: str, call: str) -> Tuple[str, int]:
        """``get_edge``: the edge the search ``call`` finds; ``is_an_edge``: whether it finds
        one."""
        if op == "get_edge":
            return call, POSTFIX
        return f"{call} >= 0", PRECEDENCE[">="]

    def _expr_Random(self, e: ir.Random):
        self.ctx.features.add("random")     # the prelude's starc_random (device_prelude)
        args = ", ".join(self.expr(x) for x in (e.seed, e.draw, e.position, e.vertex))
        return f"starc_random({args})", POSTFIX

    # --- run-time checks (starc.analysis.checks): prelude helpers that record the site ---------
    def _error_args(self) -> str:
        arrays = [p.array for p in self.ctx.kernel.params
                  if p.array is not None and p.array.role == "error"]
        if len(arrays) != 2:
            self.d.missing(f"a run-time check in kernel {self.ctx.kernel.name} without the "
                           "error word among its arguments")
        site, value = sorted(arrays, key=lambda a: a.elem is Scalar.LONG)
        return f"{self.ctx.array(site).name}, {self.ctx.array(value).name}"

    def _expr_CheckedIndex(self, e: CheckedIndex):
        limit = self.ctx.num_edges() if e.extent == "edges" else self.ctx.num_nodes()
        if e.extent == "edges" and self.ctx.row_ends(True) is not None:
            # rows with slack: an edge id is a slot, below offsets[n] (the slots in use) but
            # not always below the edge count
            limit = self.d.index(self.ctx.graph_array("offsets"), self.ctx.num_nodes())
        index = self.expr(e.index)
        return (f"starc_check_index({index}, {limit}, {self._error_args()}, {e.site + 1})",
                POSTFIX)

    def _expr_CheckedDivide(self, e: CheckedDivide):
        kind = "long" if e.type is Scalar.LONG else "int"
        func = "starc_div" if e.op == "/" else "starc_mod"
        return (f"{func}_{kind}({self.expr(e.left)}, {self.expr(e.right)}, "
                f"{self._error_args()}, {e.site + 1})", POSTFIX)

    def _expr_WrappingArith(self, e: WrappingArith):
        operands = (e.left,) if e.right is None else (e.left, e.right)
        return self.wrapping(e.op, e.type, *(self.expr(x) for x in operands)), POSTFIX

    def wrapping(self, op: str, t: Scalar, *operands: str) -> str:
        """The prelude call computing ``op`` (``+ - *``, ``neg``) on signed ``operands`` of
        type ``t`` with two's complement wrap-around."""
        name = {"+": "add", "-": "sub", "*": "mul", "neg": "neg"}[op]
        suffix = "long" if t is Scalar.LONG else "int"
        self.ctx.features.add(f"wrapping:{name}:{suffix}")
        return f"starc_{name}_{suffix}({', '.join(operands)})"

    def _expr_RankTable(self, e):
        # a distributed backend's table (analysis.local_index): the global id of a local vertex...
        return self.d.rank_table(e.table, self.expr(e.index)), POSTFIX

    def _expr_LiveSlot(self, e: P.LiveSlot):
        slot = self._operand(e.edge, PRECEDENCE["<"])
        row = self.d.index(self.ctx.graph_array("sources"), self.expr(e.edge))
        begin, end = self.ctx.row_bounds(True, row)
        return f"{row} >= 0 && {begin} <= {slot} && {slot} < {end}", PRECEDENCE["&&"]

    def _expr_UnionFindRoot(self, e: P.UnionFindRoot):
        self.ctx.features.add("union_find")     # the prelude's starc_find_root (device_prelude)
        parent = self.ctx.array(e.parent, written=True)
        return f"starc_find_root({parent.name}, {self.expr(e.vertex)})", _PRIMARY

    def _expr_GroupLanes(self, e: P.GroupLanes):
        return self.d.group_function(self.d.group_lanes, "the work-group's size"), _PRIMARY

    def _expr_KernelScalar(self, e: P.KernelScalar):
        return self.ctx.kernel_scalar(e.name, e.type), _PRIMARY
