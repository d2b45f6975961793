"""Top-down BFS steps over a queue of the frontier, where the frontier is small.

A top-down step of ``bfs.py`` launches one work item per vertex and keeps those at the
current depth: every step reads all n levels. On a graph of many levels (a road network, a
lattice: a 512 x 512 grid has 1,022) that scan is most of the traversal, O(n x depth), where
GAPBS's top-down step walks a queue of the frontier, O(frontier). This pass gives each
``BFSLoop`` a ``BFSQueue``: sparse variants of its top-down kernels (``forward``, and
``expand`` where B1 is fused) with one work item per entry of the current level in an
``order`` array, which claim each newly reached vertex with an atomic max on its level (-1 ->
depth + 1: exactly one winner, as levels change only from -1 in a step) and append it to the
order, after the current level. Their counts of reached vertices and out-edges move under the
claim, so ``awake`` is exactly the next level's length and the host reads nothing more per
step. ``control.expand_bfs`` launches the sparse variant when the frontier holds at most
n / ``frontier.DENSE_DIVISOR`` vertices (as a worklist's sparse round), the dense one
otherwise; a sparse step after a bottom-up one first compacts the frontier's levels into the
order (``build``). When every step was sparse, the order holds the levels one after the other
(GAPBS's BC keeps the same), so the reverse sweep runs over each level's slice of it
(``reverse``) instead of testing every vertex's level per depth.

The loop keeps both forms (``DataDrivenLoop``): a target without worklists (MPI: a rank's
appends miss the vertices other ranks reach) keeps the dense steps (``frontier.choose_form``).
On a GPU a sparse step runs one work item per entry unless its body is one push loop (then
the entries' edges are shared: ``frontier_edges``); where the dense step shares a hub's edges
instead (BC's forward step, which also pulls from the parents), a hub in a small frontier would
walk its edges on one lane, so on a GPU the steps stay dense (``lockstep_queues``).

Where the levels are smaller still, ``bfs_rounds`` runs them in one work-group without the
host between them (``BFSQueue.rounds``).
"""

from __future__ import annotations

import dataclasses
from typing import Dict, Set, Tuple

from starc.analysis import plan as P
from starc.analysis.bfs import DEPTH
from starc.analysis.bfs_rounds import forward_rounds, reverse_rounds
from starc.analysis.host_tree import kernels_launched_by, map_blocks, off_lockstep, walk_host
from starc.analysis.naming import NameAllocator, SymbolFactory, symbols_in
from starc.analysis.pass_builder import PassBuilder
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["bfs_queues", "lockstep_queues", "SPARSE_ONE_LANE", "START"]

#: The by-value kernel argument of a sparse step: where its level starts in the order
START = "bfs_start"

#: why a BFS's top-down steps stay over every vertex on a GPU (``lockstep_queues``)
SPARSE_ONE_LANE = ("on a GPU a step over the queue would run {sparse} one work item per "
                   "entry (its body is not one push loop, so the entries' edges are not "
                   "shared), and a hub in a small frontier would walk its edges on one lane, "
                   "where {dense} shares them (schedule {schedule})")


class _Builder(PassBuilder):
    """Makes the queue arrays and kernels of one BFS."""

    def __init__(self, arrays, loop: P.BFSLoop, symbols: SymbolFactory,
                 names: NameAllocator) -> None:
        super().__init__(arrays, symbols, names, loop.loc)
        self.loop = loop
        self.order = self.local_array("bfs_order")
        self.starts = self.local_array("bfs_starts", "levels")
        self.end = P.DeviceArray(names.unique("bfs_order_end"), Scalar.INT, "two", "flag")
        self.arrays += (self.end,)
        self.depth = P.KernelScalar(DEPTH, type=Scalar.INT, loc=self.loc)
        self.start = P.KernelScalar(START, type=Scalar.INT, loc=self.loc)

    def _int(self, value: int) -> ir.Const:
        return ir.Const(value, type=Scalar.INT, loc=self.loc)

    def _read(self, array: P.DeviceArray, index: ir.Expr) -> ir.PropRead:
        return ir.PropRead(array.sym, index, type=Scalar.INT, loc=self.loc)

    def _plus(self, a: ir.Expr, b: ir.Expr) -> ir.Binary:
        return ir.Binary("+", a, b, type=Scalar.INT, loc=self.loc)

    def _append(self, vertex: ir.Expr, loc) -> P.QueueAppend:
        """``vertex`` at the end of the order: ``end[0]``, its append counter, ends where
        the current level does (the step that made the level, or the build, counted it
        there), so the next level follows it."""
        return P.QueueAppend(self.order, self.end, vertex, self._int(0), loc=loc)

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
            append = self._append(target.index, store.loc)
            claim = P.AtomicMinMax("Max", target, store.value,
                                   then=(append,) + node.stmts[1:], loc=store.loc)
            return dataclasses.replace(node, stmts=(claim,))
        return ir.transform(body, rewrite)

    def _item(self, kernel: P.Kernel) -> ir.Symbol:
        return self.symbols.make(f"{kernel.index.name}_item", Scalar.INT, ir.SymbolKind.LOOP,
                                 kernel.loc)

    def sparse(self, kernel: P.Kernel) -> P.Kernel:
        """``kernel`` (a top-down step over the vertices at ``depth``) over the level's
        entries of the order (from ``START``), each visit a claim."""
        loc = kernel.loc
        item = self._item(kernel)
        at = ir.Declare(kernel.index, self._read(self.order, self._plus(
            self.start, ir.VarRef(item, type=Scalar.INT, loc=loc))), loc=loc)
        # every entry is at ``depth``: the dense kernel's guard holds
        body = ir.Block((at,) + self.claimed(kernel.body).stmts, loc=kernel.body.loc)
        return self.kernel(f"{kernel.name}_sparse", item, "frontier", None, body, kernel)

    def reverse(self, kernel: P.Kernel) -> P.Kernel:
        """The reverse sweep's ``kernel`` over the order's slice of level ``depth``
        (``starts[depth]`` up to ``starts[depth + 1]``), launched with as many items as the
        widest level: an item past its level's slice does nothing."""
        loc = kernel.loc
        item = self._item(kernel)
        ref = ir.VarRef(item, type=Scalar.INT, loc=loc)
        first = self._read(self.starts, self.depth)
        width = ir.Binary("-", self._read(self.starts, self._plus(self.depth, self._int(1))),
                          first, type=Scalar.INT, loc=loc)
        at = ir.Declare(kernel.index, self._read(self.order, self._plus(first, ref)), loc=loc)
        # the guard (level == depth, and the sweep's condition) still holds or filters
        inside = ir.Block((at, ir.If(kernel.guard, kernel.body, loc=loc)), loc=loc)
        body = ir.Block((ir.If(ir.Binary("<", ref, width, type=Scalar.BOOL, loc=loc), inside,
                               loc=loc),), loc=kernel.body.loc)
        return self.kernel(f"{kernel.name}_sparse", item, "frontier", None, body, kernel)

    def queue_form(self) -> P.BFSQueue:
        loop, loc = self.loop, self.loc
        v = self.symbols.make("v", Scalar.INT, ir.SymbolKind.LOOP, loc)
        ref = ir.VarRef(v, type=Scalar.INT, loc=loc)
        at_depth = ir.Binary("==", ir.PropRead(loop.level.sym, ref, type=Scalar.INT, loc=loc),
                             self.depth, type=Scalar.BOOL, loc=loc)
        build = self.kernel("bfs_queue_build", v, "nodes", at_depth,
                            ir.Block((self._append(ref, loc),), loc=loc))
        forward = self.sparse(loop.forward)
        expand = self.sparse(loop.expand) if loop.expand is not None else None
        reverse = self.reverse(loop.reverse) if loop.reverse is not None else None
        rounds, state = forward_rounds(self, loop, forward, expand) or (None, None)
        sweep = reverse_rounds(self, loop) if rounds is not None else None
        return P.BFSQueue(self.order, self.starts, self.end, build, forward, expand, reverse,
                          START, rounds, state, sweep)


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
                    variants: Dict[str, P.Kernel]) -> Tuple[P.Plan, Dict[object, str], bool]:
    """Where a BFS's sparse step would run one work item per entry on a lockstep device
    (schedule ``vertex``) while its dense step cooperates there (module docstring): the
    reason, by the loop's location, and whether the program picks at run time. It does on a
    target that learns its device kind then (OpenCL, SYCL) and prints kernels' variants for
    lockstep devices (``variants``, by the name of the kernel each stands in for:
    ``specialize.lockstep_variants``): there the sparse step's test gains ``&& !``
    ``OnLockstepDevice``. Elsewhere (CUDA; a forced ``--schedule``, whose kernels are the same
    on every device) the loop keeps its dense steps (``frontier.choose_form``'s
    ``topology_at``)."""
    run_time = capabilities.lockstep_at_run_time and not capabilities.lockstep \
        and bool(variants)
    if not capabilities.worklists or not (capabilities.lockstep
                                          or capabilities.lockstep_at_run_time):
        return plan, {}, run_time
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
                    if run_time:
                        stmt = dataclasses.replace(stmt, worklist=_off_lockstep(
                            stmt.worklist, _sparse_names(stmt.worklist)))
            stmts.append(stmt)
        return dataclasses.replace(block, stmts=tuple(stmts))
    return dataclasses.replace(plan, host=rewrite(plan.host)), reasons, run_time


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
    # (the test on the frontier's size and count; a fused BFS's choice between its two sparse
    # kernels, on a host flag alone, inside it stays as it is)
    return off_lockstep(block, lambda stmt: not isinstance(stmt.cond, ir.VarRef) and any(
        k.name in sparse for s in walk_host(stmt.then) for k in kernels_launched_by(s)))
