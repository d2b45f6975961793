"""Assignment statements of semantic analysis: ``=``, ``op=``, ``++``/``--``, Min/Max
assignments, whole-property copies and ``attach*Property``.

``AssignmentStatements`` is a mixin of ``starc.ir.sema.FunctionAnalyzer``: it resolves the
targets (a scalar variable or one property element ``v.p``), types the values through
``ExpressionTyper`` and reports every write to the flow and data-race rules.
"""

from __future__ import annotations

from typing import List, Optional

from starc.diagnostics import SourceLoc
from starc.frontend import ast
from starc.ir import nodes as ir
from starc.ir.scope import ERROR, is_error
from starc.ir.conversions import is_constant
from starc.ir.typecheck import text_of
from starc.ir.types import PropType, Scalar, UpdatesType

__all__ = ["AssignmentStatements"]

S = Scalar
_REDUCIBLE = {"+": (S.INT, S.LONG, S.FLOAT, S.DOUBLE), "-": (S.INT, S.LONG, S.FLOAT, S.DOUBLE),
              "*": (S.INT, S.LONG, S.FLOAT, S.DOUBLE), "&": (S.BOOL, S.INT, S.LONG),
              "|": (S.BOOL, S.INT, S.LONG)}
# What to write instead of ++/-- on a target that is no number.
_INCDEC_HINTS = {("++", S.BOOL): "a bool is no counter: write 'flag = True;' (or '|= True')",
                 ("--", S.BOOL): "a bool is no counter: write 'flag = False;' (or '&= False')",
                 ("++", S.NODE): "a node is a vertex id, not a counter: count in an 'int'",
                 ("--", S.NODE): "a node is a vertex id, not a counter: count in an 'int'",
                 ("++", S.EDGE): "an edge is an edge id, not a counter: count in an 'int'",
                 ("--", S.EDGE): "an edge is an edge id, not a counter: count in an 'int'"}


class AssignmentStatements:
    """Assignment statements (mixin; see the module docstring)."""

    def lvalue(self, node: ast.Expr, reading: bool = False) -> Optional[ir.Expr]:
        """An assignable scalar target (a variable or ``v.p``), or None after E0303."""
        if isinstance(node, ast.Name):
            sym = self.lookup(node.id, node.loc)
            if sym is None:
                return None
            if is_error(sym.type):
                return ir.VarRef(sym, type=ERROR, loc=node.loc)
            if sym.kind in (ir.SymbolKind.LOOP, ir.SymbolKind.EDGE):
                self.sink.error("E0303", f"cannot assign to loop variable '{sym.name}'", node.loc)
                return None
            if not isinstance(sym.type, Scalar):
                self.sink.error("E0303", f"cannot assign to '{sym.name}' (a '{sym.type}')",
                                node.loc)
                return None
            if reading:
                self.flow.read(sym, node.loc, self.sink)
            return ir.VarRef(sym, type=sym.type, loc=node.loc)
        if isinstance(node, (ast.Member, ast.Index)):
            target = self.expr(node)
            if self.bfs_parent_write(target, self.statement):
                return None
            if is_error(target.type) or isinstance(target, ir.PropRead):
                return target
        self.sink.error("E0303", f"cannot assign to '{text_of(node)}'", node.loc,
                        hint="assign to a variable or a property element 'v.p'")
        return None

    def _prop_name(self, node: ast.Expr) -> Optional[ir.Symbol]:
        if isinstance(node, ast.Name):
            sym = self.scope.lookup(node.id)
            if sym is not None and isinstance(sym.type, PropType):
                return sym
        return None

    def _stmt_Assign(self, node: ast.Assign) -> List[ir.Stmt]:
        if isinstance(node.target, ast.Name):
            sym = self.scope.lookup(node.target.id)
            if sym is not None and isinstance(sym.type, UpdatesType):
                return self.updates_assign(node, sym)
        dst = self._prop_name(node.target)
        if dst is not None:
            return self._prop_copy(node, dst)
        value = node.value
        if isinstance(value, ast.Call) and value.func in ("Min", "Max") and len(value.args) == 2:
            target = self.lvalue(node.target)
            first = self.scalar(value.args[0])
            second = self.scalar(value.args[1])
            if target is None:
                return []
            if target == first and not is_error(target.type):
                if not self._minmax_target(value.func, target, node.loc):
                    return []
                candidate = self.convert(second, target.type, value.args[1].loc)
                return [self._update(ir.MinMaxAssign(value.func, target, candidate, (),
                                                     loc=node.loc))]
            result = self.convert(self.min_max(value.func, first, second, value.loc),
                                  target.type, value.loc)
            return [self._assign(target, result, node.loc)]
        target = self.lvalue(node.target)
        result = self.value(value, target.type if target is not None else ERROR)
        if target is None:
            return []
        return [self._assign(target, result, node.loc)]

    def _minmax_target(self, func: str, target: ir.Expr, loc: SourceLoc) -> bool:
        """False after an error: a bool has no atomic min/max on the device backends, and
        &= / |= already say the same thing."""
        if target.type is not S.BOOL:
            return True
        self.sink.error("E0402", f"'{func}' needs a numeric (int, long, float, double) target, "
                                 f"found 'bool'", loc,
                        hint=f"for a bool write '{_target_text(target)} "
                             f"{'&=' if func == 'Min' else '|='} ...'")
        return False

    def _assign(self, target: ir.Expr, value: ir.Expr, loc: SourceLoc) -> ir.Assign:
        if isinstance(target, ir.VarRef):
            self.flow.assign(target.sym)
            self.races.alias(target.sym, value)
        self.races.check_write(target, value, loc, is_constant(value), _target_text(target))
        return ir.Assign(target, value, loc=loc)

    def _prop_copy(self, node: ast.Assign, dst: ir.Symbol) -> List[ir.Stmt]:
        src = self._prop_name(node.value)
        if src is None:
            found = self.expr(node.value)
            if not is_error(found.type):
                self.sink.error(
                    "E0301", f"cannot assign a '{found.type}' to property '{dst.name}' "
                    f"(a '{dst.type}')", node.value.loc,
                    hint=f"set every element with g.attach{dst.type.kind.capitalize()}"
                         f"Property({dst.name} = ...) or one with 'v.{dst.name} = ...'")
            return []
        if src.type != dst.type:
            self.sink.error("E0301", f"cannot copy '{src.name}' (a '{src.type}') into "
                                     f"'{dst.name}' (a '{dst.type}')", node.value.loc)
            return []
        self.races.check_whole_property(dst, node.loc, "copying into every element")
        return [ir.PropCopy(dst, src, loc=node.loc)]

    def _stmt_CompoundAssign(self, node: ast.CompoundAssign) -> List[ir.Stmt]:
        if node.op == "/":
            division = ast.Binary("/", node.target, node.value, loc=node.target.loc)
            out = self._stmt_Assign(ast.Assign(node.target, division, loc=node.loc))
            if out and isinstance(out[0], ir.Assign) and out[0].target.type is S.BOOL:
                # like += -= *=: a bool is no number (and b /= False divides by zero)
                self.sink.error("E0402", "'/=' needs a numeric (int, long, float, double) "
                                         "target, found 'bool'", node.loc)
                return []
            return out
        target = self._reduction_target(node.target, node.op, node.loc)
        value = self.value(node.value, target.type if target is not None else ERROR)
        if target is None:
            return []
        return [self._update(ir.Reduce(node.op, target, value, loc=node.loc))]

    def _update(self, stmt):
        """``stmt`` (a Reduce or MinMaxAssign) after the rules for updates of shared data."""
        if isinstance(stmt, ir.Reduce):
            op, written, values = stmt.op, stmt.written, (stmt.value,)
        else:
            op, written, values = stmt.func, stmt.func, (stmt.candidate,)
        self.races.check_update(stmt.target, op, written, values, stmt.loc,
                                _target_text(stmt.target))
        return stmt

    def _stmt_IncDec(self, node: ast.IncDec) -> List[ir.Stmt]:
        # The one desugaring of x++ / x--: the Reduce node of x += 1 / x -= 1, so every check
        # and lowering of += applies (a shared scalar in a forall is a count reduction); the
        # node keeps the location of the '++', where the parser put it.
        op = "+" if node.op == "++" else "-"
        target = self._reduction_target(node.target, op, node.loc, spelling=node.op)
        if target is None:
            return []
        one = self.convert(ir.Const(1, type=S.INT, loc=node.loc), target.type, node.loc)
        return [self._update(ir.Reduce(op, target, one, spelling=node.op, loc=node.loc))]

    def _reduction_target(self, node: ast.Expr, op: str, loc: SourceLoc,
                          spelling: Optional[str] = None) -> Optional[ir.Expr]:
        """The target of ``op=`` (or of ``++``/``--``, named by ``spelling``), or None."""
        spelling = spelling or f"{op}="
        if self._prop_name(node) is not None:
            self.sink.error("E0303", f"cannot update the whole property '{node.id}' with "
                                     f"'{spelling}'", loc,
                            hint=f"update one element: 'v.{node.id}{spelling}'"
                            if spelling in ("++", "--") else f"update one element: 'v.{node.id}'")
            return None
        target = self.lvalue(node, reading=True)
        if target is None or is_error(target.type):
            return target
        if target.type not in _REDUCIBLE[op]:
            kind = "a bool or integer" if op in "&|" else "a numeric (int, long, float, double)"
            self.sink.error("E0402", f"'{spelling}' needs {kind} target, found '{target.type}'",
                            loc, hint=_INCDEC_HINTS.get((spelling, target.type)))
            return None
        return target

    def _stmt_MinMaxAssign(self, node: ast.MinMaxAssign) -> List[ir.Stmt]:
        targets = [self.lvalue(t, reading=(i == 0)) for i, t in enumerate(node.targets)]
        if len(node.args) != 2:
            self.sink.error("E0205", f"'{node.func}' takes 2 arguments, found {len(node.args)}",
                            node.loc)
            return []
        first = self.scalar(node.args[0])
        second = self.scalar(node.args[1])
        if len(node.targets) != 1 + len(node.rest):
            self.sink.error("E0403", f"{len(node.targets)} target(s) but {1 + len(node.rest)} "
                                     "value(s)", node.loc,
                            hint="give one value after the Min/Max call per extra target")
            for expr in node.rest:
                self.expr(expr)
            return []
        values = [self.value(expr, t.type if t is not None else ERROR)
                  for expr, t in zip(node.rest, targets[1:])]
        if any(t is None for t in targets):
            return []
        for i, t in enumerate(targets):
            if not is_error(t.type) and t in targets[:i]:
                # two stores to one element in one atomic update: which one wins is undefined
                self.sink.error("E0403", f"'{_target_text(t)}' is a target twice in one "
                                         f"{node.func} assignment", node.targets[i].loc,
                                hint="name each target once")
                return []
        target = targets[0]
        if not self._minmax_target(node.func, target, node.loc):
            return []
        if not is_error(target.type) and not is_error(first.type) and target != first:
            self.sink.error("E0403", f"the first target must be the first argument of "
                                     f"{node.func}", node.args[0].loc,
                            hint=f"write '<{_target_text(target)}, ...> = <{node.func}("
                                 f"{_target_text(target)}, ...), ...>'")
            return []
        candidate = self.convert(second, target.type, node.args[1].loc)
        others = tuple(zip(targets[1:], values))
        return [self._update(ir.MinMaxAssign(node.func, target, candidate, others,
                                             loc=node.loc))]

    def _stmt_Attach(self, node: ast.Attach) -> List[ir.Stmt]:
        graph = self.graph_symbol(node.graph)
        method = f"attach{node.kind.capitalize()}Property"
        inits, seen, ok = [], set(), graph is not None
        copies: List[ir.Stmt] = []
        for name, expr in node.pairs:
            sym = self.lookup(name, expr.loc)
            if sym is None:
                self.expr(expr)
                ok = False
                continue
            if not isinstance(sym.type, PropType) or sym.type.kind != node.kind:
                self.sink.error("E0409", f"'{name}' has type '{sym.type}', but {method} needs "
                                         f"prop{node.kind.capitalize()} properties", expr.loc)
                self.expr(expr)
                ok = False
                continue
            if sym.uid in seen:
                self.sink.error("E0409", f"'{name}' is attached twice", expr.loc)
            seen.add(sym.uid)
            self.races.check_whole_property(sym, node.loc, "attaching a value to every element")
            if isinstance(expr, ast.MethodCall) and expr.method == "getEdgeLen":
                copy = self._edge_lengths(sym, expr, node.loc)
                ok = ok and copy is not None
                copies.extend([copy] if copy is not None else [])
                continue
            inits.append((sym, self.value(expr, sym.type.elem, f"'{name}'")))
        if not ok:
            return []
        return ([ir.Attach(graph, tuple(inits), loc=node.loc)] if inits else []) + copies

    def _edge_lengths(self, dst: ir.Symbol, call: ast.MethodCall,
                      loc: SourceLoc) -> Optional[ir.Stmt]:
        """StarPlat's ``g.attachEdgeProperty(p = g.getEdgeLen())``: ``p`` becomes a copy of the
        graph file's weights, i.e. ``p = weight;`` with the declared or implicit (``sema.
        _implicit_weight``) ``propEdge<int> weight``."""
        weight = self.scope.lookup("weight")
        if call.args or dst.type.kind != "edge" or weight is None \
                or not isinstance(weight.type, PropType) or weight.type != dst.type:
            self.sink.error(
                "E0204", f"'getEdgeLen()' gives the graph's weights, a 'propEdge<int>' read "
                f"through 'weight'; it cannot initialise '{dst.name}' (a '{dst.type}') here",
                call.loc, hint=f"declare 'propEdge<int> weight' as a parameter and write "
                f"'{dst.name} = weight;' (with '{dst.name}' a 'propEdge<int>')")
            return None
        if weight is self.implicit_weight and not self.implicit_weight_noted:
            self.implicit_weight_noted = True
            self.sink.note("starplat-compat", "'getEdgeLen()': reading the graph file's edge "
                           "weights (an implicit 'propEdge<int> weight' parameter)", call.loc,
                           hint="declare 'propEdge<int> weight' among the function's parameters "
                                f"and write '{dst.name} = weight;' to make it explicit")
        return ir.PropCopy(dst, weight, loc=loc)


def _target_text(target: ir.Expr) -> str:
    from starc.ir.printer import format_expr
    try:
        return format_expr(target)
    except Exception:   # messages must never fail
        return "target"
