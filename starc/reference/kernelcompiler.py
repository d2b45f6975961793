"""Compiles a loop body to vectorised numpy closures and records every access for the rules.

Statements compile to ``s(sel)`` (expressions, in ``kernelexpressions``, to ``f(sel) -> array
| numpy scalar``). Unsupported constructs raise ``NotVectorizable``; ``check`` applies the
legality rules documented in ``starc.reference.vectorize``.
"""

from __future__ import annotations

from typing import Dict, List, Optional

import numpy as np

from starc.ir import nodes as ir
from starc.ir.types import Scalar
from starc.reference.graphview import bfs_related, expand_counts
from starc.reference.kernelexpressions import KernelExpressions, check_range
from starc.reference.kernelrules import KernelRules
from starc.reference.lanes import (LANE_LIMIT, Access, Frame, NotVectorizable, Sel, full,
                                   segments, segmented_fold)
from starc.reference.values import numpy_dtype

__all__ = ["KernelCompiler"]


def _mentions(expr: ir.Node, target: ir.LValue) -> bool:
    for node in ir.walk(expr):
        if isinstance(target, ir.VarRef) and isinstance(node, ir.VarRef) \
                and node.sym == target.sym:
            return True
        if isinstance(target, ir.PropRead) and node == target:
            return True
    return False


class KernelCompiler(KernelExpressions, KernelRules):
    """Compiles one loop body: statements here, expressions in ``KernelExpressions``, the
    legality rules over the recorded accesses in ``KernelRules``."""

    def __init__(self, fc, mode: str, var: ir.Symbol, bfs_slot: Optional[int]) -> None:
        self.fc = fc
        self.view = fc.view
        self.mode = mode
        self.own = var.uid
        self.bfs_slot = bfs_slot
        self.depth_of: Dict[int, int] = {var.uid: 0}
        self.loop_syms = {var.uid}
        self.bfs_vars = set()
        self.path: List[int] = []
        self.accesses: List[Access] = []
        self.stmt_id = 0
        self.seq = 0
        self.mm_stmts: List[tuple] = []       # (depth, innermost loop, primary, secondaries)
        self.mm = False
        self.mm_primary = None
        self.mm_secondaries: tuple = ()
        self.mm_func = None
        self.filter_reads_primary = False
        self.h_storages = set()
        self.own_storages = set()
        self._in_filter = False
        self._filter_reads = set()

    # -- statements -----------------------------------------------------------------------
    def stmt(self, s: ir.Stmt, depth: int):
        method = getattr(self, "_s_" + type(s).__name__, None)
        if method is None:
            raise NotVectorizable
        self.stmt_id += 1
        return method(s, depth)

    def _s_Block(self, s, depth):
        stmts = [self.stmt(x, depth) for x in s.stmts]

        def block(sel):
            if sel.size == 0:
                return
            for st in stmts:
                st(sel)
        return block

    def _s_Declare(self, s, depth):
        if not isinstance(s.sym.type, Scalar):
            raise NotVectorizable
        self.depth_of[s.sym.uid] = depth
        slot = self.fc.slot(s.sym)
        dtype = numpy_dtype(s.sym.type)
        init = self.expr(s.init, depth) if s.init is not None else None
        self.access(("l", s.sym.uid), "own", "local")

        def declare(sel):
            frame = sel.frame
            values = frame.vars.get(slot)
            if values is None:
                values = frame.vars[slot] = np.zeros(frame.n, dtype=dtype)
            if init is not None:
                result = init(sel)
                if sel.idx is None:
                    values[...] = result
                else:
                    values[sel.idx] = result
        return declare

    def _target(self, target: ir.LValue, depth: int):
        """Classify an assignment target: ``('local', d)``, ``('own', 0)``, ``('shared',)``."""
        if isinstance(target, ir.VarRef):
            if target.sym.uid not in self.depth_of or target.sym.uid in self.loop_syms:
                return ("outer",)
            return ("local", self.depth_of[target.sym.uid])
        if self.index_class(target.index) == "own":
            if self.read_slot(target.prop) != self.write_slot(target.prop):
                return ("own-redirected", 0)
            return ("own", 0)
        return ("shared",)

    def _local_store(self, target: ir.LValue):
        """``store(sel, values)`` for a same-depth local or an own property at depth 0."""
        if isinstance(target, ir.VarRef):
            slot = self.fc.slot(target.sym)
            self.access(("l", target.sym.uid), "own", "local")

            def store_local(sel, values):
                array = sel.frame.vars[slot]
                if sel.idx is None:
                    array[...] = values
                else:
                    array[sel.idx] = values
            return store_local
        slot = self.write_slot(target.prop)
        self.own_storages.add(slot)
        self.access(("p", slot), "own", "own")
        var_slot = self.fc.slot(ir_sym_of(target.index))

        def store_own(sel, values):
            vertices = sel.frame_at(0).vars[var_slot]
            lanes = sel.lanes_at(0)
            sel.run.env[slot][vertices if lanes is None else vertices[lanes]] = values
        return store_own

    def _s_Assign(self, s, depth):
        kind = self._target(s.target, depth)
        if kind[0] == "outer":
            raise NotVectorizable                 # a racy plain write to an outer scalar
        if kind[0] in ("local", "own", "own-redirected") and (
                kind[1] == depth or kind[0] == "own-redirected"):
            if kind[0] == "own-redirected" and depth != 0:
                raise NotVectorizable
            value = self.expr(s.value, depth)
            if kind[0] == "own-redirected":
                return self._shared_write("racy", s.target, value, depth, op=None)
            store = self._local_store(s.target)
            return lambda sel: store(sel, value(sel))
        if kind[0] in ("local", "own"):
            value = s.value
            target = s.target
            if isinstance(value, ir.Binary) and value.op in ("+", "-", "*"):
                if value.left == target and not _mentions(value.right, target):
                    return self._accumulate(value.op, target, value.right, kind[1], depth)
                if value.op != "-" and value.right == target and not _mentions(value.left,
                                                                               target):
                    return self._accumulate(value.op, target, value.left, kind[1], depth)
            if not _mentions(value, target):
                return self._accumulate("last", target, value, kind[1], depth)
            raise NotVectorizable
        value = self.expr(s.value, depth)
        return self._shared_write("racy", s.target, value, depth, op=None)

    def _s_Reduce(self, s, depth):
        kind = self._target(s.target, depth)
        op = s.op
        scalar = s.target.type
        if kind[0] == "outer":
            slot = self.fc.slot(s.target.sym)
            self.access(("o", slot), "sred", "outer")
            value = self.expr(s.value, depth)

            def scalar_reduce(sel):
                # Owners are always kept: floats fold in sequential order, and a kernel that
                # updates one scalar with several operators (+= then *=) must interleave them
                # per iteration exactly as a sequential run would.
                values = np.array(full(value(sel), sel.size))
                sel.run.scalar_records.append((slot, op, scalar, sel.owners(), values))
            return scalar_reduce
        if kind[0] == "own-redirected":
            raise NotVectorizable
        if kind[0] in ("local", "own") and kind[1] == depth:
            value = self.expr(s.value, depth)
            read = self.expr(s.target, depth)
            store = self._local_store(s.target)
            combine = _elementwise(op, scalar)
            return lambda sel: store(sel, combine(read(sel), value(sel)))
        if kind[0] in ("local", "own"):
            return self._accumulate(op, s.target, s.value, kind[1], depth)
        value = self.expr(s.value, depth)
        return self._shared_write("red", s.target, value, depth, op=op)

    def _shared_write(self, kind, target: ir.PropRead, value, depth, op):
        if self.mode == "bfs":
            raise NotVectorizable
        slot = self.write_slot(target.prop)
        self.access(("p", slot), kind, self.index_class(target.index))
        index = self.expr(target.index, depth)
        limit = self.fc.prop_limit(target.prop)
        loc, name = target.loc, target.prop.name
        self.seq += 1
        seq = self.seq

        def write(sel):
            targets = np.array(full(index(sel), sel.size), dtype=np.int64)
            check_range(targets, limit, f"index of {name!r}", loc)
            values = np.array(full(value(sel), sel.size))
            sel.run.shared_records.append((kind, slot, op, seq, targets, values, sel.owners()))
        return write

    def _accumulate(self, op, target: ir.LValue, value_expr: ir.Expr, tdepth: int, depth: int):
        """A fold from depth ``depth`` into ``target`` living at depth ``tdepth``."""
        if _mentions(value_expr, target):
            # ``t -= t + w``: each step reads the value the previous one stored, so the
            # update is not a fold of values computed up front (a reduction whose expression
            # reads its target is not a reduction); the interpreter runs it step by step.
            raise NotVectorizable
        scalar = target.type
        if isinstance(target, ir.VarRef):
            key = ("l", target.sym.uid)
            slot = self.fc.slot(target.sym)
            index_kind = "local"
        else:
            slot = self.write_slot(target.prop)
            key = ("p", slot)
            index_kind = "own"
            self.own_storages.add(slot)
            var_slot = self.fc.slot(ir_sym_of(target.index))
        loop_id = self.path[tdepth]
        self.accumulations.append((key, loop_id, self.stmt_id))
        self.access(key, "acc", index_kind)
        value = self.expr(value_expr, depth)

        def accumulate(sel):
            values = np.array(full(value(sel), sel.size))
            anchors = sel.lanes_at(tdepth)
            if anchors is None:
                anchors = np.arange(sel.size)
            uniq, starts, counts = segments(anchors)
            if isinstance(target, ir.VarRef):
                array = sel.frame_at(tdepth).vars[slot]
                where = uniq
            else:
                array = sel.run.env[slot]
                where = sel.frame_at(0).vars[var_slot][uniq]
            if op == "last":
                array[where] = values[starts + counts - 1]
            else:
                array[where] = segmented_fold(op, scalar, array[where], starts, counts, values)
        return accumulate

    def _s_MinMaxAssign(self, s, depth):
        kind = self._target(s.target, depth)
        if kind[0] in ("outer", "own-redirected"):
            raise NotVectorizable
        candidate = self.expr(s.candidate, depth)
        is_min = s.func == "Min"
        if kind[0] in ("local", "own") and kind[1] == depth:
            read = self.expr(s.target, depth)
            store = self._local_store(s.target)
            others = [(self._local_store(t) if self._target(t, depth)[0] in ("local", "own")
                       and self._target(t, depth)[1] == depth else _raise(), self.expr(v, depth))
                      for t, v in s.others]

            def conditional(sel):
                c = np.array(full(candidate(sel), sel.size))
                cur = np.array(full(read(sel), sel.size))
                better = c < cur if is_min else c > cur
                if not better.any():
                    return
                sub = sel.subset(better)
                values = [v(sub) for _, v in others]
                store(sub, c[better])
                for (st, _), v in zip(others, values):
                    st(sub, v)
            return conditional
        if kind[0] in ("local", "own"):
            if s.others:
                raise NotVectorizable
            return self._accumulate(s.func, s.target, s.candidate, kind[1], depth)
        # Min/Max on another vertex's element: strategy M
        if self.mode != "forall":
            raise NotVectorizable
        primary = self.write_slot(s.target.prop)
        if primary != self.read_slot(s.target.prop):
            raise NotVectorizable
        self.access(("p", primary), "mm", self.index_class(s.target.index))
        index = self.expr(s.target.index, depth)
        secondaries, values = [], []
        for t, v in s.others:
            if not isinstance(t, ir.PropRead) or t.index != s.target.index:
                raise NotVectorizable
            slot = self.write_slot(t.prop)
            self.access(("p", slot), "mmsec", "other")
            secondaries.append(slot)
            values.append(self.expr(v, depth))
        self.mm_stmts.append((depth, self.path[-1] if self.path else None, primary,
                              tuple(secondaries), s.func))
        limit = self.fc.prop_limit(s.target.prop)
        loc, name = s.loc, s.target.prop.name
        self.seq += 1
        seq = self.seq

        def min_max(sel):
            targets = np.array(full(index(sel), sel.size), dtype=np.int64)
            check_range(targets, limit, f"index of {name!r}", loc)
            cands = np.array(full(candidate(sel), sel.size))
            secs = [np.array(full(v(sel), sel.size)) for v in values]
            sel.run.mm_records.append((seq, targets, cands, secs, sel.owners()))
        return min_max

    def _s_If(self, s, depth):
        cond = self.expr(s.cond, depth)
        then = self.stmt(s.then, depth)
        orelse = self.stmt(s.orelse, depth) if s.orelse is not None else None

        def branch(sel):
            mask = full(cond(sel), sel.size).astype(bool)
            if mask.any():
                then(sel.subset(mask) if not mask.all() else sel)
            if orelse is not None and not mask.all():
                orelse(sel.subset(~mask))
        return branch

    def _s_Loop(self, s, depth):
        d = s.domain
        if not isinstance(d, (ir.Neighbors, ir.InNeighbors)):
            raise NotVectorizable
        view = self.view
        of = self.expr(d.of, depth)
        trusted = isinstance(d.of, ir.VarRef) and d.of.sym.uid in self.loop_syms
        inward = isinstance(d, ir.InNeighbors) or d.role == "bfs_parents"
        role = getattr(d, "role", "out")
        if role != "out" and (self.mode != "bfs" or not isinstance(d.of, ir.VarRef)
                              or d.of.sym.uid != self.own):
            raise NotVectorizable   # the parents/children of an outer BFS's vertex
        inner = depth + 1
        for sym in (s.var, d.edge):
            self.depth_of[sym.uid] = inner
            self.loop_syms.add(sym.uid)
        if role != "out":
            self.bfs_vars.add(s.var.uid)
        var_slot, edge_slot = self.fc.slot(s.var), self.fc.slot(d.edge)
        self.path.append(id(s))
        try:
            filt = self.expr(s.filter, inner) if s.filter is not None else None
            body = self.stmt(s.body, inner)
        finally:
            self.path.pop()
        offsets = view.rev_offsets if inward else view.offsets
        neighbour = (view.rev_sources if inward else view.targets).astype(np.int32)
        edge_of = view.rev_edge_ids if inward else None
        n, loc = view.num_nodes, d.loc
        bound = self._range_filter(s, inner) if role == "out" else None
        if bound is not None:
            filt = None
            keys = (lambda: view.rev_keys) if inward else (lambda: view.edge_keys)

        def ranges(sel, vertices):
            starts = offsets[vertices]
            ends = offsets[vertices + 1]
            if bound is not None and vertices.size:
                op, limit = bound
                x = np.array(full(limit(sel), sel.size), dtype=np.int64)
                row = vertices * max(n, 1)
                if op in (">", ">="):       # var > x  (var >= x is var > x - 1)
                    x = np.clip(x - (op == ">="), -1, n - 1)
                    starts = np.searchsorted(keys(), row + x, side="right")
                else:                       # var < x  (var <= x is var < x + 1)
                    x = np.clip(x + (op == "<="), 0, n)
                    ends = np.searchsorted(keys(), row + x, side="left")
                ends = np.maximum(ends, starts)
            return starts, ends - starts

        def expand(sel, vertices, starts, counts):
            positions, owner = expand_counts(starts, counts)
            others = neighbour[positions]
            if role != "out":
                level = sel.run.level
                step = -1 if role == "bfs_parents" else 1
                keep = bfs_related(level[others], level[vertices[owner]], step)
                positions, owner, others = positions[keep], owner[keep], others[keep]
            edges = (edge_of[positions] if inward else positions).astype(np.int32)
            up = owner if sel.idx is None else sel.idx[owner]
            frame = Frame(inner, positions.size, sel.frame, up, sel.run)
            frame.vars[var_slot] = others
            frame.vars[edge_slot] = edges
            child = Sel(frame, None)
            if filt is not None and frame.n:
                mask = full(filt(child), frame.n).astype(bool)
                child = Sel(frame.compress(mask), None)
            if child.size:
                body(child)

        def loop(sel):
            vertices = np.array(full(of(sel), sel.size), dtype=np.int64)
            if not trusted:
                check_range(vertices, n, "vertex", loc)
            starts, counts = ranges(sel, vertices)
            total = int(counts.sum())
            if total <= LANE_LIMIT:
                expand(sel, vertices, starts, counts)
                return
            group = np.cumsum(counts) // LANE_LIMIT
            bounds = np.flatnonzero(np.diff(group)) + 1
            for part in np.split(np.arange(sel.size), bounds):
                sub = Sel(sel.frame, part if sel.idx is None else sel.idx[part])
                expand(sub, vertices[part], starts[part], counts[part])
        return loop

    def _range_filter(self, loop: ir.Loop, depth: int):
        """A filter ``var < x`` (<=, >, >=; either side) with ``x`` an integer expression
        independent of the loop: a range of the sorted adjacency row, found by binary search
        instead of testing every neighbour. Returns ``(op, x)`` with var on the left."""
        f = loop.filter
        if not isinstance(f, ir.Binary) or f.op not in ("<", "<=", ">", ">="):
            return None
        flipped = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
        var = loop.var
        if isinstance(f.left, ir.VarRef) and f.left.sym == var:
            op, other = f.op, f.right
        elif isinstance(f.right, ir.VarRef) and f.right.sym == var:
            op, other = flipped[f.op], f.left
        else:
            return None
        if other.type not in (Scalar.NODE, Scalar.INT) or any(
                isinstance(node, ir.VarRef) and node.sym in (var, loop.domain.edge)
                for node in ir.walk(other)):
            return None
        return op, self.expr(other, depth)


def ir_sym_of(index: ir.Expr) -> ir.Symbol:
    return index.sym


def _raise():
    raise NotVectorizable


def _elementwise(op: str, scalar: Scalar):
    if scalar is Scalar.BOOL:
        return np.logical_and if op in ("&", "*") else np.logical_or
    return {"+": np.add, "-": np.subtract, "*": np.multiply, "&": np.bitwise_and,
            "|": np.bitwise_or}[op]
