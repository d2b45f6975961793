"""Loop statements of semantic analysis: forall/for, fixedPoint, iterateInBFS/Reverse.

``LoopStatements`` is a mixin of ``starc.ir.sema.FunctionAnalyzer``: it builds the loop
domains (a fresh edge symbol ``e_<var>`` for each neighbour loop, BFS roles), rewrites filters
and keeps the loop, neighbour, BFS and parallel-construct stacks the other rules read.
"""

from __future__ import annotations

import dataclasses
from typing import List, Optional

from starc.diagnostics import Diagnostic, Severity
from starc.frontend import ast
from starc.frontend.unparse import unparse
from starc.ir import nodes as ir
from starc.ir.rules import ParallelFrame
from starc.ir.scope import ERROR, Scope, is_error
from starc.ir.typecheck import GRAPH_QUERIES, LOOP_SOURCES, NeighborFrame, text_of
from starc.ir.types import PropType, Scalar, SetType

__all__ = ["LoopStatements"]

S = Scalar


class LoopStatements:
    """Loop statements (mixin; see the module docstring)."""

    def _stmt_Loop(self, node: ast.Loop) -> List[ir.Stmt]:
        source = node.source
        domain, var_type, neighbor = self._domain(node)
        scope = Scope(self.scope)
        var = self.symbols.make(node.var, var_type, ir.SymbolKind.LOOP, node.loc)
        scope.declare(var, self.sink)
        self.races.declared(var)
        edge = None
        if neighbor is not None:
            graph, of, cls, role = neighbor
            edge = self.symbols.make(f"e_{node.var}", S.EDGE, ir.SymbolKind.EDGE, node.loc)
            self.races.declared(edge)
            if cls is ir.Neighbors:
                domain = ir.Neighbors(graph, of, edge, role, loc=source.loc)
            else:
                domain = ir.InNeighbors(graph, of, edge, loc=source.loc)
            direction = "in" if cls is ir.InNeighbors or role == "bfs_parents" else "out"
            self.neighbor_loops.append(NeighborFrame(var, of, edge, graph, direction, role,
                                                     node.loc))
            self.races.register_edge(edge, of)
        filter_ = self._filter(source.filter, var, scope) if source.filter is not None else None
        start = self.flow.state
        if node.parallel:
            self.races.frames.append(ParallelFrame("a forall", var,
                                                   edge=edge.uid if edge is not None else None))
        frame = None
        try:
            body, _ = self._loop_body("forall" if node.parallel else "for", node.body, scope)
        finally:
            if node.parallel:
                frame = self.races.frames.pop()
            if neighbor is not None:
                self.neighbor_loops.pop()
        if frame is not None:
            self.races.check_reduced_scalar_reads(frame, (filter_, body))
        if node.parallel and not self.races.frames:
            converging = any(f.kind in ("while", "do", "fixedPoint") for f in self.loops)
            self.races.check_reduced_reads(var, (filter_, body), converging)
        self.flow.state = start
        if domain is None:   # an error was reported
            return []
        return [ir.Loop(var, domain, body, node.parallel, filter_, loc=node.loc)]

    def _domain(self, node: ast.Loop):
        """(domain, variable type, neighbour info): a neighbour loop gives no domain but
        (graph, of, domain class, role), completed once its edge symbol exists; an error
        gives neither."""
        source = node.source
        updates = self.update_domain(source)
        if updates is not None:
            return updates
        if source.method is None:
            sym = self.scope.lookup(source.obj.id) if isinstance(source.obj, ast.Name) else None
            if sym is None and isinstance(source.obj, ast.Name):
                self.lookup(source.obj.id, source.obj.loc)
                return None, ERROR, None
            if sym is None or not isinstance(sym.type, SetType):
                self.sink.error("E0412", f"cannot iterate '{text_of(source.obj)}'", source.loc,
                                hint="iterate g.nodes(), g.edges(), g.neighbors(v), "
                                     "g.nodes_to(v), a SetN or an updates<g>")
                return None, ERROR, None
            var_type = S.NODE if sym.type.kind == "node" else S.EDGE
            if node.parallel:
                self.sink.error("E0412", "a forall cannot iterate a set", source.loc,
                                hint=f"use 'for ({node.var} in {sym.name})'")
                return None, var_type, None
            return ir.SetMembers(sym, loc=source.loc), var_type, None
        method = source.method
        if method not in LOOP_SOURCES:
            hint = "iterate g.nodes(), g.edges(), g.neighbors(v) or g.nodes_to(v)"
            if method in GRAPH_QUERIES:
                self.sink.error("E0412", f"cannot iterate '{method}()'", source.loc, hint=hint)
            else:
                self.sink.error("E0204", f"unknown graph iteration '{method}'", source.loc,
                                hint=hint)
            return None, ERROR, None
        graph = self.graph_symbol(source.obj)
        if method == "neighbours":
            self.sink.warning("compat-alias", "'neighbours' is a StarPlat alias of 'neighbors'",
                              source.loc, hint="write 'neighbors'")
        count = 0 if method in ("nodes", "edges") else 1
        if not self._arity(method, source.args, count, source.loc):
            return None, S.EDGE if method == "edges" else S.NODE, None
        if count == 0:
            if graph is None:
                return None, S.EDGE if method == "edges" else S.NODE, None
            cls = ir.AllNodes if method == "nodes" else ir.AllEdges
            return cls(graph, loc=source.loc), S.NODE if method == "nodes" else S.EDGE, None
        of = self.value(source.args[0], S.NODE, f"the argument of '{method}'")
        if graph is None or is_error(of.type):
            return None, S.NODE, None
        if method == "nodes_to":
            return None, S.NODE, (graph, of, ir.InNeighbors, "out")
        role = "out"
        for bfs_var, bfs_role in reversed(self.bfs):
            if of == ir.VarRef(bfs_var, type=bfs_var.type):
                role = bfs_role
                break
        return None, S.NODE, (graph, of, ir.Neighbors, role)

    def _filter(self, node: ast.Expr, var: ir.Symbol, scope: Scope) -> Optional[ir.Expr]:
        saved_scope, saved_filter = self.scope, self.filter_var
        self.scope, self.filter_var = scope, var
        try:
            cond = self.expr(node)
        finally:
            self.scope, self.filter_var = saved_scope, saved_filter
        if not is_error(cond.type) and cond.type is not S.BOOL:
            self.sink.error("E0408", f"a filter condition must be bool, found '{cond.type}'",
                            node.loc)
        return cond

    def _stmt_FixedPoint(self, node: ast.FixedPoint) -> List[ir.Stmt]:
        flag = self.scope.lookup(node.var)
        if flag is None:
            self.sink.error("E0404", f"fixedPoint variable '{node.var}' is not declared",
                            node.loc, hint=f"declare 'bool {node.var} = False;' before the loop")
        elif flag.type is not S.BOOL and not is_error(flag.type):
            self.sink.error("E0404", f"fixedPoint variable '{node.var}' must be a bool, not "
                                     f"'{flag.type}'", node.loc)
            flag = None
        prop = None
        cond_node = node.cond
        if isinstance(cond_node, ast.Unary) and cond_node.op == "!":
            prop = self._prop_name(cond_node.operand)
            if prop is not None and prop.type != PropType("node", S.BOOL):
                self.sink.error("E0404", f"fixedPoint needs a propNode<bool>, '{prop.name}' is a "
                                         f"'{prop.type}'", cond_node.operand.loc)
                prop, flag = None, None
                cond_node = None
        elif self._prop_name(cond_node) is not None:
            self.sink.error("E0404", "a fixedPoint on a property is written 'until (flag : !p)'",
                            cond_node.loc)
            flag, cond_node = None, None
        body, _ = self._loop_body("fixedPoint", node.body)
        if flag is not None:
            self.flow.assign(flag)
        if cond_node is None:
            return []
        if prop is not None:
            cond = ir.Unary("!", ir.VarRef(prop, type=prop.type, loc=cond_node.operand.loc),
                            type=S.BOOL, loc=cond_node.loc)
        else:
            cond = self.scalar(cond_node)
            if not is_error(cond.type) and cond.type is not S.BOOL:
                self.sink.error("E0404", f"a fixedPoint condition must be bool, found "
                                         f"'{cond.type}'", cond_node.loc)
                return []
        if flag is None:
            return []
        return [ir.FixedPoint(flag, cond, body, prop, loc=node.loc)]

    def _stmt_IterateInBFS(self, node: ast.IterateInBFS) -> List[ir.Stmt]:
        graph = self.graph_symbol(node.graph)
        root = self.value(node.root, S.NODE, "the BFS root")
        scope = Scope(self.scope)
        var = self.symbols.make(node.var, S.NODE, ir.SymbolKind.LOOP, node.loc)
        scope.declare(var, self.sink)
        self.races.declared(var)
        filter_ = self._filter(node.filter, var, scope) if node.filter is not None else None
        start = self.flow.state
        body = self._bfs_part(var, "bfs_parents", "iterateInBFS", "bfs", node.body, scope)
        reverse = None
        if node.reverse is not None:
            back = Scope(self.scope)
            back.names[var.name] = var
            cond = None
            if node.reverse.cond is not None:
                cond = self._filter(node.reverse.cond, var, back)
            sweep = self._bfs_part(var, "bfs_children", "iterateInReverse", "reverse",
                                   node.reverse.body, back)
            reverse = ir.ReverseSweep(cond, sweep, loc=node.reverse.loc)
        self.flow.state = start
        if graph is None:
            return []
        return [ir.IterateBFS(var, graph, root, body, filter_, reverse, loc=node.loc)]

    def _bfs_part(self, var, role, label, kind, stmt, scope) -> ir.Block:
        self.bfs.append((var, role))
        self.races.frames.append(ParallelFrame(label, var))
        try:
            body, _ = self._loop_body(kind, stmt, scope)
        finally:
            frame = self.races.frames.pop()
            self.bfs.pop()
        self.races.check_reduced_scalar_reads(frame, (body,))
        return body

    def bfs_parent_write(self, target: ir.Expr, stmt: Optional[ast.Stmt]) -> bool:
        """E0303 for a write to a property of ``w`` in ``for (w in g.neighbors(v))`` inside
        an iterateInBFS body: there ``w`` is a BFS *parent* of ``v``. StarPlat's push-form
        Brandes (``w.sigma = w.sigma + v.sigma``) means ``w`` to be a child; accepting it
        would silently give another answer, so it is rejected with its pull form (the same
        statement with ``v`` and ``w`` swapped). True when reported."""
        if not (isinstance(target, ir.PropRead) and isinstance(target.index, ir.VarRef)):
            return False
        frame = next((f for f in reversed(self.neighbor_loops)
                      if f.role == "bfs_parents" and f.var == target.index.sym), None)
        if frame is None:
            return False
        if stmt is not None and stmt is self.push_reported:
            return True     # one message for <w.a, w.b> = <Min(...), ...>
        self.push_reported = stmt
        w, v = frame.var.name, frame.of.sym.name
        prop = f"{w}.{target.prop.name}"
        pull = _swap_names(stmt, w, v) if stmt is not None else None
        rewrite = (f": '{unparse(pull)}'" if isinstance(pull, _SIMPLE) else
                   f", with '{v}' and '{w}' swapped")
        note = Diagnostic(
            Severity.NOTE, f"inside iterateInBFS, g.neighbors({v}) visits the BFS parents of "
                           f"'{v}': edges {w} -> {v} with level({w}) = level({v}) - 1, one level "
                           f"closer to the source (inside iterateInReverse: the children)",
            frame.loc)
        self.sink.extend([Diagnostic(
            Severity.ERROR, f"cannot write '{prop}' inside iterateInBFS: '{w}' is a BFS parent "
                            f"of '{v}', not a child",
            target.loc, "E0303",
            hint=f"pull from the parent instead of pushing to the child{rewrite}",
            notes=(note,) if frame.loc.line > 0 else ())])
        return True

    def _stmt_IterateInReverse(self, node: ast.IterateInReverse) -> List[ir.Stmt]:
        self.sink.error("E0405", "iterateInReverse must directly follow an iterateInBFS",
                        node.loc, hint="write 'iterateInBFS (v in g.nodes() from src) { ... } "
                                       "iterateInReverse (...) { ... }'")
        return []


_SIMPLE = (ast.Assign, ast.CompoundAssign, ast.IncDec, ast.MinMaxAssign)


def _swap_names(node, a: str, b: str):
    """``node`` (a syntax tree) with the variables ``a`` and ``b`` exchanged."""
    if isinstance(node, ast.Name) and node.id in (a, b):
        return dataclasses.replace(node, id=b if node.id == a else a)
    if isinstance(node, tuple):
        return tuple(_swap_names(item, a, b) for item in node)
    if not isinstance(node, ast.Node):
        return node
    changes = {f.name: _swap_names(getattr(node, f.name), a, b)
               for f in dataclasses.fields(node) if f.name != "loc"}
    return dataclasses.replace(node, **changes)
