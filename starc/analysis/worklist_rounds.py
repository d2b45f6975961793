"""A worklist's small sparse rounds in one work-group, without the host between them.

A data-driven fixedPoint's sparse round (``frontier.py``) is one launch, and the host reads
the next queue's length before it picks the next round. Where the rounds are many and small
that round trip is the loop: on a 512 x 512 grid Bellman-Ford with a priority window
(``priority_window``) runs about 1,280 rounds of a few hundred entries, and a PoCL launch and
its read cost about 55 us, most of the 76 ms that sssp takes there (GAPBS: 50 ms). As for a
BFS's small levels (``bfs_rounds``), a round that small does not need the whole device: one
work-group runs it, its items striding over the queue's entries, meets at a barrier, reads
the next queue's length and takes the host's decision itself: while the next round is sparse
and at most ``ROUND_LIMIT`` entries it runs that too.

The kernel (extent ``group``) is the sparse round's body in a loop. The host swaps the flags
and the queues after each round; here the step alternates between the body as written and
the body with both pairs swapped (even steps read the queue and flags the host passed, odd
steps the others), and the round number the body stamps with is a local that advances each
step. The queue length's two slots and the window's three alternate with the round number as
they do between launches. When it stops it leaves the last round's number and the steps it
ran in ``state``; the host reads both in one copy, swaps once more where the steps were even
(its own swap after the launch stands for one step), and reads the length as after any
sparse round. It needs a round of one kernel that clears its own entries' flags and carries
nothing but its appends (no reduction, store or check). The specialize stage keeps it where
``bfs_rounds.choose_rounds`` keeps a BFS's rounds: on a device whose work items do not run in
lockstep, of a target that has such kernels (OpenCL, SYCL).
"""

from __future__ import annotations

import dataclasses
from typing import Optional, Tuple

from starc.analysis import plan as P
from starc.analysis.bfs_rounds import ROUND_LIMIT, GroupKernel
from starc.analysis.frontier_constants import (DENSE_DIVISOR, FRONTIER_COUNT, FRONTIER_ROUND,
                                               length_slot)
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["STATE_SLOTS", "frontier_rounds", "grouped_launch"]

#: the state the rounds leave for the host, in slot order: the last round's number and the
#: steps run
STATE_SLOTS = ("round", "steps")
_ROUND, _STEPS = range(len(STATE_SLOTS))



def _plain(kernel: P.Kernel) -> bool:
    """Does the sparse round carry nothing but its appends (no reduction, store, check)?"""
    return not (kernel.reductions or kernel.stores or kernel.checks)


def frontier_rounds(builder, sparse: P.Kernel) -> Optional[Tuple[P.Kernel, P.DeviceArray]]:
    """The rounds kernel of ``sparse`` (a worklist's one sparse round, which clears its own
    entries' flags) and its state array, made by ``builder`` (``frontier._Builder``); None
    where the round carries more than its appends (``_plain``)."""
    if not _plain(sparse):
        return None
    loop = builder.loop
    g = GroupKernel(builder, sparse.loc, lane="frontier_lane")
    state = builder.local_array(f"{loop.current.name}_rounds", "rounds")
    make = builder.symbols.make

    def local(name: str, type_: Scalar = Scalar.INT) -> ir.Symbol:
        return make(name, type_, ir.SymbolKind.LOCAL, g.loc)
    now, count, steps, following = (local(f"frontier_round_{name}")
                                    for name in ("now", "count", "steps", "next"))
    more = local("frontier_round_more", Scalar.BOOL)

    def at_round(node):
        if isinstance(node, P.KernelScalar) and node.name == FRONTIER_ROUND:
            return g.var(now)
        return None
    even = ir.transform(sparse.body, at_round)
    # the arrays the host swaps after each round: the queues, the flags
    pairs = ((builder.queue, builder.next_queue), (loop.current, loop.next))
    arrays = {a.name: b for x, y in pairs for a, b in ((x, y), (y, x))}
    syms = {a.sym.uid: b.sym for x, y in pairs for a, b in ((x, y), (y, x))}

    def swapped(node):
        if isinstance(node, ir.PropRead) and node.prop.uid in syms:
            return dataclasses.replace(node, prop=syms[node.prop.uid])
        if isinstance(node, P.QueueAppend) and node.queue.name in arrays:
            return dataclasses.replace(node, queue=arrays[node.queue.name])
        return None
    odd = ir.transform(even, swapped)
    parity = g.op("%", g.var(steps), g.int(2), Scalar.INT)
    entries = ir.If(g.op("==", parity, g.int(0)),
                    g.strided(sparse.index, g.var(count), *even.stmts),
                    g.strided(sparse.index, g.var(count), *odd.stmts), loc=g.loc)
    n = ir.GraphQuery("num_nodes", builder.graph, type=Scalar.INT, loc=g.loc)
    length = ir.PropRead(builder.size.sym, length_slot(g.var(now)), type=Scalar.INT,
                         loc=g.loc)
    small = g.op("&&", g.op("!=", g.var(following), g.int(0)), g.op("&&", g.op(
        "<=", g.var(following), g.int(ROUND_LIMIT)), g.op(
        "<=", g.var(following), g.op("/", n, g.int(DENSE_DIVISOR), Scalar.INT))))
    step = ir.While(g.var(more), g.block(
        entries, g.barrier(),
        g.assign(g.var(following), length), g.assign(g.var(more), small),
        g.assign(g.var(steps), g.plus(g.var(steps), g.int(1))),
        # every item has read the length before the next step's first item zeroes its slot
        g.barrier(),
        ir.If(g.var(more), g.block(g.assign(g.var(now), g.plus(g.var(now), g.int(1))),
                                   g.assign(g.var(count), g.var(following))), loc=g.loc)),
        loc=g.loc)

    def slot(at: int) -> ir.PropRead:
        return ir.PropRead(state.sym, g.int(at), type=Scalar.INT, loc=g.loc)
    body = g.block(
        ir.Declare(now, P.KernelScalar(FRONTIER_ROUND, type=Scalar.INT, loc=g.loc), loc=g.loc),
        ir.Declare(count, P.KernelScalar(FRONTIER_COUNT, type=Scalar.INT, loc=g.loc),
                   loc=g.loc),
        ir.Declare(steps, g.int(0), loc=g.loc), ir.Declare(following, g.int(0), loc=g.loc),
        ir.Declare(more, ir.Const(True, type=Scalar.BOOL, loc=g.loc), loc=g.loc),
        step, g.first_lane(g.assign(slot(_ROUND), g.var(now)),
                           g.assign(slot(_STEPS), g.var(steps))))
    kernel = builder.kernel(f"{sparse.name}_rounds", g.lane, "group", None, body, sparse,
                            schedule_why="one work-group runs the small rounds one after "
                                         "another, its items striding over each round's "
                                         "entries")
    return kernel, state


def grouped_launch(s: P.FixedPointLoop, count: ir.VarRef, rounds: ir.VarRef,
                   window_args, sparse: Tuple[P.HostStmt, ...]) -> P.HostIf:
    """The host's side (``control.expand_worklist``): ``if (count <= ROUND_LIMIT) { launch
    the rounds;  read round and steps;  where the steps were even, swap once more } else
    sparse``: a small sparse round runs in one work-group with the ones after it while they
    stay small, and the host, whose own swaps after the launch stand for one step, goes on
    from the last."""
    loc, w = s.loc, s.worklist
    kernel, state = w.rounds
    steps = ir.VarRef(w.steps, type=Scalar.INT, loc=loc)
    even = ir.Binary("==", ir.Binary("%", steps, _const(2, loc), type=Scalar.INT, loc=loc),
                     _const(0, loc), type=Scalar.BOOL, loc=loc)
    swap = P.HostIf(even, P.HostBlock((P.SwapArrays(s.current, s.next, loc=loc),
                                       P.SwapArrays(w.queue, w.next_queue, loc=loc)), loc=loc),
                    None, loc=loc)
    grouped = P.HostBlock((
        P.Launch(kernel, ((FRONTIER_COUNT, count), (FRONTIER_ROUND, rounds)) + window_args,
                 loc=loc),
        P.ReadSlots(state, (w.round, w.steps), loc=loc), swap), loc=loc)
    small = ir.Binary("<=", count, _const(ROUND_LIMIT, loc), type=Scalar.BOOL, loc=loc)
    return P.HostIf(small, grouped, P.HostBlock(sparse, loc=loc), loc=loc)


def _const(value: int, loc) -> ir.Const:
    return ir.Const(value, type=Scalar.INT, loc=loc)
