"""Semantic analysis: the syntax tree to the typed IR (names, types, language rules, warnings).

``analyze(program, sink)`` returns the typed IR when there are no errors (warnings allowed),
else None; every problem goes to ``sink``. This module walks the functions and statements;
assignments are analysed in ``assignments``, loops in ``loops``, expressions in ``typecheck``
(conversions in ``conversions``), scopes live in ``scope`` and the flow and data-race rules
in ``rules``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Dict, List, Optional, Set, Tuple

from starc.diagnostics import DiagnosticSink, SourceLoc, report_internal_error, tracks_construct
from starc.frontend import ast
from starc.ir import nodes as ir
from starc.ir.assignments import AssignmentStatements
from starc.ir.dynamic import DYNAMIC_METHODS, BatchFrame, DynamicStatements
from starc.ir.loops import LoopStatements
from starc.ir.randoms import RANDOM_METHODS, RandomStatements
from starc.ir.rules import Flow, RaceChecker, join
from starc.ir.scope import ERROR, Scope, SymbolFactory, is_error, stack_room
from starc.ir.conversions import is_flexible
from starc.ir.typecheck import ExpressionTyper, NeighborFrame
from starc.ir.convergence import report_signed_sums
from starc.ir.unused import report_no_result, report_unused
from starc.ir.types import GRAPH, PropType, Scalar, SetType, Type, UpdatesType

__all__ = ["analyze", "FunctionAnalyzer", "ProgramContext", "Signature"]

SCALAR_NAMES = {s.value: s for s in Scalar}


def analyze(program: ast.Program, sink: DiagnosticSink) -> Optional[ir.Program]:
    """The typed IR of ``program``, or None when ``sink`` received errors."""
    before = len(sink.errors)
    context = ProgramContext(program, sink)
    try:
        with stack_room():
            functions = context.run()
    except Exception as exc:   # defensive: report, never leak a traceback from here
        report_internal_error(sink, "sema", exc)
        return None
    if len(sink.errors) > before or functions is None:
        return None
    result = ir.Program(tuple(functions), program.filename, loc=program.loc)
    for node in ir.walk(result):
        if isinstance(node, ir.Expr) and is_error(node.type):
            sink.error("E0901", "internal compiler error: an untyped expression survived "
                                "semantic analysis", node.loc)
            return None
    if result.functions:        # the function a run executes by default (--function: driver)
        from starc.runcontract import entry_function, report_run_option_names
        report_run_option_names(entry_function(result), sink)
        if len(sink.errors) > before:
            return None
    return result


def _real_errors(sink: DiagnosticSink) -> int:
    """The errors in ``sink`` that are no warning promoted by -Werror (those keep the
    warning's name for a code)."""
    return sum(1 for d in sink.errors if d.code.startswith("E"))


@dataclass
class Signature:
    name: str
    param_types: List[Tuple[str, Optional[Type]]]


class ProgramContext:
    """What the functions of one program know about each other, and the uid counter."""

    def __init__(self, program: ast.Program, sink: DiagnosticSink) -> None:
        self.program = program
        self.sink = sink
        self.symbols = SymbolFactory()
        self.functions: Dict[str, ast.Function] = {}
        self.signatures: Dict[str, Signature] = {}
        self.return_types: Dict[str, object] = {}
        self.in_progress: Set[str] = set()

    def run(self) -> List[ir.Function]:
        dynamic = None
        for fn in self.program.functions:
            if fn.keyword == "Dynamic":
                if dynamic is not None:
                    self.sink.error("E0413", f"a file has one Dynamic function, and "
                                             f"'{dynamic.name}' (line {dynamic.loc.line}) is "
                                             "the first", fn.loc,
                                    hint="the run executes the Dynamic function over the update "
                                         "stream; make the other a 'function'")
                else:
                    dynamic = fn
            if fn.name in self.functions:
                first = self.functions[fn.name]
                self.sink.error("E0202", f"duplicate function '{fn.name}'", fn.loc,
                                hint=f"'{fn.name}' is first defined at line {first.loc.line}")
                continue
            self.functions[fn.name] = fn
            self.signatures[fn.name] = Signature(fn.name, [
                (p.name, _quiet_type(p.type)) for p in fn.params])
        self._report_recursion()
        result = []
        for fn in self.program.functions:
            if self.functions.get(fn.name) is not fn:
                continue
            analyzer = FunctionAnalyzer(self, self.sink, self.symbols)
            function = analyzer.run(fn)
            if function is not None:
                self.return_types[fn.name] = function.return_type
                result.append(function)
        return result

    def is_called(self, name: str) -> bool:
        """Whether some function of the program calls ``name``."""
        return any(isinstance(n, ast.Call) and n.func == name
                   for fn in self.functions.values() for n in _walk(fn.body))

    def signature(self, name: str) -> Optional[Signature]:
        return self.signatures.get(name)

    def return_type(self, name: str, loc: SourceLoc, sink: DiagnosticSink):
        """The return type (None: no value) of a function, analysing it quietly if it has
        not been analysed yet (a call of a function defined later)."""
        if name in self.return_types:
            return self.return_types[name]
        if name in self.in_progress:
            return ERROR   # recursion: reported once by _report_recursion
        scratch = DiagnosticSink()
        function = FunctionAnalyzer(self, scratch, SymbolFactory()).run(self.functions[name])
        if scratch.has_errors or function is None:
            return ERROR   # the function's own analysis reports why
        self.return_types[name] = function.return_type
        return function.return_type

    def _report_recursion(self) -> None:
        calls: Dict[str, List[ast.Call]] = {}
        for name, fn in self.functions.items():
            calls[name] = [n for n in _walk(fn.body)
                           if isinstance(n, ast.Call) and n.func in self.functions]
        for name in self.functions:
            for call in calls[name]:
                if _reaches(calls, call.func, name):
                    self.sink.error("E0411", f"recursive call of '{call.func}' is not supported",
                                    call.loc)


def _walk(node: ast.Node):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(ast.children(current))


def _reaches(calls: Dict[str, List[ast.Call]], start: str, goal: str) -> bool:
    seen, stack = set(), [start]
    while stack:
        name = stack.pop()
        if name == goal:
            return True
        if name in seen:
            continue
        seen.add(name)
        stack.extend(c.func for c in calls.get(name, ()))
    return False


def _quiet_type(node: ast.TypeExpr) -> Optional[Type]:
    """A parameter type without diagnostics (the function's own analysis reports them)."""
    return _resolve_type(node, None)


def _resolve_type(node: ast.TypeExpr, sink: Optional[DiagnosticSink]) -> Optional[Type]:
    def fail(message: str) -> None:
        if sink is not None:
            sink.error("E0301", message, node.loc)

    name = node.name
    if name in SCALAR_NAMES and not node.args:
        return SCALAR_NAMES[name]
    if name in ("Graph", "dirGraph") and not node.args:
        return GRAPH
    if name in ("propNode", "propEdge"):
        if len(node.args) == 1 and isinstance(node.args[0], ast.TypeExpr):
            elem = node.args[0]
            if elem.name in SCALAR_NAMES and not elem.args:
                return PropType("node" if name == "propNode" else "edge", SCALAR_NAMES[elem.name])
        fail(f"the element type of a {name} must be a scalar, node or edge")
        return None
    if name in ("SetN", "SetE") and len(node.args) == 1 and isinstance(node.args[0], str):
        return SetType("node" if name == "SetN" else "edge", node.args[0])
    if name == "updates" and len(node.args) == 1 and isinstance(node.args[0], str):
        return UpdatesType(node.args[0])
    fail(f"unknown type '{name}'")
    return None


@dataclass
class LoopFrame:
    kind: str     # for, while, do, forall, bfs, reverse, fixedPoint
    breaks: List[object] = dataclasses.field(default_factory=list)
    continues: List[object] = dataclasses.field(default_factory=list)


_LOOP_LABELS = {"forall": "a forall", "bfs": "iterateInBFS", "reverse": "iterateInReverse",
                "fixedPoint": "a fixedPoint", "batch": "a Batch"}


class FunctionAnalyzer(AssignmentStatements, LoopStatements, RandomStatements, DynamicStatements,
                       ExpressionTyper):
    """Analyses one function: blocks, declarations and control flow here; assignments in
    ``AssignmentStatements``, loops in ``LoopStatements``, randSP and combineRandom in
    ``RandomStatements``, dynamic-graph statements in ``DynamicStatements``, expressions in
    ``ExpressionTyper``."""

    def __init__(self, program: ProgramContext, sink: DiagnosticSink,
                 symbols: SymbolFactory) -> None:
        self.program = program
        self.sink = sink
        self.symbols = symbols
        self.scope = Scope()
        self.filter_var: Optional[ir.Symbol] = None
        self.flow = Flow()
        self.races = RaceChecker(sink)
        self.neighbor_loops: List[NeighborFrame] = []
        self.loops: List[LoopFrame] = []
        self.bfs: List[Tuple[ir.Symbol, str]] = []
        self.returns: List[ir.Return] = []
        self.statement: Optional[ast.Stmt] = None
        self.push_reported: Optional[ast.Stmt] = None   # see LoopStatements.bfs_parent_write
        self.implicit_weight: Optional[ir.Symbol] = None  # see _implicit_weight
        self.implicit_weight_noted = False
        self.seed: Optional[ir.Symbol] = None     # see RandomStatements.seed_parameter
        self.draw: Optional[ir.Symbol] = None
        self.seed_default: Optional[Tuple[str, int]] = None
        self.function_kind = "function"    # see DynamicStatements
        self.top_level: Set[int] = set()
        self.batch: Optional[BatchFrame] = None
        self.batch_line: Optional[int] = None
        self.update_loops: dict = {}       # update loop variable uid -> "add" / "delete"

    # --- functions ----------------------------------------------------------------------

    @tracks_construct
    def run(self, fn: ast.Function) -> Optional[ir.Function]:
        self.program.in_progress.add(fn.name)
        try:
            errors, real_errors = len(self.sink.errors), _real_errors(self.sink)
            self.function_kind = fn.keyword if fn.keyword in ir.DYNAMIC_KINDS else "function"
            self.top_level = {id(s) for s in fn.body.stmts}
            params = self._params(fn)
            self.dynamic_parameters(fn, params)
            stmts = self._stmts(fn.body.stmts)
            if self.draw is not None:    # randSP's draw counter starts at 0 in every run
                stmts.insert(0, ir.Declare(self.draw, ir.Const(0, type=Scalar.LONG),
                                           loc=self.draw.loc))
            body = ir.Block(tuple(stmts), loc=fn.body.loc)
            return_type, body = self._return_type(body)
            if _real_errors(self.sink) > real_errors:
                return None
            # a warning -Werror promoted (a data race) leaves the body well-typed: the later
            # warnings are reported too, as a C compiler reports every promoted warning
            report_unused(body, self.sink)
            report_signed_sums(body, self.sink)
            defaults = (self.seed_default,) if self.seed_default is not None else ()
            function = ir.Function(fn.name, tuple(params), body, return_type, defaults,
                                   self.function_kind, loc=fn.loc)
            report_no_result(function, self.sink)
            return None if len(self.sink.errors) > errors else function
        finally:
            self.program.in_progress.discard(fn.name)

    def _params(self, fn: ast.Function) -> List[ir.Symbol]:
        params = []
        for param in fn.params:
            type_ = _resolve_type(param.type, self.sink)
            sym = self.symbols.make(param.name, type_ if type_ is not None else ERROR,
                                    ir.SymbolKind.PARAM, param.loc)
            self.scope.declare(sym, self.sink)
            self.flow.declare(sym, True)
            params.append(sym)
        implicit = self._implicit_weight(fn)
        if implicit is not None:
            params.append(implicit)
        seed = self.seed_parameter(fn)
        if seed is not None:
            params.append(seed)
        for param, sym in zip(fn.params, params):
            self._check_graph_name(sym.type, param.type.loc)
        return params

    def _check_graph_name(self, type_, loc: SourceLoc) -> None:
        """E0206 for ``SetN<h>`` / ``updates<h>`` whose ``h`` is no graph parameter."""
        if isinstance(type_, (SetType, UpdatesType)):
            graph = self.scope.lookup(type_.graph)
            if graph is None or graph.type != GRAPH:
                self.sink.error("E0206", f"'{type_.graph}' in '{type_}' is not a graph "
                                         "parameter", loc)

    def _implicit_weight(self, fn: ast.Function) -> Optional[ir.Symbol]:
        """StarPlat reads ``e.weight`` from the graph file without declaring it (issue 16): a
        function that reads ``.weight`` and declares no ``weight`` gets an implicit last
        parameter ``propEdge<int> weight``, which the run contract binds to the graph's weights
        like any ``propEdge`` parameter (so every backend reads it through the one weight path).
        Not for a function another calls: its callers pass only the declared parameters."""
        if any(p.name == "weight" for p in fn.params) or self.program.is_called(fn.name):
            return None
        nodes = list(_walk(fn.body))
        if not any(isinstance(n, ast.Member) and n.name == "weight"
                   or isinstance(n, ast.MethodCall) and n.method == "getEdgeLen" for n in nodes):
            return None
        if any(isinstance(n, ast.VarDecl) and any(d.name == "weight" for d in n.declarators)
               for n in nodes):
            return None
        sym = self.symbols.make("weight", PropType("edge", Scalar.INT), ir.SymbolKind.PARAM,
                                fn.loc)
        self.scope.declare(sym, self.sink)
        self.flow.declare(sym, True)
        self.implicit_weight = sym
        return sym

    def _return_type(self, body: ir.Block):
        valued = [r for r in self.returns if r.value is not None]
        if not valued:
            return None, body
        for r in self.returns:
            if r.value is None:
                self.sink.error("E0407", "'return;' without a value in a function that returns "
                                         "a value", r.loc)
        typed = [r for r in valued if not is_error(r.value.type)]
        if not typed:
            return ERROR, body
        fixed = [r for r in typed if not is_flexible(r.value)]
        result = (fixed or typed)[0].value.type
        for r in fixed:
            if r.value.type != result:
                self.sink.error("E0407", f"this return has type '{r.value.type}' but an earlier "
                                         f"one has type '{result}'", r.loc)
        replace = {id(r): r for r in typed if r.value.type != result and is_flexible(r.value)}
        if not replace:
            return result, body

        def fix(node):
            if id(node) in replace:
                value = self.convert(node.value, result, node.loc)
                return ir.Return(value, loc=node.loc)
            return None
        return result, ir.transform(body, fix)

    # --- blocks -------------------------------------------------------------------------

    def _stmts(self, stmts) -> List[ir.Stmt]:
        out: List[ir.Stmt] = []
        for stmt in stmts:
            if stmt is not None:
                out.extend(self.stmt(stmt))
        return out

    @tracks_construct
    def stmt(self, stmt: ast.Stmt) -> List[ir.Stmt]:
        self.statement = stmt     # for messages that show a rewrite of the statement
        method = getattr(self, "_stmt_" + type(stmt).__name__, None)
        if method is None:
            self.sink.error("E0901", f"internal compiler error: unknown statement "
                                     f"'{type(stmt).__name__}'", stmt.loc)
            return []
        return method(stmt)

    def block(self, stmt: ast.Stmt, scope: Optional[Scope] = None) -> ir.Block:
        """A body in a new scope (``scope`` when given, already holding loop variables)."""
        saved = self.scope
        self.scope = scope if scope is not None else Scope(saved)
        try:
            stmts = stmt.stmts if isinstance(stmt, ast.Block) else (stmt,)
            return ir.Block(tuple(self._stmts(stmts)), loc=stmt.loc)
        finally:
            self.scope = saved

    def _stmt_Block(self, node: ast.Block) -> List[ir.Stmt]:
        return [self.block(node)]

    # --- declarations -------------------------------------------------------------------

    def _stmt_VarDecl(self, node: ast.VarDecl) -> List[ir.Stmt]:
        type_ = _resolve_type(node.type, self.sink)
        self._check_graph_name(type_, node.type.loc)
        if type_ == GRAPH or isinstance(type_, SetType):
            self.sink.error("E0301", f"a '{type_}' can only be a function parameter", node.loc)
            type_ = None
        if isinstance(type_, PropType) and self.races.frames:
            # every parallel iteration would need a whole-graph array of its own
            self.sink.error("E0301", f"a property cannot be declared inside "
                                     f"{self.races.frames[-1].label}: each iteration would need "
                                     f"a whole-graph property of its own", node.loc,
                            hint="declare it before the loop (and attach it there, or set "
                                 "'v.p = ...' per element inside)")
        out = []
        for decl in node.declarators:
            init = None
            if decl.init is not None:
                if isinstance(type_, Scalar):
                    init = self.value(decl.init, type_, f"'{decl.name}'")
                elif isinstance(type_, UpdatesType):
                    init = self.updates_init(decl.init, decl.name, type_)
                elif isinstance(type_, PropType):
                    self.sink.error(
                        "E0301", f"property '{decl.name}' cannot be initialised in its "
                        "declaration", decl.init.loc,
                        hint=f"use g.attach{type_.kind.capitalize()}Property({decl.name} = ...)")
                else:
                    self.expr(decl.init)
            sym = self.symbols.make(decl.name, type_ if type_ is not None else ERROR,
                                    ir.SymbolKind.LOCAL, decl.loc)
            self.scope.declare(sym, self.sink)
            self.flow.declare(sym, init is not None)
            self.races.declared(sym)
            self.races.alias(sym, init)
            out.append(ir.Declare(sym, init, loc=decl.loc))
        return out

    def _stmt_ExprStmt(self, node: ast.ExprStmt) -> List[ir.Stmt]:
        if isinstance(node.expr, ast.MethodCall) and node.expr.method in RANDOM_METHODS:
            return self.random_statement(node)
        if isinstance(node.expr, ast.MethodCall) and node.expr.method in DYNAMIC_METHODS:
            return self.dynamic_statement(node)
        return [ir.ExprStmt(self.expr(node.expr), loc=node.loc)]

    # --- control flow -------------------------------------------------------------------

    def _stmt_If(self, node: ast.If) -> List[ir.Stmt]:
        cond = self.condition(node.cond)
        start = self.flow.state
        then = self.block(node.then)
        after_then, self.flow.state = self.flow.state, start
        orelse = self.block(node.orelse) if node.orelse is not None else None
        self.flow.state = join(after_then, self.flow.state)
        return [ir.If(cond, then, orelse, loc=node.loc)]

    def _loop_body(self, kind: str, stmt: ast.Stmt, scope: Optional[Scope] = None):
        frame = LoopFrame(kind)
        self.loops.append(frame)
        try:
            return self.block(stmt, scope), frame
        finally:
            self.loops.pop()

    def _stmt_While(self, node: ast.While) -> List[ir.Stmt]:
        cond = self.condition(node.cond)
        start = self.flow.state
        body, _ = self._loop_body("while", node.body)
        self.flow.state = start
        return [ir.While(cond, body, loc=node.loc)]

    def _stmt_DoWhile(self, node: ast.DoWhile) -> List[ir.Stmt]:
        body, frame = self._loop_body("do", node.body)
        for state in frame.continues:
            self.flow.state = join(self.flow.state, state)
        cond = self.condition(node.cond)
        for state in frame.breaks:
            self.flow.state = join(self.flow.state, state)
        return [ir.DoWhile(body, cond, loc=node.loc)]

    def _stmt_Break(self, node: ast.Break) -> List[ir.Stmt]:
        return self._jump(node, "break", ir.Break)

    def _stmt_Continue(self, node: ast.Continue) -> List[ir.Stmt]:
        return self._jump(node, "continue", ir.Continue)

    def _jump(self, node: ast.Stmt, word: str, cls) -> List[ir.Stmt]:
        if not self.loops:
            self.sink.error("E0406", f"'{word}' outside a loop", node.loc)
            return []
        frame = self.loops[-1]
        if frame.kind in _LOOP_LABELS:
            hint = ("forall iterations are independent and may run in parallel"
                    if frame.kind == "forall" else "use a flag checked by the loop instead")
            self.sink.error("E0406", f"'{word}' in {_LOOP_LABELS[frame.kind]}", node.loc,
                            hint=hint)
            return []
        (frame.breaks if word == "break" else frame.continues).append(self.flow.state)
        self.flow.unreachable()
        return [cls(loc=node.loc)]

    def _stmt_Return(self, node: ast.Return) -> List[ir.Stmt]:
        value = self.scalar(node.value) if node.value is not None else None
        if self.races.frames:
            self.sink.error("E0407", f"return inside {self.races.frames[-1].label}", node.loc,
                            hint="iterations of parallel constructs cannot return; set a "
                                 "variable with a reduction instead")
            return []
        stmt = ir.Return(value, loc=node.loc)
        self.returns.append(stmt)
        self.flow.unreachable()
        return [stmt]

