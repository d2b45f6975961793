"""StarPlat's random built-ins in semantic analysis: ``g.randSP`` and ``g.combineRandom``.

``RandomStatements`` is a mixin of ``starc.ir.sema.FunctionAnalyzer``. Both statements lower
to existing IR (a forall over ``g.nodes()``); randSP's values come from one new expression,
``ir.Random``, a hash of the run's seed (the function's ``seed`` parameter, implicit and
optional when not declared: ``--seed S``, default 0), a draw counter (a hidden ``long``
local counting the randSP statements executed so far), the argument position and the vertex,
so that every backend and the reference give the same values for a given seed.
"""

from __future__ import annotations

from typing import List, Optional

from starc.diagnostics import SourceLoc
from starc.frontend import ast
from starc.ir import nodes as ir
from starc.ir.types import PropType, Scalar

__all__ = ["RandomStatements", "RANDOM_METHODS", "SEED", "uses_random"]

S = Scalar
RANDOM_METHODS = ("randSP", "combineRandom")
SEED = "seed"            # the parameter (and command-line option) that seeds randSP
SEED_DEFAULT = 0
_INTEGERS = (S.INT, S.LONG)
_NOT_INTEGER_HINT = ("randSP draws integers in [0, 2^31): declare '{name}' as a "
                     "'propNode<int>' (or 'propNode<long>') and convert where a number in "
                     "[0, 1) is needed: 'v.x = v.{name} / 2147483648.0;'")


def _nodes(body: ast.Node):
    """``body`` and everything below it, in source order."""
    stack = [body]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(list(ast.children(node))))


def uses_random(body: ast.Node) -> Optional[ast.MethodCall]:
    """The first ``g.randSP(...)`` call of ``body``, if any."""
    return next((node for node in _nodes(body)
                 if isinstance(node, ast.MethodCall) and node.method == "randSP"), None)


class RandomStatements:
    """``g.randSP(p1, ...)`` and ``g.combineRandom(c, a, b)`` (mixin; see the module
    docstring). The analyzer sets ``self.seed`` (the seed symbol) and ``self.draw`` (the
    draw counter, declared by ``FunctionAnalyzer.run``) when the function uses randSP."""

    def random_statement(self, node: ast.ExprStmt) -> List[ir.Stmt]:
        call = node.expr
        graph = self.graph_symbol(call.obj)
        if self.races.frames:
            self.sink.error("E0204", f"'{call.method}' inside {self.races.frames[-1].label}",
                            call.loc, hint=f"call 'g.{call.method}(...)' outside parallel "
                            "loops: it fills the property of every vertex itself")
            return []
        if call.method == "randSP":
            return self._rand_sp(call, graph)
        return self._combine_random(call, graph)

    def _random_property(self, arg: ast.Expr, method: str, types=_INTEGERS
                         ) -> Optional[ir.Symbol]:
        """The node property an argument names (int or long), or None after an error."""
        if not isinstance(arg, ast.Name):
            self.sink.error("E0204", f"an argument of '{method}' must name a node property",
                            arg.loc, hint="declare 'propNode<int> p;' and pass 'p'")
            return None
        sym = self.lookup(arg.id, arg.loc)
        if sym is None:
            return None
        if not isinstance(sym.type, PropType) or sym.type.kind != "node":
            self.sink.error("E0204", f"'{arg.id}' has type '{sym.type}', but '{method}' fills node "
                                     "properties", arg.loc,
                            hint="pass a 'propNode<int>' or 'propNode<long>'")
            return None
        if sym.type.elem not in types:
            wanted = " or ".join(f"'propNode<{t}>'" for t in types)
            hint = (_NOT_INTEGER_HINT.format(name=arg.id) if sym.type.elem not in _INTEGERS
                    else f"declare '{arg.id}' as 'propNode<long>': it holds a * 2^32 + b")
            self.sink.error("E0204", f"'{method}' is not supported on '{arg.id}' (a "
                                     f"'{sym.type}'): it needs {wanted}", arg.loc, hint=hint)
            return None
        return sym

    def _rand_sp(self, call: ast.MethodCall, graph: Optional[ir.Symbol]) -> List[ir.Stmt]:
        if not call.args:
            self.sink.error("E0204", "'randSP' needs the properties to fill", call.loc,
                            hint="write 'g.randSP(p1, p2, ...)' with 'propNode<int>' properties")
        props = [self._random_property(arg, "randSP") for arg in call.args]
        if graph is None or not call.args or None in props or self.seed is None:
            return []
        seed = ir.VarRef(self.seed, type=self.seed.type, loc=call.loc)
        if self.seed.type is not S.LONG:
            seed = ir.Cast(seed, type=S.LONG, loc=call.loc)
        draw = ir.VarRef(self.draw, type=S.LONG, loc=call.loc)

        def value(position: int, prop: ir.Symbol, vertex: ir.Expr) -> ir.Expr:
            number = ir.Random(seed, draw, ir.Const(position, type=S.INT), vertex, type=S.INT,
                               loc=call.loc)
            return number if prop.type.elem is S.INT else ir.Cast(number, type=S.LONG,
                                                                  loc=call.loc)
        fill = self._every_vertex(graph, call.loc, lambda v: [
            (prop, value(position, prop, v)) for position, prop in enumerate(props)])
        step = ir.Reduce("+", draw, ir.Const(1, type=S.LONG), loc=call.loc)
        return [fill, step]

    def _combine_random(self, call: ast.MethodCall, graph: Optional[ir.Symbol]
                        ) -> List[ir.Stmt]:
        if len(call.args) != 3:
            self.sink.error("E0204", f"'combineRandom' takes 3 properties (c, a, b), got "
                                     f"{len(call.args)}", call.loc,
                            hint="write 'g.combineRandom(c, a, b)': c = a * 2^32 + b per vertex")
            return []
        target = self._random_property(call.args[0], "combineRandom", (S.LONG,))
        high, low = (self._random_property(arg, "combineRandom") for arg in call.args[1:])
        if graph is None or None in (target, high, low):
            return []

        def as_long(prop: ir.Symbol, v: ir.Expr) -> ir.Expr:
            read = ir.PropRead(prop, v, type=prop.type.elem, loc=call.loc)
            return read if prop.type.elem is S.LONG else ir.Cast(read, type=S.LONG, loc=call.loc)

        def combined(v: ir.Expr) -> ir.Expr:
            shifted = ir.Binary("*", as_long(high, v), ir.Const(2 ** 32, type=S.LONG),
                                type=S.LONG, loc=call.loc)
            return ir.Binary("+", shifted, as_long(low, v), type=S.LONG, loc=call.loc)
        return [self._every_vertex(graph, call.loc, lambda v: [(target, combined(v))])]

    def _every_vertex(self, graph: ir.Symbol, loc: SourceLoc, stores) -> ir.Loop:
        """``forall (v in g.nodes()) { v.p = value; ... }`` for the (p, value) pairs that
        ``stores(v)`` gives for the loop variable ``v``."""
        var = self.symbols.make("v", S.NODE, ir.SymbolKind.LOOP, loc)
        vertex = ir.VarRef(var, type=S.NODE, loc=loc)
        body = tuple(ir.Assign(ir.PropRead(prop, vertex, type=prop.type.elem, loc=loc), value,
                               loc=loc) for prop, value in stores(vertex))
        return ir.Loop(var, ir.AllNodes(graph, loc=loc), ir.Block(body, loc=loc), True, loc=loc)

    def seed_parameter(self, fn: ast.Function) -> Optional[ir.Symbol]:
        """The seed of a function that uses randSP: its declared ``seed`` parameter, else an
        implicit optional last parameter ``long seed`` (default 0, ``--seed S``); also makes
        the draw counter. None when the function does not use randSP or after an error."""
        call = uses_random(fn.body)
        if call is None:
            return None
        if self.program.is_called(fn.name):
            self.sink.error("E0204", f"'randSP' is supported in the function the program runs, "
                                     f"but '{fn.name}' is called by another function", call.loc,
                            hint="call 'g.randSP(...)' in the calling function and pass the "
                                 "properties")
            return None
        declared = self.scope.lookup(SEED)
        if declared is not None:
            if declared.type not in _INTEGERS:
                self.sink.error("E0204", f"'randSP' is seeded by the parameter '{SEED}', which "
                                         f"must be an 'int' or a 'long', not a '{declared.type}'",
                                declared.loc, hint=f"declare 'long {SEED}' or rename the "
                                "parameter (then randSP takes '--seed S', default 0)")
                return None
            seed = declared
        else:
            local = next((d for n in _nodes(fn.body) if isinstance(n, ast.VarDecl)
                          for d in n.declarators if d.name == SEED), None)
            if local is not None:
                self.sink.error("E0204", f"'{SEED}' is the program option that seeds randSP "
                                         f"('--{SEED} S'); a local cannot have that name",
                                local.loc, hint=f"rename the local, or declare 'long {SEED}' "
                                "as a parameter to make the seed a required option")
                return None
            seed = self.symbols.make(SEED, S.LONG, ir.SymbolKind.PARAM, fn.loc)
            self.scope.declare(seed, self.sink)
            self.flow.declare(seed, True)
            self.seed_default = (SEED, SEED_DEFAULT)
        self.draw = self.symbols.make("draw", S.LONG, ir.SymbolKind.LOCAL, call.loc)
        self.seed = seed
        return seed if declared is None else None
