"""Vectorised kernel expressions: each compiles to ``f(sel) -> array | numpy scalar`` with
exact dtypes and C semantics (integer division truncating toward zero, checked ranges), and
records every read it makes for the legality rules.

``KernelExpressions`` is the base of ``kernelcompiler.KernelCompiler``, which owns the state
(``fc``, ``view``, ``accesses``, ``depth_of`` ...) these methods read and record into.
"""

from __future__ import annotations

import numpy as np

from starc.ir import nodes as ir
from starc.ir.types import Scalar, is_floating, is_integer
from starc.reference.lanes import Access, NotVectorizable, full
from starc.reference.randoms import starc_random
from starc.reference.values import ExecutionError, numpy_dtype

__all__ = ["KernelExpressions", "check_range"]


def check_range(values, limit: int, what: str, loc) -> None:
    """``what`` is ``vertex``, ``edge`` or ``index of 'p'`` (the value goes after its first
    word, as the closure interpreter words it: "index 5 of 'p' out of range 0..2")."""
    values = np.asarray(values)
    if values.size and (values.min() < 0 or values.max() >= limit):
        bad = values[(values < 0) | (values >= limit)].flat[0]
        head, _, tail = what.partition(" ")
        subject = f"{head} {int(bad)}" + (f" {tail}" if tail else "")
        raise ExecutionError(f"{subject} out of range 0..{limit - 1}", loc)


class KernelExpressions:
    """Expression compilation and access bookkeeping (base class; see the module docstring)."""

    # -- bookkeeping ----------------------------------------------------------------------
    def access(self, key, kind, index):
        self.accesses.append(Access(key, kind, index, tuple(self.path), self.stmt_id))
        if self._in_filter and kind == "read":
            self._filter_reads.add(key)

    def index_class(self, index: ir.Expr) -> str:
        if isinstance(index, ir.VarRef):
            if index.sym.uid == self.own:
                return "own"
            if index.sym.uid in self.bfs_vars:
                return "nbr"
        return "other"

    def read_slot(self, prop: ir.Symbol) -> int:
        return self.fc.slot(prop)

    def write_slot(self, prop: ir.Symbol) -> int:
        return self.fc.write_slot(prop)

    def filter(self, expr: ir.Expr):
        self._in_filter = True
        try:
            return self.expr(expr, 0)
        finally:
            self._in_filter = False

    # -- variables ------------------------------------------------------------------------
    def var_reader(self, sym: ir.Symbol):
        if sym.uid in self.depth_of:
            depth = self.depth_of[sym.uid]
            slot = self.fc.slot(sym)
            if sym.uid not in self.loop_syms:
                self.access(("l", sym.uid), "read", "local")

            def read(sel):
                values = sel.frame_at(depth).vars[slot]
                lanes = sel.lanes_at(depth)
                return values if lanes is None else values[lanes]
            return read
        if not isinstance(sym.type, Scalar):
            raise NotVectorizable
        slot = self.fc.slot(sym)
        self.access(("o", slot), "read", "outer")
        dtype = numpy_dtype(sym.type).type
        return lambda sel: dtype(sel.run.env[slot])

    # -- expressions ----------------------------------------------------------------------
    def expr(self, e: ir.Expr, depth: int):
        method = getattr(self, "_e_" + type(e).__name__, None)
        if method is None:
            raise NotVectorizable
        return method(e, depth)

    def _constant(self, e):
        value = self.fc.expr(e)(None)
        constant = numpy_dtype(e.type).type(value)
        return lambda sel: constant

    def _e_Const(self, e, depth):
        return self._constant(e)

    def _e_Inf(self, e, depth):
        return self._constant(e)

    def _e_VarRef(self, e, depth):
        return self.var_reader(e.sym)

    def _e_PropRead(self, e, depth):
        slot = self.read_slot(e.prop)
        self.access(("p", slot), "read", self.index_class(e.index))
        index = self.expr(e.index, depth)
        limit = self.fc.prop_limit(e.prop)
        trusted = isinstance(e.index, ir.VarRef) and e.index.sym.uid in self.loop_syms
        loc, name = e.loc, e.prop.name

        def read(sel):
            i = index(sel)
            if not trusted:
                check_range(i, limit, f"index of {name!r}", loc)
            return sel.run.env[slot][i]
        return read

    def _e_EdgeEndpoint(self, e, depth):
        edge = self.expr(e.edge, depth)
        array = (self.view.sources if e.end == "source" else self.view.targets).astype(np.int32)
        limit, loc = self.view.num_edges, e.loc

        def endpoint(sel):
            i = edge(sel)
            check_range(i, limit, "edge", loc)
            return array[i]
        return endpoint

    def _e_Unary(self, e, depth):
        operand = self.expr(e.operand, depth)
        if e.op == "!":
            return lambda sel: np.logical_not(operand(sel))
        return lambda sel: np.negative(operand(sel))

    def _e_Binary(self, e, depth):
        left, right, op = self.expr(e.left, depth), self.expr(e.right, depth), e.op
        if op in ("&&", "||"):
            want = op == "&&"

            def logical(sel):
                lhs = full(left(sel), sel.size).astype(bool)
                take = lhs if want else ~lhs
                if not take.any():
                    return lhs
                out = lhs.copy()
                rhs = full(right(sel.subset(take)), int(take.sum()))
                out[take] = rhs
                return out
            return logical
        simple = {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal,
                  ">": np.greater, ">=": np.greater_equal, "+": np.add, "-": np.subtract,
                  "*": np.multiply}
        if op in simple:
            fn = simple[op]
            return lambda sel: fn(left(sel), right(sel))
        loc = e.loc
        if is_integer(e.type):
            def int_divide(sel):
                a, b = left(sel), right(sel)
                if np.any(np.asarray(b) == 0):
                    raise ExecutionError("integer division by zero" if op == "/" else
                                         "integer modulo by zero", loc)
                remainder = np.fmod(a, b)
                if op == "%":
                    return remainder
                return (a - remainder) // b
            return int_divide
        if op == "/":
            return lambda sel: np.divide(left(sel), right(sel))
        return lambda sel: np.fmod(left(sel), right(sel))

    def _e_Cast(self, e, depth):
        inner = self.expr(e.expr, depth)
        target = numpy_dtype(e.type)
        if e.type is Scalar.BOOL:
            return lambda sel: np.not_equal(inner(sel), 0)
        if is_integer(e.type) and is_floating(e.expr.type):
            info = np.iinfo(target)

            def to_int(sel):
                values = np.asarray(inner(sel))
                bad = ~np.isfinite(values) | (values <= info.min - 1.0) | (values >= info.max + 1.0)
                result = np.trunc(np.where(bad, 0, values)).astype(target)
                return np.where(bad, target.type(info.min), result)
            return to_int
        return lambda sel: np.asarray(inner(sel)).astype(target)

    def _e_MinMax(self, e, depth):
        left, right = self.expr(e.left, depth), self.expr(e.right, depth)
        if e.func == "Min":
            def minimum(sel):
                a, b = left(sel), right(sel)
                return np.where(b < a, b, a)
            return minimum

        def maximum(sel):
            a, b = left(sel), right(sel)
            return np.where(a < b, b, a)
        return maximum

    def _e_GraphQuery(self, e, depth):
        view = self.view
        if e.op in ("num_nodes", "num_edges"):
            return self._constant_value(view.num_nodes if e.op == "num_nodes" else view.num_edges,
                                        e.type)
        args = [self.expr(a, depth) for a in e.args]
        n, loc = view.num_nodes, e.loc
        if e.op in ("count_outNbrs", "count_inNbrs"):
            degree = np.diff(view.offsets if e.op == "count_outNbrs" else view.rev_offsets)
            degree = degree.astype(np.int32)
            trusted = isinstance(e.args[0], ir.VarRef) and e.args[0].sym.uid in self.loop_syms

            def count(sel):
                v = args[0](sel)
                if not trusted:
                    check_range(v, n, "vertex", loc)
                return degree[v]
            return count

        trusted_args = [isinstance(a, ir.VarRef) and a.sym.uid in self.loop_syms
                         for a in e.args]

        def search(sel):
            u, w = args[0](sel), args[1](sel)
            if not trusted_args[0]:
                check_range(u, n, "vertex", loc)
            if not trusted_args[1]:
                check_range(w, n, "vertex", loc)
            if e.op == "is_an_edge":
                return view.has_edges(u, w)
            return view.find_edges(u, w).astype(np.int32)
        return search

    def _e_Random(self, e, depth):
        parts = [self.expr(x, depth) for x in (e.seed, e.draw, e.position, e.vertex)]
        return lambda sel: starc_random(*(part(sel) for part in parts))

    def _constant_value(self, value, scalar):
        constant = numpy_dtype(scalar).type(value)
        return lambda sel: constant

    def _e_WeightBound(self, e, depth):
        slot = self.read_slot(e.prop)
        self.access(("p", slot), "read", "other")
        scalar_fn = self.fc.expr(e)
        dtype = numpy_dtype(e.type).type
        return lambda sel: dtype(scalar_fn(sel.run.env))
