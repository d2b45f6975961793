"""Expression typing for semantic analysis: names, literals, operators, properties, built-ins.

``ExpressionTyper`` is a mixin of ``starc.ir.sema.FunctionAnalyzer``; it relies on the
analyzer's ``sink``, ``scope``, ``flow``, ``program`` and loop-context attributes. The
conversions it inserts (explicit ``Cast`` nodes, literals adapting to the type they meet)
follow ``starc.ir.conversions``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional

from starc.diagnostics import NO_LOC, SourceLoc, tracks_construct
from starc.frontend import ast
from starc.ir import nodes as ir
from starc.ir.conversions import ImplicitConversions, error_value
from starc.ir.scope import ERROR, is_error
from starc.ir.types import GRAPH, UPDATE, VOID, PropType, Scalar, UpdatesType, is_floating

__all__ = ["ExpressionTyper", "NeighborFrame", "GRAPH_QUERIES", "LOOP_SOURCES", "text_of"]

S = Scalar
# StarPlat graph methods starc rejects where they stand (here, as values): (why, the rewrite)
# for the message. As statements, randSP and combineRandom are analysed in ``starc.ir.randoms``.
_STARPLAT_ONLY = {
    "randSP": ("'g.randSP(p, ...)' is a statement: it fills every vertex's 'p' and gives no "
               "value", "'g.randSP(p);' as a statement of its own, then read 'v.p'"),
    "combineRandom": ("'g.combineRandom(c, a, b)' is a statement: it sets 'c = a * 2^32 + b' "
                      "for every vertex and gives no value",
                      "'g.combineRandom(c, a, b);' as a statement of its own, then read 'v.c'"),
    "getEdgeLen": ("'getEdgeLen()' gives the graph's weights only in "
                   "'g.attachEdgeProperty(p = g.getEdgeLen())'",
                   "the 'weight' property: 'forall (e in g.edges()) { e.p = e.weight; }'"),
}
# StarPlat graph arrays some programs index, and the built-in that gives the same value.
_DEGREE_ARRAYS = {"inDeg": "count_inNbrs", "outDeg": "count_outNbrs"}
_INT32_MAX = 2 ** 31 - 1

# name -> (number of node arguments, result type)
GRAPH_QUERIES = {
    "num_nodes": (0, S.INT), "num_edges": (0, S.INT),
    "count_outNbrs": (1, S.INT), "count_inNbrs": (1, S.INT),
    "is_an_edge": (2, S.BOOL), "get_edge": (2, S.EDGE),
}
LOOP_SOURCES = ("nodes", "edges", "neighbors", "neighbours", "nodes_to")
ARITHMETIC = ("+", "-", "*", "/", "%")
COMPARISON = ("==", "!=", "<", "<=", ">", ">=")


@dataclass
class NeighborFrame:
    """An enclosing neighbour loop, for ``g.get_edge`` resolution: ``direction`` is ``out``
    when the loop's edge is ``of -> var`` and ``in`` when it is ``var -> of``; ``role`` is
    the loop domain's BFS role (``bfs_parents``, ``bfs_children`` or ``out``); ``loc`` the
    loop's location."""

    var: ir.Symbol
    of: ir.Expr
    edge: ir.Symbol
    graph: ir.Symbol
    direction: str
    role: str = "out"
    loc: SourceLoc = NO_LOC


class ExpressionTyper(ImplicitConversions):
    """Turns syntax expressions into typed IR expressions (mixin; see module docstring)."""

    # --- entry points -----------------------------------------------------------------

    @tracks_construct
    def expr(self, node: ast.Expr) -> ir.Expr:
        method = getattr(self, "_expr_" + type(node).__name__, None)
        if method is None:
            self.sink.error("E0304", f"unexpected expression '{type(node).__name__}'", node.loc)
            return error_value(node.loc)
        return method(node)

    def value(self, node: ast.Expr, target, what: str = "") -> ir.Expr:
        """``node`` typed and converted to scalar type ``target``."""
        return self.convert(self.expr(node), target, node.loc, what)

    def condition(self, node: ast.Expr) -> ir.Expr:
        """A condition of ``if``/``while``/``do``: any number converts to bool."""
        return self.to_bool(self.expr(node), node.loc)

    def scalar(self, node: ast.Expr) -> ir.Expr:
        """``node`` typed; reports E0301 unless it is a scalar value."""
        result = self.expr(node)
        if not is_error(result.type) and not isinstance(result.type, Scalar):
            self._not_a_value(result.type, node.loc)
            return error_value(node.loc)
        return result

    # --- names and literals -----------------------------------------------------------

    def lookup(self, name: str, loc: SourceLoc) -> Optional[ir.Symbol]:
        sym = self.scope.lookup(name)
        if sym is None:
            near = self.scope.suggest(name)
            self.sink.error("E0201", f"undeclared name '{name}'", loc,
                            hint=f"did you mean '{near}'?" if near else None)
        return sym

    def _expr_Name(self, node: ast.Name) -> ir.Expr:
        sym = self.lookup(node.id, node.loc)
        if sym is None:
            return error_value(node.loc)
        if is_error(sym.type):
            return ir.VarRef(sym, type=ERROR, loc=node.loc)
        if isinstance(sym.type, PropType) and self.filter_var is not None:
            var = self.filter_var
            index = ir.VarRef(var, type=var.type, loc=node.loc)
            return self._prop_read(sym, index, var.name, node.loc)
        if not isinstance(sym.type, Scalar):
            self._not_a_value(sym.type, node.loc, sym.name)
            return error_value(node.loc)
        self.flow.read(sym, node.loc, self.sink)
        return ir.VarRef(sym, type=sym.type, loc=node.loc)

    def _expr_IntLit(self, node: ast.IntLit, negated: bool = False) -> ir.Expr:
        value = int(node.value)
        # a literal that fits no integer type is rejected here; one that fits 'long' but
        # not the type it meets is rejected where it adapts (``_adapt_literal``)
        if not self._literal_fits(-value if negated else value, S.LONG, node.loc):
            return error_value(node.loc)
        type_ = S.INT if value <= _INT32_MAX + (1 if negated else 0) else S.LONG
        return ir.Const(value, type=type_, loc=node.loc)

    def _expr_FloatLit(self, node: ast.FloatLit) -> ir.Expr:
        return ir.Const(float(node.value), type=S.DOUBLE, loc=node.loc)

    def _expr_BoolLit(self, node: ast.BoolLit) -> ir.Expr:
        if node.spelling in ("true", "false"):
            proper = "True" if node.value else "False"
            self.sink.warning("compat-alias", f"'{node.spelling}' is a StarPlat alias of '{proper}'",
                              node.loc, hint=f"write '{proper}'")
        return ir.Const(bool(node.value), type=S.BOOL, loc=node.loc)

    def _expr_InfLit(self, node: ast.InfLit) -> ir.Expr:
        if node.spelling != "INF":
            self.sink.warning("compat-alias", f"'{node.spelling}' is a StarPlat alias of 'INF'",
                              node.loc, hint="write 'INF' (it takes the largest value of its type)")
        return ir.Inf(False, type=S.INT, loc=node.loc)

    # --- operators --------------------------------------------------------------------

    def _expr_Unary(self, node: ast.Unary) -> ir.Expr:
        if node.op == "-" and isinstance(node.operand, ast.IntLit):
            operand = self._expr_IntLit(node.operand, negated=True)  # -2147483648 is an int
        else:
            operand = self.scalar(node.operand)
        if is_error(operand.type):
            return operand
        if node.op == "!":
            return ir.Unary("!", self.to_bool(operand, node.operand.loc), type=S.BOOL, loc=node.loc)
        if isinstance(operand, ir.Inf) and not operand.negative:
            return ir.Inf(True, type=operand.type, loc=node.loc)
        if operand.type in (S.BOOL, S.NODE, S.EDGE):
            operand = ir.Cast(operand, type=S.INT, loc=operand.loc)
        return ir.Unary("-", operand, type=operand.type, loc=node.loc)

    def _expr_Binary(self, node: ast.Binary) -> ir.Expr:
        op = node.op
        left, right = self.scalar(node.left), self.scalar(node.right)
        if is_error(left.type) or is_error(right.type):
            return error_value(node.loc)
        if op in ("&&", "||"):
            return ir.Binary(op, self.to_bool(left, node.left.loc),
                             self.to_bool(right, node.right.loc), type=S.BOOL, loc=node.loc)
        comparison = op in COMPARISON
        if not comparison and op not in ARITHMETIC:
            self.sink.error("E0304", f"unknown operator '{op}'", node.loc)
            return error_value(node.loc)
        if left.type is VOID or right.type is VOID:
            self._not_a_value(VOID, node.loc)
            return error_value(node.loc)
        common = self._meet(left, right, comparison)
        if op == "%" and is_floating(common):
            self.sink.error("E0304", f"'%' needs integer operands, found '{common}'", node.loc,
                            hint="use integer operands (C has no floating-point '%')")
            return error_value(node.loc)
        left = self._silent_convert(left, common)
        right = self._silent_convert(right, common)
        return ir.Binary(op, left, right, type=S.BOOL if comparison else common, loc=node.loc)

    # --- members, properties and edges ------------------------------------------------

    def note_implicit_weight(self, sym: ir.Symbol, loc) -> None:
        """The starplat-compat note, once per function, at the first read of an undeclared
        ``weight`` (issue 16's implicit parameter)."""
        if sym is self.implicit_weight and not self.implicit_weight_noted:
            self.implicit_weight_noted = True
            self.sink.note("starplat-compat", "'weight' is not declared: reading the graph "
                           "file's edge weights (an implicit 'propEdge<int> weight' parameter)",
                           loc, hint="declare 'propEdge<int> weight' among the function's "
                                     "parameters to make it explicit; "
                                     "'-W no-starplat-compat' silences this note")

    def _expr_Member(self, node: ast.Member) -> ir.Expr:
        if isinstance(node.obj, ast.Name):
            sym = self.scope.lookup(node.obj.id)
            if sym is not None and sym.type == UPDATE:
                return self.update_field(node, sym)
            if sym is not None and sym.type == GRAPH:
                self.sink.error("E0204", f"'{node.obj.id}.{node.name}' is not a graph built-in",
                                node.loc)
                return error_value(node.loc)
        obj = self.scalar(node.obj)
        if is_error(obj.type):
            return obj
        if obj.type is S.EDGE and node.name in ("source", "destination"):
            return ir.EdgeEndpoint(obj, node.name, type=S.NODE, loc=node.loc)
        sym = self.scope.lookup(node.name)
        text = _text(node.obj)
        if sym is not None:
            self.note_implicit_weight(sym, node.loc)
        if sym is None or not isinstance(sym.type, PropType):
            if obj.type is S.EDGE:
                self.sink.error(
                    "E0305", f"edge property '{node.name}' is not declared", node.loc,
                    hint=f"add 'propEdge<int> {node.name}' to the function's parameters" + (
                        " (a function that another calls gets its weights from the caller)"
                        if node.name == "weight" else ""))
            elif sym is None:
                near = self.scope.suggest(node.name, lambda s: isinstance(s.type, PropType))
                self.sink.error("E0203", f"undeclared property '{node.name}'", node.loc,
                                hint=f"did you mean '{near}'?" if near else
                                f"declare it, e.g. 'propNode<int> {node.name};'")
            else:
                self.sink.error("E0203", f"'{node.name}' is not a property", node.loc)
            return error_value(node.loc)
        return self._prop_read(sym, obj, text, node.loc)

    def _prop_read(self, prop: ir.Symbol, index: ir.Expr, text: str, loc: SourceLoc) -> ir.Expr:
        kind = prop.type.kind
        wanted = S.NODE if kind == "node" else S.EDGE
        if is_error(index.type):
            return error_value(loc)
        if index.type in (S.INT, S.LONG):
            # StarPlat indexes properties by vertex ids held in ints (matching, push-relabel):
            # the same implicit conversion as anywhere else (LANGUAGE.md §2); the range is
            # checked where the element is read or written (analysis/checks.py).
            index = self.convert(index, wanted, index.loc)
        if index.type is not wanted:
            found = str(index.type)
            article = "an" if found[0] in "aeiou" else "a"
            self.sink.error(
                "E0302", f"'{prop.name}' is a prop{kind.capitalize()} but '{text}' is "
                f"{article} {found}", loc, hint=f"a prop{kind.capitalize()} is indexed by {'an' if kind == 'edge' else 'a'} {kind}")
            return error_value(loc)
        return ir.PropRead(prop, index, type=prop.type.elem, loc=loc)

    def _expr_Index(self, node: ast.Index) -> ir.Expr:
        """StarPlat's ``p[v]`` is ``v.p`` (a property element); nothing else is indexed."""
        sym = self.scope.lookup(node.obj.id) if isinstance(node.obj, ast.Name) else None
        if sym is not None and isinstance(sym.type, PropType):
            index = self.scalar(node.index)
            if is_error(index.type):
                return index
            return self._prop_read(sym, index, _text(node.index), node.loc)
        if isinstance(node.obj, ast.Name) and sym is None:
            self.sink.error("E0203", f"undeclared property '{node.obj.id}'", node.obj.loc,
                            hint=f"declare it, e.g. 'propNode<int> {node.obj.id};'")
            return error_value(node.loc)
        if isinstance(node.obj, ast.Member) and node.obj.name in _DEGREE_ARRAYS:
            hint = f"write 'g.{_DEGREE_ARRAYS[node.obj.name]}({_text(node.index)})'"
        else:
            hint = "only a property is indexed: 'p[v]' (or 'v.p') with 'p' a propNode or propEdge"
        self.sink.error("E0304", f"indexing '{_text(node.obj)}' with '[]' is not supported",
                        node.loc, hint=hint)
        return error_value(node.loc)

    # --- calls ------------------------------------------------------------------------

    def _expr_Call(self, node: ast.Call) -> ir.Expr:
        if node.func in ("Min", "Max"):
            if not self._arity(node.func, node.args, 2, node.loc):
                return error_value(node.loc)
            return self.min_max(node.func, self.scalar(node.args[0]), self.scalar(node.args[1]),
                                node.loc)
        if node.func in ("minWt", "maxWt"):
            if not self._arity(node.func, node.args, 1, node.loc):
                return error_value(node.loc)
            prop = self._named_symbol(node.args[0])
            if prop is None:
                return error_value(node.loc)
            if not (isinstance(prop.type, PropType) and prop.type.kind == "edge"):
                self.sink.error("E0301", f"{node.func} needs a propEdge, '{prop.name}' is a "
                                f"'{prop.type}'", node.args[0].loc)
                return error_value(node.loc)
            return ir.WeightBound(node.func, prop, type=prop.type.elem, loc=node.loc)
        return self.call_function(node)

    def min_max(self, func: str, left: ir.Expr, right: ir.Expr, loc: SourceLoc) -> ir.Expr:
        if is_error(left.type) or is_error(right.type):
            return error_value(loc)
        common = self._meet(left, right, comparison=True)
        if common is S.BOOL:   # no min/max of bools in C or as a device atomic
            self.sink.error("E0304", f"'{func}' needs numeric operands, found 'bool'", loc,
                            hint=f"use '{'&&' if func == 'Min' else '||'}' on bools")
            return error_value(loc)
        return ir.MinMax(func, self._silent_convert(left, common),
                         self._silent_convert(right, common), type=common, loc=loc)

    def call_function(self, node: ast.Call) -> ir.Expr:
        signature = self.program.signature(node.func)
        if signature is None:
            hint = None
            if node.func in ("Sum", "Count", "Product"):
                hint = "write a reduction inside a forall: 's += e', 'c++', 'p *= e'"
            self.sink.error("E0204", f"unknown function '{node.func}'", node.loc, hint=hint)
            for arg in node.args:   # still check the arguments' names
                self._argument_probe(arg)
            return error_value(node.loc)
        if not self.call_rules(node):
            return error_value(node.loc)
        if not self._arity(node.func, node.args, len(signature.param_types), node.loc):
            return error_value(node.loc)
        args: List[ir.Expr] = []
        failed = False
        for arg, (pname, ptype) in zip(node.args, signature.param_types):
            if ptype is None:
                failed = True
                continue
            if isinstance(ptype, Scalar):
                converted = self.value(arg, ptype, f"argument '{pname}' of '{node.func}'")
            else:
                converted = self._aggregate_argument(arg, ptype, pname, node.func)
            failed = failed or is_error(converted.type)
            args.append(converted)
        return_type = self.program.return_type(node.func, node.loc, self.sink)
        if failed or is_error(return_type):
            return error_value(node.loc)
        return ir.CallExpr(node.func, tuple(args), type=return_type or VOID, loc=node.loc)

    def _aggregate_argument(self, arg: ast.Expr, ptype, pname: str, func: str) -> ir.Expr:
        if isinstance(ptype, UpdatesType):
            # any updates<g> value: a variable or 'U.currentBatch(1)' (the graph's name in the
            # callee's signature is the callee's own)
            value = self.updates_value(arg)
            if value is not None:
                return value
        sym = self._named_symbol(arg)
        if sym is None:
            return error_value(arg.loc)
        if sym.type != ptype:
            self.sink.error("E0301", f"argument '{pname}' of '{func}' must be a '{ptype}', "
                            f"found '{sym.type}'", arg.loc)
            return error_value(arg.loc)
        return ir.VarRef(sym, type=sym.type, loc=arg.loc)

    def _argument_probe(self, arg: ast.Expr) -> None:
        if isinstance(arg, ast.Name):
            self.lookup(arg.id, arg.loc)
        else:
            self.expr(arg)

    def _named_symbol(self, node: ast.Expr) -> Optional[ir.Symbol]:
        """The symbol of a bare name used as a whole (a property, graph or set argument)."""
        if not isinstance(node, ast.Name):
            self.sink.error("E0301", "expected the name of a property, graph or set", node.loc)
            return None
        return self.lookup(node.id, node.loc)

    def _arity(self, name: str, args, expected: int, loc: SourceLoc) -> bool:
        if len(args) != expected:
            self.sink.error("E0205", f"'{name}' takes {expected} argument"
                            f"{'' if expected == 1 else 's'}, found {len(args)}", loc)
            return False
        return True

    def graph_symbol(self, node: ast.Expr) -> Optional[ir.Symbol]:
        """The graph a method is called on; E0206 when it is not a graph."""
        if isinstance(node, ast.Name):
            sym = self.lookup(node.id, node.loc)
            if sym is None:
                return None
            if sym.type == GRAPH:
                return sym
        self.sink.error("E0206", f"'{_text(node)}' is not a graph", node.loc)
        return None

    def _expr_MethodCall(self, node: ast.MethodCall) -> ir.Expr:
        if node.method == "currentBatch":
            return self.current_batch(node)
        if node.method in ("updateCSRDel", "updateCSRAdd", "propagateNodeFlags"):
            return self.dynamic_method_value(node)
        if node.method in LOOP_SOURCES:
            self.sink.error("E0204", f"'{node.method}()' can only be iterated by a loop",
                            node.loc, hint=f"write 'for (v in {_text(node.obj)}.{node.method}(...))'")
            return error_value(node.loc)
        if node.method in _STARPLAT_ONLY:
            what, rewrite = _STARPLAT_ONLY[node.method]
            self.sink.error("E0204", f"'{node.method}' is not supported: {what}", node.loc,
                            hint=f"use {rewrite}")
            return error_value(node.loc)
        if node.method not in GRAPH_QUERIES:
            self.sink.error("E0204", f"unknown graph built-in '{node.method}'", node.loc)
            return error_value(node.loc)
        graph = self.graph_symbol(node.obj)
        count, result = GRAPH_QUERIES[node.method]
        if graph is None or not self._arity(node.method, node.args, count, node.loc):
            return error_value(node.loc)
        args = tuple(self.value(arg, S.NODE, f"argument of '{node.method}'") for arg in node.args)
        if any(is_error(a.type) for a in args):
            return error_value(node.loc)
        if node.method == "get_edge":
            edge = self.loop_edge(graph, args[0], args[1])
            if edge is not None:
                return ir.VarRef(edge, type=S.EDGE, loc=node.loc)
        return ir.GraphQuery(node.method, graph, args, type=result, loc=node.loc)

    def loop_edge(self, graph: ir.Symbol, u: ir.Expr, w: ir.Expr) -> Optional[ir.Symbol]:
        """The edge variable of the innermost enclosing neighbour loop that ``get_edge(u, w)``
        names, if any."""
        for frame in reversed(self.neighbor_loops):
            if frame.graph != graph:
                continue
            var = ir.VarRef(frame.var, type=frame.var.type)
            if frame.direction == "out" and u == frame.of and w == var:
                return frame.edge
            if frame.direction == "in" and u == var and w == frame.of:
                return frame.edge
        return None

    # --- messages ---------------------------------------------------------------------

    def _not_a_value(self, type_, loc: SourceLoc, name: str = "") -> None:
        label = f"'{name}' is a '{type_}'" if name else f"a '{type_}'"
        if isinstance(type_, PropType):
            self.sink.error("E0301", f"{label}, not a value", loc,
                            hint=f"read one element as 'v.{name or 'p'}'")
        elif type_ is VOID:
            self.sink.error("E0301", "a function without a return value used as a value", loc)
        else:
            self.sink.error("E0301", f"{label}, not a value", loc)


def _text(node: ast.Expr) -> str:
    """A short source-like rendering of a syntax expression for messages."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Member):
        return f"{_text(node.obj)}.{node.name}"
    if isinstance(node, ast.MethodCall):
        return f"{_text(node.obj)}.{node.method}(...)"
    if isinstance(node, ast.Call):
        return f"{node.func}(...)"
    if isinstance(node, ast.IntLit):
        return str(node.value)
    return "expression"


def text_of(node: ast.Expr) -> str:
    return _text(node)

