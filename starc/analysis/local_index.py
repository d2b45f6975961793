"""Kernels in a distributed run's local index space: where a vertex id is an index and where
it is a value.

A distributed backend (MPI) numbers the vertices a rank knows 0 .. L-1 in the order of their
global ids (its own vertices, the ghosts its rows reach, and far vertices of ghost rows) and
sizes every per-vertex array L, so a kernel indexes with local ids: the work item's vertex,
a neighbour, an edge's endpoint (the CSR holds local ids). Where the program uses a vertex
as a *value* (``v.comp = v``, ``w.key = level * n + v``, ``v != src``, a random draw) it must
see the global id, which ``RankTable("global_id", v)`` reads from the rank's table. Two
local ids compare like their global ids (the numbering keeps their order), so ``u < v``
between two local vertices stays as written (and a sorted row's binary search with it); a
batch's new ghosts take the next local ids only where no kernel does either (``ghost_order``).

An array the program touches at arbitrary vertices (``analysis.distribution``: mirrored or
updated ``anywhere``) is instead a full-length replica indexed by global id: its index is a
value. A global vertex (a parameter, a vertex read from a property) used where a local id is
needed (an edge search's target) becomes ``RankTable("local_id", x)`` (-1 where the rank has
none), and the degree of a vertex that is neither the work item's nor a neighbour reads the
whole graph's degrees (``global_out_degree``/``global_in_degree``).

A worklist (``rank_queues``) is indexed by position and holds local ids of the rank's
own vertices: an append of a vertex that may be another rank's (a neighbour a BFS step
claims) happens only where the rank owns it; the owner appends it when the claim's update
wins there (``distribution``: ``Superstep.queued``).
"""

from __future__ import annotations

import dataclasses
from typing import Dict, FrozenSet, Iterable, List, Optional, Set

from starc.analysis import plan as P
from starc.analysis.rank_queues import queued_vertex_is_own, rank_positions, rank_queues
from starc.ir import nodes as ir
from starc.ir.types import PropType, Scalar
from starc.records import record

__all__ = ["RankTable", "RANK_TABLES", "localize", "global_degree_tables"]

#: The tables a rank keeps, by name: what ``RankTable`` reads from each.
RANK_TABLES = {
    "global_id": "the global id of a local vertex",
    "local_id": "the local id of a global vertex (-1: the rank has none)",
    "global_out_degree": "the out-degree of any vertex, by global id",
    "global_in_degree": "the in-degree of any vertex, by global id",
    "owns": "whether the rank owns a vertex, by global id (owner_rows)",
    "owns_local": "whether the rank owns a vertex, by local id (a worklist's appends)",
}

_COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")


@record
class RankTable(ir.Expr):
    """``table[index]`` of the rank's tables (``RANK_TABLES``), e.g. the global id of local
    vertex ``index``."""

    table: str
    index: ir.Expr


def global_degree_tables(kernels: Iterable[P.Kernel]) -> bool:
    """Whether any of ``kernels`` reads the whole graph's degrees."""
    return any(isinstance(node, RankTable) and node.table.startswith("global_")
               and node.table.endswith("_degree")
               for kernel in kernels for node in ir.walk(kernel.body))


def localize(kernel: P.Kernel, plan: P.Plan, replicas: FrozenSet[str]) -> P.Kernel:
    """``kernel`` rewritten for the local index space; ``replicas`` names the plan's
    per-vertex arrays that stay full-length replicas indexed by global id. A single-item
    kernel (every rank alike, on replicas only) is unchanged."""
    if kernel.extent == "single":
        return kernel
    return _Localize(kernel, plan, replicas).kernel()


class _Localize:
    def __init__(self, kernel: P.Kernel, plan: P.Plan, replicas: FrozenSet[str]) -> None:
        self.k = kernel
        names = {a.sym.uid: a for a in plan.arrays if a.sym is not None and a.role != "scalar"}
        #: property uid -> whether it is a full-length replica (global ids)
        self.replica: Dict[int, bool] = {uid: a.name in replicas for uid, a in names.items()}
        #: the rank's worklists: by position, of local ids
        self.queues: Set[int] = set(rank_queues(plan))
        #: those and the starts of its levels: by position (``rank_positions``)
        self.positions: Set[int] = set(rank_positions(plan))
        self.local: Set[int] = self._local_symbols()

    # --- which variables hold local ids -------------------------------------------------------
    def _local_symbols(self) -> Set[int]:
        k = self.k
        local: Set[int] = {k.index.uid} if k.extent == "nodes" else set()
        defs: Dict[int, List[Optional[ir.Expr]]] = {}
        parts = [k.body] + ([k.guard] if k.guard is not None else [])
        for part in parts:
            for node in ir.walk(part):
                if isinstance(node, ir.Loop) and isinstance(node.domain,
                                                            (ir.Neighbors, ir.InNeighbors)):
                    local.add(node.var.uid)
                elif isinstance(node, ir.Declare) and not isinstance(node.sym.type, PropType):
                    defs.setdefault(node.sym.uid, []).append(node.init)
                elif isinstance(node, ir.Assign) and isinstance(node.target, ir.VarRef):
                    defs.setdefault(node.target.sym.uid, []).append(node.value)
        # A variable is local when every value it gets is a local vertex (a fixpoint: values
        # may be other variables).
        candidates = {uid for uid, values in defs.items()
                      if values and all(v is not None for v in values)}
        while True:
            trial = local | candidates
            keep = {uid for uid in candidates
                    if all(self._is_local(v, trial) for v in defs[uid])}
            if keep == candidates:
                return trial
            candidates = keep

    def _is_local(self, e: ir.Expr, local: Optional[Set[int]] = None) -> bool:
        """Whether ``e`` denotes a vertex by its local id."""
        local = self.local if local is None else local
        if isinstance(e, ir.VarRef):
            return e.sym.uid in local
        if isinstance(e, ir.PropRead):
            return e.prop.uid in self.queues
        return isinstance(e, ir.EdgeEndpoint)

    # --- expressions ----------------------------------------------------------------------------
    def value(self, e: Optional[ir.Expr]) -> Optional[ir.Expr]:
        """``e`` where its value is used: a local vertex as its global id."""
        if e is None:
            return None
        if self._is_local(e):
            return RankTable("global_id", self.vertex(e), type=e.type, loc=e.loc)
        return self._rebuild(e)

    def vertex(self, e: ir.Expr) -> ir.Expr:
        """``e`` as a local id (a global vertex translated)."""
        if isinstance(e, ir.VarRef) and e.sym.uid in self.local:
            return e
        if isinstance(e, ir.PropRead) and e.prop.uid in self.queues:
            return self._rebuild(e)
        if isinstance(e, ir.EdgeEndpoint):
            return dataclasses.replace(e, edge=self.value(e.edge))
        return RankTable("local_id", self.value(e), type=e.type, loc=e.loc)

    def index(self, prop: ir.Symbol, index: ir.Expr) -> ir.Expr:
        """The index of ``prop[index]``: a local id, or for a replica (or an edge property)
        the value it is."""
        if prop.uid in self.positions:
            return self._rebuild(index)     # a position
        if isinstance(prop.type, PropType) and prop.type.kind == "node" \
                and not self.replica.get(prop.uid, False):
            return self.vertex(index)
        return self.value(index)

    def _rebuild(self, e: ir.Expr) -> ir.Expr:
        if isinstance(e, ir.PropRead):
            return dataclasses.replace(e, index=self.index(e.prop, e.index))
        if isinstance(e, ir.GraphQuery):
            return self._query(e)
        if isinstance(e, ir.Binary) and e.op in _COMPARISONS \
                and self._is_local(e.left) and self._is_local(e.right):
            return e   # local ids compare as the global ids do
        changes = {}
        for f in dataclasses.fields(e):
            if f.name in ("loc", "type"):
                continue
            value = getattr(e, f.name)
            if isinstance(value, ir.Expr):
                changes[f.name] = self.value(value)
        return dataclasses.replace(e, **changes) if changes else e

    def _query(self, e: ir.GraphQuery) -> ir.Expr:
        if e.op in ("count_outNbrs", "count_inNbrs"):
            (of,) = e.args
            if self._is_local(of):
                return e
            table = "global_out_degree" if e.op == "count_outNbrs" else "global_in_degree"
            return RankTable(table, self.value(of), type=e.type, loc=e.loc)
        if e.op in ("is_an_edge", "get_edge"):
            return dataclasses.replace(e, args=tuple(self.vertex(a) for a in e.args))
        return e

    # --- statements -----------------------------------------------------------------------------
    def target(self, e: ir.Expr) -> ir.Expr:
        if isinstance(e, ir.PropRead):
            return dataclasses.replace(e, index=self.index(e.prop, e.index))
        return e

    def assigned(self, target: ir.Expr, value: ir.Expr) -> ir.Expr:
        if isinstance(target, ir.VarRef) and target.sym.uid in self.local:
            return self.vertex(value)
        return self.value(value)

    def stmt(self, s: ir.Stmt) -> ir.Stmt:
        r = dataclasses.replace
        if isinstance(s, ir.Block):
            return r(s, stmts=tuple(self.stmt(x) for x in s.stmts))
        if isinstance(s, ir.Declare):
            if s.init is None:
                return s
            init = (self.vertex(s.init) if s.sym.uid in self.local else self.value(s.init))
            return r(s, init=init)
        if isinstance(s, ir.Assign):
            return r(s, target=self.target(s.target), value=self.assigned(s.target, s.value))
        if isinstance(s, (ir.Reduce, P.AtomicReduce)):
            return r(s, target=self.target(s.target), value=self.value(s.value))
        if isinstance(s, P.AtomicMinMax):
            others = tuple((self.target(t), self.assigned(t, v)) for t, v in s.others)
            return r(s, target=self.target(s.target), candidate=self.value(s.candidate),
                     others=others, then=tuple(self.stmt(x) for x in s.then))
        if isinstance(s, ir.If):
            return r(s, cond=self.value(s.cond), then=self.stmt(s.then),
                     orelse=None if s.orelse is None else self.stmt(s.orelse))
        if isinstance(s, (ir.While, ir.DoWhile)):
            return r(s, cond=self.value(s.cond), body=self.stmt(s.body))
        if isinstance(s, ir.Loop):
            domain = s.domain
            if isinstance(domain, (ir.Neighbors, ir.InNeighbors)):
                domain = r(domain, of=self.vertex(domain.of))
            return r(s, domain=domain, body=self.stmt(s.body),
                     filter=self.value(s.filter))
        if isinstance(s, P.FlagSet):
            return r(s, value=self.value(s.value))
        if isinstance(s, P.QueueAppend):
            append = r(s, value=self.vertex(s.value))
            if queued_vertex_is_own(self.k, self.queues, s.value):
                return append
            owned = RankTable("owns_local", append.value, type=Scalar.BOOL, loc=s.loc)
            return ir.If(owned, ir.Block((append,), loc=s.loc), loc=s.loc)
        if isinstance(s, P.ScalarStore):
            return r(s, value=self.value(s.value))
        if isinstance(s, ir.ExprStmt):
            return r(s, expr=self.value(s.expr))
        if isinstance(s, ir.Return):
            return r(s, value=self.value(s.value))
        return s

    def kernel(self) -> P.Kernel:
        k = self.k
        return dataclasses.replace(k, guard=self.value(k.guard), body=self.stmt(k.body))
