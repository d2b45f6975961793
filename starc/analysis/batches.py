"""Dynamic programs in the shared lowering (issue 31): ``Batch``, the graph updates and the loops
over a batch's updates as host operations (``BatchLoop``, ``ApplyUpdates``, ``UpdateLoop``).

A ``Batch (stream : size)`` is a host loop over the stream's batches of ``size`` lines. The
host applies a batch's deletions or additions to its graph in place (the runtime's
``starc_updates.hpp``) and refreshes the device copies whole (``ApplyUpdates``). ``OnDelete`` /
``OnAdd`` (a forall over ``stream.currentBatch(...)``) is a kernel over the batch's updates of
that kind: the host uploads their sources, destinations and weights to arrays of one update
per element, and ``u.source`` reads the work item's element (``UpdateLoop``).
"""

from __future__ import annotations

import dataclasses
from typing import Dict, List, Set, Tuple

from starc.analysis import plan as P
from starc.analysis.frontier import FRONTIER_COUNT
from starc.analysis.host_tree import map_blocks, walk_host
from starc.errors import BackendError
from starc.ir import nodes as ir
from starc.ir.types import Scalar
from starc.records import Record

__all__ = ["lower_batch", "lower_update_graph", "lower_update_loop", "refresh_lists",
           "device_written", "BATCH_PARTS"]

#: ``currentBatch(part)`` / ``OnDelete`` / ``OnAdd`` -> the kind of update a loop takes
BATCH_PARTS = {None: "all", 0: "delete", 1: "add", "delete": "delete", "add": "add"}
#: the roles of the edge-extent arrays whose values an update carries to the new edge ids
_CARRIED_ROLES = ("weight", "result", "local", "next")


def lower_batch(s: ir.Batch, host) -> P.BatchLoop:
    """``Batch (stream : size) body`` as a ``BatchLoop``; ``host`` is the ``HostLowering``."""
    first = host.table.symbols.make("batch_first", Scalar.LONG, ir.SymbolKind.LOCAL, s.loc)
    last = host.table.symbols.make("batch_last", Scalar.LONG, ir.SymbolKind.LOCAL, s.loc)
    outer = host.current_batch
    host.current_batch = (s.stream, first, last)
    try:
        body = host.block(s.body)
    finally:
        host.current_batch = outer
    return P.BatchLoop(s.stream, host.expr(s.size), first, last, body, loc=s.loc)


def _batch_of(host, stream: ir.Symbol, what: str, loc) -> Tuple[ir.Symbol, ir.Symbol]:
    if host.current_batch is None or host.current_batch[0].uid != stream.uid:
        raise BackendError(f"{what} outside 'Batch ({stream.name} : ...)' is not supported by "
                           "the device backends", loc)
    return host.current_batch[1], host.current_batch[2]


def lower_update_graph(s: ir.UpdateGraph, host) -> P.ApplyUpdates:
    """``g.updateCSRDel/Add(stream)``: which arrays it refreshes is filled in once the plan's
    arrays are final (``refresh_lists``)."""
    method = "updateCSRDel" if s.kind == "delete" else "updateCSRAdd"
    first, last = _batch_of(host, s.stream, f"'{s.graph.name}.{method}'", s.loc)
    return P.ApplyUpdates(s.kind, s.stream, first, last, (), (), loc=s.loc)


def lower_update_loop(s: ir.Loop, host) -> P.UpdateLoop:
    """A forall over the current batch's updates (``OnDelete``, ``OnAdd``, ``forall (u in
    stream.currentBatch(k))``) as an ``UpdateLoop`` launching one work item per update."""
    domain: ir.UpdateMembers = s.domain
    batch = domain.updates
    if not isinstance(batch, ir.CurrentBatch):
        raise BackendError("a loop over a whole update stream is not supported by the device "
                           "backends: loop over 'currentBatch()' inside its Batch", s.loc)
    if not s.parallel:
        raise BackendError("a sequential 'for' over updates is not supported by the device "
                           "backends yet: write 'forall' (its updates in any order)", s.loc)
    parts = {BATCH_PARTS[domain.only], BATCH_PARTS[batch.part]} - {"all"}
    if len(parts) > 1:      # OnAdd over currentBatch(0): no update is both
        parts = {"none"}
    kind = parts.pop() if parts else "all"
    first, last = _batch_of(host, batch.stream, "a loop over updates", s.loc)
    item = host.table.symbols.make("update", Scalar.INT, ir.SymbolKind.LOOP, s.loc)
    fields: Dict[str, P.DeviceArray] = {}

    def field_read(node: ir.Node):
        if isinstance(node, ir.UpdateField) and isinstance(node.update, ir.VarRef) and \
                node.update.sym.uid == s.var.uid:
            elem = Scalar.INT if node.field != "weight" else node.type
            array = fields.get(node.field)
            if array is None:
                array = fields[node.field] = host.table.update_field(batch.stream, node.field,
                                                                     elem)
            return ir.PropRead(array.sym, ir.VarRef(item, type=Scalar.INT, loc=node.loc),
                               type=node.type, loc=node.loc)
        return None

    body = ir.transform(s.body, field_read)
    guard = ir.transform(s.filter, field_read) if s.filter is not None else None
    for node in ir.walk(body) if guard is None else (*ir.walk(body), *ir.walk(guard)):
        if isinstance(node, ir.VarRef) and node.sym.uid == s.var.uid:
            raise BackendError(f"the update '{s.var.name}' other than through its fields "
                               "(.source, .destination, .weight) is not supported by the "
                               "device backends", node.loc)
    kernel = host.outline_kernel("updates", s.loc, index=item, extent="frontier", guard=guard,
                                 body=body)
    count = host.table.symbols.make("update_count", Scalar.INT, ir.SymbolKind.LOCAL, s.loc)
    launch = P.Launch(kernel, ((FRONTIER_COUNT, ir.VarRef(count, type=Scalar.INT, loc=s.loc)),),
                      loc=s.loc)
    return P.UpdateLoop(kind, batch.stream, first, last, tuple(sorted(fields.items())), count,
                        P.HostBlock((launch,), loc=s.loc), loc=s.loc)


def refresh_lists(host: P.HostBlock, arrays: Tuple[P.DeviceArray, ...],
                  kernels: Tuple[P.Kernel, ...]) -> P.HostBlock:
    """Every ``ApplyUpdates`` given the arrays an update changes, from the plan's final list:
    the graph arrays, and the arrays of edge properties (their values carried), with the ones
    to read back first (``kernels``: the plan's, besides those its host statements launch),
    and whether the reverse CSR keeps its edge ids."""
    graph = tuple(a for a in arrays if a.role == "graph")
    edge_props = tuple(a for a in arrays if a.extent == "edges" and a.role in _CARRIED_ROLES)
    written = device_written(host, kernels)
    # an input weight array is uploaded from its host vector (and restored from it each
    # trial): unless the device writes it, that vector is its value, and an O(m) read back
    # per update would copy the same values again
    read_back = tuple(a for a in edge_props if a.role != "weight" or a.name in written)
    # the host's reverse CSR keeps its edge ids only for a device that reads them: renumbering
    # every entry is most of an update's cost, moving its spans much less
    reverse_ids = any(a.name == "rev_edge_ids" for a in graph)

    def rewrite(block: P.HostBlock) -> P.HostBlock:
        stmts: List[P.HostStmt] = []
        for stmt in block.stmts:
            if isinstance(stmt, P.ApplyUpdates):
                stmt = dataclasses.replace(stmt, graph=graph, edge_props=edge_props,
                                           read_back=read_back, reverse_ids=reverse_ids)
            stmts.append(map_blocks(stmt, rewrite))
        return P.HostBlock(tuple(stmts), loc=block.loc)
    return rewrite(host)


def device_written(host: P.HostBlock, kernels: Tuple[P.Kernel, ...]) -> Set[str]:
    """The names of the device arrays something may write on the device: a kernel's written
    parameters and reductions, and every array a host statement names (conservatively: fills,
    copies, swaps, element writes alike) other than a graph update's own refresh."""
    written: Set[str] = set()
    found = {k.name: k for k in kernels}

    def visit(value) -> None:
        if isinstance(value, P.Kernel):
            found.setdefault(value.name, value)
        elif isinstance(value, P.DeviceArray):
            written.add(value.name)
        elif isinstance(value, P.HostBlock):
            return      # its statements are walked on their own
        elif isinstance(value, tuple):
            for item in value:
                visit(item)
        elif isinstance(value, Record) and not isinstance(value, ir.Node):
            for f in dataclasses.fields(value):
                visit(getattr(value, f.name))

    for stmt in walk_host(host):
        if isinstance(stmt, (P.ApplyUpdates, P.HostBlock)):
            continue
        for f in dataclasses.fields(stmt):
            visit(getattr(stmt, f.name))
    for kernel in found.values():
        written.update(p.array.name for p in kernel.params
                       if p.array is not None and p.written)
        written.update(r.array.name for r in kernel.reductions)
        written.update(a.name for a in kernel.stores)
    return written
