"""A distributed run's loop over a batch's updates: each loop over an update endpoint's row on
that row's owner only (owner computes), the rest of the update on every rank alike.

Every rank runs each update of a batch (``distribution.UPDATE_LOOP_WHY``), but holds only
its own rows. A loop over the row of an update's endpoint (``u.source``, ``u.destination``,
or a variable holding one) can still run: on the rank that owns the endpoint, which holds the
row and the values of its edges' properties. ``owner_rows`` guards each such loop by
``RankTable("owns", endpoint)`` when what it does stays on that row: it writes only
properties of the row's own edges (the loop's edge, ``g.get_edge(endpoint, w)``) and
variables declared inside it, and reads replicas (every node property of such a kernel is
one), scalars and the row's own edges. Anything else that reads a row (a row of another
vertex, a nested neighbour loop, an edge property outside such a loop, a write of a node
property or of an outer variable inside it, whose value would then differ between ranks) is
a located ``DistributionError``.
"""

from __future__ import annotations

import dataclasses
from typing import List, Optional, Set

from starc.analysis import plan as P
from starc.analysis.checks import CheckedIndex
from starc.analysis.local_index import RankTable
from starc.ir import nodes as ir
from starc.ir.types import PropType, Scalar
from starc.records import Record, record

__all__ = ["OwnerRows", "owner_rows", "OWNER_ROWS_WHY", "Endpoints", "update_fields"]

#: why a loop over an update endpoint's row runs on the row's owner only
OWNER_ROWS_WHY = ("only the owner of an update's endpoint holds its row and the values of "
                  "its edges' properties, so a loop over that row runs there alone (owner "
                  "computes); it writes only that row's edges, whose ghost-row copies the "
                  "owner then refreshes where other ranks read them")

_ROW_QUERIES = ("is_an_edge", "get_edge", "count_outNbrs", "count_inNbrs")


@record
class OwnerRows(Record):
    """An update kernel with its row loops guarded, and the edge properties they write."""

    kernel: P.Kernel
    edges_written: tuple = ()
    #: every edge property the kernel touches (all inside its row loops)
    edges_used: tuple = ()


def owner_rows(kernel: P.Kernel, plan: P.Plan, error) -> OwnerRows:
    """``kernel`` (a loop over a batch's updates) with each loop over an endpoint's row run
    by the endpoint's owner only; ``error(message, loc)`` builds the exception raised where
    a row is read otherwise (see the module docstring)."""
    scan = _Rows(kernel, update_fields(plan), error)
    body = scan.block(kernel.body)
    if kernel.guard is not None:
        scan.outside(kernel.guard)
    return OwnerRows(dataclasses.replace(kernel, body=body),
                     tuple(dict.fromkeys(scan.written)), tuple(dict.fromkeys(scan.used)))


def update_fields(plan: P.Plan):
    """The plan's update field arrays (``u.source``, ...): symbol uid -> array name."""
    return {a.sym.uid: a.name for a in plan.arrays
            if a.sym is not None and a.extent == "updates"}


def _bare(e: ir.Expr) -> ir.Expr:
    while isinstance(e, CheckedIndex):
        e = e.index
    return e


def _edge_prop(prop: ir.Symbol) -> bool:
    return isinstance(prop.type, PropType) and prop.type.kind == "edge"


class Endpoints:
    """Which expressions of a loop over a batch's updates are one of the work item's update
    endpoints (``u.source``, ``u.destination``, or a local variable every value of which
    reads one), each named by its update field array."""

    def __init__(self, kernel: P.Kernel, fields) -> None:
        self.k = kernel
        self.fields = fields
        #: local variable -> the update field array every value it gets reads
        self.endpoints = {}
        #: update field array -> a read of it at the work item's update
        self.reads = {}
        values = {}
        for node in ir.walk(kernel.body):
            if isinstance(node, ir.Declare) and not isinstance(node.sym.type, PropType):
                values.setdefault(node.sym.uid, []).append(node.init)
            elif isinstance(node, ir.Assign) and isinstance(node.target, ir.VarRef):
                values.setdefault(node.target.sym.uid, []).append(node.value)
        for uid, got in values.items():
            keys = {self._field(v) for v in got}
            if len(keys) == 1 and None not in keys:
                self.endpoints[uid] = keys.pop()

    def _field(self, e: Optional[ir.Expr]) -> Optional[str]:
        """The update field array ``e`` reads at the work item's update, if it does."""
        e = _bare(e) if e is not None else None
        if isinstance(e, ir.PropRead) and e.prop.uid in self.fields \
                and isinstance(_bare(e.index), ir.VarRef) \
                and _bare(e.index).sym.uid == self.k.index.uid:
            self.reads.setdefault(self.fields[e.prop.uid], e)
            return self.fields[e.prop.uid]
        return None

    def endpoint(self, e: ir.Expr) -> Optional[str]:
        """Which endpoint ``e`` is (its update field array), or None."""
        e = _bare(e)
        if isinstance(e, ir.VarRef):
            return self.endpoints.get(e.sym.uid)
        return self._field(e)


class _Rows(Endpoints):
    def __init__(self, kernel: P.Kernel, fields, error) -> None:
        super().__init__(kernel, fields)
        self.error = error
        self.written: List[str] = []
        self.used: List[str] = []

    # --- outside the row loops: no row, no edge property ------------------------------------
    def block(self, block: ir.Block) -> ir.Block:
        return dataclasses.replace(block, stmts=tuple(self.stmt(s) for s in block.stmts))

    def stmt(self, s: ir.Stmt) -> ir.Stmt:
        if isinstance(s, ir.Loop) and isinstance(s.domain, ir.Neighbors) \
                and s.domain.role != "bfs_parents" and self.endpoint(s.domain.of) is not None:
            _Row(self, s).check()
            owns = RankTable("owns", _bare(s.domain.of), type=Scalar.BOOL, loc=s.loc)
            return ir.If(owns, ir.Block((s,), loc=s.loc), loc=s.loc)
        if isinstance(s, ir.Block):
            return self.block(s)
        if isinstance(s, ir.If):
            self.outside(s.cond)
            return dataclasses.replace(s, then=self.block(s.then),
                                       orelse=None if s.orelse is None else self.block(s.orelse))
        if isinstance(s, (ir.Loop, ir.While, ir.DoWhile)):
            if isinstance(s, ir.Loop) and isinstance(s.domain, (ir.Neighbors, ir.InNeighbors)):
                self.refuse(s.loc)
            for part in ir.children(s):
                if isinstance(part, ir.Expr):
                    self.outside(part)
            return dataclasses.replace(s, body=self.block(s.body))
        self.outside(s)
        return s

    def outside(self, node: ir.Node) -> None:
        for inner in ir.walk(node):
            if isinstance(inner, ir.GraphQuery) and inner.op in _ROW_QUERIES:
                raise self.error(
                    f"g.{inner.op} in a loop over a batch's updates outside a loop over an "
                    "update endpoint's row (every rank runs each update, and holds only its "
                    "own rows; a loop over the row of u.source or u.destination runs on its "
                    "owner)", inner.loc or self.k.loc)
            if isinstance(inner, ir.Loop) and isinstance(inner.domain,
                                                         (ir.Neighbors, ir.InNeighbors)):
                self.refuse(inner.loc)
            if isinstance(inner, ir.PropRead) and _edge_prop(inner.prop):
                raise self.error(
                    f"the edge property '{inner.prop.name}' outside a loop over an update "
                    "endpoint's row (every rank runs each update, and only the row's owner "
                    "holds its edges)", inner.loc or self.k.loc)

    def refuse(self, loc) -> None:
        raise self.error("a loop over a batch's updates that reads a row other than its "
                         "endpoints' (every rank runs each update, and holds only its own "
                         "rows; a loop over the row of u.source or u.destination runs on its "
                         "owner)", loc or self.k.loc)


class _Row:
    """One loop over an endpoint's row: what it may read and write (module docstring)."""

    def __init__(self, rows: _Rows, loop: ir.Loop) -> None:
        self.rows = rows
        self.loop = loop
        self.of = rows.endpoint(loop.domain.of)
        self.edges: Set[int] = {loop.domain.edge.uid} if loop.domain.edge is not None else set()
        self.inner: Set[int] = {loop.var.uid}     # variables declared inside the loop
        for node in ir.walk(loop.body):
            if isinstance(node, ir.Declare):
                self.inner.add(node.sym.uid)
                if node.init is not None and self._row_edge(node.init):
                    self.edges.add(node.sym.uid)

    def _row_edge(self, e: ir.Expr) -> bool:
        e = _bare(e)
        if isinstance(e, ir.VarRef):
            return e.sym.uid in self.edges
        return isinstance(e, ir.GraphQuery) and e.op == "get_edge" \
            and self.rows.endpoint(e.args[0]) == self.of

    def check(self) -> None:
        for node in ir.walk(self.loop.body):
            if isinstance(node, ir.Assign) and isinstance(node.target, ir.VarRef) \
                    and node.target.sym.uid in self.edges \
                    and not self._row_edge(node.value):
                self.edges.discard(node.target.sym.uid)     # (then no row edge at all)
        for node in ir.walk(self.loop.filter) if self.loop.filter is not None else ():
            if isinstance(node, ir.Expr):
                self.reads(node)
        for node in ir.walk(self.loop.body):
            if isinstance(node, (ir.Assign, ir.Reduce, P.AtomicReduce)):
                self.target(node.target, node.loc)
            elif isinstance(node, (P.AtomicMinMax, ir.MinMaxAssign)):
                self.target(node.target, node.loc)
                for other, _ in node.others:
                    self.target(other, node.loc)
            elif isinstance(node, (P.FlagSet, P.ScalarStore, P.QueueAppend)):
                self.bad_write(node.loc)
            elif isinstance(node, ir.Loop) and isinstance(node.domain,
                                                          (ir.Neighbors, ir.InNeighbors)):
                self.rows.refuse(node.loc)
            elif isinstance(node, ir.Expr):
                self.reads(node)

    def reads(self, e: ir.Expr) -> None:
        if isinstance(e, ir.PropRead) and _edge_prop(e.prop):
            if not self._row_edge(e.index):
                raise self.rows.error(
                    f"the edge property '{e.prop.name}' at an edge of another row than the "
                    "one the loop walks (only its owner runs the loop)", e.loc or self.loop.loc)
            self.rows.used.append(e.prop.name)
        elif isinstance(e, ir.GraphQuery) and e.op in _ROW_QUERIES:
            if e.op not in ("get_edge", "is_an_edge") or self.rows.endpoint(e.args[0]) != self.of:
                self.rows.refuse(e.loc)

    def target(self, target: ir.Expr, loc) -> None:
        if isinstance(target, ir.VarRef) and target.sym.uid in self.inner:
            return
        if isinstance(target, ir.PropRead) and _edge_prop(target.prop) \
                and self._row_edge(target.index):
            self.rows.written.append(target.prop.name)
            self.rows.used.append(target.prop.name)
            return
        self.bad_write(loc)

    def bad_write(self, loc) -> None:
        raise self.rows.error(
            "a loop over an update endpoint's row that writes something other than the "
            "row's edges' properties or its own variables (only the row's owner runs it, so "
            "every other value would differ between ranks)", loc or self.loop.loc)
