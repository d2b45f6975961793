"""iterateInBFS lowering: a level array, direction-optimizing steps, a reverse kernel.

Each depth is one step, top-down or bottom-up (Beamer's direction-optimizing BFS, as GAPBS
runs it); the host chooses per step from two counts the kernels reduce (``control.expand_bfs``):
``awake``, the vertices the step reached, and ``scout``, their out-edges (top-down steps only).

Top-down kernel (one work item per vertex, guard ``level[v] == depth``): runs B1 (under the
BFS filter, if any) with every BFS-parents loop rewritten to an in-neighbour loop filtered on
``depth >= 1 && level[w] == depth - 1`` (the source has no parents: at depth 0, ``depth - 1``
is the -1 of every unvisited vertex), then expands over out-edges: every unvisited
out-neighbour gets ``depth + 1`` (a plain store: every writer stores the same value) and is
counted. Two frontier vertices may both see a neighbour unvisited and both count it: the
counts only steer the heuristic, and ``awake`` is zero exactly when nothing was reached.
Bottom-up kernel (guard ``level[v] == depth || level[v] == -1``): B1 as above for the vertices
at ``depth``; every unvisited vertex scans its in-edges for a parent at ``depth`` and stops at
the first. B1 is fused into both: it reads levels only to find parents (``depth - 1``) and
writes only its own vertex's properties, while a step changes levels only from -1 to
``depth + 1``, so no B1 sees another outcome than in a separate launch.
The BFS filter restricts which reached vertices run B1, not the traversal (nor who is a parent).
A sequential parents loop that only assigns a pure value to one of its vertex's properties
(``v.level = w.level + 1``) ends with the last parent's value, so it runs over the in-edges
backwards and breaks after the first parent (``InNeighbors.descending``): a reached vertex
then reads a few in-edges instead of all of them (bfs at R-MAT 18 on PoCL: 22 -> 15 ms).
When B1 is exactly one such loop (no filter on it or on the BFS), a vertex found bottom-up
runs it at its discovery ("fused"): the search for a parent at ``depth`` goes backwards too,
so the first one found is the last parent, and B1's assignment runs right there with ``w`` :=
that parent, instead of a second search one step later. It reads the parent's property, final
once the parent's own B1 ran in an earlier kernel: the host tracks whether the frontier's B1
already ran (``FUSED``: after a bottom-up step; the source's B1 has no parents) and, before a
bottom-up step that follows a top-down one, runs the frontier's B1 in a kernel of its own
(``bfs_pending``, guard ``level[v] == depth``); a top-down step whose frontier's B1 ran
launches ``bfs_expand``, ``bfs_fwd`` without B1. (Two kernels rather than a branch on a
kernel scalar: a push-only step may run one work item per edge, and PoCL miscompiled a
binned kernel whose branches differed in their work-group barriers.)
Reverse kernel (guard ``level[v] == depth && cond``): B2 with every BFS-children loop
rewritten to an out-neighbour loop filtered on ``level[w] == depth + 1``. The host runs a
``BFSLoop``.
First, a parents loop whose value is provably the depth (``v.level = w.level + 1`` after
``src.level = 0``: ``depth_values``) leaves B1, and a ``bfs_values`` kernel sets that property
from each reached vertex's level once the traversal is over (or becomes ``v.P = k + c * depth``
in place where B1 reads ``P`` elsewhere): no kernel searches for a parent then.
"""

from __future__ import annotations

import dataclasses
from typing import Optional, Tuple

from starc.analysis.depth_values import DepthStore, depth_value, replace_parent_searches
from starc.analysis.lowering import HostLowerer
from starc.analysis.plan import BFSLoop, Kernel, KernelScalar
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["lower_bfs", "DEPTH", "FUSED", "ALPHA", "BETA"]

DEPTH = "bfs_depth"
#: The host's flag: the frontier's B1 already ran (fused form only).
FUSED = "bfs_fused"
_BOOL, _INT = Scalar.BOOL, Scalar.INT

# GAPBS's tuning (Beamer, Asanovic, Patterson, SC'12; sbeamer/gapbs bfs.cc): go bottom-up
# when the frontier's out-edges exceed 1/ALPHA of the edges no top-down step has scanned yet
# (most of them would find their target already visited), and back to top-down once the
# frontier stops growing and holds fewer than 1/BETA of the vertices (scanning every
# unvisited vertex's in-edges then costs more than the few frontier rows).
ALPHA = 15
BETA = 18


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

    def unvisited(self, sym: ir.Symbol) -> ir.Expr:
        return self.is_at(sym, ir.Const(-1, type=_INT, loc=self.loc))

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


#: The expressions a last-parent value may use: no call, no random draw (whose stream would
#: see fewer draws).
_PURE = (ir.Const, ir.Inf, ir.VarRef, ir.PropRead, ir.EdgeEndpoint, ir.Unary, ir.Binary,
         ir.Cast, ir.MinMax, ir.GraphQuery, ir.WeightBound)


def _last_parent_wins(loop: ir.Loop, vertex: ir.Symbol) -> bool:
    """``loop`` (over BFS parents w of ``vertex``) is a sequential ``for`` whose body is one
    ``vertex.p = value`` with a pure value (and filter) that reads ``p`` at most at ``w``: then
    the loop's outcome is the last parent's assignment. (A parent is never ``vertex``
    itself: its level is one less.)"""
    stmts = loop.body.stmts
    if loop.parallel or len(stmts) != 1 or not isinstance(stmts[0], ir.Assign):
        return False
    target, value = stmts[0].target, stmts[0].value
    if not (isinstance(target, ir.PropRead) and isinstance(target.index, ir.VarRef)
            and target.index.sym == vertex):
        return False
    for part in (value, loop.filter):
        for node in ir.walk(part) if part is not None else ():
            if not isinstance(node, _PURE):
                return False
            if isinstance(node, ir.PropRead) and node.prop == target.prop and not (
                    isinstance(node.index, ir.VarRef) and node.index.sym == loop.var):
                return False
    return True


def _fusable_parents(stmt: ir.IterateBFS) -> Optional[ir.Loop]:
    """B1's parents loop when the bottom-up discovery can run it (module docstring): B1 is
    that one loop, a last-parent assignment with no filter of its own, and the BFS has none."""
    stmts = stmt.body.stmts
    if stmt.filter is not None or len(stmts) != 1:
        return None
    loop = stmts[0]
    if not (isinstance(loop, ir.Loop) and isinstance(loop.domain, ir.Neighbors)
            and loop.domain.role == "bfs_parents" and loop.filter is None
            and isinstance(loop.domain.of, ir.VarRef) and loop.domain.of.sym == stmt.var):
        return None
    return loop if _last_parent_wins(loop, stmt.var) else None


def _rewrite_role(body: ir.Block, role: str, levels: _Levels, delta: int,
                  vertex: ir.Symbol) -> ir.Block:
    """Rewrite every neighbour loop of BFS ``role`` to a plain loop filtered on levels. A
    parents loop whose outcome is its last parent's assignment (``_last_parent_wins``, as
    ``v.level = w.level + 1``) searches the in-edges backwards and stops at the first
    parent: GAPBS's bottom-up early exit, instead of every in-edge of every reached vertex."""

    def fix(node: ir.Node):
        if not (isinstance(node, ir.Loop) and isinstance(node.domain, ir.Neighbors)
                and node.domain.role == role):
            return None
        d = node.domain
        if role == "bfs_parents":
            last = _last_parent_wins(node, vertex)
            domain = ir.InNeighbors(d.graph, d.of, d.edge, descending=last, loc=d.loc)
            if last:
                node = dataclasses.replace(node, body=ir.Block(
                    node.body.stmts + (ir.Break(loc=node.loc),), loc=node.body.loc))
        else:
            domain = dataclasses.replace(d, role="out")
        test = levels.related(node.var, delta)
        return dataclasses.replace(node, domain=domain, filter=_and(test, node.filter))

    return ir.transform(body, fix)


class _Step:
    """What both step kernels of one BFS share: the levels and the two counts."""

    def __init__(self, stmt: ir.IterateBFS, levels: _Levels, host: HostLowerer) -> None:
        self.stmt, self.levels, self.loc = stmt, levels, stmt.loc
        self.symbols = host.table.symbols
        self.awake = self.symbols.make("bfs_awake", _INT, ir.SymbolKind.LOCAL, stmt.loc)
        self.scout = self.symbols.make("bfs_scout", _INT, ir.SymbolKind.LOCAL, stmt.loc)

    def ref(self, sym: ir.Symbol) -> ir.VarRef:
        return ir.VarRef(sym, type=sym.type, loc=self.loc)

    def count(self, sym: ir.Symbol, value: ir.Expr) -> ir.Reduce:
        return ir.Reduce("+", self.ref(sym), value, loc=self.loc)

    def visit(self, w: ir.Symbol, *counts: ir.Stmt) -> ir.Block:
        """``level[w] = depth + 1`` and the counts of a newly reached ``w``."""
        store = ir.Assign(self.levels.of(self.ref(w)), self.levels.depth_plus(1), loc=self.loc)
        return ir.Block((store, self.count(self.awake, ir.Const(1, type=_INT, loc=self.loc)))
                        + counts, loc=self.loc)

    def top_down(self) -> ir.Loop:
        """``for (w in g.neighbors(v)) if (level[w] == -1) { level[w] = depth + 1; awake += 1;
        scout += g.count_outNbrs(w); }``."""
        stmt, loc = self.stmt, self.loc
        w = self.symbols.make("bfs_nbr", Scalar.NODE, ir.SymbolKind.LOOP, loc)
        e = self.symbols.make("bfs_edge", Scalar.EDGE, ir.SymbolKind.EDGE, loc)
        degree = ir.GraphQuery("count_outNbrs", stmt.graph, (self.ref(w),), type=_INT, loc=loc)
        visit = self.visit(w, self.count(self.scout, degree))
        domain = ir.Neighbors(stmt.graph, self.ref(stmt.var), e, loc=loc)
        return ir.Loop(w, domain, ir.Block((ir.If(self.levels.unvisited(w), visit, loc=loc),),
                                           loc=loc), parallel=False, loc=loc)

    def bottom_up(self, parents: Optional[ir.Loop] = None) -> ir.Loop:
        """``for (u in g.nodes_to(v)) if (level[u] == depth) { level[v] = depth + 1;
        awake += 1; break; }``: the first parent found is enough. With B1's ``parents`` loop
        (fused), over that loop's variables, backwards, and its assignment before the break."""
        stmt, loc = self.stmt, self.loc
        if parents is None:
            u = self.symbols.make("bfs_parent", Scalar.NODE, ir.SymbolKind.LOOP, loc)
            e = self.symbols.make("bfs_edge", Scalar.EDGE, ir.SymbolKind.EDGE, loc)
            b1: tuple = ()
        else:
            u, e, b1 = parents.var, parents.domain.edge, parents.body.stmts
        found = self.visit(stmt.var, *b1, ir.Break(loc=loc))
        domain = ir.InNeighbors(stmt.graph, self.ref(stmt.var), e,
                                descending=parents is not None, loc=loc)
        parent = self.levels.is_at(u, self.levels.depth)
        return ir.Loop(u, domain, ir.Block((ir.If(parent, found, loc=loc),), loc=loc),
                       parallel=False, loc=loc)


def lower_bfs(stmt: ir.IterateBFS, host: HostLowerer) -> BFSLoop:
    table = host.table
    level_array, level_sym = table.bfs_level()
    levels = _Levels(level_sym, stmt.loc)
    stmt, decisions, stores = replace_parent_searches(stmt, host.statements_before(stmt),
                                                      levels.depth)
    host.parent_values.extend(decisions)
    v, loc = stmt.var, stmt.loc
    step = _Step(stmt, levels, host)

    body = _rewrite_role(stmt.body, "bfs_parents", levels, -1, v)
    if stmt.filter is not None and body.stmts:
        body = ir.Block((ir.If(stmt.filter, body, loc=loc),), loc=body.loc)
    at_depth = levels.is_at(v, levels.depth)
    parents = _fusable_parents(stmt)
    pending = expand = None
    if parents is not None:
        pending = host.outline_kernel("bfs_pending", loc, index=v, extent="nodes",
                                      guard=at_depth, body=body)
        expand = host.outline_kernel("bfs_expand", loc, index=v, extent="nodes",
                                     guard=at_depth, body=ir.Block((step.top_down(),), loc=loc))
    forward = host.outline_kernel(
        "bfs_fwd", loc, index=v, extent="nodes", guard=at_depth,
        body=ir.Block(body.stmts + (step.top_down(),), loc=stmt.body.loc))
    search = ir.Block((step.bottom_up(parents),), loc=loc)
    if parents is not None:
        pull, guard = search, levels.unvisited(v)
    elif body.stmts:
        pull = ir.Block((ir.If(at_depth, body, search, loc=loc),), loc=stmt.body.loc)
        guard = ir.Binary("||", at_depth, levels.unvisited(v), type=_BOOL, loc=loc)
    else:
        pull, guard = search, levels.unvisited(v)
    bottom_up = host.outline_kernel("bfs_up", loc, index=v, extent="nodes", guard=guard,
                                    body=pull)

    values = _depth_stores(stores, levels, v, host, loc) if stores else None
    reverse = None
    if stmt.reverse is not None:
        sweep = stmt.reverse
        reverse = host.outline_kernel(
            "bfs_rev", sweep.loc if sweep.loc.line else loc, index=v, extent="nodes",
            guard=_and(levels.is_at(v, levels.depth), sweep.cond),
            body=_rewrite_role(sweep.body, "bfs_children", levels, +1, v))
    return BFSLoop(host.expr(stmt.root), level_array, forward, bottom_up, step.awake,
                   step.scout, stmt.graph, reverse, depth_name=DEPTH, alpha=ALPHA, beta=BETA,
                   pending=pending, expand=expand, fused_name=FUSED, values=values, loc=loc)


def _depth_stores(stores: Tuple[DepthStore, ...], levels: _Levels, v: ir.Symbol,
                  host: HostLowerer, loc) -> Kernel:
    """The kernel that sets, after the traversal, each ``DepthStore``'s property of every
    reached vertex from its level (``depth_values``)."""
    ref = ir.VarRef(v, type=v.type, loc=loc)
    reached = ir.Binary("!=", levels.of(ref), ir.Const(-1, type=_INT, loc=loc), type=_BOOL,
                        loc=loc)
    body = tuple(ir.Assign(ir.PropRead(store.prop, ref, type=store.prop.type.elem, loc=loc),
                           depth_value(store.k, store.c, store.prop.type.elem, levels.of(ref),
                                       store.loc), loc=store.loc)
                 for store in stores)
    return host.outline_kernel("bfs_values", loc, index=v, extent="nodes", guard=reached,
                               body=ir.Block(body, loc=loc))
