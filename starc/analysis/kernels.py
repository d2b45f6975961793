"""Kernel outlining: lowering a forall body for one work item, and its read/write sets.

``outline`` turns a body into a ``Kernel``: it lowers every write through the reduction plan
(``reductions.py``), rejects what a device cannot run (with the construct's location), and
computes ``Kernel.params`` from the lowered body: the device arrays touched (with ``written``
flags) and the host scalars read by value.
"""

from __future__ import annotations

import dataclasses
from typing import Dict, Iterable, List, Optional, Set, Tuple

from starc.analysis.checks import insert_checks
from starc.analysis.dead_locals import drop_dead_locals
from starc.analysis.lowering import FixedPointScope, KernelLowering
from starc.analysis.plan import (GRAPH_ARRAYS, AtomicMinMax, AtomicReduce, DeviceArray, FlagSet, Kernel,
                                 KernelParam, KernelScalar, QueueAppend, QueueCount, QueueReset,
                                 ScalarReduction, ScalarStore, UnionFindLink, UnionFindRoot,
                                 UnionFindSample)
from starc.analysis.reductions import lower_assign, lower_minmax, lower_reduce, privatise
from starc.analysis.transfers import ArrayTable, graph_arrays_for_domain, graph_arrays_for_expr
from starc.errors import BackendError
from starc.ir import nodes as ir
from starc.ir.types import PropType, Scalar

__all__ = ["outline", "declared_in", "kernel_params"]


def declared_in(node: ir.Node) -> Set[int]:
    """Uids of the symbols a body declares: locals, loop variables, neighbour-loop edges."""
    out: Set[int] = set()
    for n in ir.walk(node):
        if isinstance(n, ir.Declare):
            out.add(n.sym.uid)
        elif isinstance(n, ir.Loop):
            out.add(n.var.uid)
            if isinstance(n.domain, (ir.Neighbors, ir.InNeighbors)):
                out.add(n.domain.edge.uid)
    return out


# --- body lowering ---------------------------------------------------------------------------

_NOT_IN_KERNEL = {
    ir.Return: "'return' inside a forall",
    ir.Attach: "attaching properties inside a forall",
    ir.PropCopy: "copying a whole property inside a forall",
    ir.FixedPoint: "fixedPoint inside a forall",
    ir.IterateBFS: "iterateInBFS inside a forall",
    ir.ExprStmt: "calls between functions",
}


def _unsupported(what: str, loc) -> BackendError:
    return BackendError(f"{what} is not supported by the device backends yet", loc)


def lower_block(block: ir.Block, ctx: KernelLowering) -> ir.Block:
    out: List[ir.Stmt] = []
    for stmt in block.stmts:
        out.extend(_lower_stmt(stmt, ctx))
    return dataclasses.replace(block, stmts=tuple(out))


def _lower_stmt(stmt: ir.Stmt, ctx: KernelLowering) -> Tuple[ir.Stmt, ...]:
    if isinstance(stmt, ir.Assign):
        return lower_assign(stmt, ctx)
    if isinstance(stmt, ir.Reduce):
        return lower_reduce(stmt, ctx)
    if isinstance(stmt, ir.MinMaxAssign):
        return lower_minmax(stmt, ctx)
    if isinstance(stmt, ir.Declare):
        if isinstance(stmt.sym.type, PropType):
            raise _unsupported("declaring a property inside a forall", stmt.loc)
        return (stmt,)
    if isinstance(stmt, ir.Block):
        return (lower_block(stmt, ctx),)
    if isinstance(stmt, ir.If):
        orelse = lower_block(stmt.orelse, ctx) if stmt.orelse is not None else None
        return (dataclasses.replace(stmt, then=lower_block(stmt.then, ctx), orelse=orelse),)
    if isinstance(stmt, (ir.While, ir.DoWhile)):
        return (dataclasses.replace(stmt, body=lower_block(stmt.body, ctx)),)
    if isinstance(stmt, ir.Loop):
        if isinstance(stmt.domain, ir.SetMembers):
            raise _unsupported("iterating a SetN inside a forall", stmt.loc)
        return (dataclasses.replace(stmt, body=lower_block(stmt.body, ctx)),)
    if isinstance(stmt, (ir.Break, ir.Continue, FlagSet, ScalarStore, AtomicReduce,
                         AtomicMinMax)):
        return (stmt,)
    for kind, what in _NOT_IN_KERNEL.items():
        if isinstance(stmt, kind):
            raise _unsupported(what, stmt.loc)
    raise _unsupported(f"'{type(stmt).__name__}' inside a forall", stmt.loc)


# --- read/write sets ---------------------------------------------------------------------------

class _Access:
    """Collects the arrays (name -> written) and by-value scalars a lowered kernel uses."""

    def __init__(self, ctx: KernelLowering) -> None:
        self.ctx = ctx
        self.arrays: Dict[str, Tuple[DeviceArray, bool]] = {}
        self.scalars: Dict[int, ir.Symbol] = {}
        self.kernel_scalars: Dict[str, KernelScalar] = {}

    def array(self, array: DeviceArray, written: bool = False) -> None:
        old = self.arrays.get(array.name)
        self.arrays[array.name] = (array, written or (old is not None and old[1]))

    def graph(self, names: Iterable[str]) -> None:
        for name in names:
            self.array(self.ctx.table.graph(name))

    def prop(self, sym: ir.Symbol, written: bool = False) -> None:
        self.array(self.ctx.table.prop(sym) if isinstance(sym.type, PropType)
                   else self.ctx.table.scalar(sym), written)

    def target(self, target: ir.Expr) -> None:
        """An element or host scalar the kernel writes (its index expression is read)."""
        if isinstance(target, ir.PropRead):
            self.prop(target.prop, written=True)
            self.visit(target.index)
        elif isinstance(target, ir.VarRef) and not self.ctx.is_local(target.sym):
            self.array(self.ctx.table.scalar(target.sym), written=True)

    def visit(self, node) -> None:
        if isinstance(node, tuple):
            for item in node:
                self.visit(item)
            return
        if not isinstance(node, ir.Node):
            return
        if isinstance(node, ir.Assign):
            self.target(node.target)
            self.visit(node.value)
            return
        if isinstance(node, AtomicReduce):
            self.target(node.target)
            self.visit(node.value)
            return
        if isinstance(node, AtomicMinMax):
            self.target(node.target)
            if isinstance(node.target, ir.PropRead):
                self.visit(node.target)        # compared: also read
            for other, value in node.others:
                self.target(other)
                self.visit(value)
            if node.lock is not None:
                self.array(node.lock, written=True)
            self.visit(node.candidate)
            self.visit(node.then)
            return
        if isinstance(node, FlagSet):
            self.array(node.flag, written=True)
            self.visit(node.value)
            return
        if isinstance(node, UnionFindSample):
            self.array(node.parent, written=True)
            self.graph(("offsets", "targets"))      # (a loop over the out-neighbours')
            self.visit(node.vertex)
            return
        if isinstance(node, (UnionFindRoot, UnionFindLink)):
            self.array(node.parent, written=True)     # (finds halve paths)
            self.visit(tuple(getattr(node, f) for f in ("vertex", "a", "b")
                             if hasattr(node, f)))
            return
        if isinstance(node, ScalarStore):
            self.array(node.array, written=True)
            self.visit(node.value)
            return
        if isinstance(node, QueueAppend):
            self.array(node.queue, written=True)
            self.array(node.size, written=True)
            self.visit(node.value)
            self.visit(node.slot)
            return
        if isinstance(node, (QueueCount, QueueReset)):
            self.array(node.size, written=True)
            self.visit(node.slot)
            return
        if isinstance(node, ir.PropRead):
            self.prop(node.prop)
        elif isinstance(node, ir.WeightBound):
            self.prop(node.prop)
        elif isinstance(node, ir.Loop):
            edge = getattr(node.domain, "edge", None)
            uses_edge = edge is not None and any(
                isinstance(n, ir.VarRef) and n.sym == edge
                for part in (node.body, node.filter) if part is not None
                for n in ir.walk(part))
            self.graph(graph_arrays_for_domain(node.domain, uses_edge))
        elif isinstance(node, KernelScalar):
            self.kernel_scalars.setdefault(node.name, node)
        elif isinstance(node, ir.VarRef):
            sym = node.sym
            if not self.ctx.is_local(sym) and isinstance(sym.type, Scalar):
                self.scalars.setdefault(sym.uid, sym)
        self.graph(graph_arrays_for_expr(node))
        for child in ir.children(node):
            self.visit(child)

    def params(self) -> Tuple[KernelParam, ...]:
        order = {a.name: i for i, a in enumerate(self.ctx.table.arrays())}
        arrays = sorted(self.arrays.values(), key=lambda aw: order[aw[0].name])
        out = [KernelParam(a.name, a.elem, array=a, written=w) for a, w in arrays]
        out.extend(KernelParam(s.name, s.type, sym=s) for s in self.scalars.values())
        return tuple(out)


def _reads_scalar(node, sym: ir.Symbol) -> bool:
    """Whether the lowered kernel reads host scalar ``sym`` other than as a reduction target."""
    found = []

    def visit(n):
        if isinstance(n, tuple):
            for item in n:
                visit(item)
            return
        if not isinstance(n, ir.Node):
            return
        if isinstance(n, AtomicReduce) and isinstance(n.target, ir.VarRef):
            visit(n.value)
            return
        if isinstance(n, AtomicMinMax) and isinstance(n.target, ir.VarRef):
            visit((n.candidate, n.others, n.then))
            return
        if isinstance(n, ir.VarRef) and n.sym == sym:
            found.append(n)
        for child in ir.children(n):
            visit(child)

    visit(node)
    return bool(found)


class _PlanTable:
    """The lookups of ``ArrayTable`` that ``_Access`` makes, answered from a finished list of
    arrays (graph arrays a rewritten kernel needs are added in canonical order)."""

    def __init__(self, arrays: Iterable[DeviceArray]) -> None:
        self._arrays = list(arrays)

    def graph(self, name: str) -> DeviceArray:
        for array in self._arrays:
            if array.role == "graph" and array.name == name:
                return array
        array = DeviceArray(name, Scalar.INT, GRAPH_ARRAYS[name], "graph", copy_in=True)
        graph = [a for a in self._arrays if a.role == "graph"] + [array]
        graph.sort(key=lambda a: list(GRAPH_ARRAYS).index(a.name))
        self._arrays = graph + [a for a in self._arrays if a.role != "graph"]
        return array

    def prop(self, sym: ir.Symbol) -> DeviceArray:
        return next(a for a in self._arrays if a.sym is not None and a.sym.uid == sym.uid
                    and a.role != "scalar")

    def scalar(self, sym: ir.Symbol) -> DeviceArray:
        return next(a for a in self._arrays if a.sym is not None and a.sym.uid == sym.uid
                    and a.role == "scalar")

    def arrays(self) -> Tuple[DeviceArray, ...]:
        return tuple(self._arrays)


def kernel_params(arrays: Tuple[DeviceArray, ...], index: Optional[ir.Symbol],
                  guard: Optional[ir.Expr], body: ir.Block, errors: Tuple[DeviceArray, ...] = ()
                  ) -> Tuple[Tuple[KernelParam, ...], Tuple[DeviceArray, ...]]:
    """``Kernel.params`` of an already lowered body, for passes that rewrite kernels after
    ``outline``, with ``arrays`` (the plan's) and the graph arrays it lacked; ``errors``:
    the error word's arrays when the kernel has run-time checks."""
    table = _PlanTable(arrays)
    ctx = KernelLowering(table, index, declared_in(body) | ({index.uid} if index else set()),
                         {})
    access = _Access(ctx)
    for array in errors:
        access.array(array, written=True)
    access.visit(guard)
    access.visit(body)
    return access.params(), table.arrays()


# --- outlining ---------------------------------------------------------------------------------

def _localize_host_scalars(body: ir.Block, ctx: KernelLowering) -> ir.Block:
    """Single-item kernels: host scalars the body assigns become kernel locals, initialised
    from their by-value argument and stored back at the end (sequential semantics)."""
    written: Dict[int, ir.Symbol] = {}
    for n in ir.walk(body):
        targets: List[ir.Expr] = []
        if isinstance(n, (ir.Assign, ir.Reduce)):
            targets.append(n.target)
        elif isinstance(n, ir.MinMaxAssign):
            targets.append(n.target)
            targets.extend(t for t, _ in n.others)
        for t in targets:
            if isinstance(t, ir.VarRef) and not ctx.is_local(t.sym):
                written.setdefault(t.sym.uid, t.sym)
    if not written:
        return body
    copies = {uid: ctx.table.symbols.make(f"{sym.name}_local", sym.type, ir.SymbolKind.LOCAL,
                                          sym.loc)
              for uid, sym in written.items()}

    def rename(node: ir.Node):
        if isinstance(node, ir.VarRef) and node.sym.uid in copies:
            return dataclasses.replace(node, sym=copies[node.sym.uid])
        return None

    renamed = ir.transform(body, rename)
    loc = body.loc
    head = tuple(ir.Declare(copies[uid], ir.VarRef(sym, type=sym.type, loc=loc), loc=loc)
                 for uid, sym in written.items())
    tail = tuple(ir.Assign(ir.VarRef(sym, type=sym.type, loc=loc),
                           ir.VarRef(copies[uid], type=sym.type, loc=loc), loc=loc)
                 for uid, sym in written.items())
    ctx.locals.update(c.uid for c in copies.values())
    return ir.Block(head + renamed.stmts + tail, loc=loc)


def outline(name: str, *, index: ir.Symbol, extent: str, guard: Optional[ir.Expr],
            body: ir.Block, table: ArrayTable, scopes: Dict[int, FixedPointScope],
            loc) -> Kernel:
    """Lower ``body`` as the work of one item over ``extent`` and package it as a Kernel."""
    single = extent == "single"
    ctx = KernelLowering(table, None if single else index, declared_in(body) | {index.uid},
                         dict(scopes))
    if single:
        body = _localize_host_scalars(body, ctx)
    lowered = lower_block(body, ctx)
    # run-time checks (checks.py): the kernel writes the error word when it has any
    first_site = len(table.check_sites)
    names = {sc.next_sym.uid: sc.prop.name for sc in scopes.values()}
    lowered = insert_checks(lowered, table.check_sites, names)
    if guard is not None:
        guard = insert_checks(guard, table.check_sites, names)
    lowered = drop_dead_locals(lowered, ctx.locals)

    access = _Access(ctx)
    if len(table.check_sites) > first_site:
        for array in table.error_arrays():
            access.array(array, written=True)
    access.visit(guard)
    access.visit(lowered)

    reductions = []
    for sym, ops in ctx.reductions.values():
        exclusive = len(set(ops)) == 1 and sym.uid not in ctx.stores \
            and not _reads_scalar((guard, lowered), sym)
        reductions.append(ScalarReduction(sym, ops[0], table.scalar(sym), exclusive))
    stores = tuple(table.scalar(sym) for uid, sym in ctx.stores.items()
                   if uid not in ctx.reductions)
    return privatise(Kernel(name, index, extent, guard, lowered, access.params(),
                            tuple(reductions), loc=loc,
                            scalars=tuple(access.kernel_scalars.values()), stores=stores,
                            checks=tuple(range(first_site, len(table.check_sites)))))
