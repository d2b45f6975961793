"""Work-item schedules of kernels with a neighbour loop: one work item per vertex, or one per edge.

A forall over vertices whose body is one neighbour loop runs, as written, one work item per
vertex with a serial loop over its edges: on a power-law graph the items of a warp wait for
their hub (``teaching/simt.py`` models it). When the loop is a *push* (each iteration acts on
its neighbour or edge only, through atomics, flags or stores every writer agrees on), its
iterations are independent of each other and of the vertex's other iterations, so the kernel
may instead run one work item per edge: the ``edges`` schedule, printed as a kernel over the
graph's edges whose item finds its vertex as the edge's endpoint (``sources[e]`` or
``targets[e]``), evaluates the forall's guard and runs the loop body. Every lane then does one
edge's work. A body of several push loops in a row (cc's over out-edges, then in-edges) runs
the same way, each item running every loop's iteration of its edge, the guard tested per
loop: unless one loop stores a computed value another reads, the vertex form's order of
the loops was no more than one interleaving among the many that other items already make.

When the loop is a *pull* that folds the vertex's edges into one value (PageRank's sum), the
``binned`` schedule keeps one work item per light vertex and gives a heavy one (degree at
least the work-group size) to its whole work-group, whose lanes share the loop and combine
their partial values with a group reduction (``analysis.binned`` says which loops qualify);
its items take the vertices in a binned order, the light ones sorted by degree, so that the
lanes of a warp of light vertices do about equal work (``plan.CooperativeLoop.order``).

On a target whose vertex item is a gang of vector lanes (OpenACC: ``Capabilities.vector_loops``)
``binned`` needs no split by degree: every vertex's gang shares its neighbour loop among its
lanes, a pull's fold combined by a reduction clause, push loops (those ``edges`` accepts) with
their iterations spread as they are (``vector_loops``, ``plan.VectorLoop``).

``choose`` picks a kernel's schedule and says why: ``--schedule vertex|edges|binned`` forces
one where the loop allows it; ``auto`` takes ``edges`` (or ``binned`` for a pull, where the
target prints it) on a target whose lanes run in lockstep (a GPU warp:
``Capabilities.lockstep``) and ``vertex`` elsewhere (a CPU gains nothing from it and loses
the cheap skip of a vertex whose guard fails). ``by_edges`` rewrites the kernel.
"""

from __future__ import annotations

import dataclasses
from typing import List, Optional, Tuple

from starc.analysis import plan as P
from starc.analysis.binned import (local_fold, per_vertex_refusal, pull_loop, push_refusal,
                                   shared_between, warp_from)
from starc.analysis.capabilities import Capabilities
from starc.analysis.cooperative import cooperative_body, search_parts, with_local_folds
from starc.analysis.edge_cursors import query_row
from starc.analysis.frontier_edges import frontier_edges
from starc.analysis.transfers import graph_arrays_for_domain, graph_arrays_for_expr
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["SCHEDULES", "choose", "over_updates", "push_loops", "pull_loop", "local_fold", "with_local_folds",
           "binned_split", "warp_from",
           "by_edges", "with_graph_array", "vector_loops_at", "vector_loops"]

#: the schedules ``--schedule`` names (``auto`` chooses among them)
SCHEDULES = ("vertex", "edges", "binned")


def push_loops(kernel: P.Kernel) -> Tuple[Tuple[ir.Loop, ...], str]:
    """``(loops, "")`` when ``kernel`` may run one work item per edge of each of ``loops``
    (its whole body: one neighbour loop, or several in a row, such as cc's over out- and then
    in-edges), else ``((), why not)``."""
    why = per_vertex_refusal(kernel)
    if why:
        return (), why
    loops = kernel.body.stmts
    if not loops or not all(isinstance(s, ir.Loop) and
                            isinstance(s.domain, (ir.Neighbors, ir.InNeighbors)) for s in loops):
        return (), "its body is not one neighbour loop or a sequence of them"
    for loop in loops:
        why = push_refusal(kernel, loop)
        if why:
            return (), why
    why = shared_between(loops)
    if why:
        return (), why
    if kernel.guard is not None and _reads_written(kernel.guard, kernel):
        return (), "its filter reads what the kernel writes"
    return tuple(loops), ""


def _reads_written(guard: ir.Expr, kernel: P.Kernel) -> bool:
    """Whether ``guard`` reads an array the kernel writes (per edge it would be read again,
    perhaps after other items changed it)."""
    written = {p.array.sym.uid for p in kernel.params
               if p.written and p.array is not None and p.array.sym is not None}
    return any(isinstance(n, ir.PropRead) and n.prop.uid in written for n in ir.walk(guard))


def unmet(kernels, forced: Optional[str]) -> List[Tuple[P.Kernel, str]]:
    """Each kernel of ``kernels`` with a neighbour loop (one per forall: the first of each
    location) to which ``--schedule forced`` does not apply, with why: its ``schedule_why`` says so (every
    chooser starts it with ``--schedule FORCED asked, but``)."""
    if forced in (None, "auto"):
        return []
    prefix = f"--schedule {forced} asked, but "
    found, seen = [], set()
    for kernel in kernels:
        if kernel.schedule_why.startswith(prefix) and kernel.loc not in seen \
                and not kernel.variant_of and _neighbour_loop(kernel):
            seen.add(kernel.loc)
            found.append((kernel, kernel.schedule_why[len(prefix):]))
    return found


def _neighbour_loop(kernel: P.Kernel) -> bool:
    return any(isinstance(n, ir.Loop) and isinstance(n.domain, (ir.Neighbors, ir.InNeighbors))
               for n in ir.walk(kernel.body))


def choose(kernel: P.Kernel, capabilities: Capabilities,
           forced: Optional[str] = None) -> Tuple[str, str]:
    """``(schedule, why)`` of ``kernel`` on the target of ``capabilities``; ``forced`` is
    ``--schedule`` (None or ``auto``: choose)."""
    if over_updates(kernel):
        return "vertex", ""     # its items are a batch's updates: no schedule applies
    if kernel.extent == "frontier":
        return _frontier_choice(kernel, capabilities, forced)
    loops, why_not = push_loops(kernel)
    if forced == "binned" and capabilities.vector_loops:
        at, why_not = vector_loops_at(kernel)
        if not at:
            return "vertex", f"--schedule binned asked, but {why_not}: one work item per vertex"
        return "binned", ("--schedule binned: each vertex's gang shares its neighbour loop "
                          "among its vector lanes")
    if forced == "binned":
        cooperative, why_not = binned_split(kernel, capabilities)
        if cooperative is None:
            return "vertex", f"--schedule binned asked, but {why_not}: one work item per vertex"
        return "binned", "--schedule binned" + _tiers_words(capabilities)
    if forced not in (None, "auto"):
        if forced == "vertex" or not loops:
            why = "--schedule vertex" if forced == "vertex" else \
                f"--schedule {forced} asked, but {why_not}: one work item per vertex"
            return "vertex", why
        return forced, f"--schedule {forced}"
    if not loops:
        if not any(isinstance(n, ir.Loop) and isinstance(n.domain, (ir.Neighbors,
                                                                     ir.InNeighbors))
                   for n in ir.walk(kernel.body)):
            return "vertex", "no neighbour loop"
        cooperative, why_not_pull = binned_split(kernel, capabilities)
        if cooperative is None:
            return "vertex", f"one work item per vertex: {why_not}; {why_not_pull}"
        if cooperative.steps:
            fold = _steps_words(cooperative.steps)
            share = ("the whole group, whose lanes share each loop's edges (a fold combined in "
                     "a group reduction, a search stopped for the group at the first edge "
                     "found, in order)")
        else:
            fold = f"the loop folds its edges into '{cooperative.accumulator.name}'"
            share = ("the whole group, whose lanes share its edges and combine their partial "
                     "values in a group reduction")
        if capabilities.lockstep and "binned" in capabilities.schedules:
            return "binned", (f"{fold}: a vertex of degree at least the work-group size gets "
                              f"{share}; lighter vertices keep one work item")
        return "vertex", (f"one work item per vertex: {fold}, and {capabilities.title} "
                          + ("does not print the binned schedule" if capabilities.lockstep
                             else "work items do not run in lockstep") +
                          f" (--schedule binned {_binned_words(capabilities)})")
    if not capabilities.lockstep:
        # name only the schedules this target prints: MPI's answer to --schedule edges is vertex
        others = (["--schedule edges gives one per edge"] if "edges" in capabilities.schedules
                  else []) + ([f"--schedule binned {_binned_words(capabilities)}"]
                              if capabilities.vector_loops else [])
        return "vertex", (f"one work item per vertex: {capabilities.title}'s work items do not "
                          "run in lockstep, so a hub does not hold up its neighbours' items"
                          + (f" ({'; '.join(others)})" if others else ""))
    if len(loops) > 1:
        return "edges", (f"its {len(loops)} neighbour loops push to their neighbours, every "
                         "iteration independent of the others: one work item per edge runs "
                         "each loop's iteration of that edge (its filter tested per edge) and "
                         "keeps every lane of a warp busy, where one per vertex waits for the "
                         "warp's largest degree")
    return "edges", ("the loop pushes to its neighbours, one iteration independent of the "
                     "others: one work item per edge keeps every lane of a warp busy, where "
                     "one per vertex waits for the warp's largest degree")


def over_updates(kernel: P.Kernel) -> bool:
    """Whether ``kernel`` runs one work item per update of a batch (OnAdd/OnDelete, a forall
    over ``currentBatch()``): it reads the updates' fields."""
    return any(p.array is not None and p.array.extent == "updates" for p in kernel.params)


def _frontier_choice(kernel: P.Kernel, capabilities: Capabilities,
                     forced: Optional[str]) -> Tuple[str, str]:
    """``choose`` for a worklist round: one item per entry, or its group's edges split
    (``frontier_edges``)."""
    split, why = frontier_edges(kernel)
    if forced == "vertex":
        return "vertex", "--schedule vertex"
    if split is None:
        asked = f"--schedule {forced} asked, but " if forced not in (None, "auto") else ""
        return "vertex", f"{asked}one work item per worklist entry: {why}"
    if not capabilities.frontier_edges:
        asked = "--schedule edges asked, but " if forced == "edges" else ""
        return "vertex", (f"{asked}one work item per worklist entry: {capabilities.title} does "
                          "not print a work-group's split of its entries' edges")
    if forced == "edges":
        return "edges", "--schedule edges"
    if forced == "binned":
        return "vertex", ("--schedule binned asked, but a worklist changes every round (no "
                          "binned order): one work item per worklist entry (--schedule edges "
                          "splits a work-group's entries' edges)")
    words = ("a work-group's items sum their entries' degrees in local memory and walk the "
             "group's edges a group at a time, each finding its entry by a binary search over "
             "the sums")
    if not capabilities.lockstep:
        return "vertex", (f"one work item per worklist entry: {capabilities.title}'s work items "
                          f"do not run in lockstep (--schedule edges: {words})")
    return "edges", (f"its loops push from a worklist entry, every iteration independent of the "
                     f"others, and the worklist has no precomputed order: {words}, so that "
                     "every lane has an edge but in the group's last step")


def _steps_words(steps) -> str:
    """What a body of several loops does (``cooperative.cooperative_body``), in words."""
    kinds, pending, branch, loops = [], list(steps), False, 0
    while pending:
        step = pending.pop(0)
        pending += list(step.then + step.orelse)
        branch |= step.kind == "branch"
        if step.kind in ("fold", "search", "push"):
            loops += 1
            if step.kind not in kinds:
                kinds.append(step.kind)
    words = {"fold": "fold edges into the vertex", "push": "push to its neighbours",
             "search": "stop at the first edge that passes a test"}
    where = " under an if/else on the vertex" if branch else ""
    verbs = " / ".join(words[k] for k in kinds)
    return (f"its loops {verbs}" if loops > 1 else f"its loop does {verbs}") + where


def binned_split(kernel: P.Kernel, capabilities: Capabilities
                 ) -> Tuple[Optional[P.CooperativeLoop], str]:
    """How a group shares ``kernel``'s heavy vertices: one pull loop (``binned.pull_loop``)
    or, where the target prints it, a body of several loops step by step
    (``cooperative.cooperative_body``); ``(None, why not)``."""
    cooperative, why_pull = pull_loop(kernel)
    one_loop = _one_loop(kernel)
    if cooperative is not None or (why_pull != "its body has no single neighbour loop at the top"
                                   and one_loop is None):
        return cooperative, why_pull
    steps, why = cooperative_body(kernel, pushes=one_loop == "other")
    if steps is None and one_loop == "other":
        return None, why_pull
    if steps is not None and not capabilities.cooperative_bodies:
        return None, (f"{why_pull}, and {capabilities.title} prints only one pull loop per "
                      "binned kernel")
    return steps, why


def _one_loop(kernel: P.Kernel) -> Optional[str]:
    """Whether the body is one neighbour loop: ``"search"`` where it stops at the first edge
    it finds (a BFS's bottom-up step), ``"other"`` (a push, say: a BFS's expansion), None where
    it is not one loop. Neither is a pull loop, but a group may share either as a step."""
    stmts = kernel.body.stmts
    if len(stmts) != 1 or not isinstance(stmts[0], ir.Loop) or not isinstance(
            stmts[0].domain, (ir.Neighbors, ir.InNeighbors)):
        return None
    return "search" if search_parts(stmts[0]) is not None else "other"


def _tiers_words(capabilities: Capabilities) -> str:
    """Why a binned kernel has no warp tier on a target with sub-groups, for its reason."""
    if not capabilities.sub_groups_without_ballot:
        return ""
    return (f"; item and work-group bins only, no warp bin: {capabilities.title}'s sub-groups "
            "have no ballot to pick the next vertex a warp's lanes marked")


def _binned_words(capabilities: Capabilities) -> str:
    """What ``--schedule binned`` does on the target, for the reason of another schedule."""
    if capabilities.vector_loops:
        return "spreads each vertex's edges over its gang's vector lanes"
    return "shares a heavy vertex's edges in its work-group"


def vector_loops_at(kernel: P.Kernel) -> Tuple[Tuple[Tuple[ir.Loop, str, Optional[ir.Symbol]],
                                                 ...], str]:
    """The neighbour loops of ``kernel``'s body (its fold folded into a local first) a
    vertex's gang of vector lanes may share (``Capabilities.vector_loops``), each with the
    operator and accumulator of its fold ("" and None for a push): a pull's loop, whose fold
    a reduction clause combines, push loops, every iteration independent (what the other
    schedules accept), or the folds and pushes of a body of several loops (a search, which
    stops at the first edge found, stays on one lane: ``cooperative.cooperative_body``);
    ``((), why not)`` where none."""
    cooperative, why_pull = pull_loop(kernel)
    if cooperative is not None:
        if cooperative.wraps:
            return (), "its fold wraps, which a reduction clause's combine does not"
        found = ((local_fold(kernel).body.stmts[cooperative.loop_at], cooperative.op,
                  cooperative.accumulator),)
    else:
        loops, why_push = push_loops(kernel)
        # a lone push loop whose per-edge form was refused (a BFS step's expansion, whose
        # filter reads the level it writes): its gang tests the filter once, as one item would
        steps, why_steps = (cooperative_body(kernel, pushes=_one_loop(kernel) == "other")
                            if not loops else (None, ""))
        if not loops and steps is None:     # one reason once (a hoisted term refuses both)
            return (), why_push if why_push == why_pull else f"{why_push}, and {why_pull}"
        found = tuple((loop, "", None) for loop in loops)
        if steps is not None:
            found, why = _shared_steps(with_local_folds(kernel).body.stmts, steps.steps)
            if why or not found:
                return (), why or ("its loops only search (a loop that stops early is no "
                                   "vector loop)")
    for loop, _, _ in found:
        if any(query_row(n, loop.var) is not None for n in ir.walk(loop.body)):
            return (), ("the loop's edge queries keep a cursor from one iteration to the "
                        "next")
    return found, ""


def _shared_steps(stmts, steps):
    """The fold and push loops of a body's ``steps`` (``vector_loops_at``), or ``((), why)``."""
    found = []
    for step in steps:
        if step.kind == "branch":
            for block, inner in ((stmts[step.at].then, step.then),
                                 (stmts[step.at].orelse, step.orelse)):
                more, why = _shared_steps(block.stmts, inner)
                if why:
                    return (), why
                found += more
        elif step.kind == "fold" and step.wraps:
            return (), "its fold wraps, which a reduction clause's combine does not"
        elif step.kind in ("fold", "push"):
            found.append((stmts[step.at], step.op, step.accumulator))
    return tuple(found), ""


def vector_loops(kernel: P.Kernel) -> Tuple[P.VectorLoop, ...]:
    """The ``binned`` ``kernel``'s loops on a target of vector loops (``vector_loops_at``),
    each with what its lanes reduce: a pull's accumulator, the scalar reductions whose
    private copy (``ScalarReduction.strategy``, forms chosen) the loop updates."""
    found, _ = vector_loops_at(kernel)
    private = {red.sym.uid: red for red in kernel.reductions if red.strategy != "atomic"}
    shared = []
    for loop, op, accumulator in found:
        reductions = [(op, accumulator)] if accumulator is not None else []
        for node in ir.walk(loop):
            if isinstance(node, (P.AtomicReduce, P.AtomicMinMax)) and \
                    isinstance(node.target, ir.VarRef) and node.target.sym.uid in private:
                red = private.pop(node.target.sym.uid)
                reductions.append((red.op, red.sym))
        shared.append(P.VectorLoop(loop.var, tuple(reductions)))
    return tuple(shared)


def by_edges(kernel: P.Kernel, loops: Tuple[ir.Loop, ...], why: str) -> P.Kernel:
    """``kernel`` (``push_loops`` accepted ``loops``) as a kernel over the graph's edges: its
    index is the first loop's edge; per loop, the vertex and the neighbour are the edge's
    endpoints (an in-neighbour loop's edge is the same forward edge, seen from its
    destination). Several loops each get a block of their own, one after the other."""
    edge = loops[0].domain.edge
    index_ref = ir.VarRef(edge, type=edge.type, loc=loops[0].loc)
    parts = tuple(_edge_part(kernel, loop, index_ref) for loop in loops)
    if len(parts) == 1:
        block = ir.Block(parts[0], loc=kernel.body.loc)
    else:
        block = ir.Block(tuple(ir.Block(part, loc=loop.loc) for part, loop in zip(parts, loops)),
                         loc=kernel.body.loc)
    return dataclasses.replace(kernel, index=edge, extent="edges", guard=None, body=block,
                               params=_edge_params(kernel, block), schedule="edges",
                               schedule_why=why)


def _edge_part(kernel: P.Kernel, loop: ir.Loop, index_ref: ir.VarRef) -> Tuple[ir.Stmt, ...]:
    """The statements running ``loop``'s iteration of the edge ``index_ref``: the vertex and
    the neighbour as its endpoints, the guard and the loop's filter, the loop's body."""
    forward = isinstance(loop.domain, ir.Neighbors)
    vertex_end, neighbour_end = ("source", "destination") if forward else \
        ("destination", "source")

    def endpoint(end: str) -> ir.Expr:
        return ir.EdgeEndpoint(index_ref, end, type=Scalar.NODE, loc=loop.loc)

    conds = [c for c in (kernel.guard, loop.filter) if c is not None]
    # only the symbols the iteration reads are declared: an unread endpoint would be an
    # unused variable, which a -Werror build (nvcc's) refuses
    read = {n.sym for part in (loop.body, *conds) for n in ir.walk(part)
            if isinstance(n, ir.VarRef)}
    head = tuple(ir.Declare(sym, value, loc=loop.loc) for sym, value in (
        (kernel.index, endpoint(vertex_end)), (loop.var, endpoint(neighbour_end)),
        (loop.domain.edge, index_ref)) if sym in read and sym != index_ref.sym)
    body: ir.Stmt = loop.body
    if conds:
        cond = conds[0] if len(conds) == 1 else ir.Binary("&&", conds[0], conds[1],
                                                           type=Scalar.BOOL, loc=loop.loc)
        body = ir.If(cond, loop.body, loc=loop.loc)
    return head + (body,)


def with_graph_array(kernel: P.Kernel, name: str) -> P.Kernel:
    """``kernel`` taking the graph array ``name`` too (a binned kernel's order), its graph
    parameters in the plan's order."""
    graph = {p.name: p for p in kernel.params if p.array is not None and p.array.role == "graph"}
    graph.setdefault(name, _graph_param(name))
    others = tuple(p for p in kernel.params if p.array is None or p.array.role != "graph")
    return dataclasses.replace(kernel, params=tuple(graph[n] for n in P.GRAPH_ARRAYS
                                                    if n in graph) + others)


def _edge_params(kernel: P.Kernel, body: ir.Block) -> Tuple[P.KernelParam, ...]:
    """The kernel's parameters with the graph arrays ``body`` reads instead of the vertex
    loop's, in the plan's graph order."""
    names = set()
    for node in ir.walk(body):
        if isinstance(node, ir.Loop):
            uses_edge = any(isinstance(n, ir.VarRef) and n.sym == getattr(node.domain, "edge",
                                                                            None)
                            for n in ir.walk(node))
            names.update(graph_arrays_for_domain(node.domain, uses_edge))
        names.update(graph_arrays_for_expr(node))
    graph = [_graph_param(name) for name in P.GRAPH_ARRAYS if name in names]
    return tuple(graph) + tuple(p for p in kernel.params
                                if p.array is None or p.array.role != "graph")


def _graph_param(name: str) -> P.KernelParam:
    return P.KernelParam(name, Scalar.INT, array=P.DeviceArray(
        name, Scalar.INT, P.GRAPH_ARRAYS[name], "graph", copy_in=True))
