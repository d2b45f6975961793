"""Loops of the closure compiler: forall/for, fixedPoint (double-buffered flags), iterateInBFS.

A mixin of ``interpreter.FunctionCompiler``; loops over all vertices and BFS bodies first try
the vectorised kernels of ``starc.reference.vectorize`` and fall back to these closures.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from starc.ir import nodes as ir
from starc.reference.graphview import bfs_layers, bfs_related
from starc.reference.values import ExecutionError

__all__ = ["LoopStatements", "BFSState", "BREAK", "CONTINUE", "RETURN", "check_vertex"]

BREAK, CONTINUE, RETURN = "break", "continue", "return"


class BFSState:
    """The traversal of one running iterateInBFS: layers and the level of every vertex."""

    __slots__ = ("layers", "level", "level_list")

    def __init__(self, layers, level) -> None:
        self.layers = layers
        self.level = level
        self.level_list = level.tolist()


def check_vertex(value: int, limit: int, what: str, loc) -> int:
    if not 0 <= value < limit:
        raise ExecutionError(f"{what} {value} out of range 0..{limit - 1}", loc)
    return value



_check_vertex = check_vertex


class LoopStatements:
    # -- loops ----------------------------------------------------------------------------
    def iteration(self, loop: ir.Loop) -> Callable:
        """``run(env, v)``: one iteration of ``loop`` for loop value ``v`` (filter included)."""
        var = self.slot(loop.var)
        body = self.stmt(loop.body)
        filt = self.expr(loop.filter) if loop.filter is not None else None

        def one(env, v):
            env[var] = v
            if filt is not None and not filt(env):
                return None
            return body(env)
        return one

    def _domain_iterator(self, loop: ir.Loop):
        """``items(env)`` yielding ``(value, edge)`` pairs in the loop's order."""
        d = loop.domain
        view = self.view
        if isinstance(d, ir.AllNodes):
            return lambda env: range(view.num_nodes), False
        if isinstance(d, ir.AllEdges):
            return lambda env: range(view.num_edges), False
        if isinstance(d, ir.SetMembers):
            slot = self.slot(d.set)
            return lambda env: list(env[slot]), False
        if isinstance(d, ir.UpdateMembers):
            return self.update_loop_items(d), False
        of = self.expr(d.of)
        offsets, targets, rev_offsets, rev_sources, rev_edge_ids, _ = view.lists
        n, loc = view.num_nodes, d.loc
        if isinstance(d, ir.InNeighbors) or (isinstance(d, ir.Neighbors)
                                             and d.role == "bfs_parents"):
            parents = isinstance(d, ir.Neighbors)
            bfs_slot = self._bfs_of(d) if parents else None

            def in_items(env):
                v = _check_vertex(of(env), n, "vertex", loc)
                lo, hi = rev_offsets[v], rev_offsets[v + 1]
                if parents:
                    level = env[bfs_slot].level_list
                    here = level[v]
                    return [(rev_sources[k], rev_edge_ids[k]) for k in range(lo, hi)
                            if bfs_related(level[rev_sources[k]], here, -1)]
                return zip(rev_sources[lo:hi], rev_edge_ids[lo:hi])
            return in_items, True
        children = d.role == "bfs_children"
        bfs_slot = self._bfs_of(d) if children else None

        def out_items(env):
            v = _check_vertex(of(env), n, "vertex", loc)
            lo, hi = offsets[v], offsets[v + 1]
            if children:
                level = env[bfs_slot].level_list
                here = level[v]
                return [(targets[e], e) for e in range(lo, hi)
                        if bfs_related(level[targets[e]], here, 1)]
            return zip(targets[lo:hi], range(lo, hi))
        return out_items, True

    def _bfs_of(self, d: ir.Neighbors) -> int:
        """The BFSState slot of the iterateInBFS whose variable a parents/children loop
        iterates around (sema gives a role only to ``g.neighbors(v)`` of a BFS variable ``v``;
        in a nested BFS that may be an outer one)."""
        for uid, slot in reversed(self.bfs_stack):
            if d.of.sym.uid == uid:
                return slot
        raise AssertionError(f"no enclosing iterateInBFS for a {d.role} loop")

    def _s_Loop(self, s: ir.Loop):
        items, with_edges = self._domain_iterator(s)
        var = self.slot(s.var)
        edge = self.slot(s.domain.edge) if with_edges else None
        body = self.stmt(s.body)
        filt = self.expr(s.filter) if s.filter is not None else None

        def loop(env):
            for item in items(env):
                if with_edges:
                    env[var], env[edge] = item
                else:
                    env[var] = item
                if filt is not None and not filt(env):
                    continue
                signal = body(env)
                if signal is not None:
                    if signal is BREAK:
                        break
                    if signal is RETURN:
                        return signal
            return None

        kernel = None
        if self.owner.vectorize and isinstance(s.domain, ir.AllNodes):
            from starc.reference.vectorize import compile_node_loop
            kernel = compile_node_loop(self, s)
        if kernel is None:
            return loop
        iteration = self.iteration(s)
        stats = self.owner.stats

        def vector_loop(env):
            if kernel.run(env, None, iteration):
                stats["vector"] += 1
                return None
            stats["fallback"] += 1
            return loop(env)
        return vector_loop

    def _s_FixedPoint(self, s: ir.FixedPoint):
        flag = self.slot(s.flag)
        if s.prop is None:
            body, cond = self.stmt(s.body), self.expr(s.cond)

            def general(env):
                while True:
                    signal = body(env)
                    if signal is BREAK:
                        break
                    if signal is RETURN:
                        return signal
                    if cond(env):
                        break
                env[flag] = True
                return None
            return general
        prop = s.prop
        cur_slot = self.slot(prop)
        nxt_slot = self._new_slot()
        saved = self.write_redirect.get(prop.uid)
        self.write_redirect[prop.uid] = nxt_slot
        try:
            body = self.stmt(s.body)
        finally:
            if saved is None:
                del self.write_redirect[prop.uid]
            else:
                self.write_redirect[prop.uid] = saved

        def fixed_point(env):
            cur = env[cur_slot]
            nxt = np.zeros_like(cur)
            env[nxt_slot] = nxt
            while True:
                nxt.fill(False)
                env[flag] = True
                signal = body(env)
                if signal is RETURN:
                    cur[...] = nxt
                    return signal
                cur[...] = nxt
                if cur.any():
                    env[flag] = False
                if signal is BREAK or env[flag]:
                    break
            env[flag] = True
            return None
        return fixed_point

    def _s_IterateBFS(self, s: ir.IterateBFS):
        view = self.view
        var = self.slot(s.var)
        root = self.expr(s.root)
        bfs_slot = self._new_slot()
        self.bfs_stack.append((s.var.uid, bfs_slot))
        try:
            body = self.stmt(s.body)
            filt = self.expr(s.filter) if s.filter is not None else None
            reverse = s.reverse
            rbody = self.stmt(reverse.body) if reverse is not None else None
            rcond = self.expr(reverse.cond) if reverse is not None and reverse.cond is not None \
                else None
            kernels = (None, None)
            if self.owner.vectorize:
                from starc.reference.vectorize import compile_bfs_bodies
                kernels = compile_bfs_bodies(self, s, bfs_slot)
        finally:
            self.bfs_stack.pop()
        n, loc = view.num_nodes, s.loc
        stats = self.owner.stats

        def sweep(env, layer, kernel, step, test):
            if kernel is not None and kernel.run(env, layer, None):
                stats["vector"] += 1
                return None
            for v in layer.tolist():
                env[var] = v
                if test is not None and not test(env):
                    continue
                signal = step(env)
                if signal is RETURN:
                    return signal
            return None

        def iterate(env):
            start = _check_vertex(root(env), n, "BFS root", loc)
            layers, level = bfs_layers(view, start)
            env[bfs_slot] = BFSState(layers, level)
            for layer in layers:
                if sweep(env, layer, kernels[0], body, filt) is RETURN:
                    return RETURN
            if rbody is not None:
                for layer in reversed(layers):
                    if sweep(env, layer, kernels[1], rbody, rcond) is RETURN:
                        return RETURN
            return None
        return iterate
