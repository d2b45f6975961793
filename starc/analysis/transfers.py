"""Device arrays and the transfer policy: what is allocated, and what crosses host<->device when.

One ``DeviceArray`` per property symbol (parameters and locals; a local declared inside a host
loop is allocated once for the whole run), per CSR array the kernels use, and per value the
analyses invent (next-iteration buffers, flags, locks, device copies of host scalars, BFS
levels). The policy, decided here once for every backend:

- graph arrays and ``propEdge`` parameters (bound to the file's weights) are copied in once;
- ``propNode`` parameters (the results) are copied out once at the end; locals never are;
- flags, reductions and scalar stores move single values, and only by explicit host
  operations (``Launch`` semantics, ``FixedPointLoop``, ``BFSLoop``);
- nothing else is transferred: host reads of elements are explicit ``DeviceRead``s.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from starc.analysis.naming import NameAllocator, SymbolFactory, symbols_in
from starc.analysis.host_tree import (arrays_of, host_exprs, kernels_launched_by, map_blocks,
                                      walk_host)
from starc.analysis.plan import (GRAPH_ARRAYS, DeviceArray, DeviceRead, FromDevice, HostBlock, HostStmt, Launch,
                                 LiveSlot, ToDevice)
from starc.ir import nodes as ir
from starc.ir.types import PropType, Scalar

__all__ = ["ArrayTable", "graph_arrays_for_domain", "graph_arrays_for_expr",
           "explicit_scalar_transfers", "used_arrays"]

BFS_LEVEL = "bfs_level"


def graph_arrays_for_domain(domain: ir.Domain, uses_edge: bool = True) -> Tuple[str, ...]:
    """The CSR arrays a loop over ``domain`` reads; an in-neighbour loop needs the forward
    edge ids (``rev_edge_ids``) only if its body or filter uses the loop's edge."""
    if isinstance(domain, ir.Neighbors):
        return ("offsets", "targets")
    if isinstance(domain, ir.InNeighbors):
        return ("rev_offsets", "rev_sources") + (("rev_edge_ids",) if uses_edge else ())
    if isinstance(domain, ir.AllEdges):
        return ("sources",)
    return ()


def graph_arrays_for_expr(expr: ir.Node) -> Tuple[str, ...]:
    """The CSR arrays one expression node reads on the device (not its children)."""
    if isinstance(expr, ir.EdgeEndpoint):
        return ("sources",) if expr.end == "source" else ("targets",)
    if isinstance(expr, LiveSlot):
        return ("offsets", "sources")
    if isinstance(expr, ir.GraphQuery):
        return {"count_outNbrs": ("offsets",), "count_inNbrs": ("rev_offsets",),
                "is_an_edge": ("offsets", "targets"),
                "get_edge": ("offsets", "targets")}.get(expr.op, ())
    return ()


def _extent(prop: PropType) -> str:
    return "nodes" if prop.kind == "node" else "edges"


class ArrayTable:
    """Creates each device array once, with its role and copy flags, and finds it again.

    Property arrays are keyed by symbol; the list order of ``arrays()`` is: graph arrays in
    canonical order, then everything else in creation order (parameters first).
    """

    def __init__(self, function: ir.Function, symbols: SymbolFactory) -> None:
        self.symbols = symbols
        props = [s for s in _declared_symbols(function) if isinstance(s.type, PropType)]
        # Array names must not collide with the names of scalars a kernel may also take.
        self._names = NameAllocator(
            s.name for s in symbols_in(function) if not isinstance(s.type, PropType))
        self._by_uid: Dict[int, DeviceArray] = {}
        self._graph: Dict[str, DeviceArray] = {}
        self._others: List[DeviceArray] = []
        self._scalar_arrays: Dict[int, DeviceArray] = {}
        self._flags: Dict[int, DeviceArray] = {}
        self._next: Dict[int, DeviceArray] = {}
        self._locks: Dict[int, DeviceArray] = {}
        self._level: Optional[Tuple[DeviceArray, ir.Symbol]] = None
        self._updates: Dict[Tuple[str, int, str], DeviceArray] = {}
        self._error: Optional[Tuple[DeviceArray, DeviceArray]] = None
        self.check_sites: List = []           # starc.analysis.checks.CheckSite, by number
        for sym in props:                     # DSL names first, so they keep their spelling
            self.prop(sym)

    # --- lookup/creation ---------------------------------------------------------------------

    def prop(self, sym: ir.Symbol) -> DeviceArray:
        """The array of property ``sym`` (a parameter, a local, or an invented buffer)."""
        found = self._by_uid.get(sym.uid)
        if found is not None:
            return found
        assert isinstance(sym.type, PropType), sym
        if sym.kind is ir.SymbolKind.PARAM:
            role = "weight" if sym.type.kind == "edge" else "result"
        else:
            role = "local"
        array = DeviceArray(self._names.unique(sym.name), sym.type.elem, _extent(sym.type), role,
                            sym=sym, copy_in=(role == "weight"), copy_out=(role == "result"))
        return self._add(array)

    def graph(self, name: str) -> DeviceArray:
        found = self._graph.get(name)
        if found is None:
            self._names.reserve(name)
            found = DeviceArray(name, Scalar.INT, GRAPH_ARRAYS[name], "graph", copy_in=True)
            self._graph[name] = found
        return found

    def next_buffer(self, prop: ir.Symbol) -> Tuple[DeviceArray, ir.Symbol]:
        """The next-iteration buffer of fixedPoint property ``prop`` and its own symbol."""
        current = self.prop(prop)
        found = self._next.get(prop.uid)
        if found is None:
            sym = self.symbols.make(f"{prop.name}_nxt", prop.type, ir.SymbolKind.LOCAL, prop.loc)
            found = self._add(DeviceArray(self._names.unique(f"{current.name}_nxt"),
                                          current.elem, current.extent, "next", sym=sym))
            self._next[prop.uid] = found
        return found, found.sym

    def flag(self, flag_var: ir.Symbol) -> DeviceArray:
        """The one-value device flag of a fixedPoint on ``flag_var``."""
        found = self._flags.get(flag_var.uid)
        if found is None:
            found = self._add(DeviceArray(self._names.unique(f"{flag_var.name}_flag"),
                                          Scalar.INT, "one", "flag"))
            self._flags[flag_var.uid] = found
        return found

    def scalar(self, sym: ir.Symbol) -> DeviceArray:
        """The one-value device copy of host scalar ``sym`` (reductions and stores)."""
        found = self._scalar_arrays.get(sym.uid)
        if found is None:
            found = self._add(DeviceArray(self._names.unique(f"{sym.name}_dev"), sym.type,
                                          "one", "scalar", sym=sym))
            self._scalar_arrays[sym.uid] = found
        return found

    def lock(self, target: ir.Expr) -> DeviceArray:
        """Per-element locks for Min/Max on ``target``'s property (or one lock for a scalar)."""
        if isinstance(target, ir.PropRead):
            sym, extent = target.prop, _extent(target.prop.type)
        else:
            sym, extent = target.sym, "one"
        found = self._locks.get(sym.uid)
        if found is None:
            base = self.prop(sym).name if isinstance(sym.type, PropType) else sym.name
            found = self._add(DeviceArray(self._names.unique(f"{base}_lock"), Scalar.INT,
                                          extent, "lock"))
            self._locks[sym.uid] = found
        return found

    def update_field(self, stream: ir.Symbol, field: str, elem: Scalar) -> DeviceArray:
        """The array of one field (``source``, ``destination``, ``weight``) of the updates of
        the batch an ``UpdateLoop`` runs over, one update per element (``batches``)."""
        key = ("update", stream.uid, field)
        found = self._updates.get(key)
        if found is None:
            name = self._names.unique(f"{stream.name}_{field}")
            sym = self.symbols.make(name, PropType("node", elem), ir.SymbolKind.LOCAL, stream.loc)
            found = self._add(DeviceArray(name, elem, "updates", "update", sym=sym))
            self._by_uid[sym.uid] = found
            self._updates[key] = found
        return found

    def bfs_level(self) -> Tuple[DeviceArray, ir.Symbol]:
        """The BFS level array (shared by every iterateInBFS of the function) and its symbol."""
        if self._level is None:
            sym = self.symbols.make(BFS_LEVEL, PropType("node", Scalar.INT))
            array = self._add(DeviceArray(self._names.unique(BFS_LEVEL), Scalar.INT, "nodes",
                                          "level", sym=sym))
            self._by_uid[sym.uid] = array
            self._level = (array, sym)
        return self._level

    def error_arrays(self) -> Tuple[DeviceArray, DeviceArray]:
        """The device error word (see ``starc.analysis.checks``): failed site + 1, and the
        offending value; one pair for the whole program; the plan zeroes the site with a Fill
        before the algorithm (lower.py)."""
        if self._error is None:
            self._error = (
                self._add(DeviceArray(self._names.unique("starc_error"), Scalar.INT, "one",
                                      "error")),
                self._add(DeviceArray(self._names.unique("starc_error_value"), Scalar.LONG,
                                      "one", "error")))
        return self._error

    def by_symbol(self, sym: ir.Symbol) -> Optional[DeviceArray]:
        return self._by_uid.get(sym.uid)

    def arrays(self) -> Tuple[DeviceArray, ...]:
        graph = tuple(self._graph[n] for n in GRAPH_ARRAYS if n in self._graph)
        return graph + tuple(self._others)

    def _add(self, array: DeviceArray) -> DeviceArray:
        if array.sym is not None and isinstance(array.sym.type, PropType):
            self._by_uid.setdefault(array.sym.uid, array)
        self._others.append(array)
        return array


def _declared_symbols(function: ir.Function) -> List[ir.Symbol]:
    """Parameters, then every ``Declare``d symbol in source order."""
    out = list(function.params)
    out.extend(n.sym for n in ir.walk(function.body) if isinstance(n, ir.Declare))
    return out


def explicit_scalar_transfers(host: HostBlock) -> HostBlock:
    """Every ``Launch`` preceded by a ``ToDevice`` and followed by a ``FromDevice`` for each
    host scalar its kernel reduces or stores (each scalar once, reductions first): the value
    travels to the scalar's one-value device array and back, and the host tree says where."""
    def rewrite(block: HostBlock) -> HostBlock:
        stmts: List[HostStmt] = []
        for stmt in block.stmts:
            stmt = map_blocks(stmt, rewrite)
            if not isinstance(stmt, Launch):
                stmts.append(stmt)
                continue
            kernel = stmt.kernel
            carried: Dict[str, Tuple[DeviceArray, ir.Symbol]] = {}
            for array, sym in [(r.array, r.sym) for r in kernel.reductions] + \
                    [(a, a.sym) for a in kernel.stores]:
                if sym is not None:
                    carried.setdefault(array.name, (array, sym))
            stmts += [ToDevice(a, sym, loc=stmt.loc) for a, sym in carried.values()]
            stmts.append(stmt)
            stmts += [FromDevice(a, sym, loc=stmt.loc) for a, sym in carried.values()]
        return HostBlock(tuple(stmts), loc=block.loc)
    return rewrite(host)


def used_arrays(arrays: Tuple[DeviceArray, ...], host: HostBlock,
                results: Tuple[ir.Symbol, ...]) -> Tuple[DeviceArray, ...]:
    """The arrays of ``arrays`` that something uses, in order: a launched kernel's parameter,
    a host operation's operand or ``DeviceRead``, or the array of a result (copied out even if
    the function never writes it). The others are never allocated or copied."""
    used = {a.name for a in results_arrays(arrays, results)}
    for stmt in walk_host(host):
        used.update(a.name for a in arrays_of(stmt))
        used.update(n.array.name for n in host_exprs(stmt) if isinstance(n, DeviceRead))
        for kernel in kernels_launched_by(stmt):
            used.update(p.array.name for p in kernel.params if p.array is not None)
    return tuple(a for a in arrays if a.name in used)


def results_arrays(arrays: Tuple[DeviceArray, ...],
                   results: Tuple[ir.Symbol, ...]) -> Tuple[DeviceArray, ...]:
    uids = {s.uid for s in results}
    return tuple(a for a in arrays if a.role == "result" and a.sym is not None
                 and a.sym.uid in uids)
