"""iterateInBFS lowering: a level array, a forward kernel per level, a reverse kernel.

Forward kernel (one work item per vertex, guard ``level[v] == depth``): runs B1 (under the
BFS filter, if any) with every BFS-parents loop rewritten to an in-neighbour loop filtered on
``depth >= 1 && level[w] == depth - 1`` (the source has no parents: at depth 0, ``depth - 1``
is the -1 of every unvisited vertex), then expands: every unvisited out-neighbour gets
``depth + 1`` and sets the flag (a plain store: every writer stores the same value). The BFS
filter restricts which reached vertices run B1, not the traversal (nor who is a parent).
Reverse kernel (guard ``level[v] == depth && cond``): B2 with every BFS-children loop
rewritten to an out-neighbour loop filtered on ``level[w] == depth + 1``. The host runs a
``BFSLoop``.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

from starc.analysis.lowering import HostLowerer
from starc.analysis.plan import BFSLoop, FlagSet, KernelScalar
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["lower_bfs", "DEPTH"]

DEPTH = "bfs_depth"
_BOOL, _INT = Scalar.BOOL, Scalar.INT


class _Levels:
    """Builders for expressions on the level array and the current depth."""

    def __init__(self, level_sym: ir.Symbol, loc) -> None:
        self.sym, self.loc = level_sym, loc
        self.depth = KernelScalar(DEPTH, type=_INT, loc=loc)

    def of(self, node: ir.Expr) -> ir.PropRead:
        return ir.PropRead(self.sym, node, type=_INT, loc=self.loc)

    def depth_plus(self, delta: int) -> ir.Expr:
        if delta == 0:
            return self.depth
        op = "+" if delta > 0 else "-"
        return ir.Binary(op, self.depth, ir.Const(abs(delta), type=_INT, loc=self.loc),
                         type=_INT, loc=self.loc)

    def is_at(self, sym: ir.Symbol, value: ir.Expr) -> ir.Expr:
        return ir.Binary("==", self.of(ir.VarRef(sym, type=sym.type, loc=self.loc)), value,
                         type=_BOOL, loc=self.loc)

    def related(self, w: ir.Symbol, delta: int) -> ir.Expr:
        """``w`` is a BFS parent (delta -1) or child (+1) of the vertex at ``depth``: it was
        reached (level >= 0) and its level is ``depth + delta``. The reached test matters only
        for parents at depth 0, where ``depth - 1`` equals the level of every unvisited
        vertex; it is written on ``depth`` so the kernel reads ``level[w]`` once. A child's
        level, ``depth + 1 >= 1``, is never the unvisited -1."""
        test = self.is_at(w, self.depth_plus(delta))
        if delta >= 0:
            return test
        reachable = ir.Binary(">=", self.depth, ir.Const(-delta, type=_INT, loc=self.loc),
                              type=_BOOL, loc=self.loc)
        return _and(reachable, test)


def _and(a: ir.Expr, b: Optional[ir.Expr]) -> ir.Expr:
    return a if b is None else ir.Binary("&&", a, b, type=_BOOL, loc=a.loc)


def _rewrite_role(body: ir.Block, role: str, levels: _Levels, delta: int) -> ir.Block:
    """Rewrite every neighbour loop of BFS ``role`` to a plain loop filtered on levels."""

    def fix(node: ir.Node):
        if not (isinstance(node, ir.Loop) and isinstance(node.domain, ir.Neighbors)
                and node.domain.role == role):
            return None
        d = node.domain
        if role == "bfs_parents":
            domain = ir.InNeighbors(d.graph, d.of, d.edge, loc=d.loc)
        else:
            domain = dataclasses.replace(d, role="out")
        test = levels.related(node.var, delta)
        return dataclasses.replace(node, domain=domain, filter=_and(test, node.filter))

    return ir.transform(body, fix)


def _expansion(stmt: ir.IterateBFS, levels: _Levels, host: HostLowerer) -> ir.Loop:
    """``for (w in g.neighbors(v)) if (level[w] == -1) { level[w] = depth + 1; flag }``."""
    loc, symbols = stmt.loc, host.table.symbols
    w = symbols.make("bfs_nbr", Scalar.NODE, ir.SymbolKind.LOOP, loc)
    e = symbols.make("bfs_edge", Scalar.EDGE, ir.SymbolKind.EDGE, loc)
    unvisited = levels.is_at(w, ir.Const(-1, type=_INT, loc=loc))
    visit = ir.Block((ir.Assign(levels.of(ir.VarRef(w, type=w.type, loc=loc)),
                                levels.depth_plus(1), loc=loc),
                      FlagSet(host.table.bfs_flag(), None, if_clear=True, loc=loc)), loc=loc)
    domain = ir.Neighbors(stmt.graph, ir.VarRef(stmt.var, type=stmt.var.type, loc=loc), e,
                          loc=loc)
    return ir.Loop(w, domain, ir.Block((ir.If(unvisited, visit, loc=loc),), loc=loc),
                   parallel=False, loc=loc)


def lower_bfs(stmt: ir.IterateBFS, host: HostLowerer) -> BFSLoop:
    table = host.table
    level_array, level_sym = table.bfs_level()
    levels = _Levels(level_sym, stmt.loc)
    v = stmt.var

    forward_body = _rewrite_role(stmt.body, "bfs_parents", levels, -1)
    stmts = forward_body.stmts
    if stmt.filter is not None:
        stmts = (ir.If(stmt.filter, forward_body, loc=stmt.loc),)
    forward = host.outline_kernel(
        "bfs_fwd", stmt.loc, index=v, extent="nodes",
        guard=levels.is_at(v, levels.depth),
        body=ir.Block(stmts + (_expansion(stmt, levels, host),), loc=stmt.body.loc))

    reverse = None
    if stmt.reverse is not None:
        sweep = stmt.reverse
        reverse = host.outline_kernel(
            "bfs_rev", sweep.loc if sweep.loc.line else stmt.loc, index=v, extent="nodes",
            guard=_and(levels.is_at(v, levels.depth), sweep.cond),
            body=_rewrite_role(sweep.body, "bfs_children", levels, +1))
    return BFSLoop(host.expr(stmt.root), level_array, table.bfs_flag(), forward, reverse,
                   depth_name=DEPTH, loc=stmt.loc)
