"""Host control lowering: ``FixedPointLoop`` and ``BFSLoop`` become plain host loops over
device operations, so every backend prints the same loops and none re-derives them.

A fixedPoint over property ``p`` with flag variable ``fin`` (``FixedPointLoop``)::

    do {
        fin = True;                       (only when something reads fin inside the loop)
        write flag[0] = 0;  fill next = False;
        body                              (every exit from it swaps first, see below)
        swap current <-> next;
        check errors;                     (only when the body launches checked kernels)
    } while (flag[0] != 0 || !fin);       (``|| !fin`` only when the body may clear fin)
    fin = True;

A ``break``/``continue`` of the loop and every ``return`` inside it swap the buffers first:
the new flags replace the old ones however the iteration ends, as in the reference.

A BFS (``BFSLoop``), direction-optimizing as GAPBS's (``bfs.ALPHA``, ``bfs.BETA``)::

    {
        fill level = -1;  write level[root] = 0;  int bfs_depth = 0;
        int bfs_awake = 1;  int bfs_scout = 0;           (reduced by the step kernels)
        int bfs_unexplored = m;  bool bfs_bottom_up = false;
        do {
            if (!bfs_bottom_up) bfs_bottom_up = bfs_scout > bfs_unexplored / ALPHA;
            int bfs_frontier = bfs_awake;  bfs_awake = 0;
            if (bfs_bottom_up) {
                bfs_scout = 0;  launch bottom_up(bfs_depth);
                bfs_bottom_up = bfs_awake >= bfs_frontier || bfs_awake > n / BETA;
            } else {
                bfs_unexplored -= bfs_scout;  bfs_scout = 0;  launch forward(bfs_depth);
            }
            bfs_depth += 1;
            check errors;                 (only when a step kernel has checks)
        } while (bfs_awake != 0);
        launch values();                  (only with depth stores, ``depth_values``)
        for (int bfs_depth_back = bfs_depth - 1; bfs_depth_back >= 0; --bfs_depth_back)
            launch reverse(bfs_depth_back);          (only with a reverse sweep)
    }

With ``pending`` (B1 fused into the bottom-up discovery, ``bfs.py``) a host bool
``bfs_fused = true`` (the frontier's B1 already ran) joins them: the bottom-up branch starts
with ``if (!bfs_fused) launch pending(bfs_depth);`` and ends with ``bfs_fused = true;``, the
top-down branch launches ``if (bfs_fused) expand(bfs_depth) else forward(bfs_depth)``
(``expand``: the step without B1) and then sets ``bfs_fused = false``. The step that reaches nobody still runs its frontier's
B1 either way, so every reached vertex's B1 runs once.

``bfs_unexplored`` is GAPBS's ``edges_to_check``: it shrinks by the frontier's out-edges at
each top-down step only. A bottom-up step counts no out-edges (``bfs_scout = 0``), so the step
after one that turns back is top-down, as in GAPBS.
"""

from __future__ import annotations

import dataclasses
from typing import List, Optional, Tuple

from starc.analysis import plan as P
from starc.analysis.frontier_seed import ALL_FLAGGED, ONE_FLAGGED
from starc.analysis.elide import elide_dead_scalars, read_scalars
from starc.analysis.host_tree import LOOPS, host_exprs, kernels_launched_by, map_blocks, walk_host
from starc.analysis.naming import SymbolFactory
from starc.analysis.priority_window import WINDOW_DELTA, WINDOW_SCALE
from starc.analysis.worklist_rounds import grouped_launch
from starc.analysis.worklist_setup import first_run, first_run_fills
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["place_loop_checks", "expand_loops", "expand_fixedpoint", "expand_bfs",
           "flag_raised", "launches_checked"]


def place_loop_checks(host: P.HostBlock) -> P.HostBlock:
    """A ``CheckErrors`` at the top of every user loop (``while``, ``do``, ``for`` over a
    set) whose body launches checked kernels: a failed check stops the program instead of
    letting the loop run on (also after a ``continue``). FixedPoint and BFS loops get theirs
    where they are expanded, at the end of each iteration."""
    def rewrite(block: P.HostBlock) -> P.HostBlock:
        stmts = []
        for stmt in block.stmts:
            stmt = map_blocks(stmt, rewrite)
            if isinstance(stmt, (P.HostWhile, P.HostDoWhile, P.HostForSet)) \
                    and launches_checked(stmt.body):
                check = P.CheckErrors(loc=stmt.loc)
                stmt = dataclasses.replace(
                    stmt, body=P.HostBlock((check,) + stmt.body.stmts, loc=stmt.body.loc))
            stmts.append(stmt)
        return P.HostBlock(tuple(stmts), loc=block.loc)
    return rewrite(host)


#: host statements whose body may run many times: a fixedPoint inside one keeps its worklist's
#: round count across its runs (``expand_worklist``'s ``hoisted``)
_REPEATING = LOOPS + (P.BatchLoop,)


def expand_loops(host: P.HostBlock, symbols: SymbolFactory) -> P.HostBlock:
    """``host`` with every ``FixedPointLoop`` and ``BFSLoop`` expanded (innermost first); the
    round counts of the worklists that run many times declared at its top."""
    hoisted: List[P.HostStmt] = []

    def rewrite(block: P.HostBlock, repeats: bool) -> P.HostBlock:
        stmts: List[P.HostStmt] = []
        for stmt in block.stmts:
            inner = repeats or isinstance(stmt, _REPEATING)
            stmt = map_blocks(stmt, lambda b, inner=inner: rewrite(b, inner))
            if isinstance(stmt, P.FixedPointLoop):
                stmts += expand_fixedpoint(stmt, hoisted if repeats else None)
            elif isinstance(stmt, P.BFSLoop):
                stmts.append(expand_bfs(stmt, symbols))
            else:
                stmts.append(stmt)
        return P.HostBlock(tuple(stmts), loc=block.loc)
    body = rewrite(host, False)
    return P.HostBlock(tuple(hoisted) + body.stmts, loc=body.loc)


def flag_raised(flag: P.DeviceArray, loc) -> ir.Expr:
    """``flag[0] != 0``, read on the host: did any work item set the device flag?"""
    read = P.DeviceRead(flag, _int(0, loc), type=flag.elem, loc=loc)
    if flag.elem is Scalar.BOOL:
        return read
    return ir.Binary("!=", read, ir.Const(0, type=flag.elem, loc=loc), type=Scalar.BOOL, loc=loc)


def expand_fixedpoint(s: P.FixedPointLoop,
                      hoisted: Optional[List[P.HostStmt]] = None) -> List[P.HostStmt]:
    """The host loop of ``s``; with a ``Worklist``, a ``DataDrivenLoop`` holding it and the
    worklist form (``expand_worklist``, ``hoisted`` as there)."""
    topology = _expand_topology(s)
    if s.worklist is None:
        return topology
    if s.worklist.seed is not None:     # the launch that sets the first flags, as written
        topology = [s.worklist.seed[0]] + topology
    if s.worklist.fill is not None:
        topology = [s.worklist.fill] + topology
    return [P.DataDrivenLoop(P.HostBlock(tuple(expand_worklist(s, hoisted)), loc=s.loc),
                             P.HostBlock(tuple(topology), loc=s.loc),
                             first_queue=s.worklist.update_seed or (
                                 ALL_FLAGGED if s.worklist.all_flagged else
                                 ONE_FLAGGED if s.worklist.first_vertex is not None else ""),
                             loc=s.loc)]


def expand_worklist(s: P.FixedPointLoop,
                    hoisted: Optional[List[P.HostStmt]] = None) -> List[P.HostStmt]:
    """A data-driven fixedPoint (``frontier.py``; the body is kernel launches only)::

        fill stamp = -1;  fill size = 0;  int round = 0;
        launch build(round);  int count = size[round % 2];
        fill next = False;                (launch build: the seed launch where there is one)
        do {
            round += 1;
            if (count > n / DENSE_DIVISOR) { size[1 - round % 2] = 0;  launch dense(round); }
            else launch sparse(count, round);        (per launch; the reset before the first)
            check errors;                 (only when the body launches checked kernels)
            swap current <-> next;  swap queue <-> next_queue;
            if (count > n / DENSE_DIVISOR) {
                fill next = False;  count = size[round % 2];
                if (count != 0 && count <= n / DENSE_DIVISOR) {
                    round += 1;  size[1 - round % 2] = 0;  launch build(round);
                    count = size[round % 2];
                }
            } else { launch clear(count);  count = size[round % 2]; }
        } while (count != 0);
        fin = True;

    A dense round only counts the flags it flips (``size`` is then a count, possibly too
    large, never 0 when a flag was set); when the next round is sparse, ``build`` compacts
    the flags into the queue. A sparse round appends each flipped vertex once, so ``size``
    is the queue's length. After the swaps ``next`` holds the flags of the round just run,
    set exactly at the old queue's entries after a sparse round, so that one clears only
    those (where ``w.clear`` is None there is no clear launch: the sparse kernel cleared
    each entry's flag as it went).

    ``size`` has two slots: round ``r`` (the compaction a round of its own) appends to (or
    counts in) slot ``r % 2``, which is 0 then, and the host reads the count there. A sparse
    round's first item zeroes the other slot (``QueueReset``), the count of the round
    before, which the host read before the launch (the command queue is in order), so sparse
    rounds take no reset command; before a dense round or a compaction (whose kernels have
    no first item to spare) the host zeroes it. Both slots are 0 when the loop ends (the
    last count read was 0, and the last round zeroed the other slot).

    So every run ends with ``next`` all False, ``size`` 0 and its stamps below its last
    round. A fixedPoint that runs many times (inside a loop, a Dynamic program's batches)
    therefore fills them only on its first run: its ``round`` is declared once, in
    ``hoisted`` (the function's top), and the prologue becomes ``if (round == 0 || round >
    LIMIT) { fill stamp = -1;  fill size = 0;  fill next = False;  round = 0; }`` (two n-long
    fills and a reset fewer per run; the stamps of earlier runs lose to every later round's;
    the first queue goes to the slot the last round left 0). The seed's fill of the flags
    (``w.fill``) joins them: the last run left the flags all False. Where the batch's update
    kernel appends the first queue (``w.update_seed``), it runs that set-up itself, then
    ``round += 1`` and its launch (``frontier_seed.update_seed``), and the prologue here only
    reads the count (0 where the batch had no such update: the set-up ran here).
    """
    from starc.analysis.frontier import DENSE_DIVISOR, FRONTIER_COUNT, FRONTIER_ROUND, length_slot
    loc, w = s.loc, s.worklist
    count = ir.VarRef(w.count, type=Scalar.INT, loc=loc)
    rounds = ir.VarRef(w.round, type=Scalar.INT, loc=loc)

    size = P.DeviceRead(w.size, length_slot(rounds), type=Scalar.INT, loc=loc)
    reset_next = P.WriteElement(w.size, length_slot(rounds, following=True), _int(0, loc),
                                loc=loc)
    nodes = ir.GraphQuery("num_nodes", w.graph, type=Scalar.INT, loc=loc)
    limit = ir.Binary("/", nodes, _int(DENSE_DIVISOR, loc), type=Scalar.INT, loc=loc)
    crowded = ir.Binary(">", count, limit, type=Scalar.BOOL, loc=loc)
    sparse_next = ir.Binary("&&", ir.Binary("!=", count, _int(0, loc), type=Scalar.BOOL,
                                            loc=loc),
                            ir.Binary("<=", count, limit, type=Scalar.BOOL, loc=loc),
                            type=Scalar.BOOL, loc=loc)
    read_count = P.HostAssign(w.count, size, loc=loc)
    next_round = P.HostReduce(w.round, "+", _int(1, loc), loc=loc)

    def block(*stmts: P.HostStmt) -> P.HostBlock:
        return P.HostBlock(stmts, loc=loc)

    def at_round(launch: P.Launch) -> P.Launch:
        """``launch`` given the round number where its kernel appends or counts."""
        if not any(x.name == FRONTIER_ROUND for x in launch.kernel.scalars) or \
                any(name == FRONTIER_ROUND for name, _ in launch.scalar_args):
            return launch
        return dataclasses.replace(launch, scalar_args=launch.scalar_args +
                                   ((FRONTIER_ROUND, rounds),))

    def choice(sparse_stmts: Tuple[P.HostStmt, ...],
               dense_stmts: Tuple[P.HostStmt, ...]) -> P.HostIf:
        return P.HostIf(crowded, block(*dense_stmts), block(*sparse_stmts), loc=loc)
    # a priority window's slots: all INT_MAX before the loop and a dense round (its mins are
    # taken by sparse rounds only), and its width, once a run (``priority_window``)
    window_setup: Tuple[P.HostStmt, ...] = ()
    window_args: Tuple[Tuple[str, ir.Expr], ...] = ()
    if w.window is not None:
        window_setup = (P.Fill(w.window.slots, ir.Inf(type=Scalar.INT, loc=loc), loc=loc),)
        window_args = ((WINDOW_DELTA, ir.VarRef(w.delta, type=Scalar.INT, loc=loc)),)
    body: List[P.HostStmt] = [next_round]
    for at, (launch, (dense, sparse)) in enumerate(zip(s.body.stmts, w.launches)):
        sparse_stmts: Tuple[P.HostStmt, ...] = (
            P.Launch(sparse, ((FRONTIER_COUNT, count), (FRONTIER_ROUND, rounds))
                     + window_args, loc=launch.loc),)
        if w.rounds is not None:
            sparse_stmts = (grouped_launch(s, count, rounds, window_args, sparse_stmts),)
        body.append(choice(
            sparse_stmts,
            ((reset_next,) + window_setup if at == 0 else ())
            + (at_round(P.Launch(dense, loc=launch.loc)),)))
    if launches_checked(s.body):
        body.append(P.CheckErrors(loc=loc))
    compact = P.HostIf(sparse_next, block(next_round, reset_next,
                                          at_round(P.Launch(w.build, loc=loc)), read_count),
                       None, loc=loc)
    body += [P.SwapArrays(s.current, s.next, loc=loc),
             P.SwapArrays(w.queue, w.next_queue, loc=loc),
             choice(((P.Launch(w.clear, ((FRONTIER_COUNT, count),), loc=loc),)
                    if w.clear is not None else ()) + (read_count,),
                    (P.Fill(s.next, _bool(False, loc), loc=loc), read_count, compact))]
    more = ir.Binary("!=", count, _int(0, loc), type=Scalar.BOOL, loc=loc)
    # the first queue: in it already where the batch's update kernel appended it
    # (``w.update_seed``); none where every flag is set (count n: a dense round); the one
    # vertex the host set, written by the host; else compacted from the flags, or appended
    # by the launch that sets them
    first_queue: List[P.HostStmt] = []
    first_count: ir.Expr = size
    if w.all_flagged:
        first_count = nodes
    elif w.first_vertex is not None:
        first_queue = [P.WriteElement(w.queue, _int(0, loc), w.first_vertex, loc=loc)]
        first_count = _int(1, loc)
    elif not w.update_seed:
        first_queue = [at_round(w.seed[1] if w.seed is not None
                                else P.Launch(w.build, loc=loc))]
    fills = first_run_fills(w, s.next, loc)
    if hoisted is None:
        assert not w.update_seed, "an update kernel seeds only a loop of a Batch"
        prologue = list(fills[:-1]) + [P.HostDeclare(w.round, _int(0, loc), loc=loc),
                                       *first_queue, P.HostDeclare(w.count, first_count,
                                                                   loc=loc),
                                       fills[-1]]
    else:
        hoisted.append(P.HostDeclare(w.round, _int(0, loc), loc=loc))
        prologue = [first_run(w, s.next, loc), *first_queue,
                    P.HostDeclare(w.count, first_count, loc=loc)]
    if w.rounds is not None:
        prologue.append(P.HostDeclare(w.steps, _int(0, loc), loc=loc))
    if w.window is not None:
        prologue += [P.HostDeclare(w.delta, P.WindowDelta(w.window.weight, w.graph,
                                                          WINDOW_SCALE, type=Scalar.INT,
                                                          loc=loc), loc=loc),
                     *window_setup]
    return prologue + [P.HostDoWhile(P.HostBlock(tuple(body), loc=s.body.loc), more, loc=loc),
                       P.HostAssign(s.flag_var, _bool(True, loc), loc=loc)]


def _expand_topology(s: P.FixedPointLoop) -> List[P.HostStmt]:
    loc = s.loc
    fin = ir.VarRef(s.flag_var, type=Scalar.BOOL, loc=loc)
    swap = P.SwapArrays(s.current, s.next, loc=loc)
    reads_fin = s.forced or any(
        isinstance(n, ir.VarRef) and n.sym == s.flag_var
        for stmt in walk_host(s.body) for n in host_exprs(stmt))
    body: List[P.HostStmt] = [P.HostAssign(s.flag_var, _bool(True, loc), loc=loc)] \
        if reads_fin else []
    body += [P.WriteElement(s.flag, _int(0, loc), ir.Const(0, type=s.flag.elem, loc=loc),
                            loc=loc),
             P.Fill(s.next, _bool(False, loc), loc=loc)]
    body += _swap_before_exits(s.body, swap, in_loop=True).stmts
    body.append(swap)
    if launches_checked(s.body):     # a failed check must not leave the loop spinning
        body.append(P.CheckErrors(loc=loc))
    cond = flag_raised(s.flag, loc)
    if s.forced:
        cond = ir.Binary("||", cond, ir.Unary("!", fin, type=Scalar.BOOL, loc=loc),
                         type=Scalar.BOOL, loc=loc)
    return [P.HostDoWhile(P.HostBlock(tuple(body), loc=s.body.loc), cond, loc=loc),
            P.HostAssign(s.flag_var, _bool(True, loc), loc=loc)]


def _swap_before_exits(block: P.HostBlock, swap: P.SwapArrays, in_loop: bool) -> P.HostBlock:
    """``block`` with ``swap`` before each ``return`` and, while ``in_loop`` (not inside a
    nested loop), before each ``break``/``continue``."""
    stmts: List[P.HostStmt] = []
    for stmt in block.stmts:
        if isinstance(stmt, P.HostReturn) or (
                in_loop and isinstance(stmt, (P.HostBreak, P.HostContinue))):
            stmts += [swap, stmt]
            continue
        nested = in_loop and not isinstance(stmt, LOOPS)
        stmts.append(map_blocks(stmt, lambda b: _swap_before_exits(b, swap, nested)))
    return P.HostBlock(tuple(stmts), loc=block.loc)


def expand_bfs(s: P.BFSLoop, symbols: SymbolFactory) -> P.HostStmt:
    """The host loop of ``s``; with a ``BFSQueue``, a ``DataDrivenLoop`` holding it and the
    form whose small top-down steps run over the queue (``_expand_bfs``)."""
    dense = _expand_bfs(s, symbols)
    if s.queue is None:
        return dense
    ranks = P.HostBlock((_expand_bfs(s, symbols, s.queue, ranks=True),), loc=s.loc)
    # (without the rounds kernel, the flags and widths only the rounds or a sweep read go)
    ranks = elide_dead_scalars(ranks, read_scalars(ranks))
    return P.DataDrivenLoop(P.HostBlock((_expand_bfs(s, symbols, s.queue),), loc=s.loc),
                            P.HostBlock((dense,), loc=s.loc), traversal=True, ranks=ranks,
                            loc=s.loc)


def _expand_bfs(s: P.BFSLoop, symbols: SymbolFactory,
                queue: Optional[P.BFSQueue] = None, ranks: bool = False) -> P.HostBlock:
    """The loop of the module docstring; with ``queue`` (``bfs_queue.py``) a top-down step
    whose frontier holds at most n / DENSE_DIVISOR vertices, counted exactly, runs over the
    queue::

        order[0] = root;  end[0] = 1;  starts[0] = 0;                (before the loop)
        bool bfs_queued = true, bfs_counted = true, bfs_ordered = true;
        int bfs_start = 0, bfs_widest = 1;
            else { ...;
                   if (bfs_frontier <= n / DENSE_DIVISOR && bfs_edges <= n / DENSE_DIVISOR
                       && bfs_counted) {
                       if (!bfs_queued) { end[0] = 0;  launch build(bfs_depth);
                                          bfs_start = 0; }
                       launch forward_sparse(bfs_frontier, bfs_depth, bfs_start);
                       bfs_start += bfs_frontier;  starts[bfs_depth + 1] = bfs_start;
                       bfs_widest = max(bfs_widest, bfs_frontier);  bfs_queued = true;
                       bfs_edges = bfs_scout;
                   } else { launch forward(bfs_depth);
                            bfs_queued = bfs_counted = bfs_ordered = false; } }
            (the bottom-up branch ends with bfs_queued = bfs_ordered = false,
             bfs_counted = true, bfs_edges = 0)
        ...
        if (bfs_ordered) for each depth back: launch reverse_sparse(bfs_widest, depth)
        else             for each depth back: launch reverse(depth)

    ``bfs_edges`` (from the root's degree, then the frontier's out-edges a sparse step counted)
    keeps a frontier with a hub dense: a sparse step's claims and appends cost an atomic
    each, more than the scan of every level from a hub (bfs at R-MAT 18: about 1 ms more).
    (``starts`` and ``bfs_widest`` only with a reverse sweep.) The level at ``bfs_start``
    ends where the order's append counter ``end`` does: the step that made it, or the build,
    counted it there, so a sparse step needs no command before its launch.

    With ``ranks`` (a distributed target: ``DataDrivenLoop.ranks``) each rank's order holds
    only its own vertices, appended by its kernels' claims and by the claims of other ranks
    that won at its vertices (the superstep's exchange appends those), so the frontier's
    count, summed over the ranks, is not a rank's queue length: a sparse step launches
    ``end[0] - bfs_start`` items, read before it (host memory on such a target). The first
    queue is made by the build (only the root's owner appends it), and the levels run
    without the rounds kernel, which would skip the exchanges between levels. The levels'
    starts are then each rank's, in its own queue (indexed by depth: extent ``levels``).

    With ``queue.rounds`` (``bfs_rounds``) a sparse step whose frontier has at most
    ``ROUND_LIMIT`` vertices and out-edges is that kernel's launch instead, from the host's
    depth, start, frontier, unexplored edges and widest level, and one read of the state it
    leaves (``_rounds``); a sparse step run by the host clears ``bfs_grouped``, and while it
    holds the sweep is one launch of ``queue.reverse_rounds`` too. In the queue form a
    frontier whose next level and out-edges are at most n / DENSE_DIVISOR stays top-down (the
    test ``switch_up`` gains ``&& !next_small``): a bottom-up step scans every vertex.

    The sparse step launches ``bfs_frontier`` items, so that count must be the queue's
    length: a sparse step's counts are exact (each reached vertex is claimed once) and so are
    a bottom-up step's (each vertex counts itself), but a dense top-down step's may count a
    vertex twice. After one, the steps stay dense until a bottom-up step: reading the
    compaction's count would be a second read in that round (issue 29: one per round)."""
    loc = s.loc

    def declare(name: str, type_: Scalar, init: ir.Expr) -> ir.VarRef:
        sym = symbols.make(name, type_, loc=loc)
        stmts.append(P.HostDeclare(sym, init))
        return ir.VarRef(sym, type=type_, loc=loc)

    def binary(op: str, a: ir.Expr, b: ir.Expr, type_: Scalar = Scalar.BOOL) -> ir.Binary:
        return ir.Binary(op, a, b, type=type_, loc=loc)

    def graph(op: str) -> ir.GraphQuery:
        return ir.GraphQuery(op, s.graph, type=Scalar.INT, loc=loc)

    # The block carries the BFS's location; the loops in it repeat no comment.
    stmts: List[P.HostStmt] = [P.Fill(s.level, _int(-1, loc), loc=loc),
                               P.WriteElement(s.level, s.root, _int(0, loc), loc=loc)]
    depth = declare(s.depth_name, Scalar.INT, _int(0, loc))
    stmts += [P.HostDeclare(s.awake, _int(1, loc)), P.HostDeclare(s.scout, _int(0, loc))]
    awake = ir.VarRef(s.awake, type=Scalar.INT, loc=loc)
    scout = ir.VarRef(s.scout, type=Scalar.INT, loc=loc)
    unexplored = declare("bfs_unexplored", Scalar.INT, graph("num_edges"))
    bottom_up = declare("bfs_bottom_up", Scalar.BOOL, _bool(False, loc))
    frontier = symbols.make("bfs_frontier", Scalar.INT, loc=loc)
    frontier_ref = ir.VarRef(frontier, type=Scalar.INT, loc=loc)
    depth_arg = ((s.depth_name, depth),)
    top_down: P.HostStmt = P.Launch(s.forward, depth_arg, loc=loc)
    before_up, after_up, after_down = (), (), ()
    if s.pending is not None:
        fused = declare(s.fused_name, Scalar.BOOL, _bool(True, loc))
        top_down = P.HostIf(fused, P.HostBlock((P.Launch(s.expand, depth_arg, loc=loc),),
                                               loc=loc),
                            P.HostBlock((top_down,), loc=loc), loc=loc)
        before_up = (P.HostIf(ir.Unary("!", fused, type=Scalar.BOOL, loc=loc), P.HostBlock(
            (P.Launch(s.pending, depth_arg, loc=loc),), loc=loc), loc=loc),)
        after_up = (P.HostAssign(fused.sym, _bool(True, loc), loc=loc),)
        after_down = (P.HostAssign(fused.sym, _bool(False, loc), loc=loc),)

    def assign(ref: ir.VarRef, value: ir.Expr) -> P.HostAssign:
        return P.HostAssign(ref.sym, value, loc=loc)

    switch_up = binary(">", scout, binary("/", unexplored, _int(s.alpha, loc), Scalar.INT))
    stay_up = binary("||", binary(">=", awake, frontier_ref),
                     binary(">", awake, binary("/", graph("num_nodes"), _int(s.beta, loc),
                                               Scalar.INT)))
    if queue is not None:
        from starc.analysis.frontier import DENSE_DIVISOR, FRONTIER_COUNT
        zero = _int(0, loc)
        if not ranks:   # the order holds the root, level 0; its append counter ends there
            stmts += [P.WriteElement(queue.order, zero, s.root, loc=loc),
                      P.WriteElement(queue.end, zero, _int(1, loc), loc=loc)]
        sliced = queue.reverse is not None
        if sliced:
            stmts.append(P.WriteElement(queue.starts, zero, zero, loc=loc))
        queued = declare("bfs_queued", Scalar.BOOL, _bool(not ranks, loc))
        counted = declare("bfs_counted", Scalar.BOOL, _bool(True, loc))
        ordered = declare("bfs_ordered", Scalar.BOOL, _bool(True, loc))
        start = declare(queue.start_name, Scalar.INT, zero)
        # the frontier's out-edges, where known (a sparse step's claims and appends cost an
        # atomic each: from a hub, a step over every vertex's level is cheaper); the root's
        # degree at first, as GAPBS's scout count starts
        edges = declare("bfs_edges", Scalar.INT, ir.GraphQuery(
            "count_outNbrs", s.graph, (s.root,), type=Scalar.INT, loc=loc))
        widest = declare("bfs_widest", Scalar.INT, _int(1, loc))
        length_ref, measure = frontier_ref, ()
        if ranks:   # the rank's own share of the level: its queue from bfs_start
            length = symbols.make("bfs_length", Scalar.INT, loc=loc)
            length_ref = ir.VarRef(length, type=Scalar.INT, loc=loc)
            measure = (P.HostDeclare(length, binary("-", P.DeviceRead(
                queue.end, zero, type=Scalar.INT, loc=loc), start, Scalar.INT), loc=loc),)
        sized = depth_arg + ((FRONTIER_COUNT, length_ref), (queue.start_name, start))
        sparse: P.HostStmt = P.Launch(queue.forward, sized, loc=loc)
        if s.pending is not None:
            sparse = P.HostIf(fused, P.HostBlock((P.Launch(queue.expand, sized, loc=loc),),
                                                 loc=loc),
                              P.HostBlock((sparse,), loc=loc), loc=loc)
        build = P.HostIf(ir.Unary("!", queued, type=Scalar.BOOL, loc=loc), P.HostBlock(
            (P.WriteElement(queue.end, zero, zero, loc=loc),
             P.Launch(queue.build, depth_arg, loc=loc), assign(start, zero)), loc=loc),
            loc=loc)
        end = binary("+", start, length_ref, Scalar.INT)
        limit = binary("/", graph("num_nodes"), _int(DENSE_DIVISOR, loc), Scalar.INT)
        small = binary("&&", binary("<=", frontier_ref, limit), binary("<=", edges, limit))
        wider = P.HostIf(binary(">", length_ref, widest), P.HostBlock(
            (assign(widest, length_ref),), loc=loc), loc=loc)
        depth_next = binary("+", depth, _int(1, loc), Scalar.INT)
        # (the append counter ends where the level does: the step that made the level, or
        # the build, counted it there)
        starts = (P.WriteElement(queue.starts, depth_next, start, loc=loc), wider) \
            if sliced else ()
        step = measure + (sparse, assign(start, end)) + starts
        if queue.rounds is not None and not ranks:
            if queue.reverse_rounds is not None:
                # every level so far ran in the rounds (each small): the sweep may too
                grouped = declare("bfs_grouped", Scalar.BOOL, _bool(True, loc))
                step += (assign(grouped, _bool(False, loc)),)
            # (where B1 is fused, whether the first level's already ran)
            carried = sized + (((s.fused_name, fused),) if s.pending is not None else ())
            step = (_rounds(queue, carried, depth, start, awake, scout, unexplored, widest,
                            frontier_ref, edges, P.HostBlock(step, loc=loc)),)
        # A bottom-up step scans every vertex; a sparse top-down step costs its frontier and
        # out-edges, at most n / DENSE_DIVISOR each: GAPBS's test weighs the out-edges only
        # against the edges left (its bitmap makes the scan cheap), and at a grid's tail,
        # where few edges are left, it turned each small level bottom-up (a launch over
        # every vertex) and lost the order the reverse sweep walks
        next_small = binary("&&", binary("<=", awake, limit), binary("<=", scout, limit))
        switch_up = binary("&&", switch_up, ir.Unary("!", next_small, type=Scalar.BOOL,
                                                     loc=loc))
        top_down = P.HostIf(binary("&&", small, counted), P.HostBlock((
            build,) + step + (
            assign(queued, _bool(True, loc)), assign(edges, scout)), loc=loc), P.HostBlock((
                top_down, assign(queued, _bool(False, loc)), assign(counted, _bool(False, loc)),
                assign(ordered, _bool(False, loc))), loc=loc), loc=loc)
        # (a bottom-up step counts no out-edges: the next frontier's are not known)
        after_up += (assign(queued, _bool(False, loc)), assign(counted, _bool(True, loc)),
                     assign(ordered, _bool(False, loc)), assign(edges, zero))
    up = P.HostBlock(before_up + (assign(scout, _int(0, loc)),
                                  P.Launch(s.bottom_up, depth_arg, loc=loc))
                     + after_up + (assign(bottom_up, stay_up),), loc=loc)
    down = P.HostBlock((P.HostReduce(unexplored.sym, "-", scout, loc=loc),
                        assign(scout, _int(0, loc)),
                        top_down) + after_down, loc=loc)
    step: List[P.HostStmt] = [
        P.HostIf(ir.Unary("!", bottom_up, type=Scalar.BOOL, loc=loc),
                 P.HostBlock((assign(bottom_up, switch_up),), loc=loc), loc=loc),
        P.HostDeclare(frontier, awake, loc=loc),
        assign(awake, _int(0, loc)),
        P.HostIf(bottom_up, up, down, loc=loc),
        P.HostReduce(depth.sym, "+", _int(1, loc), loc=loc)]
    if any(k is not None and k.checks for k in (s.forward, s.bottom_up, s.pending, s.expand)):
        step.append(P.CheckErrors(loc=loc))
    stmts.append(P.HostDoWhile(P.HostBlock(tuple(step), loc=loc),
                               binary("!=", awake, _int(0, loc))))
    if s.values is not None:
        stmts.append(P.Launch(s.values, loc=loc))
    if s.reverse is not None:
        back = symbols.make(s.depth_name + "_back", Scalar.INT, loc=loc)
        first = ir.Binary("-", depth, _int(1, loc), type=Scalar.INT, loc=loc)
        at = ((s.depth_name, ir.VarRef(back, type=Scalar.INT, loc=loc)),)
        sweep: P.HostStmt = P.HostForRange(back, first, _int(0, loc), -1, P.HostBlock(
            (P.Launch(s.reverse, at, loc=loc),), loc=loc))
        if queue is not None:       # over each level's slice of the order, when it has them
            from starc.analysis.frontier import FRONTIER_COUNT
            sliced = P.HostForRange(back, first, _int(0, loc), -1, P.HostBlock(
                (P.Launch(queue.reverse, at + ((FRONTIER_COUNT, widest),), loc=loc),),
                loc=loc))
            if queue.reverse_rounds is not None and not ranks:
                sliced = P.HostIf(grouped, P.HostBlock((P.Launch(
                    queue.reverse_rounds, ((s.depth_name, first),), loc=loc),), loc=loc),
                    P.HostBlock((sliced,), loc=loc), loc=loc)
            sweep = P.HostIf(ordered, P.HostBlock((sliced,), loc=loc),
                             P.HostBlock((sweep,), loc=loc), loc=loc)
        stmts.append(sweep)
    return P.HostBlock(tuple(stmts), loc=loc)


def _rounds(queue: P.BFSQueue, sized, depth: ir.VarRef, start: ir.VarRef, awake: ir.VarRef,
            scout: ir.VarRef, unexplored: ir.VarRef, widest: ir.VarRef, frontier: ir.VarRef,
            edges: ir.VarRef, step: P.HostBlock) -> P.HostIf:
    """Where the frontier has at most ``ROUND_LIMIT`` vertices and out-edges, the launch of
    ``queue``'s rounds kernel (``bfs_rounds``) from the host's state, which it then reads back
    in one copy; else ``step``, the one sparse step it stands in for."""
    from starc.analysis.bfs_rounds import FRONTIER, ROUND_LIMIT, UNEXPLORED, WIDEST
    from starc.analysis.frontier import FRONTIER_COUNT
    loc = step.loc
    limit = _int(ROUND_LIMIT, loc)
    few = ir.Binary("&&", ir.Binary("<=", frontier, limit, type=Scalar.BOOL, loc=loc),
                    ir.Binary("<=", edges, limit, type=Scalar.BOOL, loc=loc),
                    type=Scalar.BOOL, loc=loc)
    sliced = queue.reverse is not None
    scalars = tuple(arg for arg in sized if arg[0] != FRONTIER_COUNT) + (
        (FRONTIER, frontier), (UNEXPLORED, unexplored)) + (((WIDEST, widest),) if sliced else ())
    syms = tuple(r.sym for r in (depth, start, awake, scout, unexplored)) + \
        ((widest.sym,) if sliced else ())
    rounds = P.HostBlock((P.Launch(queue.rounds, scalars, loc=loc),
                          P.ReadSlots(queue.state, syms, loc=loc)), loc=loc)
    return P.HostIf(few, rounds, step, loc=loc)


def launches_checked(block: P.HostBlock) -> bool:
    return any(k.checks for stmt in walk_host(block) for k in kernels_launched_by(stmt))


def _int(value: int, loc) -> ir.Const:
    return ir.Const(value, type=Scalar.INT, loc=loc)


def _bool(value: bool, loc) -> ir.Const:
    return ir.Const(value, type=Scalar.BOOL, loc=loc)

