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
from starc.analysis.host_tree import kernels_launched_by, map_blocks, off_lockstep, walk_host
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["ROUND_LIMIT", "SLOTS", "FRONTIER", "UNEXPLORED", "WIDEST", "forward_rounds",
           "reverse_rounds", "choose_rounds", "ROUNDS", "LOCKSTEP", "WITHOUT_ROUNDS"]

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
LOCKSTEP = ("a level's vertices are spread one per work item, so a hub in a small level "
            "would walk its edges on one lane while the group waits")
WITHOUT_ROUNDS = ("{title} has no kernel of one work-group whose items meet at barriers "
                  "inside a loop")


class _Rounds:
    """Builds the rounds kernel's body from a sparse step's (see the module docstring)."""

    def __init__(self, builder, loop: P.BFSLoop, sparse: P.Kernel) -> None:
        self.builder, self.loop, self.sparse, self.loc = builder, loop, sparse, sparse.loc
        self.state = builder.local_array("bfs_rounds", "rounds")
        make = builder.symbols.make
        self.lane = make("bfs_lane", Scalar.INT, ir.SymbolKind.LOOP, self.loc)
        self.locals = {name: make(f"bfs_round_{name}", Scalar.INT, ir.SymbolKind.LOCAL,
                                  self.loc)
                       for name in ("depth", "start", "count", "unexplored", "widest",
                                    "awake", "scout")}
        self.more = make("bfs_round_more", Scalar.BOOL, ir.SymbolKind.LOCAL, self.loc)
        self.fused = make("bfs_round_fused", Scalar.BOOL, ir.SymbolKind.LOCAL, self.loc)

    # --- IR shorthands
    def int(self, value: int) -> ir.Const:
        return ir.Const(value, type=Scalar.INT, loc=self.loc)

    def ref(self, name: str) -> ir.VarRef:
        sym = self.locals[name] if name in self.locals else getattr(self, name)
        return ir.VarRef(sym, type=sym.type, loc=self.loc)

    def op(self, op: str, a: ir.Expr, b: ir.Expr, type_: Scalar = Scalar.BOOL) -> ir.Binary:
        return ir.Binary(op, a, b, type=type_, loc=self.loc)

    def plus(self, a: ir.Expr, b: ir.Expr) -> ir.Binary:
        return self.op("+", a, b, Scalar.INT)

    def slot(self, at: int) -> ir.PropRead:
        return ir.PropRead(self.state.sym, self.int(at), type=Scalar.INT, loc=self.loc)

    def assign(self, target: ir.Expr, value: ir.Expr) -> ir.Assign:
        return ir.Assign(target, value, loc=self.loc)

    def set(self, name: str, value: ir.Expr) -> ir.Assign:
        return self.assign(self.ref(name), value)

    def block(self, *stmts: ir.Stmt) -> ir.Block:
        return ir.Block(tuple(stmts), loc=self.loc)

    def first_lane(self, *stmts: ir.Stmt) -> ir.If:
        return ir.If(self.op("==", self.ref("lane"), self.int(0)), self.block(*stmts),
                     loc=self.loc)

    def barrier(self) -> P.GroupBarrier:
        return P.GroupBarrier(loc=self.loc)

    # --- the kernel
    def step(self, sparse: P.Kernel) -> Optional[ir.Block]:
        """The body of ``sparse`` (a sparse step) at the round's depth and start, its counts
        added to the state's slots; None where it reduces or stores anything else (a user's
        reduction inside the BFS), or checks, which the rounds do not carry."""
        counted = {self.loop.awake.uid: _AWAKE, self.loop.scout.uid: _SCOUT}
        if any(r.sym.uid not in counted for r in sparse.reductions) \
                or sparse.stores or sparse.checks:
            return None
        scalars = {DEPTH: self.ref("depth"), self.builder.start.name: self.ref("start")}

        def rewrite(node):
            if isinstance(node, P.KernelScalar) and node.name in scalars:
                return scalars[node.name]
            if isinstance(node, P.AtomicReduce) and isinstance(node.target, ir.VarRef):
                at = counted[node.target.sym.uid]
                return dataclasses.replace(node, target=self.slot(at))
            return None
        return ir.transform(sparse.body, rewrite)

    def entries(self, sparse: P.Kernel, step: ir.Block) -> ir.Block:
        """``step`` (of ``sparse``) for each entry of the level, the group's items striding."""
        s, item = self, sparse.index
        item_ref = ir.VarRef(item, type=Scalar.INT, loc=s.loc)
        return s.block(
            ir.Declare(item, s.ref("lane"), loc=s.loc),
            ir.While(s.op("<", item_ref, s.ref("count")), s.block(
                *step.stmts, s.assign(item_ref, s.plus(item_ref, P.GroupLanes(
                    type=Scalar.INT, loc=s.loc)))), loc=s.loc))

    def body(self, entries: ir.Stmt, widest: bool, fused: bool) -> ir.Block:
        s, n = self, ir.GraphQuery("num_nodes", self.loop.graph, type=Scalar.INT, loc=self.loc)
        from starc.analysis.frontier import DENSE_DIVISOR
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
        unfused = (ir.Assign(ir.VarRef(self.fused, type=Scalar.BOOL, loc=s.loc),
                             ir.Const(False, type=Scalar.BOOL, loc=s.loc), loc=s.loc),) \
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
    (``_Rounds.step``). Where the loop fuses B1 into its bottom-up steps, ``expand`` is the
    sparse step without B1: the first level runs it when the host's flag (``fused_name``)
    says the frontier's B1 already ran, as the host would, and every later level the step."""
    rounds = _Rounds(builder, loop, sparse)
    step = rounds.step(sparse)
    fused = rounds.step(expand) if expand is not None else None
    if step is None or (expand is not None and fused is None):
        builder.arrays = tuple(a for a in builder.arrays if a is not rounds.state)
        return None
    entries: ir.Stmt = rounds.entries(sparse, step)
    if expand is not None:
        entries = ir.If(ir.VarRef(rounds.fused, type=Scalar.BOOL, loc=rounds.loc),
                        rounds.entries(expand, fused), entries, loc=rounds.loc)
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
    if sweep is None or sweep.reductions or sweep.stores or sweep.checks:
        return None
    loc = sweep.loc
    make = builder.symbols.make
    lane = make("bfs_lane", Scalar.INT, ir.SymbolKind.LOOP, loc)
    level = make("bfs_round_depth", Scalar.INT, ir.SymbolKind.LOCAL, loc)
    item = make(f"{sweep.index.name}_item", Scalar.INT, ir.SymbolKind.LOCAL, loc)

    def ref(sym: ir.Symbol) -> ir.VarRef:
        return ir.VarRef(sym, type=sym.type, loc=loc)

    def int_(value: int) -> ir.Const:
        return ir.Const(value, type=Scalar.INT, loc=loc)

    def op(name: str, a: ir.Expr, b: ir.Expr, type_: Scalar = Scalar.INT) -> ir.Binary:
        return ir.Binary(name, a, b, type=type_, loc=loc)

    def starts(at: ir.Expr) -> ir.PropRead:
        return ir.PropRead(builder.starts.sym, at, type=Scalar.INT, loc=loc)

    def at_level(node):
        if isinstance(node, P.KernelScalar) and node.name == DEPTH:
            return ref(level)
        return None
    guard, body = (ir.transform(part, at_level) if part is not None else None
                   for part in (sweep.guard, sweep.body))
    first = starts(ref(level))
    width = op("-", starts(op("+", ref(level), int_(1))), first)
    vertex = ir.Declare(sweep.index, ir.PropRead(builder.order.sym, op("+", first, ref(item)),
                                                 type=Scalar.INT, loc=loc), loc=loc)
    visit = ir.If(guard, body, loc=loc) if guard is not None else body
    entries = ir.While(op("<", ref(item), width, Scalar.BOOL), ir.Block((
        vertex, visit,
        ir.Assign(ref(item), op("+", ref(item), P.GroupLanes(type=Scalar.INT, loc=loc)),
                  loc=loc)), loc=loc), loc=loc)
    levels = ir.While(op(">=", ref(level), int_(0), Scalar.BOOL), ir.Block((
        ir.Declare(item, ref(lane), loc=loc), entries, P.GroupBarrier(loc=loc),
        ir.Assign(ref(level), op("-", ref(level), int_(1)), loc=loc)), loc=loc), loc=loc)
    body = ir.Block((ir.Declare(level, P.KernelScalar(DEPTH, type=Scalar.INT, loc=loc),
                                loc=loc), levels), loc=loc)
    return builder.kernel(f"{sweep.name}_rounds", lane, "group", None, body,
                          schedule_why="one work-group sweeps the small levels one after "
                                       "another, its items striding over each level's slice")


def choose_rounds(plan: P.Plan, capabilities) -> Tuple[P.Plan, str]:
    """``plan`` as it runs on the target, and what its BFS loops' form says of the rounds.
    They need kernels of one work-group (``Capabilities.group_rounds``) whose items do not run
    in lockstep: a level's vertices are spread one per item, so on a GPU a hub in a small
    level would walk its edges on one lane while the block waits (``LOCKSTEP``). Where the
    target learns its device kind at run time (OpenCL, SYCL), the launch's test also asks
    for a device that is not lockstep; where it has no such kernels or is lockstep (OpenACC,
    CUDA), every launch of one gives way to what it stands in for (the ``HostIf``'s other
    branch: the sparse step, the sweep level by level) and the kernels and state go."""
    rounds = {k.name for k in plan.kernels if k.extent == "group"}
    if not rounds:
        return plan, ""
    if capabilities.group_rounds and not capabilities.lockstep:
        # (a forward kernel leaves its state for the host; a sweep's leaves none)
        forward = [k.name for k in plan.kernels if k.name in rounds and any(
            p.array is not None and p.array.extent == "rounds" for p in k.params)]
        sweep = sorted(rounds - set(forward))
        why = ROUNDS.format(limit=ROUND_LIMIT, forward=", ".join(forward), sweep=(
            f"; where every level ran there, {', '.join(sweep)} sweeps them back in one "
            f"work-group too" if sweep else ""))
        if capabilities.lockstep_at_run_time:
            host = off_lockstep(plan.host, lambda stmt: _launches_rounds(stmt, rounds))
            return dataclasses.replace(plan, host=host), f"{why} (on a GPU not: {LOCKSTEP})"
        return plan, why
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
        f"each small level is a launch: {why}"


def _launches_rounds(stmt: P.HostStmt, rounds) -> bool:
    """Is ``stmt`` the ``HostIf`` whose first branch launches a kernel of ``rounds``?"""
    return isinstance(stmt, P.HostIf) and bool(stmt.then.stmts) and any(
        k.name in rounds for k in kernels_launched_by(stmt.then.stmts[0]))
