"""A BFS's small levels in one work-group's rounds, without the host between them.

A sparse top-down step (``bfs_queue.py``) is one launch, and the host reads its counts before
it picks the next step. On a graph of many small levels that round trip is the traversal: a
PoCL launch and its read cost 50-80 us, so a 512 x 512 grid's 1,022 levels take about 70 ms
of bfs where GAPBS, whose levels meet at an OpenMP barrier, takes 4 ms (bench/RESULTS.md,
"Session 60, grids"). Here a level that small does not need the whole device: one
work-group runs the step, meets at a barrier, reads the counts its items made (atomics on a
small ``state`` array), takes the host's decision for the next step itself and, while the
next level stays sparse, top-down and at most ``ROUND_LIMIT`` vertices and out-edges, runs
it too. When it stops (the BFS is over, or the next level is too large), it leaves
the host's state (depth, start, counts, edges left unexplored, widest level) in ``state``,
which the host reads in one copy and goes on from, as if it had run those steps itself.

The kernel (``forward_rounds``, extent ``group``) is the sparse step's body in a loop over
the level's entries strided by the group's size, with the step's kernel scalars (depth,
start) as locals that advance each round, and its counts as atomics on ``state``: every
work item computes the same decision from the same counts, so all leave the loop together.
The host launches it in place of a sparse step where the frontier is that small
(``control._expand_bfs``). With a reverse sweep, where every level ran in the rounds, a second
kernel (``reverse_rounds``) sweeps all the levels' slices in one work-group. A device whose
work items run in lockstep (a GPU), or a target without such kernels
(``Capabilities.group_rounds``: OpenACC), keeps the launches (``choose_rounds``).
"""

from __future__ import annotations

import dataclasses
from typing import Optional, Tuple

from starc.analysis import plan as P
from starc.analysis.bfs import DEPTH
from starc.analysis.elide import elide_dead_scalars, read_scalars
from starc.analysis.frontier_constants import DENSE_DIVISOR
from starc.analysis.host_tree import kernels_launched_by, map_blocks, off_lockstep, walk_host
from starc.analysis.pass_builder import IRShorthands
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["GroupKernel", "ROUND_LIMIT", "SLOTS", "FRONTIER", "UNEXPLORED", "WIDEST",
           "forward_rounds", "reverse_rounds", "choose_rounds", "ROUNDS", "ROUNDS_WHY",
           "LOCKSTEP", "WITHOUT_ROUNDS"]

#: the most vertices, and the most out-edges, of a level that one work-group's rounds take:
#: on a CPU device the group is one core (8192 edges: about 25 us, a third of a launch and
#: its read on PoCL)
ROUND_LIMIT = 8192

#: the slots of the state array, in order: what the host reads back after the rounds
SLOTS = ("depth", "start", "awake", "scout", "unexplored", "widest")
_DEPTH, _START, _AWAKE, _SCOUT, _UNEXPLORED, _WIDEST = range(len(SLOTS))
assert len(SLOTS) == P.ROUND_SLOTS

#: the kernel scalars that carry the host's frontier (its length), edges still unexplored and
#: widest level in
FRONTIER = "bfs_frontier"
UNEXPLORED = "bfs_unexplored"
WIDEST = "bfs_widest"

#: what a BFS loop's form says of the rounds (``choose_rounds``): where they run, and why not
ROUNDS = ("a top-down level of at most {limit} vertices and out-edges, and the next ones "
          "while they stay that small, run in {forward}, one work-group that takes the host's "
          "decisions itself, with no launch or read between levels{sweep}")
#: what a fixedPoint's form says where its small sparse rounds run (``worklist_rounds``)
ROUNDS_WHY = ("a sparse round of at most {limit} entries, and the next ones while they stay "
              "that small, run in {kernel}, one work-group that takes the host's decisions "
              "itself, with no launch or read between rounds")
LOCKSTEP = ("a level's (a round's) vertices are spread one per work item, so a hub in a "
            "small level would walk its edges on one lane while the group waits")
WITHOUT_ROUNDS = ("{title} has no kernel of one work-group whose items meet at barriers "
                  "inside a loop")


def _plain(loop: P.BFSLoop, kernel: Optional[P.Kernel]) -> bool:
    """Does ``kernel`` (a sparse step, or the sweep) carry nothing the rounds do not: no
    reduction but the step's counts, no store, no check?"""
    counted = {loop.awake.uid, loop.scout.uid}
    return kernel is None or not (any(r.sym.uid not in counted for r in kernel.reductions)
                                  or kernel.stores or kernel.checks)


class GroupKernel(IRShorthands):
    """IR shorthands for a kernel of one work-group: its lane (the kernel's index, named
    ``lane``), and a loop whose items stride over a range by the group's size (also
    ``worklist_rounds``'s)."""

    def __init__(self, builder, loc, lane: str = "bfs_lane") -> None:
        self.builder, self.loc = builder, loc
        self.lane = builder.symbols.make(lane, Scalar.INT, ir.SymbolKind.LOOP, loc)

    def first_lane(self, *stmts: ir.Stmt) -> ir.If:
        return ir.If(self.op("==", self.var(self.lane), self.int(0)), self.block(*stmts),
                     loc=self.loc)

    def barrier(self) -> P.GroupBarrier:
        return P.GroupBarrier(loc=self.loc)

    def strided(self, item: ir.Symbol, count: ir.Expr, *stmts: ir.Stmt) -> ir.Block:
        """``stmts`` for each ``item`` below ``count``, the group's items striding."""
        at = self.var(item)
        lanes = P.GroupLanes(type=Scalar.INT, loc=self.loc)
        return self.block(ir.Declare(item, self.var(self.lane), loc=self.loc), ir.While(
            self.op("<", at, count), self.block(*stmts, self.assign(at, self.plus(at, lanes))),
            loc=self.loc))


class _Rounds(GroupKernel):
    """Builds the rounds kernel's body from a sparse step's (see the module docstring)."""

    def __init__(self, builder, loop: P.BFSLoop, loc) -> None:
        super().__init__(builder, loc)
        self.loop = loop
        self.state = builder.local_array("bfs_rounds", "rounds")
        make = builder.symbols.make
        self.locals = {name: make(f"bfs_round_{name}", Scalar.INT, ir.SymbolKind.LOCAL, loc)
                       for name in ("depth", "start", "count", "unexplored", "widest",
                                    "awake", "scout")}
        self.more = make("bfs_round_more", Scalar.BOOL, ir.SymbolKind.LOCAL, loc)
        self.fused = make("bfs_round_fused", Scalar.BOOL, ir.SymbolKind.LOCAL, loc)

    def ref(self, name: str) -> ir.VarRef:
        return self.var(self.locals[name] if name in self.locals else getattr(self, name))

    def slot(self, at: int) -> ir.PropRead:
        return ir.PropRead(self.state.sym, self.int(at), type=Scalar.INT, loc=self.loc)

    def set(self, name: str, value: ir.Expr) -> ir.Assign:
        return self.assign(self.ref(name), value)

    # --- the kernel
    def step(self, sparse: P.Kernel) -> ir.Block:
        """The entries of the level, each running the body of ``sparse`` (a sparse step, a
        ``_plain`` one) at the round's depth and start, its counts added to the state's
        slots."""
        counted = {self.loop.awake.uid: _AWAKE, self.loop.scout.uid: _SCOUT}
        scalars = {DEPTH: self.ref("depth"), self.builder.start.name: self.ref("start")}

        def rewrite(node):
            if isinstance(node, P.KernelScalar) and node.name in scalars:
                return scalars[node.name]
            if isinstance(node, P.AtomicReduce) and isinstance(node.target, ir.VarRef):
                return dataclasses.replace(node, target=self.slot(
                    counted[node.target.sym.uid]))
            return None
        return self.strided(sparse.index, self.ref("count"),
                            *ir.transform(sparse.body, rewrite).stmts)

    def body(self, entries: ir.Stmt, widest: bool, fused: bool) -> ir.Block:
        s, n = self, ir.GraphQuery("num_nodes", self.loop.graph, type=Scalar.INT, loc=self.loc)
        awake, scout = s.ref("awake"), s.ref("scout")
        limit = s.op("/", n, s.int(DENSE_DIVISOR), Scalar.INT)
        small = [s.op("!=", awake, s.int(0))] + [
            s.op("<=", count, bound) for count in (awake, scout)
            for bound in (s.int(ROUND_LIMIT), limit)]
        # (so the host would not switch to bottom-up: ``control`` keeps a frontier that
        # small top-down)
        more = small[0]
        for test in small[1:]:
            more = s.op("&&", more, test)
        after = [s.set("start", s.plus(s.ref("start"), s.ref("count")))]
        if widest:
            after += [s.first_lane(s.assign(
                ir.PropRead(self.builder.starts.sym, s.plus(s.ref("depth"), s.int(1)),
                            type=Scalar.INT, loc=s.loc), s.ref("start"))),
                ir.If(s.op(">", s.ref("count"), s.ref("widest")),
                      s.block(s.set("widest", s.ref("count"))), loc=s.loc)]
        zero_counts = s.first_lane(s.assign(s.slot(_AWAKE), s.int(0)),
                                   s.assign(s.slot(_SCOUT), s.int(0)))
        # (after the first level the frontier's B1 has not run: each step runs it)
        unfused = (s.set("fused", ir.Const(False, type=Scalar.BOOL, loc=s.loc)),) \
            if fused else ()
        next_level = ir.If(s.ref("more"), s.block(
            *unfused,
            s.set("depth", s.plus(s.ref("depth"), s.int(1))),
            s.set("unexplored", s.op("-", s.ref("unexplored"), scout, Scalar.INT)),
            s.set("count", awake), zero_counts), loc=s.loc)
        rounds = ir.While(s.ref("more"), s.block(
            entries, s.barrier(),
            s.set("awake", s.slot(_AWAKE)), s.set("scout", s.slot(_SCOUT)), *after,
            s.set("more", more),
            # every item has read the counts before the first zeroes them for the next level
            s.barrier(), next_level, s.barrier()), loc=s.loc)
        inputs = {"depth": P.KernelScalar(DEPTH, type=Scalar.INT, loc=s.loc),
                  "start": P.KernelScalar(self.builder.start.name, type=Scalar.INT, loc=s.loc),
                  "count": P.KernelScalar(FRONTIER, type=Scalar.INT, loc=s.loc),
                  "unexplored": P.KernelScalar(UNEXPLORED, type=Scalar.INT, loc=s.loc),
                  "widest": P.KernelScalar(WIDEST, type=Scalar.INT, loc=s.loc),
                  "awake": s.int(0), "scout": s.int(0)}
        declared = [ir.Declare(self.locals[name], value, loc=s.loc)
                    for name, value in inputs.items() if widest or name != "widest"]
        declared.append(ir.Declare(self.more, ir.Const(True, type=Scalar.BOOL, loc=s.loc),
                                   loc=s.loc))
        if fused:
            declared.append(ir.Declare(self.fused, P.KernelScalar(
                self.loop.fused_name, type=Scalar.BOOL, loc=s.loc), loc=s.loc))
        left = [s.assign(s.slot(at), s.ref(name)) for at, name in
                ((_DEPTH, "depth"), (_START, "start"), (_UNEXPLORED, "unexplored"))]
        if widest:
            left.append(s.assign(s.slot(_WIDEST), s.ref("widest")))
        return s.block(*declared, zero_counts, s.barrier(), rounds, s.first_lane(*left))


def forward_rounds(builder, loop: P.BFSLoop, sparse: P.Kernel, expand: Optional[P.Kernel]
                   ) -> Optional[Tuple[P.Kernel, P.DeviceArray]]:
    """The rounds kernel of ``loop``'s sparse step ``sparse`` and its state array (made by
    ``builder``, a ``bfs_queue`` builder), or None where a step carries more than its counts
    (``_plain``). Where the loop fuses B1 into its bottom-up steps, ``expand`` is the sparse
    step without B1: the first level runs it when the host's flag (``fused_name``) says the
    frontier's B1 already ran, as the host would, and every later level the step."""
    if not (_plain(loop, sparse) and _plain(loop, expand)):
        return None
    rounds = _Rounds(builder, loop, sparse.loc)
    entries: ir.Stmt = rounds.step(sparse)
    if expand is not None:
        entries = ir.If(rounds.ref("fused"), rounds.step(expand), entries, loc=rounds.loc)
    body = rounds.body(entries, widest=loop.reverse is not None, fused=expand is not None)
    kernel = builder.kernel(f"{loop.forward.name}_rounds", rounds.lane, "group", None, body,
                            schedule_why="one work-group runs the small levels one after "
                                         "another, its items striding over each level's "
                                         "entries")
    return kernel, rounds.state


def reverse_rounds(builder, loop: P.BFSLoop) -> Optional[P.Kernel]:
    """The reverse sweep as one work-group's rounds: from level ``DEPTH`` down to 0, each
    level's slice of the order (``bfs_queue``'s ``starts``) strided over the group's items,
    a barrier between levels; None where the sweep's kernel reduces, stores or checks
    anything. The host launches it where every level ran in the forward rounds (so each has
    at most ``ROUND_LIMIT`` vertices and out-edges) instead of a launch per level."""
    sweep = loop.reverse
    if sweep is None or sweep.reductions or not _plain(loop, sweep):
        return None
    g = GroupKernel(builder, sweep.loc)
    make = builder.symbols.make
    level = make("bfs_round_depth", Scalar.INT, ir.SymbolKind.LOCAL, g.loc)
    item = make(f"{sweep.index.name}_item", Scalar.INT, ir.SymbolKind.LOCAL, g.loc)

    def starts(at: ir.Expr) -> ir.PropRead:
        return ir.PropRead(builder.starts.sym, at, type=Scalar.INT, loc=g.loc)

    def at_level(node):
        return g.var(level) if isinstance(node, P.KernelScalar) and node.name == DEPTH \
            else None
    body = ir.transform(sweep.body, at_level)
    if sweep.guard is not None:
        body = ir.If(ir.transform(sweep.guard, at_level), body, loc=g.loc)
    first = starts(g.var(level))
    width = g.op("-", starts(g.plus(g.var(level), g.int(1))), first, Scalar.INT)
    vertex = ir.Declare(sweep.index, ir.PropRead(builder.order.sym, g.plus(first, g.var(item)),
                                                 type=Scalar.INT, loc=g.loc), loc=g.loc)
    levels = ir.While(g.op(">=", g.var(level), g.int(0)), g.block(
        g.strided(item, width, vertex, body), g.barrier(),
        g.assign(g.var(level), g.op("-", g.var(level), g.int(1), Scalar.INT))), loc=g.loc)
    kernel_body = g.block(ir.Declare(level, P.KernelScalar(DEPTH, type=Scalar.INT, loc=g.loc),
                                     loc=g.loc), levels)
    return builder.kernel(f"{sweep.name}_rounds", g.lane, "group", None, kernel_body,
                          schedule_why="one work-group sweeps the small levels one after "
                                       "another, its items striding over each level's slice")


def choose_rounds(plan: P.Plan, capabilities, frontier=frozenset()
                  ) -> Tuple[P.Plan, str, str]:
    """``plan`` as it runs on the target, and what its BFS loops' form and its fixedPoints'
    (whose rounds kernels ``frontier`` names: ``worklist_rounds``) say of the rounds.
    They need kernels of one work-group (``Capabilities.group_rounds``) whose items do not run
    in lockstep: a level's vertices are spread one per item, so on a GPU a hub in a small
    level would walk its edges on one lane while the block waits (``LOCKSTEP``). Where the
    target learns its device kind at run time (OpenCL, SYCL), the launch's test also asks
    for a device that is not lockstep; where it has no such kernels or is lockstep (OpenACC,
    CUDA), every launch of one gives way to what it stands in for (the ``HostIf``'s other
    branch: the sparse step, the sweep level by level) and the kernels and state go."""
    rounds = {k.name for k in plan.kernels if k.extent == "group"}
    if not rounds:
        return plan, "", ""
    if capabilities.group_rounds and not capabilities.lockstep:
        # (a forward kernel leaves its state for the host; a sweep's leaves none)
        forward = [k.name for k in plan.kernels if k.name in rounds and any(
            p.array is not None and p.array.extent == "rounds" for p in k.params)
            and k.name not in frontier]
        sweep = sorted(rounds - set(forward) - set(frontier))
        why = ROUNDS.format(limit=ROUND_LIMIT, forward=", ".join(forward), sweep=(
            f"; where every level ran there, {', '.join(sweep)} sweeps them back in one "
            f"work-group too" if sweep else ""))
        frontier_why = ROUNDS_WHY.format(limit=ROUND_LIMIT, kernel=", ".join(
            sorted(rounds & set(frontier))))
        if capabilities.lockstep_at_run_time:
            host = off_lockstep(plan.host, lambda stmt: _launches_rounds(stmt, rounds))
            gpu = f" (on a GPU not: {LOCKSTEP})"
            return dataclasses.replace(plan, host=host), why + gpu, frontier_why + gpu
        return plan, why, frontier_why
    why = LOCKSTEP if capabilities.lockstep else WITHOUT_ROUNDS.format(
        title=capabilities.title)

    def rewrite(block: P.HostBlock) -> P.HostBlock:
        stmts = []
        for stmt in block.stmts:
            stmt = map_blocks(stmt, rewrite)
            if _launches_rounds(stmt, rounds):
                stmts += stmt.orelse.stmts
                continue
            stmts.append(stmt)
        return dataclasses.replace(block, stmts=tuple(stmts))
    host = rewrite(plan.host)
    # (the forward rounds' flag that every level ran there, read only by the sweep's choice)
    host = elide_dead_scalars(host, read_scalars(host))
    used = {a.name for s in walk_host(host) for k in kernels_launched_by(s) for a in
            (p.array for p in k.params) if a is not None}
    states = {a.name for a in plan.arrays if a.extent == "rounds"} - used
    return dataclasses.replace(plan, host=host,
                               kernels=tuple(k for k in plan.kernels if k.name not in rounds),
                               arrays=tuple(a for a in plan.arrays if a.name not in states)), \
        f"each small level is a launch: {why}", f"each small round is a launch: {why}"


def _launches_rounds(stmt: P.HostStmt, rounds) -> bool:
    """Is ``stmt`` the ``HostIf`` whose first branch launches a kernel of ``rounds``?"""
    return isinstance(stmt, P.HostIf) and bool(stmt.then.stmts) and any(
        k.name in rounds for k in kernels_launched_by(stmt.then.stmts[0]))
