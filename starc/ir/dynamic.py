"""Dynamic-graph statements of semantic analysis: Batch, OnAdd/OnDelete, updates<g> values,
``g.updateCSRDel/Add`` and ``g.propagateNodeFlags`` (issue 31; docs/language-notes.md).

``DynamicStatements`` is a mixin of ``starc.ir.sema.FunctionAnalyzer``. The rules it checks
(E0413 unless said otherwise) keep one meaning for every program it accepts: a ``Batch`` is a
statement of the Dynamic function's own body (one per function) over the function's update
stream; ``g.updateCSRDel(U)`` and ``g.updateCSRAdd(U)`` are statements of the Batch body
itself, each at most once per batch and deletions first, so the graph changes at two known
points of every batch; OnAdd/OnDelete and ``U.currentBatch()`` live inside the Batch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set

from starc.frontend import ast
from starc.ir import nodes as ir
from starc.ir.conversions import error_value
from starc.ir.rules import ParallelFrame
from starc.ir.scope import ERROR, Scope, is_error
from starc.ir.typecheck import text_of
from starc.ir.types import UPDATE, PropType, Scalar, UpdatesType

__all__ = ["DynamicStatements", "BatchFrame", "DYNAMIC_METHODS", "UPDATE_FIELDS"]

S = Scalar
#: graph methods that are statements of the dynamic-graph extension
DYNAMIC_METHODS = ("updateCSRDel", "updateCSRAdd", "propagateNodeFlags")
UPDATE_FIELDS = ("source", "destination", "weight")
_APPLIES = {"updateCSRDel": "delete", "updateCSRAdd": "add"}
_ON_WORD = {"add": "OnAdd", "delete": "OnDelete"}


@dataclass
class BatchFrame:
    """The Batch being analysed: its stream (None after an error: nothing inside is checked
    against it), the ids of its body's own statements, and the line of each ``updateCSR*``
    seen so far in the body."""

    stream: Optional[ir.Symbol]
    top: Set[int]
    applied: Dict[str, int] = field(default_factory=dict)


class DynamicStatements:
    """Dynamic-graph statements and expressions (mixin; see the module docstring)."""

    # --- functions and calls --------------------------------------------------------------

    def dynamic_parameters(self, fn: ast.Function, params: List[ir.Symbol]) -> None:
        """A Dynamic function takes exactly one update stream, the run's ``--updates``."""
        streams = [p for p in params if isinstance(p.type, UpdatesType)]
        if fn.keyword != "Dynamic":
            return
        if not streams:
            self.sink.error("E0413", "a Dynamic function takes its update stream as an "
                                     "'updates<g>' parameter", fn.loc,
                            hint="add 'updates<g> U, int batchSize' to the parameters: the run "
                                 "binds U to '--updates FILE'")
        for extra in streams[1:]:
            self.sink.error("E0413", f"a Dynamic function takes one update stream, and "
                                     f"'{extra.name}' is a second 'updates<g>' parameter",
                            extra.loc, hint=f"'{streams[0].name}' is the stream; take the "
                                            "batch's parts with 'currentBatch(0)' / "
                                            "'currentBatch(1)'")

    def call_rules(self, node: ast.Call) -> bool:
        """False after an error: a Dynamic function is never called, and the incremental and
        decremental steps are whole-graph algorithms, called outside parallel loops."""
        callee = self.program.functions.get(node.func)
        kind = callee.keyword if callee is not None else None
        if kind == "Dynamic":
            self.sink.error("E0413", f"'{node.func}' is the program's Dynamic function: it runs "
                                     "once, over the update stream, and cannot be called",
                            node.loc, hint="move the part to reuse into a function of its own")
            return False
        if kind in ("Incremental", "Decremental") and self.races.frames:
            self.sink.error("E0413", f"'{kind}' cannot be called inside "
                                     f"{self.races.frames[-1].label}: it runs on the whole graph",
                            node.loc, hint="call it once, after the loop")
            return False
        return True

    # --- Batch ---------------------------------------------------------------------------

    def _stmt_Batch(self, node: ast.Batch) -> List[ir.Stmt]:
        ok = self._batch_placement(node)
        stream = self.lookup(node.stream.id, node.stream.loc)
        if stream is not None and not (isinstance(stream.type, UpdatesType)
                                       and stream.kind is ir.SymbolKind.PARAM):
            if not is_error(stream.type):
                self.sink.error("E0413", f"'Batch ({stream.name} : ...)' needs the function's "
                                         f"'updates<g>' parameter, the update stream, not "
                                         f"'{stream.name}' (a '{stream.type}')", node.stream.loc)
            stream = None
        size = self.value(node.size, S.INT, "the batch size")
        body_stmts = node.body.stmts if isinstance(node.body, ast.Block) else (node.body,)
        saved = self.batch
        self.batch = BatchFrame(stream, {id(s) for s in body_stmts})
        start = self.flow.state
        try:
            body, _ = self._loop_body("batch", node.body)
        finally:
            self.batch = saved
        self.flow.state = start
        if not ok or stream is None:
            return []
        return [ir.Batch(stream, size, body, loc=node.loc)]

    def _batch_placement(self, node: ast.Batch) -> bool:
        if self.function_kind != "Dynamic":
            self.sink.error("E0413", "'Batch' is only allowed in a Dynamic function", node.loc,
                            hint="declare the function 'Dynamic NAME(Graph g, ..., updates<g> "
                                 "U, int batchSize)'")
            return False
        if id(node) not in self.top_level:
            self.sink.error("E0413", "'Batch' must be a statement of the Dynamic function's "
                                     "body, not inside a loop, a branch or another Batch",
                            node.loc)
            return False
        if self.batch_line is not None:
            self.sink.error("E0413", f"a Dynamic function has one 'Batch'; the first is at "
                                     f"line {self.batch_line}", node.loc,
                            hint="do every step of a batch in the one Batch body")
            return False
        self.batch_line = node.loc.line
        return True

    # --- OnAdd / OnDelete and loops over updates ---------------------------------------------

    def _stmt_OnUpdate(self, node: ast.OnUpdate) -> List[ir.Stmt]:
        word = _ON_WORD[node.kind]
        inside = self.batch is not None
        if not inside:
            self.sink.error("E0413", f"'{word}' is only allowed inside a Batch body", node.loc,
                            hint=f"write it in 'Batch (U : batchSize) {{ ... }}' of the Dynamic "
                                 "function")
        source = self.updates_value(node.source)
        if source is None:
            self.sink.error("E0412", f"'{word}' iterates an 'updates<g>' value "
                                     f"('U.currentBatch()'), not '{text_of(node.source)}'",
                            node.source.loc)
            source = error_value(node.source.loc)
        scope = Scope(self.scope)
        # after an error the variable has the error type: its uses add no messages
        var = self.symbols.make(node.var, ERROR if is_error(source.type) else UPDATE,
                                ir.SymbolKind.LOOP, node.loc)
        scope.declare(var, self.sink)
        self.races.declared(var)
        self.update_loops[var.uid] = node.kind
        start = self.flow.state
        self.races.frames.append(ParallelFrame(word, var))
        try:
            body, _ = self._loop_body("forall", node.body, scope)
        finally:
            frame = self.races.frames.pop()
        self.races.check_reduced_scalar_reads(frame, (body,))
        if not self.races.frames:
            self.races.check_reduced_reads(var, (body,), False)
        self.flow.state = start
        if not inside or is_error(source.type):
            return []
        domain = ir.UpdateMembers(source, node.kind, loc=node.source.loc)
        return [ir.Loop(var, domain, body, True, None, loc=node.loc)]

    def update_domain(self, source: ast.IterSource):
        """(domain, variable type, None) of ``for``/``forall (u in X)`` over updates, or
        None when ``source`` is no updates value."""
        obj = source.obj if source.method is None else ast.MethodCall(
            source.obj, source.method, source.args, loc=source.loc)
        if not (source.method is None and isinstance(obj, ast.Name)
                and isinstance(getattr(self.scope.lookup(obj.id), "type", None), UpdatesType)
                or source.method == "currentBatch"):
            return None
        value = self.updates_value(obj)
        if value is None or is_error(value.type):
            return None, UPDATE, None
        return ir.UpdateMembers(value, None, loc=source.loc), UPDATE, None

    # --- updates values ------------------------------------------------------------------

    def updates_value(self, node: ast.Expr) -> Optional[ir.Expr]:
        """``node`` as an ``updates<g>`` value (a variable or ``U.currentBatch(...)``; an
        error value after a reported error), or None when it is no such thing."""
        if isinstance(node, ast.MethodCall) and node.method == "currentBatch":
            return self.current_batch(node)
        if isinstance(node, ast.Name):
            sym = self.scope.lookup(node.id)
            if sym is not None and isinstance(sym.type, UpdatesType):
                return ir.VarRef(sym, type=sym.type, loc=node.loc)
        return None

    def current_batch(self, node: ast.MethodCall) -> ir.Expr:
        if self.batch is not None and self.batch.stream is None:
            return error_value(node.loc)     # the Batch's own error says why
        stream = self.batch.stream if self.batch is not None else None
        name = text_of(node.obj)
        if stream is None or not (isinstance(node.obj, ast.Name) and node.obj.id == stream.name):
            self.sink.error("E0413", f"'{name}.currentBatch()' is only available inside "
                                     f"'Batch ({name} : ...)'", node.loc,
                            hint="inside the Batch body it is the batch being processed")
            return error_value(node.loc)
        part = None
        if node.args:
            arg = node.args[0]
            if len(node.args) > 1 or not isinstance(arg, ast.IntLit) or arg.value not in (0, 1):
                self.sink.error("E0205", "'currentBatch' takes no argument, 0 (the batch's "
                                         "deletions) or 1 (its additions)", node.loc)
                return error_value(node.loc)
            part = arg.value
        return ir.CurrentBatch(stream, part, type=stream.type, loc=node.loc)

    def updates_assign(self, node: ast.Assign, target: ir.Symbol) -> List[ir.Stmt]:
        """``X = value;`` for an ``updates<g>`` variable ``X``."""
        if target.kind is ir.SymbolKind.PARAM:
            self.sink.error("E0303", f"cannot assign to the update stream '{target.name}'",
                            node.target.loc, hint="declare a local 'updates<g> x = "
                                                  f"{target.name}.currentBatch(1);'")
            return []
        value = self.updates_init(node.value, target.name, target.type)
        if value is None:
            return []
        ref = ir.VarRef(target, type=target.type, loc=node.target.loc)
        self.races.check_write(ref, value, node.loc, False, target.name)
        return [ir.Assign(ref, value, loc=node.loc)]

    def updates_init(self, node: ast.Expr, name: str, type_) -> Optional[ir.Expr]:
        """The value of an ``updates<g>`` variable's declaration or assignment, or None."""
        value = self.updates_value(node)
        if value is None:
            found = self.expr(node)
            if not is_error(found.type):
                self.sink.error("E0301", f"cannot assign a '{found.type}' to '{name}' "
                                         f"(a '{type_}')", node.loc,
                                hint="an 'updates<g>' variable holds 'U.currentBatch(...)' or "
                                     "another 'updates<g>'")
            return None
        return None if is_error(value.type) else value

    # --- u.source, u.destination, u.weight ---------------------------------------------------

    def update_field(self, node: ast.Member, update: ir.Symbol) -> ir.Expr:
        ref = ir.VarRef(update, type=UPDATE, loc=node.obj.loc)
        if node.name in ("source", "destination"):
            return ir.UpdateField(ref, node.name, type=S.NODE, loc=node.loc)
        if node.name != "weight":
            self.sink.error("E0204", f"an update has 'source', 'destination' and 'weight', not "
                                     f"'{node.name}'", node.loc)
            return error_value(node.loc)
        if self.update_loops.get(update.uid) == "delete":
            self.sink.error("E0413", f"a deletion has no weight: '{update.name}.weight' inside "
                                     "OnDelete", node.loc,
                            hint="the deleted edges' weights are still in 'weight' until "
                                 "'g.updateCSRDel': read 'e.weight' of the edge")
            return error_value(node.loc)
        weight = self.scope.lookup("weight")
        if weight is None or not (isinstance(weight.type, PropType)
                                  and weight.type.kind == "edge"):
            self.sink.error("E0305", f"'{update.name}.weight' is the weight an added edge gets "
                                     "in 'weight', and no 'propEdge weight' is declared",
                            node.loc, hint="add 'propEdge<int> weight' to the function's "
                                           "parameters")
            return error_value(node.loc)
        self.note_implicit_weight(weight, node.loc)
        return ir.UpdateField(ref, "weight", type=weight.type.elem, loc=node.loc)

    # --- g.updateCSRDel(U), g.updateCSRAdd(U), g.propagateNodeFlags(p) -----------------------

    def dynamic_statement(self, node: ast.ExprStmt) -> List[ir.Stmt]:
        call: ast.MethodCall = node.expr
        graph = self.graph_symbol(call.obj)
        if not self._arity(call.method, call.args, 1, call.loc):
            return []
        if call.method == "propagateNodeFlags":
            return self._propagate(call, graph)
        method = call.method
        frame = self.batch
        if frame is None or id(node) not in frame.top:
            self.sink.error("E0413", f"'{method}' must be a statement of a Batch body (not "
                                     "inside a loop, a branch or another function)", call.loc,
                            hint="the graph changes only between the statements of a Batch "
                                 "body")
            return []
        if frame.stream is None:
            return []       # the Batch's own error says why
        arg = call.args[0]
        if not (isinstance(arg, ast.Name) and arg.id == frame.stream.name):
            self.sink.error("E0413", f"'{method}' applies the batch of the enclosing 'Batch "
                                     f"({frame.stream.name} : ...)': write "
                                     f"'{text_of(call.obj)}.{method}({frame.stream.name})'",
                            arg.loc)
            return []
        if graph is not None and frame.stream.type.graph != graph.name:
            self.sink.error("E0413", f"'{frame.stream.name}' is an update stream of "
                                     f"'{frame.stream.type.graph}', not of '{graph.name}'",
                            call.loc)
            return []
        kind = _APPLIES[method]
        if kind in frame.applied:
            self.sink.error("E0413", f"'{method}' twice in one batch (first at line "
                                     f"{frame.applied[kind]})", call.loc)
            return []
        if kind == "delete" and "add" in frame.applied:
            self.sink.error("E0413", f"'updateCSRDel' after 'updateCSRAdd' (line "
                                     f"{frame.applied['add']}): a batch's deletions are applied "
                                     "before its additions", call.loc,
                            hint="move 'updateCSRDel' (and what needs the graph without the "
                                 "deleted edges) before 'updateCSRAdd'")
            return []
        frame.applied[kind] = call.loc.line
        if graph is None:
            return []
        return [ir.UpdateGraph(graph, frame.stream, kind, loc=node.loc)]

    def _propagate(self, call: ast.MethodCall, graph: Optional[ir.Symbol]) -> List[ir.Stmt]:
        prop = self._named_symbol(call.args[0])
        if prop is not None and prop.type != PropType("node", S.BOOL):
            if not is_error(prop.type):
                self.sink.error("E0301", f"'propagateNodeFlags' needs a propNode<bool>, "
                                         f"'{prop.name}' is a '{prop.type}'", call.args[0].loc)
            prop = None
        if self.races.frames:
            self.sink.error("E0413", f"'propagateNodeFlags' inside "
                                     f"{self.races.frames[-1].label}: it sets flags of the "
                                     "whole graph", call.loc, hint="call it before or after "
                                                                  "the loop")
            return []
        if prop is None or graph is None:
            return []
        self.races.check_whole_property(prop, call.loc, "propagating flags")
        return [ir.PropagateFlags(graph, prop, loc=call.loc)]

    def dynamic_method_value(self, node: ast.MethodCall) -> ir.Expr:
        self.sink.error("E0204", f"'{node.method}' is a statement: it gives no value",
                        node.loc, hint=f"write 'g.{node.method}(...);' on its own")
        return error_value(node.loc)
