"""Which accesses of a kernel stay at its work item's own vertex and which reach another one:
the facts a distributed backend needs (MPI: owner ranks, ghost copies, combined messages),
decided once here so no backend re-derives them.

Ownership follows a 1-D vertex partition that keeps each vertex's out-edges with it: in a
kernel over nodes with index ``v``, the elements ``p[v]`` and the edges of ``v``'s own row
(the edge of a loop over ``g.neighbors(v)``, ``g.get_edge(v, w)``) are the work item's; in a
kernel over edges with index ``e``, ``e`` and ``e.source`` are. Anything else is another
vertex's, conservatively (a remote access that happens to be local is correct, only slower).
A single-item kernel (a host-level sequential loop) may touch any vertex: it is ``global``.
A worklist (the order a ``QueueAppend`` fills: a BFS's queue) is the rank's own, of its own
vertices (``rank_queues``): a vertex read from it is the work item's too, and reading it
reaches no other rank.

Another vertex's element is reached either at a *neighbour* (the variable of a loop over an
own vertex's out- or in-neighbours, or a local copied from one: an endpoint of the rank's own
rows, which a distributed backend keeps as a ghost) or *anywhere* (any other vertex: a
parameter, a value read from a property, a neighbour of a neighbour).
"""

from __future__ import annotations

from typing import Dict, List, Set, Tuple

from starc.analysis import plan as P
from starc.analysis.checks import CheckedIndex
from starc.analysis.rank_queues import rank_positions, rank_queues
from starc.ir import nodes as ir
from starc.ir.types import PropType
from starc.records import Record, record

__all__ = ["RemoteWrite", "Locality", "kernel_locality"]

_CLASSES = ("own", "neighbour", "own edge", "ghost edge")

#: graph queries that read a vertex's adjacency row
_ROW_QUERIES = ("count_outNbrs", "count_inNbrs", "is_an_edge", "get_edge")


@record
class RemoteWrite(Record):
    """A write of ``array`` at another vertex's element: ``op`` is ``=`` (a store), a
    reduction operator (``+ - * & |``), ``Min``/``Max``, or ``Min secondary`` for a secondary
    target of a Min/Max multi-assignment (written only where the Min wins)."""

    array: str
    op: str
    #: "neighbour" (an endpoint of an own row) or "anywhere" (see the module docstring)
    at: str = "neighbour"
    #: for a secondary target: the array of the Min/Max's primary target
    primary: str = ""


@record
class Locality(Record):
    """One kernel's accesses beyond its own vertex (see the module docstring)."""

    kernel: str
    global_: bool = False
    remote_writes: Tuple[RemoteWrite, ...] = ()
    neighbour_reads: Tuple[str, ...] = ()     # arrays read at another vertex's element
    remote_rows: Tuple[str, ...] = ()         # queries/loops over another vertex's edges
    anywhere_reads: Tuple[str, ...] = ()      # those of neighbour_reads also read "anywhere"
    #: adjacency queries/loops of a vertex that is neither own nor a neighbour, with where
    #: they are (a distributed backend holds no such row): ("g.count_outNbrs", loc), ...
    anywhere_rows: Tuple[Tuple[str, object], ...] = ()
    #: edge properties read at edges of a neighbour's row (held with the ghost's row)
    ghost_edge_reads: Tuple[str, ...] = ()

    @property
    def local(self) -> bool:
        return not (self.global_ or self.remote_writes or self.neighbour_reads
                    or self.remote_rows or self.ghost_edge_reads)


def kernel_locality(kernel: P.Kernel, plan: P.Plan) -> Locality:
    """The ``Locality`` of ``kernel`` (whose arrays are named as in ``plan``)."""
    if kernel.extent == "single":
        return Locality(kernel.name, global_=True)
    arrays = {a.sym.uid: a.name for a in plan.arrays if a.sym is not None
              and a.role != "scalar"}
    nodes = [kernel.body] + ([kernel.guard] if kernel.guard is not None else [])
    defs = _local_values(nodes)
    classes: Dict[int, str] = {}
    queues, positions = set(rank_queues(plan)), set(rank_positions(plan))
    # a fixpoint from no class at all: a variable gets one once every value it gets has it
    for _ in range(len(defs) + 2):
        scan = _Scan(kernel, arrays, classes, queues, positions)
        for node in nodes:
            scan.visit(node)
        found = scan.classify(defs)
        if found == classes:
            break
        classes = found
    return Locality(kernel.name, False, tuple(dict.fromkeys(scan.writes)),
                    tuple(dict.fromkeys(scan.reads)), tuple(dict.fromkeys(scan.rows)),
                    tuple(dict.fromkeys(scan.anywhere)), tuple(scan.anywhere_rows),
                    tuple(dict.fromkeys(scan.ghost_reads)))


def _local_values(nodes) -> Dict[int, List[ir.Expr]]:
    """Every value each local variable of the kernel gets (its initialiser, assignments);
    a variable declared without one is left out (it holds no vertex or edge to class)."""
    defs: Dict[int, List[ir.Expr]] = {}
    bare: Set[int] = set()
    for part in nodes:
        for node in ir.walk(part):
            if isinstance(node, ir.Declare) and not isinstance(node.sym.type, PropType):
                if node.init is None:
                    bare.add(node.sym.uid)
                else:
                    defs.setdefault(node.sym.uid, []).append(node.init)
            elif isinstance(node, ir.Assign) and isinstance(node.target, ir.VarRef):
                defs.setdefault(node.target.sym.uid, []).append(node.value)
    return {uid: values for uid, values in defs.items() if uid not in bare}


def _bare(e: ir.Expr) -> ir.Expr:
    """``e`` without its bounds check (a checked vertex is the vertex)."""
    while isinstance(e, CheckedIndex):
        e = e.index
    return e


class _Scan:
    def __init__(self, kernel: P.Kernel, arrays: Dict[int, str],
                 classes: Dict[int, str], queues: Set[int], positions: Set[int]) -> None:
        self.kernel = kernel
        self.arrays = arrays
        #: the rank's worklists (``rank_queues``): what they hold are own vertices
        self.queues = queues
        #: those and the other arrays a rank keeps for itself by position (``rank_positions``)
        self.positions = positions
        by = {c: {uid for uid, k in classes.items() if k == c} for c in _CLASSES}
        self.own_vertices: Set[int] = by["own"] | ({kernel.index.uid}
                                                   if kernel.extent == "nodes" else set())
        self.own_edges: Set[int] = by["own edge"] | ({kernel.index.uid}
                                                     if kernel.extent == "edges" else set())
        #: vertices at the other end of an own row (neighbour loop variables and their copies)
        self.neighbours: Set[int] = by["neighbour"]
        #: edges of a neighbour's row (held with the ghost's row)
        self.ghost_edges: Set[int] = by["ghost edge"]
        self.ghost_reads: List[str] = []
        self.anywhere: List[str] = []
        self.writes: List[RemoteWrite] = []
        self.reads: List[str] = []
        self.rows: List[str] = []
        self.anywhere_rows: List[Tuple[str, object]] = []

    # --- ownership ----------------------------------------------------------------------------
    def _own_vertex(self, e: ir.Expr) -> bool:
        e = _bare(e)
        if isinstance(e, ir.VarRef):
            return e.sym.uid in self.own_vertices
        if isinstance(e, ir.PropRead):
            return e.prop.uid in self.queues
        return isinstance(e, ir.EdgeEndpoint) and e.end == "source" and self._own_edge(e.edge)

    def _own_edge(self, e: ir.Expr) -> bool:
        return isinstance(e, ir.VarRef) and e.sym.uid in self.own_edges

    def _own_element(self, read: ir.PropRead) -> bool:
        return self._own_vertex(read.index) or self._own_edge(read.index)

    def _neighbour(self, e: ir.Expr) -> bool:
        e = _bare(e)
        if isinstance(e, ir.VarRef):
            return e.sym.uid in self.neighbours
        return isinstance(e, ir.EdgeEndpoint) and e.end == "destination" \
            and self._own_edge(e.edge)

    def _ghost_edge(self, e: ir.Expr) -> bool:
        if isinstance(e, ir.GraphQuery) and e.op == "get_edge":
            return self._neighbour(e.args[0])
        return isinstance(e, ir.VarRef) and e.sym.uid in self.ghost_edges

    def classify(self, defs: Dict[int, List[ir.Expr]]) -> Dict[int, str]:
        """The class of each local variable all of whose values have one (own, neighbour:
        own or neighbour, own edge, ghost edge: own or a neighbour's row's)."""
        found: Dict[int, str] = {}
        for uid, values in defs.items():
            if all(self._own_vertex(v) for v in values):
                found[uid] = "own"
            elif all(self._own_vertex(v) or self._neighbour(v) for v in values):
                found[uid] = "neighbour"
            elif all(self._own_edge(v) or _own_row_edge(v, self) for v in values):
                found[uid] = "own edge"
            elif all(self._own_edge(v) or _own_row_edge(v, self) or self._ghost_edge(v)
                     for v in values):
                found[uid] = "ghost edge"
        return found

    def _at(self, read: ir.PropRead) -> str:
        return "neighbour" if self._neighbour(read.index) else "anywhere"

    def _name(self, prop: ir.Symbol) -> str:
        return self.arrays.get(prop.uid, prop.name)

    # --- the walk -----------------------------------------------------------------------------
    def _write(self, target: ir.Expr, op: str, primary: str = "") -> None:
        if isinstance(target, ir.PropRead):
            if not self._own_element(target):
                self.writes.append(RemoteWrite(self._name(target.prop), op, self._at(target),
                                               primary))
            self.visit(target.index)

    def visit(self, node: ir.Node) -> None:
        if isinstance(node, ir.Assign):
            self._write(node.target, "=")
            self.visit(node.value)
            return
        if isinstance(node, P.AtomicReduce):
            self._write(node.target, node.op)
            self.visit(node.value)
            return
        if isinstance(node, P.AtomicMinMax):
            # the owner compares and applies: the old value is not read where the item runs
            self._write(node.target, node.func)
            primary = (self._name(node.target.prop) if isinstance(node.target, ir.PropRead)
                       else "")
            for other, value in node.others:
                self._write(other, f"{node.func} secondary", primary)
                self.visit(value)
            self.visit(node.candidate)
            for stmt in node.then:
                self.visit(stmt)
            return
        if isinstance(node, ir.Loop):
            self._loop(node)
        elif isinstance(node, ir.PropRead) and node.prop.uid in self.positions:
            pass    # the rank's own worklist (or its levels' starts), at a position
        elif isinstance(node, ir.PropRead) and not self._own_element(node) \
                and self._ghost_edge(node.index) and isinstance(node.prop.type, PropType) \
                and node.prop.type.kind == "edge":
            self.ghost_reads.append(self._name(node.prop))
        elif isinstance(node, ir.PropRead) and not self._own_element(node):
            self.reads.append(self._name(node.prop))
            if self._at(node) == "anywhere":
                self.anywhere.append(self._name(node.prop))
        elif isinstance(node, ir.GraphQuery) and node.op in _ROW_QUERIES \
                and not self._own_vertex(node.args[0]):
            self._row(node.op, f"g.{node.op}", node.args[0], node.loc)
        for child in ir.children(node):
            self.visit(child)

    def _row(self, row: str, shown: str, vertex: ir.Expr, loc) -> None:
        """A query or loop (``shown`` as written) of another vertex's adjacency: a ghost's
        row, or one no rank holds for it when the vertex is not a neighbour."""
        self.rows.append(row)
        if not self._neighbour(vertex):
            self.anywhere_rows.append((shown, loc))

    def _loop(self, loop: ir.Loop) -> None:
        domain = loop.domain
        if isinstance(domain, ir.Neighbors) and domain.role == "bfs_parents":
            # the reverse row of ``of``: kept with ``of``, but its forward edges are not
            if not self._own_vertex(domain.of):
                self._row("in-neighbours", "g.neighbors", domain.of, loop.loc)
            else:
                self.neighbours.add(loop.var.uid)
        elif isinstance(domain, ir.Neighbors):
            if not self._own_vertex(domain.of):
                self._row("neighbours", "g.neighbors", domain.of, loop.loc)
                if self._neighbour(domain.of) and domain.edge is not None:
                    self.ghost_edges.add(domain.edge.uid)
            else:
                self.neighbours.add(loop.var.uid)
                if domain.edge is not None:
                    self.own_edges.add(domain.edge.uid)
        elif isinstance(domain, ir.InNeighbors):
            if not self._own_vertex(domain.of):
                self._row("in-neighbours", "g.nodes_to", domain.of, loop.loc)
            else:
                self.neighbours.add(loop.var.uid)
        elif not isinstance(domain, ir.SetMembers):
            self.rows.append(type(domain).__name__)


def _own_row_edge(e: ir.Expr, scan: _Scan) -> bool:
    """``g.get_edge(v, w)`` of the work item's own vertex ``v``: an edge of its own row."""
    return isinstance(e, ir.GraphQuery) and e.op == "get_edge" and scan._own_vertex(e.args[0])
