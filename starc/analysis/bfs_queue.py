"""Top-down BFS steps over a queue of the frontier, where the frontier is small.

A top-down step of ``bfs.py`` launches one work item per vertex and keeps those at the
current depth: every step reads all n levels. On a graph of many levels (a road network, a
lattice: a 512 x 512 grid has 1,022) that scan is most of the traversal, O(n x depth), where
GAPBS's top-down step walks a queue of the frontier, O(frontier). This pass gives each
``BFSLoop`` a ``BFSQueue``: sparse variants of its top-down kernels (``forward``, and
``expand`` where B1 is fused) with one work item per queue entry, which claim each newly
reached vertex with an atomic max on its level (-1 -> depth + 1: exactly one winner, as
levels change only from -1 in a step) and append it to the next queue. Their counts of
reached vertices and out-edges move under the claim, so ``awake`` is exactly the next queue's
length and the host reads nothing more per step. ``control.expand_bfs`` launches the sparse
variant when the frontier holds at most n / ``frontier.DENSE_DIVISOR`` vertices (as a
worklist's sparse round), the dense one otherwise; a sparse step after a dense or bottom-up
one first compacts the frontier's levels into the queue (``build``).

The loop keeps both forms (``DataDrivenLoop``): a target without worklists (MPI: a rank's
appends miss the vertices other ranks reach) keeps the dense steps (``frontier.choose_form``).
On a GPU a sparse step runs one work item per entry unless its body is one push loop (then
the entries' edges are shared: ``frontier_edges``); where the dense step shares a hub's edges
instead (BC's forward step, which also pulls from the parents), a hub in a small frontier would
walk its edges on one lane, so on a GPU the steps stay dense (``lockstep_queues``).
"""

from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Set, Tuple

from starc.analysis import plan as P
from starc.analysis.bfs import DEPTH
from starc.analysis.frontier import length_slot
from starc.analysis.host_tree import kernels_launched_by, map_blocks, walk_host
from starc.analysis.kernels import kernel_params
from starc.analysis.naming import NameAllocator, SymbolFactory, symbols_in
from starc.ir import nodes as ir
from starc.ir.types import PropType, Scalar

__all__ = ["bfs_queues", "lockstep_queues", "SPARSE_ONE_LANE"]

#: why a BFS's top-down steps stay over every vertex on a GPU (``lockstep_queues``)
SPARSE_ONE_LANE = ("on a GPU a step over the queue would run {sparse} one work item per "
                   "entry (its body is not one push loop, so the entries' edges are not "
                   "shared), and a hub in a small frontier would walk its edges on one lane, "
                   "where {dense} shares them (schedule {schedule})")


class _Builder:
    """Makes the queue arrays and kernels of one BFS."""

    def __init__(self, arrays, loop: P.BFSLoop, symbols: SymbolFactory,
                 names: NameAllocator) -> None:
        self.loop, self.symbols, self.names, self.arrays = loop, symbols, names, arrays
        self.loc = loop.loc
        self.queue = self._array("bfs_queue")
        self.next_queue = self._array("bfs_queue_nxt")
        self.size = P.DeviceArray(names.unique("bfs_queue_size"), Scalar.INT, "two", "flag")
        self.arrays += (self.size,)
        self.depth = P.KernelScalar(DEPTH, type=Scalar.INT, loc=self.loc)
        self.kernels: List[P.Kernel] = []

    def _array(self, name: str) -> P.DeviceArray:
        name = self.names.unique(name)
        sym = self.symbols.make(name, PropType("node", Scalar.INT), ir.SymbolKind.LOCAL,
                                self.loc)
        array = P.DeviceArray(name, Scalar.INT, "nodes", "local", sym=sym)
        self.arrays += (array,)
        return array

    def kernel(self, name: str, index: ir.Symbol, extent: str, guard, body: ir.Block,
               like: Optional[P.Kernel] = None) -> P.Kernel:
        errors = tuple(p.array for p in (like.params if like else ())
                       if p.array is not None and p.array.role == "error")
        params, self.arrays = kernel_params(self.arrays, index, guard, body, errors)
        scalars = tuple({n.name: n for n in ir.walk(body)
                         if isinstance(n, P.KernelScalar)}.values())
        made = P.Kernel(self.names.unique(name), index, extent, guard, body, params,
                        like.reductions if like else (), loc=like.loc if like else self.loc,
                        scalars=scalars, stores=like.stores if like else (),
                        checks=like.checks if like else ())
        self.kernels.append(made)
        return made

    def _int(self, value: int) -> ir.Const:
        return ir.Const(value, type=Scalar.INT, loc=self.loc)

    def claimed(self, body: ir.Block) -> ir.Block:
        """``body`` with each top-down visit (``level[w] = depth + 1`` and its counts, under
        ``level[w] == -1``: ``bfs._Step.visit``) made a claim: an atomic max of ``level[w]``
        to ``depth + 1`` whose one winner appends ``w`` and counts it."""
        level = self.loop.level.sym

        def rewrite(node):
            if not (isinstance(node, ir.Block) and node.stmts
                    and isinstance(node.stmts[0], ir.Assign)):
                return None
            store = node.stmts[0]
            target = store.target
            if not (isinstance(target, ir.PropRead) and target.prop.uid == level.uid
                    and isinstance(target.index, ir.VarRef)
                    and all(isinstance(s, (ir.Reduce, P.AtomicReduce))
                            for s in node.stmts[1:])):
                return None
            append = P.QueueAppend(self.next_queue, self.size, target.index,
                                   length_slot(self.depth), loc=store.loc)
            claim = P.AtomicMinMax("Max", target, store.value,
                                   then=(append,) + node.stmts[1:], loc=store.loc)
            return dataclasses.replace(node, stmts=(claim,))
        return ir.transform(body, rewrite)

    def sparse(self, kernel: P.Kernel) -> P.Kernel:
        """``kernel`` (a top-down step over the vertices at ``depth``) over the queue's
        entries, each visit a claim; its first item zeroes the length's slot the next step
        appends to (``frontier.length_slot``)."""
        loc = kernel.loc
        item = self.symbols.make(f"{kernel.index.name}_item", Scalar.INT, ir.SymbolKind.LOOP,
                                 loc)
        at = ir.Declare(kernel.index, ir.PropRead(self.queue.sym, ir.VarRef(
            item, type=Scalar.INT, loc=loc), type=Scalar.INT, loc=loc), loc=loc)
        first = ir.Binary("==", ir.VarRef(item, type=Scalar.INT, loc=loc), self._int(0),
                          type=Scalar.BOOL, loc=loc)
        reset = ir.If(first, ir.Block((P.QueueReset(self.size, length_slot(
            self.depth, following=True), loc=loc),), loc=loc), loc=loc)
        # every entry is at ``depth``: the dense kernel's guard holds
        body = ir.Block((at,) + self.claimed(kernel.body).stmts + (reset,), loc=kernel.body.loc)
        return self.kernel(f"{kernel.name}_sparse", item, "frontier", None, body, kernel)

    def queue_form(self) -> P.BFSQueue:
        loop, loc = self.loop, self.loc
        v = self.symbols.make("v", Scalar.INT, ir.SymbolKind.LOOP, loc)
        ref = ir.VarRef(v, type=Scalar.INT, loc=loc)
        at_depth = ir.Binary("==", ir.PropRead(loop.level.sym, ref, type=Scalar.INT, loc=loc),
                             self.depth, type=Scalar.BOOL, loc=loc)
        build = self.kernel("bfs_queue_build", v, "nodes", at_depth, ir.Block((P.QueueAppend(
            self.queue, self.size, ref, length_slot(self.depth, following=True), loc=loc),),
            loc=loc))
        forward = self.sparse(loop.forward)
        expand = self.sparse(loop.expand) if loop.expand is not None else None
        return P.BFSQueue(self.queue, self.next_queue, self.size, build, forward, expand)


def bfs_queues(plan: P.Plan, symbols: SymbolFactory) -> P.Plan:
    """The ``bfs_queue`` pass: every ``BFSLoop`` of a function with a graph gets a
    ``BFSQueue``."""
    names = NameAllocator([a.name for a in plan.arrays] + [k.name for k in plan.kernels]
                          + [s.name for s in symbols_in(plan.function)])
    state = {"arrays": plan.arrays, "kernels": ()}

    def rewrite(block: P.HostBlock) -> P.HostBlock:
        stmts = []
        for stmt in block.stmts:
            stmt = map_blocks(stmt, rewrite)
            if isinstance(stmt, P.BFSLoop):
                builder = _Builder(state["arrays"], stmt, symbols, names)
                stmt = dataclasses.replace(stmt, queue=builder.queue_form())
                state["arrays"] = builder.arrays
                state["kernels"] += tuple(builder.kernels)
            stmts.append(stmt)
        return P.HostBlock(tuple(stmts), loc=block.loc)
    host = rewrite(plan.host)
    return dataclasses.replace(plan, host=host, arrays=state["arrays"],
                               kernels=plan.kernels + state["kernels"])


def lockstep_queues(plan: P.Plan, capabilities,
                    variants: Dict[str, P.Kernel]) -> Tuple[P.Plan, Dict[object, str]]:
    """Where a BFS's sparse step would run one work item per entry on a lockstep device
    (schedule ``vertex``) while its dense step cooperates there (module docstring): on a
    target that is lockstep (CUDA) the reason, by the loop's location, so that the loop keeps
    its dense steps (``frontier.choose_form``'s ``dense_at``); on one that learns its device
    kind at run time (OpenCL, SYCL) the reason too, and the sparse step's test gains ``&& !``
    ``OnLockstepDevice``. ``variants``: the lockstep variants of the kernels, by the name of
    the kernel each stands in for (``specialize.lockstep_variants``)."""
    if not capabilities.worklists or not (capabilities.lockstep
                                          or capabilities.lockstep_at_run_time):
        return plan, {}
    schedules = {k.name: k for k in plan.kernels}
    schedules.update(variants)
    reasons: Dict[object, str] = {}

    def rewrite(block: P.HostBlock) -> P.HostBlock:
        stmts = []
        for stmt in block.stmts:
            stmt = map_blocks(stmt, rewrite)
            if isinstance(stmt, P.DataDrivenLoop) and stmt.traversal:
                reason = _one_lane(stmt.worklist, schedules)
                if reason:
                    reasons[stmt.loc] = reason
                    if not capabilities.lockstep:
                        stmt = dataclasses.replace(stmt, worklist=_off_lockstep(
                            stmt.worklist, _sparse_names(stmt.worklist)))
            stmts.append(stmt)
        return dataclasses.replace(block, stmts=tuple(stmts))
    return dataclasses.replace(plan, host=rewrite(plan.host)), reasons


def _sparse_names(block: P.HostBlock) -> Set[str]:
    return {k.name for s in walk_host(block) for k in kernels_launched_by(s)
            if k.extent == "frontier"}


def _one_lane(block: P.HostBlock, kernels: Dict[str, P.Kernel]) -> str:
    """The reason a sparse step of ``block`` (a BFS's queue form) is worse on a lockstep
    device than its dense step, or ''. ``kernels``: each kernel as a lockstep device runs it."""
    launched = {k.name for s in walk_host(block) for k in kernels_launched_by(s)}
    for name in sorted(_sparse_names(block)):
        dense_name = name.removesuffix("_sparse")
        dense, sparse = kernels.get(dense_name), kernels[name]
        if dense_name in launched and sparse.schedule == "vertex" \
                and dense.schedule != "vertex":
            return SPARSE_ONE_LANE.format(sparse=name, dense=dense_name,
                                          schedule=dense.schedule)
    return ""


def _off_lockstep(block: P.HostBlock, sparse: Set[str]) -> P.HostBlock:
    """``block`` with the test that picks the sparse step (the ``HostIf`` on the frontier's
    size whose branch launches a kernel of ``sparse``) also requiring a device that is not
    lockstep."""
    def rewrite(b: P.HostBlock) -> P.HostBlock:
        stmts = []
        for stmt in b.stmts:
            stmt = map_blocks(stmt, rewrite)
            # (the test on the frontier's size and count; a fused BFS's choice between its
            # two sparse kernels, on a host flag alone, inside it stays as it is)
            if isinstance(stmt, P.HostIf) and not isinstance(stmt.cond, ir.VarRef) \
                    and any(k.name in sparse for s in walk_host(stmt.then)
                            for k in kernels_launched_by(s)):
                loc = stmt.cond.loc
                cpu = ir.Unary("!", P.OnLockstepDevice(type=Scalar.BOOL, loc=loc),
                               type=Scalar.BOOL, loc=loc)
                stmt = dataclasses.replace(stmt, cond=ir.Binary("&&", stmt.cond, cpu,
                                                                type=Scalar.BOOL, loc=loc))
            stmts.append(stmt)
        return dataclasses.replace(b, stmts=tuple(stmts))
    return rewrite(block)
