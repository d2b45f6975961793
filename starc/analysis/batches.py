"""Dynamic programs in the shared lowering (issue 31): ``Batch``, the graph updates and the loops
over a batch's updates as host operations (``BatchLoop``, ``ApplyUpdates``, ``UpdateLoop``).

A ``Batch (stream : size)`` is a host loop over the stream's batches of ``size`` lines. The
host applies a batch's deletions or additions to its graph in place (the runtime's
``starc_updates.hpp``) and refreshes the device copies whole (``ApplyUpdates``), or, where
the plan lays the graph out in rows with slack (``slack_rows``), moves only the rows a batch
touches (``starc_slack_rows.hpp``) and refreshes the slots it wrote. ``OnDelete`` /
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
from starc.analysis.row_order import unsorted_rows
from starc.analysis.row_scans import scan_rows
from starc.analysis.schedules import with_graph_array
from starc.analysis.transfers import graph_arrays_for_expr
from starc.errors import BackendError
from starc.ir import nodes as ir
from starc.ir.types import Scalar
from starc.records import Record

__all__ = ["lower_batch", "lower_update_graph", "lower_update_loop", "refresh_lists",
           "fuse_updates", "FUSED_WHY",
           "device_written", "slack_rows", "with_row_ends", "BATCH_PARTS", "SPAN_MOVES_WHY",
           "DISTRIBUTED_WHY"]

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
                  kernels: Tuple[P.Kernel, ...], slack: bool = False,
                  span_moves: bool = False, distribution=None,
                  fuse: bool = False) -> P.HostBlock:
    """Every ``ApplyUpdates`` given the arrays an update changes, from the plan's final list:
    the graph arrays, and the arrays of edge properties (their values carried), with the ones
    to read back first (``kernels``: the plan's, besides those its host statements launch),
    whether the reverse CSR keeps its edge ids, and whether the rows have slack and the batch's
    moves are applied on the device (``span_moves``, ``SPAN_MOVES_WHY``). With a
    ``distribution`` (``analysis.distribution.Distribution``: MPI) each rank rebuilds its part,
    and the per-vertex arrays of its local index space are carried
    (``ApplyUpdates.local_arrays``). ``fuse`` (the specialize stage's, for a target's
    final layout): adjacent deletions and additions made one update (``fuse_updates``)."""
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
    local_arrays: Tuple[P.DeviceArray, ...] = ()
    host_weights = host_read_weights(host, edge_props)
    if distribution is not None:
        local_arrays = tuple(a for a in arrays if a.extent == "nodes" and a.role != "graph"
                             and a.name not in distribution.replicas)

    def rewrite(block: P.HostBlock) -> P.HostBlock:
        stmts: List[P.HostStmt] = []
        for stmt in block.stmts:
            if isinstance(stmt, P.ApplyUpdates):
                if distribution is not None:
                    _check_distributed(stmt, arrays, edge_props, read_back)
                stmt = dataclasses.replace(stmt, graph=graph, edge_props=edge_props,
                                           read_back=read_back, reverse_ids=reverse_ids,
                                           slack_rows=slack, span_moves=span_moves,
                                           distributed=distribution is not None,
                                           local_arrays=local_arrays,
                                           host_weights=host_weights)
            stmts.append(map_blocks(stmt, rewrite))
        return P.HostBlock(tuple(stmts), loc=block.loc)
    return rewrite(fuse_updates(host) if fuse else host)


def host_read_weights(host: P.HostBlock,
                      edge_props: Tuple[P.DeviceArray, ...]) -> Tuple[ir.Symbol, ...]:
    """The edge properties whose ``minWt``/``maxWt`` the host computes from their host
    vector and that no device array of ``edge_props`` carries through a graph update."""
    carried = {a.sym.uid for a in edge_props if a.sym is not None}
    read = {node.prop.uid: node.prop for stmt in walk_host(host) for node in ir.walk(stmt)
            if isinstance(node, ir.WeightBound) and node.prop.uid not in carried}
    return tuple(read.values())


#: why a batch's adjacent deletions and additions are one graph update (``fuse_updates``)
FUSED_WHY = ("the program's updateCSRDel and updateCSRAdd of one batch are adjacent (nothing "
             "runs between them that could see the graph with the deletions only), so the "
             "host applies the deletions, then the additions, and the device copies are "
             "refreshed once (on MPI each rank's part is laid out, or rewritten in place, "
             "once): one O(n + m) refresh or relayout a batch instead of two, with the "
             "same meaning (deletions first, then additions)")


def fuse_updates(block: P.HostBlock) -> P.HostBlock:
    """``block`` with each ``ApplyUpdates`` of a batch's deletions followed directly by one of
    the same batch's additions (the same stream and lines) made one statement (``fused``:
    ``FUSED_WHY``); everything else as it was, nested blocks too."""
    stmts: List[P.HostStmt] = []
    for stmt in block.stmts:
        previous = stmts[-1] if stmts else None
        if (isinstance(stmt, P.ApplyUpdates) and stmt.kind == "add"
                and isinstance(previous, P.ApplyUpdates) and previous.kind == "delete"
                and not previous.fused and previous.stream.uid == stmt.stream.uid
                and previous.first.uid == stmt.first.uid and previous.last.uid == stmt.last.uid):
            stmts[-1] = dataclasses.replace(previous, fused=FUSED_WHY)
            continue
        stmts.append(map_blocks(stmt, fuse_updates))
    return P.HostBlock(tuple(stmts), loc=block.loc)


def _check_distributed(stmt: P.ApplyUpdates, arrays, edge_props, read_back) -> None:
    """What a distributed rebuild does not carry yet is a located E0501 naming it: an array
    of n + 1 elements in the local index space. (An edge property a kernel writes is carried
    to its edge's new slot by the edge's owner, its ghost-row copies refreshed.)"""
    method = "updateCSRDel" if stmt.kind == "delete" else "updateCSRAdd"
    for array in arrays:
        if array.extent == "nodes+1" and array.role != "graph":
            raise BackendError(f"dynamic graphs: '{method}' with the array '{array.name}' of "
                               "n + 1 elements is not supported by the MPI backend yet",
                               stmt.loc)


#: what a distributed run (MPI) does per batch, and why (``slack_rows``'s reason for it)
DISTRIBUTED_WHY = (
    "each rank reads the whole update stream (a bad line stops every rank alike) and applies "
    "a batch to the rows it owns (the updates whose source it owns): in place unless the "
    "program holds ghost rows (one pass over the rank's slots, no rows exchanged; the ghosts "
    "an addition brings at the next local ids or in global-id order (the plan's new ghosts), "
    "the owners' mirrors alongside, only their "
    "values and degrees fetched; a ghost no edge reaches any more kept until a relayout), "
    "otherwise it lays its part "
    "out again on the same partition: its in-rows sent again by their sources' owners (the whole "
    "ghost rows it keeps brought up to date from the stream it holds, only new ghosts' rows "
    "sent, where it holds no in-rows), the ghosts "
    "that new edges reach added and those no edge reaches any more retired (local ids stay in "
    "global-id order), mirrors, degrees and the peers' communicator (kept while the peers stay "
    "the same) rebuilt; each per-vertex array of the local index space carries its own "
    "vertices' values to their new local ids and takes its ghosts' from their owners (one "
    "exchange per array), input edge weights come with their edges, and an edge property a "
    "kernel writes is carried to its edge's new slot by the owner (then the batch is always "
    "laid out again: the slot map is the rows' order) and its ghost-row copies refreshed: "
    "O((n + m) / ranks + k) "
    "per rank and batch, a first step that no rank's rows outgrow (rows with slack on each "
    "rank would move only the rows a batch touches)")

_SLACK_ROWS_WHY = ("a batch moves only the rows it touches (O(k log k + their degrees) on the "
                   "host) and refreshes the device copies at the slots it wrote (packed into "
                   "one transfer, scattered by a kernel), plus the starts and ends of the "
                   "rows it touched: each row v is [offsets[v], ends[v]) with free "
                   "slots after it (max(2, degree/8) when laid out), edge ids are slots, a row "
                   "that outgrows its room moves to fresh room with twice its edges, and the "
                   "slot space is laid out again when it runs out")


#: why a batch's moves go to the device as records (``ApplyUpdates.span_moves``)
SPAN_MOVES_WHY = ("a deletion closes its hole from the shorter side of its row, so in a hub row "
                  "it shifts hundreds of slots (Kronecker 18: ~0.8 M slots per batch of 2,097 "
                  "deletions, from ~2,000 moves); the host uploads one record (from, to, length) "
                  "per move and one kernel pair per slot array copies the moved spans into a "
                  "scratch array and back to their new slots, and only the slots the batch "
                  "itself wrote (its added edges) are packed and scattered; a move never reads "
                  "or writes a slot an earlier one of its batch wrote (the runtime checks it, "
                  "and scatters every written slot where it does not hold), and an edge "
                  "property the device writes moves on the device, with no read back")


def slack_rows(plan: P.Plan, capabilities) -> Tuple[bool, str]:
    """Whether a Dynamic program's graph is laid out in rows with slack (runtime
    ``starc_slack_rows.hpp``) on the backend of ``capabilities``, and why (or why it keeps a
    compact CSR, where a batch moves every later edge); ``(False, "")`` without updates."""
    if not any(isinstance(s, P.ApplyUpdates) for s in walk_host(plan.host)):
        return False, ""
    title = capabilities.title
    if capabilities.distributed:
        return False, DISTRIBUTED_WHY
    if not capabilities.slack_rows:
        return False, (f"a compact CSR: {title}'s kernels read a row's end as offsets[v + 1] "
                       "(its printer has no rows with slack), so each batch moves "
                       "every later edge and uploads the graph whole")
    for kernel in plan.kernels:
        graph = {p.array.name for p in kernel.params
                 if p.array is not None and p.array.role == "graph"}
        # (a kernel over the edge ids walks the slots in use, each tested: ``with_row_ends``)
        if kernel.extent == "edges" and any(isinstance(node, ir.GraphQuery) and
                                            node.op == "num_edges"
                                            for node in ir.walk(kernel.body)):
            return False, (f"a compact CSR: kernel {kernel.name} walks the edge ids and reads "
                           "g.num_edges(), which in rows with slack is not the count of the "
                           "slots it walks")
        if "rev_edge_ids" in graph and not _any_order(plan):
            # measured (bench/updates_apply.py --reverse-ids, Kronecker 18): rewriting and
            # listing the reverse ids of every edge a batch moves costs 0.34 of a build in
            # sorted rows, the compact CSR's renumbering 0.26; rows in any order move about
            # one edge per deletion and keep the reverse ids anyway (they find edges by them)
            return False, (f"a compact CSR: kernel {kernel.name} reads the reverse CSR's edge "
                           "ids, which sorted rows with slack rewrite for every edge a batch "
                           "moves (a hub row's tail): slower than the compact CSR's "
                           "renumbering")
        if kernel.schedule == "binned" or graph & {"in_binned_order", "out_binned_order"}:
            return False, (f"a compact CSR: kernel {kernel.name} is binned, and its degree "
                           "order is built from a compact CSR's offsets")
    for stmt in walk_host(plan.host):
        if isinstance(stmt, P.OrderByDegree) and not stmt.keeps_ids:
            return False, "a compact CSR: the host may renumber the graph by degree"
        if _reads_rows(stmt):
            return False, ("a compact CSR: the host itself reads the graph's rows (a degree or "
                           "an edge query in host code)")
    if any(a.extent == "edges" and a.copy_out for a in plan.arrays):
        return False, "a compact CSR: a result is an edge property, printed by edge id"
    return True, _SLACK_ROWS_WHY


def _any_order(plan: P.Plan) -> bool:
    """Whether rows with slack would be left in any order: no kernel of ``plan`` reads a row
    as sorted (``row_order.unsorted_rows``, asked here before the kernels take row ends)."""
    return unsorted_rows(tuple(scan_rows(k) for k in plan.kernels), True)[0]


def _reads_rows(stmt: P.HostStmt) -> bool:
    """Whether a host statement's own expressions query the graph's rows."""
    for f in dataclasses.fields(stmt):
        value = getattr(stmt, f.name)
        for item in value if isinstance(value, tuple) else (value,):
            if isinstance(item, ir.Node) and any(
                    isinstance(node, ir.GraphQuery) and node.op not in ("num_nodes", "num_edges")
                    or isinstance(node, ir.Loop) for node in ir.walk(item)):
                return True
    return False


def with_row_ends(kernels: Tuple[P.Kernel, ...]) -> Tuple[P.Kernel, ...]:
    """The kernels of a graph in rows with slack: each that reads row starts (``offsets``,
    ``rev_offsets``) also takes the rows' ends (``P.ROW_ENDS``); each over the edge ids (the
    ``edges`` schedule) walks every slot in use and runs where the slot holds an edge
    (``P.LiveSlot``)."""
    out = []
    for kernel in kernels:
        if kernel.extent == "edges":
            kernel = _over_live_slots(kernel)
        names = {p.array.name for p in kernel.params if p.array is not None}
        extra = tuple(P.KernelParam(end, Scalar.INT, array=P.DeviceArray(
            end, Scalar.INT, P.GRAPH_ARRAYS[end], "graph", copy_in=True))
            for start, end in P.ROW_ENDS.items() if start in names and end not in names)
        out.append(dataclasses.replace(kernel, params=kernel.params + extra) if extra
                   else kernel)
    return tuple(out)


def _over_live_slots(kernel: P.Kernel) -> P.Kernel:
    """``kernel`` (over edge ids) guarded by its slot holding an edge, taking what the test
    reads."""
    index = ir.VarRef(kernel.index, type=kernel.index.type, loc=kernel.loc)
    live = P.LiveSlot(index, type=Scalar.BOOL, loc=kernel.loc)
    guard = live if kernel.guard is None else ir.Binary("&&", live, kernel.guard,
                                                        type=Scalar.BOOL, loc=kernel.loc)
    for name in graph_arrays_for_expr(live):
        kernel = with_graph_array(kernel, name)
    return dataclasses.replace(kernel, guard=guard)


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
