"""The host tree: control flow over host scalars plus abstract device operations.

Host-level foralls over nodes/edges become kernel launches; other host loops over the graph
become single-item kernels; loops over a SetN stay on the host. Whole-property operations
become ``Fill``/``CopyArray``; element writes and reads become single-value transfers
(``WriteElement``/``DeviceRead``). fixedPoint and iterateInBFS are delegated to their modules.
"""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Dict, Iterator, List, Optional, Tuple

from starc.analysis.batches import lower_batch, lower_update_graph, lower_update_loop
from starc.analysis.bfs import lower_bfs
from starc.analysis.dynamic import refuse_construct
from starc.analysis.fixedpoint import lower_fixedpoint
from starc.analysis.kernels import outline
from starc.analysis.lowering import FixedPointScope
from starc.analysis.naming import NameAllocator
from starc.analysis.plan import (CopyArray, DeviceRead, Fill, HostAssign, HostBlock,
                                 HostBreak, HostCheckedIndex, HostContinue, HostDeclare,
                                 HostDoWhile, HostForSet, HostIf, HostReduce, HostReturn, HostStmt, HostWhile, Kernel,
                                 Launch, ParentValue, WriteElement)
from starc.analysis.transfers import ArrayTable
from starc.diagnostics import tracks_construct
from starc.errors import BackendError
from starc.ir import nodes as ir
from starc.ir.types import GRAPH, PropType, Scalar

__all__ = ["HostLowering"]


def attached_next(stmts, prop: ir.Symbol) -> bool:
    """Whether ``stmts`` start with declarations and attaches, one of them attaching
    ``prop``, and none before it reading ``prop`` (so nothing can read it before every
    element is set): property declarations, and scalar declarations such as PageRank's
    ``float numNodes = g.num_nodes();`` whose value does not read ``prop``."""
    for stmt in stmts:
        if isinstance(stmt, ir.Attach):
            if any(sym == prop for sym, _ in stmt.inits):
                return True
        elif isinstance(stmt, ir.Declare) and isinstance(stmt.sym.type, Scalar):
            if stmt.init is not None and any(isinstance(n, ir.PropRead) and n.prop == prop
                                             for n in ir.walk(stmt.init)):
                return False
        elif not (isinstance(stmt, ir.Declare) and isinstance(stmt.sym.type, PropType)):
            return False
    return False


class HostLowering:
    """Builds ``Plan.host`` for one function, collecting the kernels it outlines."""

    def __init__(self, function: ir.Function, table: ArrayTable) -> None:
        self.function = function
        self.table = table
        self.kernels: List[Kernel] = []
        self.host_scalars: List[ir.Symbol] = [p for p in function.params
                                              if isinstance(p.type, Scalar)]
        self._kernel_names = NameAllocator()
        self._scopes: Dict[int, FixedPointScope] = {}
        #: (stream, first, last) of the Batch being lowered (``batches``), else None
        self.current_batch = None
        #: the BFS parents loops ``depth_values`` looked at, in order
        self.parent_values: List[ParentValue] = []
        #: the blocks being lowered, innermost last, each with the index of its statement
        self._open_blocks: List[List] = []

    # --- helpers used by the construct modules -----------------------------------------------

    @contextlib.contextmanager
    def fixedpoint_scope(self, scope: FixedPointScope) -> Iterator[None]:
        saved = dict(self._scopes)
        self._scopes[scope.prop.uid] = scope
        try:
            yield
        finally:
            self._scopes = saved

    def outline_kernel(self, kind: str, loc, *, index: ir.Symbol, extent: str,
                       guard: Optional[ir.Expr], body: ir.Block) -> Kernel:
        """Outline, name (``<function>_<kind>_<line>``) and record a kernel."""
        name = self._kernel_names.unique(f"{self.function.name}_{kind}_{loc.line}")
        kernel = outline(name, index=index, extent=extent, guard=guard, body=body,
                         table=self.table, scopes=self._scopes, loc=loc)
        self.kernels.append(kernel)
        return kernel

    def statements_before(self, stmt: ir.Stmt) -> Tuple[ir.Stmt, ...]:
        """The statements before ``stmt`` in the block being lowered (none when ``stmt`` is
        not that block's current statement)."""
        if not self._open_blocks:
            return ()
        stmts, index = self._open_blocks[-1]
        return stmts[:index] if stmts[index] is stmt else ()

    def zero_fill(self, prop: ir.Symbol, loc) -> Fill:
        """Every element of ``prop`` set to its type's zero (False, 0, 0.0)."""
        elem = prop.type.elem
        zero = False if elem is Scalar.BOOL else 0.0 if elem in (Scalar.FLOAT, Scalar.DOUBLE) \
            else 0
        return Fill(self.table.prop(prop), ir.Const(zero, type=elem, loc=loc), loc=loc)

    def result_zero_fills(self) -> List[HostStmt]:
        """Output (``propNode``) parameters start at zero, as if declared at the top."""
        return [self.zero_fill(p, p.loc) for p in self.function.params
                if isinstance(p.type, PropType) and p.type.kind == "node"
                and not attached_next(self.function.body.stmts, p)]

    @tracks_construct
    def expr(self, expr: Optional[ir.Expr]) -> Optional[ir.Expr]:
        """A host expression: every property element read becomes a ``DeviceRead``."""
        if expr is None:
            return None

        def fix(node: ir.Node):
            if isinstance(node, ir.PropRead):
                return DeviceRead(self.table.prop(node.prop), self._checked(node),
                                  type=node.type, loc=node.loc)
            return None

        return ir.transform(expr, fix)

    def _scalar(self, sym: ir.Symbol) -> None:
        if all(s.uid != sym.uid for s in self.host_scalars):
            self.host_scalars.append(sym)

    def _not_fixedpoint_prop(self, prop: ir.Symbol, loc) -> None:
        if prop.uid in self._scopes:
            raise BackendError(
                f"writing fixedPoint property '{prop.name}' outside a forall inside its "
                f"fixedPoint is not supported by the device backends yet", loc)

    # --- statements ----------------------------------------------------------------------------

    def block(self, block: ir.Block) -> HostBlock:
        out: List[HostStmt] = []
        position = [block.stmts, 0]
        self._open_blocks.append(position)
        try:
            for i, stmt in enumerate(block.stmts):
                if isinstance(stmt, ir.Declare) and isinstance(stmt.sym.type, PropType) and \
                        stmt.init is None and attached_next(block.stmts[i + 1:], stmt.sym):
                    continue   # its attach right after sets every element: no zero fill
                position[1] = i
                out.extend(self.stmt(stmt))
        finally:
            self._open_blocks.pop()
        return HostBlock(tuple(out), loc=block.loc)

    @tracks_construct
    def stmt(self, s: ir.Stmt) -> List[HostStmt]:
        loc = s.loc
        if isinstance(s, ir.Block):
            return [self.block(s)]
        if isinstance(s, ir.Declare):
            if isinstance(s.sym.type, PropType):
                if s.init is not None:
                    raise BackendError("initialising a property in its declaration is not "
                                       "supported by the device backends yet", loc)
                # allocated once for the whole run (hoisted), zeroed each time the
                # declaration runs (LANGUAGE.md: a property is zero until written)
                return [self.zero_fill(s.sym, loc)]
            self._scalar(s.sym)
            return [HostDeclare(s.sym, self.expr(s.init), loc=loc)]
        if isinstance(s, ir.Assign):
            if isinstance(s.target, ir.PropRead) and s.target.prop.uid in self._scopes:
                return [self._in_kernel(s)]
            return [self._write(s.target, self.expr(s.value), loc)]
        if isinstance(s, ir.Reduce):
            if isinstance(s.target, ir.VarRef):
                return [HostReduce(s.target.sym, s.op, self.expr(s.value), loc=loc)]
            combined = ir.Binary(s.op, self.expr(s.target), self.expr(s.value),
                                 type=s.target.type, loc=loc)
            return [self._write(s.target, combined, loc)]
        if isinstance(s, ir.MinMaxAssign):
            candidate = self.expr(s.candidate)
            better = ir.Binary("<" if s.func == "Min" else ">", candidate, self.expr(s.target),
                               type=Scalar.BOOL, loc=loc)
            then = [self._write(s.target, candidate, loc)]
            then.extend(self._write(t, self.expr(v), loc) for t, v in s.others)
            return [HostIf(better, HostBlock(tuple(then), loc=loc), loc=loc)]
        if isinstance(s, ir.PropCopy):
            if s.dst.uid in self._scopes:
                return self._fill_in_kernel(s.dst, lambda v: ir.PropRead(
                    s.src, v, type=s.src.type.elem, loc=loc), self._graph(), loc)
            if s.dst == s.src:   # 'rank = rank;': nothing to copy (and no overlapping copy)
                return []
            return [CopyArray(self.table.prop(s.dst), self.table.prop(s.src), loc=loc)]
        if isinstance(s, ir.Attach):
            out: List[HostStmt] = []
            for prop, value in s.inits:
                if prop.uid in self._scopes:
                    out.extend(self._fill_in_kernel(prop, lambda v: value, s.graph, loc))
                else:
                    out.append(Fill(self.table.prop(prop), self.expr(value), loc=loc))
            return out
        if isinstance(s, ir.If):
            orelse = self.block(s.orelse) if s.orelse is not None else None
            return [HostIf(self.expr(s.cond), self.block(s.then), orelse, loc=loc)]
        if isinstance(s, ir.While):
            return [HostWhile(self.expr(s.cond), self.block(s.body), loc=loc)]
        if isinstance(s, ir.DoWhile):
            return [HostDoWhile(self.block(s.body), self.expr(s.cond), loc=loc)]
        if isinstance(s, ir.Loop):
            return [self._loop(s)]
        if isinstance(s, ir.FixedPoint):
            return lower_fixedpoint(s, self)
        if isinstance(s, ir.IterateBFS):
            return [lower_bfs(s, self)]
        if isinstance(s, ir.Batch):
            return [lower_batch(s, self)]
        if isinstance(s, ir.UpdateGraph):
            return [lower_update_graph(s, self)]
        if isinstance(s, ir.PropagateFlags):
            refuse_construct(self.function, s)
        if isinstance(s, ir.Return):
            return [HostReturn(self.expr(s.value), loc=loc)]
        if isinstance(s, ir.Break):
            return [HostBreak(loc=loc)]
        if isinstance(s, ir.Continue):
            return [HostContinue(loc=loc)]
        raise BackendError(f"'{type(s).__name__}' is not supported by the device backends yet",
                           loc)

    # A host-level write of a fixedPoint property inside its fixedPoint (sssp_dslV3's
    # ``modified = modified_nxt; g.attachNodeProperty(modified_nxt = False)`` swap, or
    # ``src.modified = True``) runs as a kernel, so that it goes to the next buffer and sets
    # the convergence flag exactly like a write inside a forall (fixedpoint.py).

    def _graph(self) -> ir.Symbol:
        return next(p for p in self.function.params if p.type == GRAPH)

    def _in_kernel(self, stmt: ir.Stmt) -> HostStmt:
        """``stmt`` run by one work item."""
        item = self.table.symbols.make("item", Scalar.INT, ir.SymbolKind.LOOP, stmt.loc)
        kernel = self.outline_kernel("for", stmt.loc, index=item, extent="single",
                                     guard=None, body=ir.Block((stmt,), loc=stmt.loc))
        return Launch(kernel, loc=stmt.loc)

    def _fill_in_kernel(self, prop: ir.Symbol, value_at, graph: ir.Symbol,
                        loc) -> List[HostStmt]:
        """Every element ``v`` of node property ``prop`` set to ``value_at(v)``, in a forall.
        Every element is overwritten, so the flag is cleared first: it then says whether
        any element of the new value is true, as the reference decides after the body."""
        flag = self._scopes[prop.uid].flag
        zero = ir.Const(0, type=Scalar.INT, loc=loc)
        var = self.table.symbols.make("v", Scalar.NODE, ir.SymbolKind.LOOP, loc)
        ref = ir.VarRef(var, type=Scalar.NODE, loc=loc)
        body = ir.Block((ir.Assign(ir.PropRead(prop, ref, type=prop.type.elem, loc=loc),
                                   value_at(ref), loc=loc),), loc=loc)
        kernel = self.outline_kernel("forall", loc, index=var, extent="nodes", guard=None,
                                     body=body)
        return [WriteElement(flag, zero, zero, loc=loc), Launch(kernel, loc=loc)]

    def _write(self, target: ir.Expr, value: ir.Expr, loc) -> HostStmt:
        if isinstance(target, ir.VarRef):
            return HostAssign(target.sym, value, loc=loc)
        self._not_fixedpoint_prop(target.prop, loc)
        index = self._checked(dataclasses.replace(target, index=self.expr(target.index)))
        return WriteElement(self.table.prop(target.prop), index, value, loc=loc)

    @staticmethod
    def _checked(read: ir.PropRead) -> ir.Expr:
        """The index of a host-side element access, checked unless it is a node parameter
        (validated when arguments are bound) or a loop variable (an id the graph or a
        validated set produced)."""
        index = read.index
        if isinstance(index, ir.VarRef) and index.sym.kind in (
                ir.SymbolKind.PARAM, ir.SymbolKind.LOOP, ir.SymbolKind.EDGE):
            return index
        extent = "edges" if read.prop.type.kind == "edge" else "nodes"
        return HostCheckedIndex(index, extent, read.prop.name, type=index.type, loc=read.loc)

    def _loop(self, s: ir.Loop) -> HostStmt:
        loc = s.loc
        if isinstance(s.domain, ir.UpdateMembers):
            return lower_update_loop(s, self)
        if isinstance(s.domain, ir.SetMembers):
            self._scalar(s.var)
            body = self.block(s.body)
            if s.filter is not None:
                body = HostBlock((HostIf(self.expr(s.filter), body, loc=loc),), loc=loc)
            return HostForSet(s.var, s.domain.set, body, loc=loc)
        if s.parallel and isinstance(s.domain, (ir.AllNodes, ir.AllEdges)):
            extent = "nodes" if isinstance(s.domain, ir.AllNodes) else "edges"
            kernel = self.outline_kernel("forall", loc, index=s.var, extent=extent,
                                         guard=s.filter, body=s.body)
            return Launch(kernel, loc=loc)
        # A sequential loop over the graph, or a neighbour loop, at host level: one work item.
        item = self.table.symbols.make("item", Scalar.INT, ir.SymbolKind.LOOP, loc)
        kernel = self.outline_kernel("forall" if s.parallel else "for", loc, index=item,
                                     extent="single", guard=None,
                                     body=ir.Block((s,), loc=loc))
        return Launch(kernel, loc=loc)
