"""What a distributed run of a plan must exchange after each kernel: its superstep facts.

A distributed backend (MPI) runs every launch as one bulk-synchronous superstep over the
vertices each rank owns, with every property kept as a replica on each rank. This module
decides, once and backend-neutrally, from ``locality`` and the host tree:

* ``updates``: the arrays a kernel writes at other ranks' vertices, with the operator the
  owner applies (``=``, ``+ - * & |``, ``Min``/``Max``; a Min/Max's secondary targets follow
  their primary), and whether the targets are neighbours (ghosts) or ``anywhere``;
* ``mirrored``: the arrays whose replicas other ranks read, so owners must refresh them after
  every kernel that writes them: at the ranks that hold the vertex as a ghost (``neighbour``)
  or at every rank (``anywhere``). An array copied or swapped into a mirrored one is mirrored
  too, and so is one whose remote updates compare with the replica (``=``, Min/Max);
* ``every``: of a superstep's refreshes, the arrays its kernel stores at every own vertex
  (pr's term): owners send every mirror's value, values only, in the order of the ghost list
  the two ranks agreed once, with no change detection and no byte counts;
* ``bounds``: the arrays a Min (Max) compares with at ghosts and that nothing else reads
  there (sssp's dist, cc's comp). A ghost copy never below (above) the owner's value is all
  such a comparison needs: it may only let through candidates the owner then rejects. So
  after a kernel that writes the array only by that Min, the ghost copies keep the
  candidates the rank sent and the owner's combine is the whole exchange: no refresh round;
* ``constants``: a Min/Max's secondary targets that the kernel sets to a constant (sssp's
  ``modified = True``): the owner stores the constant where the primary's entry won, so
  nothing of them travels;
* ``scalars``: the one-value arrays a kernel writes, with how the ranks' values combine
  (a reduction operator, ``flag``: any rank's 1, ``store``: a rank that stored, ``error``:
  the first failed check);
* ``reverse`` / ``ghost_rows``: whether ranks need the in-rows of their vertices and the rows
  of their ghosts (queries of a neighbour's adjacency, fetched once before the algorithm;
  not degrees: every rank keeps those of its own vertices and its ghosts);
  ``ghost_row_slices``: whether those rows are only searched from a neighbour below the
  work item's vertex for a neighbour above it (the ordered triangle count), so a rank needs
  only the rows of ghosts below its vertices, and of each only the entries at or above its
  first vertex that it knows (``ghost_row_slices``);
* ``replicas``: the per-vertex arrays read or written at arbitrary vertices (mirrored or
  updated ``anywhere``, and whatever is copied or swapped with them), which stay full-length
  replicas indexed by global id; every other per-vertex array lives in each rank's local
  index space (its own vertices, its ghosts: ``analysis.local_index``), and ``kernels`` are
  the plan's kernels rewritten for it; ``global_degrees``: whether a kernel reads the degree
  of a vertex that is neither its own nor a neighbour (then every rank keeps every vertex's);
  ``in_degrees`` / ``sources``: whether anything reads in-degrees or edges' sources;
* ``appended_ghosts``: whether a batch's new ghosts take the next local ids (``ghost_order``).

A single-item kernel runs on every rank alike, so it exchanges nothing; what it reads must
then be the same everywhere (every array it reads is mirrored ``anywhere``). So does a loop over
a batch's updates, except its loops over an endpoint's row (``owner_rows``) and its statements
whose node properties are all at one endpoint (``owner_updates``), which run on the endpoint's
owner alone: what those touch needs no replica, and one superstep after the loop refreshes the
other ranks' copies of what the owners wrote (``Superstep.owner_computes``). What cannot be
distributed yet is a ``DistributionError`` naming the construct.
"""

from __future__ import annotations

import dataclasses
from typing import Dict, Iterable, List, Tuple

from starc.analysis import plan as P
from starc.analysis.frontier_seed import last_touch
from starc.analysis.ghost_order import appended_ghosts
from starc.analysis.ghost_row_slices import ROW_QUERIES, searched_from_below
from starc.analysis.host_tree import launched_kernels, walk_host
from starc.analysis.local_index import global_degree_tables, localize
from starc.analysis.locality import Locality, RemoteWrite, kernel_locality
from starc.analysis.owner_rows import OwnerRows, owner_rows
from starc.analysis.owner_updates import OwnerUpdates, owner_updates
from starc.analysis.rank_queues import claimed_queues, rank_queues
from starc.ir import nodes as ir
from starc.records import Record, record
from starc.tree import child_nodes

__all__ = ["Superstep", "Distribution", "DistributionError", "distribute", "UPDATE_LOOP_WHY"]

#: why a distributed run's loop over a batch's updates runs on every rank alike (``global``)
UPDATE_LOOP_WHY = ("every rank holds the whole update stream, so each runs the batch's k "
                   "updates itself (O(k) work, no message); routing each update to the owner "
                   "of its source would need the destination as a ghost before the loop, a "
                   "rebuilt part, and a superstep after it")

_REVERSE = ("rev_offsets", "rev_sources", "rev_edge_ids")
#: Row queries a distributed run answers without the row: every rank keeps the out- and
#: in-degrees of its own vertices and its ghosts (the MPI runtime's
#: ``Distribution::out_degree``/``in_degree``), and of every vertex where a kernel asks about
#: one that is neither (``global_degrees``), so no ghost row is fetched for them.
_KEPT_QUERIES = ("count_outNbrs", "count_inNbrs")
_SCOPES = ("", "neighbour", "anywhere")    # "" : not mirrored; later ones include earlier ones


class DistributionError(Exception):
    """A plan construct a distributed run does not support (yet); ``loc`` where it is."""

    def __init__(self, message: str, loc=None) -> None:
        super().__init__(message)
        self.loc = loc


@record
class Superstep(Record):
    """The exchanges after one kernel (see the module docstring)."""

    kernel: str
    global_: bool
    updates: Tuple[RemoteWrite, ...] = ()
    refresh: Tuple[str, ...] = ()                 # written arrays whose mirrors are refreshed
    scalars: Tuple[Tuple[str, str], ...] = ()     # (one-value array, how ranks combine)
    every: Tuple[str, ...] = ()       # of refresh: every mirror's value, values only
    bounds: Tuple[str, ...] = ()      # ghost copies keep the candidates sent (no refresh)
    constants: Tuple[Tuple[str, object], ...] = ()   # (secondary, the constant it is set to)
    #: edge properties it writes that kernels read on ghost rows: their copies refreshed
    ghost_edges: Tuple[str, ...] = ()
    #: a loop over updates: the node properties its statements at one endpoint touch on the
    #: endpoint's owner only (``owner_updates``), or why they stay replicas
    owner_computes: Tuple[str, ...] = ()
    replicas_why: str = ""
    #: (claimed array, worklist, its length): where a claim's update wins at the owner, the
    #: owner appends the vertex to its own worklist (``rank_queues``)
    queued: Tuple[Tuple[str, str, str], ...] = ()


@record
class Distribution(Record):
    steps: Dict[str, Superstep]
    mirrored: Dict[str, str]      # array -> "neighbour" | "anywhere"
    reverse: bool
    ghost_rows: bool
    #: per-vertex arrays kept full-length, by global id -> why (``_replicas``)
    replicas: Dict[str, str] = dataclasses.field(default_factory=dict)
    global_degrees: bool = False
    in_degrees: bool = False
    sources: bool = False
    kernels: Tuple[P.Kernel, ...] = ()   # the plan's kernels in the local index space
    #: the ghost rows are only searched from below for a vertex above (see the docstring)
    ghost_row_slices: bool = False
    #: edge properties kernels read at edges of ghosts' rows (``locality.ghost_edge_reads``):
    #: owners refresh the ghost rows' copies after each kernel that writes them
    ghost_edges: Tuple[str, ...] = ()
    #: a batch's new ghosts take the next local ids, and why or why not (``ghost_order``)
    appended_ghosts: bool = False
    appended_ghosts_why: str = ""
    #: a superstep refreshes the changed mirrors of a local array: the runtime's index of the
    #: mirrors (``index_mirrors``), a fact of the distribution like its ghost lists, is built
    #: with it before the clock, not by the first such refresh of the first trial
    indexes_mirrors: bool = False
    #: the labels of each ``LeastLabels`` whose ghost copies are exact when it starts (the
    #: superstep of the last launch before it that writes them sends every mirror's value:
    #: cc's ``comp = v``): the runtime does not refresh them first
    fresh_labels: Tuple[str, ...] = ()


def _combine(kernel: P.Kernel) -> List[Tuple[str, str]]:
    """How each one-value array the kernel writes combines across ranks."""
    how: Dict[str, str] = {}
    for red in kernel.reductions:
        how.setdefault(red.array.name, red.op)
    for array in kernel.stores:
        how.setdefault(array.name, "store")
    for param in kernel.params:
        array = param.array
        if array is None or not param.written or array.extent != "one":
            continue
        if array.role == "flag":
            how.setdefault(array.name, "flag")
        elif array.role == "error":
            how.setdefault(array.name, "error")
        elif array.role != "lock":
            how.setdefault(array.name, "store")
    return sorted(how.items())


def _widen(mirrored: Dict[str, str], name: str, scope: str) -> bool:
    if _SCOPES.index(scope) > _SCOPES.index(mirrored.get(name, "")):
        mirrored[name] = scope
        return True
    return False


def _uses_graph(kernel: P.Kernel) -> bool:
    return any(p.array is not None and p.array.role == "graph" for p in kernel.params)


def distribute(plan: P.Plan) -> Distribution:
    """The superstep facts of every launched kernel of ``plan`` in the form MPI runs it:
    fixedPoints topology-driven, a BFS's small steps over each rank's queue
    (``frontier.choose_form``)."""
    from starc.analysis.frontier import choose_form   # frontier -> kernels -> ... -> here
    plan = choose_form(plan, worklist=False, ranks=True)
    _check_host_queries(plan)
    kernels = launched_kernels(plan)
    per_update = _update_kernels(plan)
    rowed = {k.name: owner_rows(k, plan, DistributionError) for k in kernels
             if k.name in per_update and _uses_graph(k)}
    owned = {k.name: owner_updates(rowed[k.name].kernel if k.name in rowed else k, plan)
             for k in kernels if k.name in per_update}
    found: Dict[str, Locality] = {k.name: Locality(k.name, global_=True)
                                  if k.name in per_update else kernel_locality(k, plan)
                                  for k in kernels}
    mirrored: Dict[str, str] = {}
    for kernel in kernels:
        local = found[kernel.name]
        if local.global_:
            if _uses_graph(kernel) and kernel.name not in per_update:
                raise DistributionError(
                    "a sequential loop over the graph outside a forall (it would need the "
                    "whole graph on every rank)", kernel.loc)
            on_rows = rowed[kernel.name].edges_used if kernel.name in rowed else ()
            # (an edge property of the owners' rows stays there, and so does a node property
            # at an endpoint its owner computes)
            on_rows += owned[kernel.name].arrays if kernel.name in owned else ()
            for p in kernel.params:
                if p.array is not None and p.array.extent in ("nodes", "edges") \
                        and p.name not in on_rows \
                        and not (kernel.name in rowed and p.array.role == "graph"):
                    _widen(mirrored, p.name, "anywhere")
            continue
        for what, loc in local.anywhere_rows:
            if what.removeprefix("g.") in _KEPT_QUERIES:
                continue
            raise DistributionError(
                f"{what} of a vertex that is neither the forall's own vertex nor one of its "
                "neighbours (a rank holds only the rows of its vertices and their neighbours)",
                loc)
        for name in local.neighbour_reads:
            _widen(mirrored, name, "anywhere" if name in local.anywhere_reads else "neighbour")
        _check_updates(kernel, local.remote_writes)
        for write in local.remote_writes:
            if write.op in ("=", "Min", "Max"):    # a secondary follows its primary
                _widen(mirrored, write.array, write.at)
    # (the runtime's least labels read the labels at ghosts and walk the in-rows: LeastLabels)
    least = [stmt.labels.name for stmt in walk_host(plan.host) if isinstance(stmt, P.LeastLabels)]
    for name in least:
        _widen(mirrored, name, "neighbour")
    _close_over_copies(plan, mirrored)
    _check_edges(plan, kernels, mirrored, found)
    names = {a.sym.uid: a.name for a in plan.arrays if a.sym is not None}
    bounds = _bounds(plan, kernels, mirrored, found, names)
    ghost_edges = tuple(dict.fromkeys(name for local in found.values()
                                      for name in local.ghost_edge_reads))
    steps = {}
    queues = set(rank_queues(plan))
    for kernel in kernels:
        local = found[kernel.name]
        refreshed = tuple(p.name for p in kernel.params if p.written and p.name in ghost_edges)
        if local.global_:
            steps[kernel.name] = _update_step(kernel, owned.get(kernel.name), mirrored,
                                              refreshed)
            continue
        written = [p.name for p in kernel.params if p.written and p.name in mirrored]
        kept = tuple(name for name in written
                     if name in bounds and bounds[name] == _only_min_max(kernel, name, names))
        refresh = tuple(name for name in written if name not in kept)
        every = tuple(name for name in refresh if mirrored[name] == "neighbour"
                      and _stores_every_own_vertex(kernel, name, names))
        queued = claimed_queues(kernel, names, (w.array for w in local.remote_writes),
                                queues, DistributionError)
        steps[kernel.name] = Superstep(kernel.name, False, local.remote_writes, refresh,
                                       tuple(_combine(kernel)), every, kept,
                                       _constant_secondaries(kernel, local, names),
                                       refreshed, queued=queued)
    rows_of = {name: [row for row in local.remote_rows if row not in _KEPT_QUERIES]
               for name, local in found.items()}
    rows = [row for name in rows_of for row in rows_of[name]]
    reverse = bool(least) or any(p.array is not None and p.array.role == "graph"
                                 and p.array.name in _REVERSE
                                 for k in kernels for p in k.params)
    replicas = _replicas(plan, mirrored, found, owned)
    for kernel in kernels:
        for array, queue, _ in steps[kernel.name].queued:
            if array in replicas:   # (the owner's appends would be global ids)
                raise DistributionError(
                    f"a claim that appends to the worklist '{queue}' of '{array}', which is "
                    "read or written at arbitrary vertices (a full-length replica)", kernel.loc)
    local_kernels = tuple(_localized(k, plan, replicas, per_update, rowed, owned)
                          for k in plan.kernels)
    graph_arrays = {a.name for a in plan.arrays if a.role == "graph"}
    # (a ghost edge's value is refreshed row by row: whole rows)
    slices = bool(rows) and not reverse and not ghost_edges and all(searched_from_below(k) for k in kernels
                                                if rows_of[k.name])
    indexes = bool(least) or any(name not in replicas and name not in step.every
                                 for step in steps.values() for name in step.refresh)
    return Distribution(steps, mirrored, reverse, bool(rows), replicas,
                        global_degree_tables(local_kernels),
                        reverse or _reads_in_degrees(plan), "sources" in graph_arrays,
                        local_kernels, slices, ghost_edges,
                        *appended_ghosts(plan, bool(rows), local_kernels), indexes,
                        _fresh_labels(plan, steps))


def _localized(kernel: P.Kernel, plan: P.Plan, replicas, per_update,
               rowed: Dict[str, OwnerRows], owned: Dict[str, OwnerUpdates]) -> P.Kernel:
    """``kernel`` in the ranks' local index space. A loop over updates touches replicas only,
    by global id (nothing to translate), except in the loops over its endpoints' rows
    (``owner_rows``), which read local rows, and in its statements on an endpoint's owner
    (``owner_updates``), which read local arrays there: those kernels are translated with
    the replicas and the update fields indexed by global id."""
    fields = frozenset(a.name for a in plan.arrays if a.extent == "updates")
    if kernel.name in owned and owned[kernel.name].arrays:
        return localize(owned[kernel.name].kernel, plan, frozenset(replicas) | fields)
    if kernel.name in rowed:
        return localize(rowed[kernel.name].kernel, plan, frozenset(replicas) | fields)
    if kernel.name in per_update:
        return kernel
    return localize(kernel, plan, frozenset(replicas))


def _update_step(kernel: P.Kernel, owned: "OwnerUpdates | None", mirrored: Dict[str, str],
                 ghost_edges: Tuple[str, ...]) -> Superstep:
    """The superstep after a loop over updates: none, or the refresh of the ghost copies (or
    replicas) of what its owners computed, where other ranks read them."""
    if owned is None or not owned.arrays:
        return Superstep(kernel.name, True, ghost_edges=ghost_edges,
                         replicas_why=owned.located if owned is not None else "")
    refresh = tuple(name for name in owned.written if name in mirrored)
    # a failed check on one owner must stop every rank; the loop's other one-value arrays
    # are the same on every rank (its statements on owners write none)
    errors = tuple((name, how) for name, how in _combine(kernel)
                   if how == "error" and owned.checks)
    return Superstep(kernel.name, True, refresh=refresh, scalars=errors,
                     ghost_edges=ghost_edges, owner_computes=owned.arrays)


def _update_kernels(plan: P.Plan) -> Dict[str, object]:
    """The kernels of loops over a batch's updates (``UpdateLoop``), each with its loop's
    place: they run on every rank alike, as a single-item kernel does (``global``;
    ``UPDATE_LOOP_WHY``)."""
    found: Dict[str, object] = {}
    for stmt in walk_host(plan.host):
        if isinstance(stmt, P.UpdateLoop):
            for inner in walk_host(stmt.body):
                if isinstance(inner, P.Launch):
                    found[inner.kernel.name] = stmt.loc
    return found


def _written_as(kernel: P.Kernel, name: str, names: Dict[int, str]) -> set:
    """How ``kernel`` writes array ``name``: the operators of its stores (``=``, a reduction
    operator, ``Min``/``Max``, ``secondary`` for a Min/Max's other target)."""
    how = set()
    for node in ir.walk(kernel.body):
        targets = [(getattr(node, "target", None), getattr(node, "op", "="))]
        if isinstance(node, P.AtomicMinMax) or isinstance(node, ir.MinMaxAssign):
            targets = [(node.target, node.func)] + [(t, "secondary") for t, _ in node.others]
        for target, op in targets:
            if isinstance(target, ir.PropRead) and names.get(target.prop.uid) == name:
                how.add(op)
    return how


def _only_min_max(kernel: P.Kernel, name: str, names: Dict[int, str]) -> str:
    """``Min`` or ``Max`` when that is the only way ``kernel`` writes ``name``, else ""."""
    how = _written_as(kernel, name, names)
    return next(iter(how)) if how in ({"Min"}, {"Max"}) else ""


def _constant_secondaries(kernel: P.Kernel, local: Locality,
                          names: Dict[int, str]) -> Tuple[Tuple[str, object], ...]:
    """The secondary targets ``kernel`` sends that it only ever sets to one bool or int."""
    values: Dict[str, set] = {}
    for node in ir.walk(kernel.body):
        if isinstance(node, P.AtomicMinMax):
            for target, value in node.others:
                if isinstance(target, ir.PropRead) and target.prop.uid in names:
                    # bools and ints only: those convert alike wherever they are spelled (a
                    # float literal's rounding is the kernel printer's); the type too, or
                    # True and 1 would be one set element
                    exact = isinstance(value, ir.Const) and not isinstance(value.value, float)
                    constant = (type(value.value), value.value) if exact else None
                    values.setdefault(names[target.prop.uid], set()).add(constant)
    sent = {w.array for w in local.remote_writes if w.primary}
    return tuple((name, next(iter(found))[1]) for name, found in sorted(values.items())
                 if name in sent and len(found) == 1 and None not in found
                 and _written_as(kernel, name, names) == {"secondary"})


def _bounds(plan: P.Plan, kernels: List[P.Kernel], mirrored: Dict[str, str],
            found: Dict[str, Locality], names: Dict[int, str]) -> Dict[str, str]:
    """The ``bounds`` arrays (see the module docstring), each with its operator: mirrored at
    neighbours only for their Min/Max comparisons (never read at a ghost, copied, swapped or
    a replica), and written by Min/Max with one operator wherever kernels compare."""
    copied = set()
    for stmt in walk_host(plan.host):
        if isinstance(stmt, P.CopyArray):
            copied |= {stmt.dst.name, stmt.src.name}
        elif isinstance(stmt, P.SwapArrays):
            copied |= {stmt.a.name, stmt.b.name}
    read = {name for local in found.values() for name in local.neighbour_reads}
    compared = {w.array for local in found.values() for w in local.remote_writes
                if w.op in ("Min", "Max")}
    found_ops: Dict[str, set] = {}
    for kernel in kernels:
        for name in compared:
            op = _only_min_max(kernel, name, names)
            if op:
                found_ops.setdefault(name, set()).add(op)
    return {name: ops.pop() for name, ops in found_ops.items()
            if len(ops) == 1 and mirrored.get(name) == "neighbour"
            and name not in read and name not in copied}


def _stores_every_own_vertex(kernel: P.Kernel, name: str, names: Dict[int, str]) -> bool:
    """Whether ``kernel`` (over nodes, filtered by the graph alone if at all) stores ``name``
    at its own vertex in every work item: then nearly every mirror changes, and sending them
    all, values only, costs less than naming the changed ones."""
    if kernel.extent != "nodes":
        return False
    if kernel.guard is not None and any(isinstance(n, ir.PropRead) for n in ir.walk(kernel.guard)):
        return False
    return any(isinstance(stmt, ir.Assign) and isinstance(stmt.target, ir.PropRead)
               and names.get(stmt.target.prop.uid) == name
               and isinstance(stmt.target.index, ir.VarRef)
               and stmt.target.index.sym.uid == kernel.index.uid
               for stmt in kernel.body.stmts)


def _replicas(plan: P.Plan, mirrored: Dict[str, str], found: Dict[str, Locality],
              owned: Dict[str, OwnerUpdates]) -> Dict[str, str]:
    """The per-vertex arrays that stay full-length replicas, each with why: those read or
    written at arbitrary vertices (in a loop over updates that cannot run on an endpoint's
    owner: ``owner_updates``), and every array copied, swapped or updated together with
    one (the two must index alike)."""
    nodes = {a.name for a in plan.arrays if a.extent == "nodes"}
    why: Dict[str, str] = {}
    kernels = {k.name: k for k in plan.kernels}
    for name, scan in owned.items():
        for p in kernels[name].params if scan.why else ():
            if p.array is not None and p.array.extent == "nodes" and p.array.role != "graph":
                why.setdefault(p.name, "used in a loop over a batch's updates whose "
                               f"statements cannot run on an endpoint's owner ({scan.located})")
    for local in found.values():
        for w in local.remote_writes:
            if w.at == "anywhere":
                why.setdefault(w.array, "written at any vertex")
    for name, scope in sorted(mirrored.items()):
        if scope == "anywhere":
            why.setdefault(name, "read at any vertex")
    pairs = [(w.array, w.primary, "updated with") for local in found.values()
             for w in local.remote_writes if w.primary]
    names = {a.sym.uid: a.name for a in plan.arrays if a.sym is not None}
    for kernel in plan.kernels:     # a lock is indexed as the array it guards
        for node in ir.walk(kernel.body):
            if isinstance(node, P.AtomicMinMax) and node.lock is not None \
                    and isinstance(node.target, ir.PropRead) \
                    and node.target.prop.uid in names:
                pairs.append((node.lock.name, names[node.target.prop.uid], "the lock of"))
    for stmt in walk_host(plan.host):
        if isinstance(stmt, P.CopyArray):
            pairs.append((stmt.dst.name, stmt.src.name, "copied with"))
        elif isinstance(stmt, P.SwapArrays):
            pairs.append((stmt.a.name, stmt.b.name, "swapped with"))
    changed = True
    while changed:
        changed = False
        for a, b, how in pairs:
            if (a in why) != (b in why):
                other, chosen = (b, a) if a in why else (a, b)
                why[other] = f"{how} {chosen}, a replica"
                changed = True
    return {name: text for name, text in sorted(why.items()) if name in nodes}


def _fresh_labels(plan: P.Plan, steps: Dict[str, Superstep]) -> Tuple[str, ...]:
    """The labels of the ``LeastLabels`` statements whose ghost copies are exact when they
    start: in their host block, the last statement before them that touches the labels
    launches a kernel whose superstep refreshes every mirror of them (``every``)."""
    fresh: List[str] = []
    for block in walk_host(plan.host):
        stmts = list(getattr(block, "stmts", ()))
        for at, stmt in enumerate(stmts):
            if not isinstance(stmt, P.LeastLabels):
                continue
            before = last_touch(stmts, stmt.labels, at - 1)
            launch = stmts[before] if before >= 0 else None
            if isinstance(launch, P.Launch) and \
                    stmt.labels.name in steps[launch.kernel.name].every:
                fresh.append(stmt.labels.name)
    return tuple(dict.fromkeys(fresh))


def _reads_in_degrees(plan: P.Plan) -> bool:
    """Whether a kernel or the host asks for an in-degree."""
    roots = [k.body for k in plan.kernels] + [k.guard for k in plan.kernels
                                                if k.guard is not None]
    for stmt in walk_host(plan.host):
        roots += list(child_nodes(stmt, ir.Node, ("loc", "type")))
    return any(isinstance(node, ir.GraphQuery) and node.op == "count_inNbrs"
               for root in roots for node in ir.walk(root))


def _check_host_queries(plan: P.Plan) -> None:
    """Host code runs on every rank alike: it may not ask for an edge of a row that only one
    rank holds."""
    for stmt in walk_host(plan.host):
        for expr in child_nodes(stmt, ir.Node, ("loc", "type")):
            for node in ir.walk(expr):
                if isinstance(node, ir.GraphQuery) and node.op in ROW_QUERIES:
                    raise DistributionError(
                        f"g.{node.op} outside a forall (every rank runs the host code, and "
                        "only the owner of the vertex holds its row)", node.loc)


def _check_updates(kernel: P.Kernel, writes: Iterable[RemoteWrite]) -> None:
    ops: Dict[str, str] = {}
    for write in writes:
        op = "secondary" if write.primary else write.op
        if ops.setdefault(write.array, op) != op:
            raise DistributionError(
                f"'{write.array}' is written at other vertices with two operators "
                f"({ops[write.array]} and {op}) in one forall", kernel.loc)


def _close_over_copies(plan: P.Plan, mirrored: Dict[str, str]) -> None:
    """An array copied (``dst = src``) or swapped into a mirrored array is mirrored alike: its
    replicas become the mirrored array's."""
    pairs = []
    for stmt in walk_host(plan.host):
        if isinstance(stmt, P.CopyArray):
            pairs.append((stmt.dst.name, stmt.src.name, False))
        elif isinstance(stmt, P.SwapArrays):
            pairs.append((stmt.a.name, stmt.b.name, True))
    changed = True
    while changed:
        changed = False
        for dst, src, both in pairs:
            if dst in mirrored:
                changed |= _widen(mirrored, src, mirrored[dst])
            if both and src in mirrored:
                changed |= _widen(mirrored, dst, mirrored[src])


def _check_edges(plan: P.Plan, kernels: List[P.Kernel], mirrored: Dict[str, str],
                 found: Dict[str, Locality]) -> None:
    """Edge properties are kept where their edge's source is owned: one that kernels write
    must not be read or written at other ranks' edges."""
    arrays = {a.name: a for a in plan.arrays}
    written = {p.name for k in kernels for p in k.params if p.written}
    remote = {w.array for local in found.values() for w in local.remote_writes}
    for name in set(mirrored) | remote:
        array = arrays.get(name)
        if array is not None and array.extent == "edges" and name in written:
            loc = array.sym.loc if isinstance(array.sym, ir.Symbol) else None
            raise DistributionError(
                f"the edge property '{name}' is written and used at edges another rank owns",
                loc)
