"""Worklists on a distributed target: each rank's queue of its own vertices.

A rank's kernels append to a worklist (``QueueAppend``: a BFS's order) only the vertices the
rank owns (``local_index`` guards an append of a vertex that may be another rank's), so a
vertex read from the queue is the work item's own (``locality``). A claim of another rank's
vertex (a BFS step's atomic max of ``level[w]`` from -1, whose winner appends ``w``) goes to
the owner as the max's combined update; where it wins there, the owner appends the vertex to
its own queue (``Superstep.queued``, applied by the exchange). An append of another rank's
vertex outside such a claim would be lost: it is refused.
"""

from __future__ import annotations

from typing import Dict, Iterable, Tuple

from starc.analysis import plan as P
from starc.ir import nodes as ir

__all__ = ["rank_queues", "rank_positions", "queued_vertex_is_own", "claimed_queues"]


def rank_queues(plan: P.Plan) -> Dict[int, P.DeviceArray]:
    """The worklists ``plan``'s kernels append to, by symbol uid."""
    return {node.queue.sym.uid: node.queue for kernel in plan.kernels
            for node in ir.walk(kernel.body) if isinstance(node, P.QueueAppend)}


def rank_positions(plan: P.Plan) -> Dict[int, P.DeviceArray]:
    """The arrays each rank keeps for itself, indexed by position rather than by vertex: its
    worklists and the starts of its levels in them (extent ``levels``), by symbol uid."""
    found = rank_queues(plan)
    found.update({a.sym.uid: a for a in plan.arrays
                  if a.extent == "levels" and a.sym is not None})
    return found


def queued_vertex_is_own(kernel: P.Kernel, queues, e: ir.Expr) -> bool:
    """Whether vertex ``e`` is surely the rank's own: the work item's of a kernel over nodes,
    or one read from a worklist (``queues``: their uids)."""
    if isinstance(e, ir.VarRef) and e.sym.uid == kernel.index.uid:
        return kernel.extent == "nodes"
    return isinstance(e, ir.PropRead) and e.prop.uid in queues


def claimed_queues(kernel: P.Kernel, names: Dict[int, str], remote: Iterable[str],
                   queues, error) -> Tuple[Tuple[str, str, str], ...]:
    """(claimed array, queue, its length's array) for each claim in ``kernel`` of a vertex
    of ``remote`` arrays (those it writes at other ranks' vertices) whose winner appends that
    vertex: the owner appends it where the claim's update wins. ``queues``: the worklists'
    uids; ``error(message, loc)``: the exception for an append of a vertex that may be
    another rank's and follows no such claim."""
    remote = set(remote)
    found = []
    claimed = set()
    for node in ir.walk(kernel.body):
        if not (isinstance(node, P.AtomicMinMax) and isinstance(node.target, ir.PropRead)
                and names.get(node.target.prop.uid) in remote
                and isinstance(node.target.index, ir.VarRef)):
            continue
        for stmt in node.then:
            if isinstance(stmt, P.QueueAppend) and isinstance(stmt.value, ir.VarRef) \
                    and stmt.value.sym.uid == node.target.index.sym.uid:
                if not (isinstance(stmt.slot, ir.Const) and stmt.slot.value == 0):
                    raise error("a claim's append to a worklist with alternating lengths", stmt.loc)
                found.append((names[node.target.prop.uid], stmt.queue.name, stmt.size.name))
                claimed.add(id(stmt))
    for node in ir.walk(kernel.body):
        if isinstance(node, P.QueueAppend) and id(node) not in claimed \
                and not queued_vertex_is_own(kernel, queues, node.value):
            raise error("an append of another rank's vertex to a worklist, outside a claim of "
                        "it (the rank would miss it)", node.loc)
    return tuple(dict.fromkeys(found))
