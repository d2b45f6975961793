"""Kernel statements to C text: control flow, atomics, locked Min/Max, queues (loops: c_loops).

Extends the expression printer with the statements of a lowered kernel body, including
the work-item private accumulators of exclusive scalar reductions.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Dict, List, Optional, Sequence, Tuple

from starc.analysis import plan as P
from starc.backends.common.c_expressions import PRECEDENCE, CExpressionPrinter
from starc.backends.common.c_loops import EnclosingLoop, NeighbourLoopPrinter
from starc.backends.common.dialect import ATOMIC_OPS, INDENT, Dialect
from starc.backends.common.group_end import StagedQueue, staged_locals
from starc.backends.common.kernel_arguments import KernelArguments
from starc.backends.common.sourcemap import mark
from starc.diagnostics import tracks_construct
from starc.ir import nodes as ir
from starc.ir.types import PropType, Scalar

__all__ = ["CPrinter", "PrivateAccumulator", "source_name"]


def source_name(path: str) -> str:
    """The file name that ``// file.sp:LINE`` comments show."""
    return os.path.basename(path) if path else "<input>"


@dataclasses.dataclass
class PrivateAccumulator:
    """A work item's private partial result of an exclusive scalar reduction: ``name`` is
    the local, ``op`` the reduction operator (``-`` accumulates the subtracted values with
    ``+`` and subtracts their sum once), ``elem`` the scalar's type, ``address`` its device
    copy, ``first_update`` the first update printed (its location comments the combine).
    ``native``: ``name`` is the dialect's native reduction object (``sycl::reduction``'s
    reducer), which does the combining itself. ``reduction``: the plan's, with the strategy
    and combine form the specialize stage chose."""

    name: str
    op: str
    elem: Scalar
    address: str
    first_update: Optional[ir.Stmt] = None
    native: bool = False
    reduction: Optional[P.ScalarReduction] = None


class CPrinter(NeighbourLoopPrinter, CExpressionPrinter):
    """Prints typed-IR expressions and kernel statements through a dialect and a context."""

    def __init__(self, dialect: Dialect, context: KernelArguments) -> None:
        super().__init__(dialect, context)
        #: host scalar uid -> its work-item private accumulator (``ScalarReduction.private``)
        self.accumulators: Dict[int, PrivateAccumulator] = {}
        #: the worklists whose appends (or counts) a work-group stages in local memory
        #: (``QueueAppend.form`` ``local``), by the name of their length
        self.staged: Dict[str, StagedQueue] = {}
        #: the loops around the statement being printed, outermost first
        self._enclosing: List[EnclosingLoop] = []
        #: the variable of the neighbour loop a work-group's lanes share (a binned kernel's
        #: heavy vertex: ``KernelCode.cooperative``), each taking every starc_lanes-th edge
        self.strided: Optional[ir.Symbol] = None
        #: the neighbour loops a vertex's gang of vector lanes shares, by loop variable
        #: (``Kernel.vector_loops``): each printed under the dialect's ``vector_loop``
        self.vector: Dict[ir.Symbol, P.VectorLoop] = {}

    # --- private accumulators of exclusive scalar reductions ---------------------------------
    def open_accumulators(self, reductions: Sequence[P.ScalarReduction],
                          depth: int) -> List[str]:
        """Declare one private per reduction, initialised to its operator's identity (none
        where the dialect reduces the scalar natively); the updates of the body then go to
        it (``_stmt_AtomicReduce``, ``_stmt_AtomicMinMax``)."""
        lines = []
        for red in reductions:
            address, elem = self._address(ir.VarRef(red.sym, type=red.sym.type))
            if red.strategy == "native":
                self.accumulators[red.sym.uid] = PrivateAccumulator(
                    self.d.reducer(red), red.op, elem, address, native=True, reduction=red)
                continue
            if red.strategy not in ("group", "private"):
                self.d.missing(f"a reduction of '{red.sym.name}' whose strategy is "
                               f"{red.strategy!r} (the plan is not specialized)", red.sym.loc)
            self._note_type(elem)
            name = self.ctx.names.fresh(f"{red.sym.name}_local")
            self.accumulators[red.sym.uid] = PrivateAccumulator(name, red.op, elem, address,
                                                                reduction=red)
            lines.append(self._line(depth, f"{self.d.type_name(elem)} {name} = "
                                           f"{self._identity(red.op, elem)};"))
        return lines

    def close_accumulators(self, depth: int) -> List[str]:
        """One atomic combine per private, skipped while it still holds the identity."""
        lines = []
        for acc in self.accumulators.values():
            if acc.native or acc.first_update is None:   # no update: cannot happen when chosen
                continue
            op = ATOMIC_OPS[acc.op]
            self.ctx.features.add(f"atomic_{op}_{acc.elem}")
            call = self._atomic(acc.reduction.combine, op, acc.elem, acc.address, acc.name)
            fold = self._group_fold(acc) if acc.reduction.strategy == "group" else None
            leader = None
            if fold is not None:      # a tree every work item reaches, then its first's atomic
                tree, leader, partial = fold
                self.ctx.group_locals.append(partial)
                lines += [self._line(depth, line) if line.strip() else line for line in tree]
            elif acc.reduction.strategy == "group":
                leader = self.d.group_combine(acc.op, acc.elem, acc.name)
                if leader is not None:
                    self.ctx.features.add("group_combine")
            inner = depth + 1 + (leader is not None)
            combine = [self._line(inner, f"{call};{self.comment(acc.first_update)}")]
            if leader is not None:
                combine = self._braced(f"if ({leader})", combine, depth + 1)
            identity = self._identity(acc.op, acc.elem)
            lines += self._braced(f"if ({acc.name} != {identity})", combine, depth)
        return lines

    def _group_fold(self, acc: PrivateAccumulator):
        """The dialect's tree folding a work-group's ``acc`` (``Dialect.group_fold``)."""
        if acc.op in ("Min", "Max"):
            combine = self.d.minmax(acc.op, acc.elem, "{0}", "{1}")
        elif acc.reduction.wrap:
            combine = self.wrapping("+" if acc.op == "-" else acc.op, acc.elem, "{0}", "{1}")
        else:
            combine = f"{{0}} {'+' if acc.op == '-' else acc.op} {{1}}"
        return self.d.group_fold(acc.elem, acc.name, combine)

    # --- appends staged per work-group (``QueueAppend.form`` ``local``) ---------------------
    def _stage(self, size: str, slot: str, queue: Optional[str]) -> StagedQueue:
        """The local queue (or count) of the worklist whose length is ``size[slot]``."""
        staged = self.staged.get(size)
        if staged is None:
            self.ctx.features.add("atomic_add_int")
            self.ctx.features.add("staged_append")
            length = self.d.address(size, slot)
            reserve = self.d.atomic("add", Scalar.INT, length, "{}")
            staged = self.staged[size] = StagedQueue(f"starc_staged_{size}", queue, length,
                                                     reserve)
        elif queue is not None:
            staged.queue = queue
        return staged

    def stage_lines(self, end: bool) -> List[str]:
        """The staged queues' opening (before the items) or closing lines (depth 1)."""
        if not self.staged:
            return []
        if not end:   # made by the shell where the launch makes local memory (SYCL's)
            self.ctx.group_locals += [local for queue in self.staged.values()
                                      for local in staged_locals(queue)]
        return [self._line(1, line) for line in self.d.stage_lines(list(self.staged.values()),
                                                                    end)]

    def dialect_type(self, type_) -> str:
        """The C type of a kernel local of ``type_``."""
        self._note_type(type_)
        return self.d.type_name(type_)

    def _identity(self, op: str, elem: Scalar) -> str:
        if op in ("+", "-", "|"):
            return "0"
        if op == "*":
            return "1"
        if op == "&":
            return "~0"
        return self.d.inf(elem, negative=op == "Max")     # Min: INF, Max: -INF

    def _accumulate(self, s: ir.Stmt, target: ir.Expr, value: ir.Expr, depth: int):
        """The private update replacing an atomic one on a privately accumulated scalar,
        or None when ``target`` is not such a scalar."""
        if not isinstance(target, ir.VarRef):
            return None
        acc = self.accumulators.get(target.sym.uid)
        if acc is None:
            return None
        if acc.first_update is None:
            acc.first_update = s
        comment = self.comment(s)
        if acc.native:
            update = self.d.reducer_update(acc.op, acc.name, self.expr(value))
            return [self._line(depth, f"{update};{comment}")]
        if acc.op in ("Min", "Max"):
            cand = self.expr(value if value.type == acc.elem else ir.Cast(value, type=acc.elem))
            return [self._line(depth, f"{acc.name} = "
                                      f"{self.d.minmax(acc.op, acc.elem, acc.name, cand)};"
                                      f"{comment}")]
        op = "+" if acc.op == "-" else acc.op
        if op in "+*" and acc.reduction.wrap:
            update = self.wrapping(op, acc.elem, acc.name, self.expr(value))
            return [self._line(depth, f"{acc.name} = {update};{comment}")]
        return [self._line(depth, f"{acc.name} {op}= {self.expr(value)};{comment}")]

    def comment(self, node) -> str:
        loc = getattr(node, "loc", None)
        if loc is None or loc.line <= 0:
            return ""
        return f"  // {source_name(loc.file)}:{loc.line}"

    # --- statements ---------------------------------------------------------------------------
    def block(self, block: ir.Block, depth: int) -> List[str]:
        lines: List[str] = []
        for stmt in block.stmts:
            lines += self.stmt(stmt, depth)
        return lines

    @tracks_construct
    def stmt(self, s: ir.Stmt, depth: int) -> List[str]:
        method = getattr(self, "_stmt_" + type(s).__name__, None)
        if method is None:
            self.d.missing(f"the statement {type(s).__name__} inside a kernel", s.loc)
        return mark(method(s, depth), s)

    def _line(self, depth: int, text: str) -> str:
        return INDENT * depth + text

    def _braced(self, head: str, body: List[str], depth: int, tail: str = "}",
                comment: str = "") -> List[str]:
        return [self._line(depth, head + " {" + comment)] + body + [self._line(depth, tail)]

    def _stmt_Block(self, s: ir.Block, depth: int):
        return [self._line(depth, "{")] + self.block(s, depth + 1) + [self._line(depth, "}")]

    def _declare_local(self, sym: ir.Symbol) -> Tuple[str, str]:
        if isinstance(sym.type, PropType):
            self.d.missing(f"declaring the property '{sym.name}' inside a kernel", sym.loc)
        self._note_type(sym.type)
        return self.d.type_name(sym.type), self.ctx.names.bind(sym)

    def _stmt_Declare(self, s: ir.Declare, depth: int):
        init = None if s.init is None else self.expr(s.init)
        type_name, name = self._declare_local(s.sym)
        text = f"{type_name} {name}" + ("" if init is None else f" = {init}")
        return [self._line(depth, text + ";")]

    def _lvalue(self, target: ir.Expr) -> str:
        if isinstance(target, ir.PropRead):
            self.ctx.prop(target.prop, target.loc, written=True)
        if isinstance(target, ir.VarRef) and self.ctx.names.lookup(target.sym) is None:
            if target.sym.uid not in self.ctx.reduction_arrays:
                self.d.missing(f"a plain write to the host scalar '{target.sym.name}' inside "
                               f"kernel {self.ctx.kernel.name}", target.loc)
        return self.expr(target)

    def _stmt_Assign(self, s: ir.Assign, depth: int):
        return [self._line(depth, f"{self._lvalue(s.target)} = {self.expr(s.value)};")]

    def _stmt_Reduce(self, s: ir.Reduce, depth: int):
        return [self._line(depth, f"{self._lvalue(s.target)} {s.op}= {self.expr(s.value)};")]

    def _stmt_ExprStmt(self, s: ir.ExprStmt, depth: int):
        # Kernels hold only values kept for their run-time checks (dead_locals.py; calls are
        # inlined before): cast to void, or the strict builds reject a statement without effect.
        return [self._line(depth, f"(void)({self.expr(s.expr)});")]

    def _stmt_If(self, s: ir.If, depth: int):
        lines = self._braced(f"if ({self.expr(s.cond)})", self.block(s.then, depth + 1), depth)
        orelse = s.orelse
        while orelse is not None:
            if len(orelse.stmts) == 1 and isinstance(orelse.stmts[0], ir.If):
                nested = orelse.stmts[0]
                lines[-1] += f" else if ({self.expr(nested.cond)}) {{"
                lines += self.block(nested.then, depth + 1) + [self._line(depth, "}")]
                orelse = nested.orelse
            else:
                lines[-1] += " else {"
                lines += self.block(orelse, depth + 1) + [self._line(depth, "}")]
                orelse = None
        return lines

    def _stmt_While(self, s: ir.While, depth: int):
        return self._braced(f"while ({self.expr(s.cond)})", self.block(s.body, depth + 1),
                            depth)

    def _stmt_DoWhile(self, s: ir.DoWhile, depth: int):
        body = self.block(s.body, depth + 1)
        return self._braced("do", body, depth, f"}} while ({self.expr(s.cond)});")

    def _stmt_Break(self, s, depth):
        return [self._line(depth, "break;")]

    def _stmt_Continue(self, s, depth):
        return [self._line(depth, "continue;")]

    def _address(self, target: ir.Expr) -> Tuple[str, Scalar]:
        if isinstance(target, ir.PropRead):
            array = self.ctx.prop(target.prop, target.loc, written=True)
            return self.d.address(array, self.expr(target.index)), target.prop.type.elem
        if isinstance(target, ir.VarRef) and target.sym.uid in self.ctx.reduction_arrays:
            arg = self.ctx.reduction_arrays[target.sym.uid]
            return self.d.address(arg.name, "0"), target.sym.type
        self.d.missing(f"an atomic update of {type(target).__name__}", target.loc)

    def _stmt_AtomicReduce(self, s: P.AtomicReduce, depth: int):
        private = self._accumulate(s, s.target, s.value, depth)
        if private is not None:
            return private
        address, elem = self._address(s.target)
        self._note_type(elem)
        comment = self.comment(s)
        if s.form == "plain":
            # All-writers-agree stores: v &= c clears when c is false, v |= c sets when true
            # (analysis.specialize: no byte-sized atomics needed).
            target = self.expr(s.target)
            if s.op == "|":
                cond, value = self.expr(s.value), self.d.bool_literal(True)
            else:
                cond = self.expr(ir.Unary("!", s.value, type=Scalar.BOOL))
                value = self.d.bool_literal(False)
            return [self._line(depth, f"if ({cond}) {target} = {value};{comment}")]
        op = ATOMIC_OPS[s.op]
        self.ctx.features.add(f"atomic_{op}_{elem}")
        call = self._atomic(s.form, op, elem, address, self.expr(s.value))
        return [self._line(depth, f"{call};{comment}")]

    def _atomic(self, form: str, op: str, elem: Scalar, address: str, value: str) -> str:
        """The atomic ``op`` of ``value`` into ``address``, in ``form`` (the specialize stage's
        ``AtomicReduce.form``): a result-less update, or the helper that returns the old
        value (an instruction, a directive or a compare-and-swap loop in the prelude)."""
        if not form:
            self.d.missing(f"an atomic {op} whose form is not chosen (the plan is not "
                           "specialized)")
        if form == "update":
            return self.d.atomic_update(op, elem, address, value)
        return self.d.atomic(op, elem, address, value)

    def _stmt_AtomicMinMax(self, s: P.AtomicMinMax, depth: int):
        if not s.others and not s.then and not s.locked:
            private = self._accumulate(s, s.target, s.candidate, depth)
            if private is not None:
                return private
        address, elem = self._address(s.target)
        self._note_type(elem)
        op = ATOMIC_OPS[s.func]
        self.ctx.features.add(f"atomic_{op}_{elem}")
        comment = self.comment(s)
        plain = not s.others and not s.then and not s.locked
        if plain and not s.read_first:
            call = self._atomic(s.form, op, elem, address, self.expr(s.candidate))
            return [self._line(depth, f"{call};{comment}")]
        base = s.target.prop.name if isinstance(s.target, ir.PropRead) else s.target.sym.name
        cand = self.ctx.names.fresh(f"{base}_new")
        lines = [self._line(depth, f"{self.d.type_name(elem)} {cand} = "
                                   f"{self.expr(s.candidate)};")]
        beats = "<" if s.func == "Min" else ">"
        # read_first: only a candidate that beats the value read now can win (``plan.AtomicMinMax``).
        improves = (f"{cand} {beats} {self.d.relaxed_load(self.expr(s.target), elem)}"
                    if s.read_first else None)
        if plain:
            update = self._line(depth + 1, f"{self._atomic(s.form, op, elem, address, cand)};")
            return lines + self._braced(f"if ({improves})", [update], depth, comment=comment)
        # The helper returns the old value: the update won iff the candidate beats it.
        won = f"{self.d.atomic(op, elem, address, cand)} {'>' if s.func == 'Min' else '<'} {cand}"
        if not s.locked:
            test = f"{improves} && {won}" if improves else won
            return lines + self._braced(f"if ({test})", self._effects(s, depth + 1), depth,
                                        comment=comment)
        if s.lock is None:
            self.d.missing("a locked Min/Max without a lock array", s.loc)
        lock_arg = self.ctx.array(s.lock, written=True)
        lock_index = self.expr(s.target.index) if s.lock.extent != "one" else "0"
        lock_address = self.d.address(lock_arg.name, lock_index)
        done = self.ctx.names.fresh("done")
        # Retry until this work item owns the lock; the holder's branch always completes, so
        # work items of one SIMD group cannot deadlock each other. The target is still
        # updated atomically so readers outside the lock never see a torn value.
        at = depth + 1 if improves else depth       # the retry loop's depth
        critical = self._braced(f"if ({won})", self._effects(s, at + 3), at + 2) + [
            self._line(at + 2, self.d.lock_release(lock_address)),
            self._line(at + 2, f"{done} = true;")]
        inner = self._braced(f"if ({self.d.lock_try(lock_address)})", critical, at + 1)
        if not improves:
            return lines + self._braced(f"for (bool {done} = false; !{done}; )", inner, depth,
                                        comment=comment)
        retry = self._braced(f"for (bool {done} = false; !{done}; )", inner, at)
        return lines + self._braced(f"if ({improves})", retry, depth, comment=comment)

    def _effects(self, s: P.AtomicMinMax, depth: int) -> List[str]:
        lines = [self._line(depth, f"{self._lvalue(t)} = {self.expr(v)};") for t, v in s.others]
        for stmt in s.then:
            lines += [line.split("  //")[0] for line in self.stmt(stmt, depth)]
        return lines

    def _stmt_GroupBarrier(self, s: P.GroupBarrier, depth: int):
        return [self._line(depth, self.d.group_function(self.d.group_barrier,
                                                        "a work-group barrier"))]

    def _stmt_UnionFindLink(self, s: P.UnionFindLink, depth: int):
        self.ctx.features.add("union_find")     # the prelude's starc_unite (device_prelude)
        parent = self.ctx.array(s.parent, written=True)
        return [self._line(depth, f"starc_unite({parent.name}, {self.expr(s.a)}, "
                                  f"{self.expr(s.b)});{self.comment(s)}")]

    def _stmt_UnionFindSample(self, s: P.UnionFindSample, depth: int):
        self.ctx.features.add("union_find")     # the prelude's starc_unite (device_prelude)
        parent = self.ctx.array(s.parent, written=True)
        vertex = self.expr(s.vertex)
        begin, end = self.ctx.row_bounds(True, vertex)
        target = self.d.index(self.ctx.graph_array("targets"), "starc_edge")
        return [self._line(depth, f"for (int starc_edge = {begin}; starc_edge < {end} && "
                                  f"starc_edge < {begin} + {s.count}; starc_edge++) "
                                  f"{{{self.comment(s)}"),
                self._line(depth + 1, f"starc_unite({parent.name}, {vertex}, {target});"),
                self._line(depth, "}")]

    def _stmt_FlagSet(self, s: P.FlagSet, depth: int):
        arg = self.ctx.array(s.flag, written=True)
        store = self.d.flag_set(arg.name)
        tests = [] if s.value is None else [self._operand(s.value, PRECEDENCE["&&"] + 1)]
        if s.if_clear:
            tests.append(f"!{self.d.index(arg.name, '0')}")
        if not tests:
            return [self._line(depth, store + self.comment(s))]
        return [self._line(depth, f"if ({' && '.join(tests)}) {store}{self.comment(s)}")]

    def _stmt_QueueAppend(self, s: P.QueueAppend, depth: int):
        queue = self.ctx.array(s.queue, written=True)
        size = self.ctx.array(s.size, written=True)
        length = self.d.address(size.name, self.expr(s.slot))
        if s.form in ("local", "gang"):
            staged = self._stage(size.name, self.expr(s.slot), queue.name)
            return [self._line(depth, f"{self.d.staged_append(staged, self.expr(s.value))};"
                                      f"{self.comment(s)}")]
        if s.form == "group":
            self.ctx.features.add("group_append")
            slot = self.d.group_append(length)
        else:
            self.ctx.features.add("atomic_add_int")
            # The old length (a fetch-and-add) is this work item's own slot.
            slot = self.d.atomic("add", Scalar.INT, length, "1")
        return [self._line(depth, f"{self.d.index(queue.name, slot)} = {self.expr(s.value)};"
                                  f"{self.comment(s)}")]

    def _stmt_QueueCount(self, s: P.QueueCount, depth: int):
        size = self.ctx.array(s.size, written=True)
        slot = self.expr(s.slot)
        if s.staged:
            staged = self._stage(size.name, slot, None)
            return [self._line(depth, f"{self.d.staged_count(staged)};{self.comment(s)}")]
        if s.per_group:
            self.ctx.features.add("group_append")
            return [self._line(depth, f"{self.d.group_count(self.d.address(size.name, slot))};"
                                      f"{self.comment(s)}")]
        self.ctx.features.add("atomic_add_int")
        count = self._atomic(s.form, "add", Scalar.INT, self.d.address(size.name, slot), "1")
        return [self._line(depth, f"{count};{self.comment(s)}")]

    def _stmt_QueueReset(self, s: P.QueueReset, depth: int):
        size = self.ctx.array(s.size, written=True)
        return [self._line(depth, f"{self.d.index(size.name, self.expr(s.slot))} = 0;"
                                  f"{self.comment(s)}")]

    def _stmt_ScalarStore(self, s: P.ScalarStore, depth: int):
        arg = self.ctx.array(s.array, written=True)
        return [self._line(depth, f"{self.d.index(arg.name, '0')} = {self.expr(s.value)};"
                                  f"{self.comment(s)}")]
