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
        for (int bfs_depth_back = bfs_depth - 1; bfs_depth_back >= 0; --bfs_depth_back)
            launch reverse(bfs_depth_back);          (only with a reverse sweep)
    }

``bfs_unexplored`` is GAPBS's ``edges_to_check``: it shrinks by the frontier's out-edges at
each top-down step only. A bottom-up step counts no out-edges (``bfs_scout = 0``), so the step
after one that turns back is top-down, as in GAPBS.
"""

from __future__ import annotations

import dataclasses
from typing import List

from starc.analysis import plan as P
from starc.analysis.host_tree import LOOPS, host_exprs, kernels_launched_by, map_blocks, walk_host
from starc.analysis.naming import SymbolFactory
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


def expand_loops(host: P.HostBlock, symbols: SymbolFactory) -> P.HostBlock:
    """``host`` with every ``FixedPointLoop`` and ``BFSLoop`` expanded (innermost first)."""
    def rewrite(block: P.HostBlock) -> P.HostBlock:
        stmts: List[P.HostStmt] = []
        for stmt in block.stmts:
            stmt = map_blocks(stmt, rewrite)
            if isinstance(stmt, P.FixedPointLoop):
                stmts += expand_fixedpoint(stmt)
            elif isinstance(stmt, P.BFSLoop):
                stmts.append(expand_bfs(stmt, symbols))
            else:
                stmts.append(stmt)
        return P.HostBlock(tuple(stmts), loc=block.loc)
    return rewrite(host)


def flag_raised(flag: P.DeviceArray, loc) -> ir.Expr:
    """``flag[0] != 0``, read on the host: did any work item set the device flag?"""
    read = P.DeviceRead(flag, _int(0, loc), type=flag.elem, loc=loc)
    if flag.elem is Scalar.BOOL:
        return read
    return ir.Binary("!=", read, ir.Const(0, type=flag.elem, loc=loc), type=Scalar.BOOL, loc=loc)


def expand_fixedpoint(s: P.FixedPointLoop) -> List[P.HostStmt]:
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


def expand_bfs(s: P.BFSLoop, symbols: SymbolFactory) -> P.HostBlock:
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

    def assign(ref: ir.VarRef, value: ir.Expr) -> P.HostAssign:
        return P.HostAssign(ref.sym, value, loc=loc)

    switch_up = binary(">", scout, binary("/", unexplored, _int(s.alpha, loc), Scalar.INT))
    stay_up = binary("||", binary(">=", awake, frontier_ref),
                     binary(">", awake, binary("/", graph("num_nodes"), _int(s.beta, loc),
                                               Scalar.INT)))
    up = P.HostBlock((assign(scout, _int(0, loc)),
                      P.Launch(s.bottom_up, depth_arg, loc=loc),
                      assign(bottom_up, stay_up)), loc=loc)
    down = P.HostBlock((P.HostReduce(unexplored.sym, "-", scout, loc=loc),
                        assign(scout, _int(0, loc)),
                        P.Launch(s.forward, depth_arg, loc=loc)), loc=loc)
    step: List[P.HostStmt] = [
        P.HostIf(ir.Unary("!", bottom_up, type=Scalar.BOOL, loc=loc),
                 P.HostBlock((assign(bottom_up, switch_up),), loc=loc), loc=loc),
        P.HostDeclare(frontier, awake, loc=loc),
        assign(awake, _int(0, loc)),
        P.HostIf(bottom_up, up, down, loc=loc),
        P.HostReduce(depth.sym, "+", _int(1, loc), loc=loc)]
    if s.forward.checks or s.bottom_up.checks:
        step.append(P.CheckErrors(loc=loc))
    stmts.append(P.HostDoWhile(P.HostBlock(tuple(step), loc=loc),
                               binary("!=", awake, _int(0, loc))))
    if s.reverse is not None:
        back = symbols.make(s.depth_name + "_back", Scalar.INT, loc=loc)
        first = ir.Binary("-", depth, _int(1, loc), type=Scalar.INT, loc=loc)
        sweep = P.Launch(s.reverse, ((s.depth_name, ir.VarRef(back, type=Scalar.INT, loc=loc)),),
                         loc=loc)
        stmts.append(P.HostForRange(back, first, _int(0, loc), -1,
                                    P.HostBlock((sweep,), loc=loc)))
    return P.HostBlock(tuple(stmts), loc=loc)


def launches_checked(block: P.HostBlock) -> bool:
    return any(k.checks for stmt in walk_host(block) for k in kernels_launched_by(stmt))


def _int(value: int, loc) -> ir.Const:
    return ir.Const(value, type=Scalar.INT, loc=loc)


def _bool(value: bool, loc) -> ir.Const:
    return ir.Const(value, type=Scalar.BOOL, loc=loc)

