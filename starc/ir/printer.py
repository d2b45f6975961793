"""The IR printer: canonical DSL text from the typed IR (re-parses and re-analyses to equal IR).

Implicit conversions are not written (the DSL has no cast syntax; analysis re-inserts them),
sugar is printed in one canonical form (``x++`` as ``x += 1``, every Min/Max assignment in the
``<...> = <Min(...), ...>`` form), a filter names its loop variable (``v.modified``), and a
neighbour loop's edge variable is printed as the ``g.get_edge(...)`` call it came from.

``DSLPrinter`` is also the base of the plan printer (``starc.analysis.dump``), which adds the
lowered nodes and overrides only where the plan's notation differs.
"""

from __future__ import annotations

import math
from typing import Dict, List, Optional, Sequence, Tuple

from starc.diagnostics import tracks_construct
from starc.frontend.precedence import BINARY_PRECEDENCE as PRECEDENCE, POSTFIX, UNARY
from starc.ir import nodes as ir
from starc.ir.scope import stack_room

__all__ = ["print_program", "print_function", "print_stmt", "format_expr", "DSLPrinter",
           "PRECEDENCE"]

_ADDITIVE = PRECEDENCE["+"]

# edge symbol uid -> (graph name, the loop's ``of`` expression, loop variable, direction)
EdgeInfo = Dict[int, Tuple[str, ir.Expr, ir.Symbol, str]]


def print_program(program: ir.Program) -> str:
    """The whole program as DSL text, one function after another."""
    with stack_room():
        return "\n".join(print_function(fn) for fn in program.functions)


def print_function(fn: ir.Function) -> str:
    params = ", ".join(f"{p.type} {p.name}" for p in fn.params)
    printer = DSLPrinter()
    if fn.kind in ("Incremental", "Decremental"):
        head = f"{fn.kind}({params})"
    else:
        head = f"{'Dynamic' if fn.kind == 'Dynamic' else 'function'} {fn.name}({params})"
    lines = [f"{head} {{"]
    lines.extend(printer.stmts(fn.body.stmts, 1))
    lines.append("}")
    return "\n".join(lines) + "\n"


def print_stmt(stmt: ir.Stmt, indent: int = 0) -> str:
    return "\n".join(DSLPrinter().stmt(stmt, indent))


def format_expr(expr: ir.Expr) -> str:
    return DSLPrinter().expr(expr)


class DSLPrinter:
    """Statements print through ``_stmt_<Node>(s, indent)`` (a list of lines), expressions
    through ``_expr_<Node>(e)`` (the text and its precedence level); a subclass adds nodes by
    adding methods."""

    unit = "    "    # one level of indentation

    def __init__(self) -> None:
        self.edges: EdgeInfo = {}

    # --- layout shared by every statement form ----------------------------------------------

    def stmts(self, stmts: Sequence, indent: int) -> List[str]:
        out: List[str] = []
        for stmt in stmts:
            out.extend(self.stmt(stmt, indent))
        return out

    def braced(self, head: str, stmts: Sequence, indent: int, tail: str = "") -> List[str]:
        """``head {``, the statements one level deeper, ``}tail``."""
        pad = self.unit * indent
        return [f"{pad}{head} {{", *self.stmts(stmts, indent + 1), f"{pad}}}{tail}"]

    def if_else(self, cond: ir.Expr, then: Sequence, orelse: Optional[Sequence],
                indent: int) -> List[str]:
        lines = self.braced(f"if ({self.expr(cond)})", then, indent)
        if orelse is not None:
            lines[-1] += " else {"
            lines.extend(self.stmts(orelse, indent + 1))
            lines.append(f"{self.unit * indent}}}")
        return lines

    def do_while(self, body: Sequence, cond: ir.Expr, indent: int) -> List[str]:
        return self.braced("do", body, indent, f" while ({self.expr(cond)});")

    def line(self, text: str, indent: int) -> List[str]:
        return [f"{self.unit * indent}{text}"]

    # --- statements ------------------------------------------------------------------------

    @tracks_construct
    def stmt(self, s, indent: int) -> List[str]:
        method = getattr(self, "_stmt_" + type(s).__name__, None)
        if method is None:
            return self.unknown_stmt(s, indent)
        return method(s, indent)

    def unknown_stmt(self, s, indent: int) -> List[str]:
        raise TypeError(f"cannot print {type(s).__name__}")

    def _stmt_Block(self, s: ir.Block, indent: int) -> List[str]:
        pad = self.unit * indent
        return [f"{pad}{{", *self.stmts(s.stmts, indent + 1), f"{pad}}}"]

    def _stmt_Declare(self, s: ir.Declare, indent: int) -> List[str]:
        init = f" = {self.expr(s.init)}" if s.init is not None else ""
        return self.line(f"{s.sym.type} {s.sym.name}{init};", indent)

    def _stmt_Assign(self, s: ir.Assign, indent: int) -> List[str]:
        return self.line(f"{self.expr(s.target, POSTFIX)} = {self.expr(s.value)};", indent)

    def _stmt_PropCopy(self, s: ir.PropCopy, indent: int) -> List[str]:
        return self.line(f"{s.dst.name} = {s.src.name};", indent)

    def _stmt_Reduce(self, s: ir.Reduce, indent: int) -> List[str]:
        return self.line(f"{self.expr(s.target, POSTFIX)} {s.op}= {self.expr(s.value)};",
                         indent)

    def _stmt_MinMaxAssign(self, s: ir.MinMaxAssign, indent: int) -> List[str]:
        targets = [s.target] + [t for t, _ in s.others]
        values = [self.expr(v, _ADDITIVE) for _, v in s.others]
        call = f"{s.func}({self.expr(s.target)}, {self.expr(s.candidate)})"
        lhs = ", ".join(self.expr(t, POSTFIX) for t in targets)
        return self.line(f"<{lhs}> = <{', '.join([call] + values)}>;", indent)

    def _stmt_Attach(self, s: ir.Attach, indent: int) -> List[str]:
        kind = "Edge" if s.inits and s.inits[0][0].type.kind == "edge" else "Node"
        pairs = ", ".join(f"{p.name} = {self.expr(v)}" for p, v in s.inits)
        return self.line(f"{s.graph.name}.attach{kind}Property({pairs});", indent)

    def _stmt_If(self, s: ir.If, indent: int) -> List[str]:
        orelse = s.orelse.stmts if s.orelse is not None else None
        return self.if_else(s.cond, s.then.stmts, orelse, indent)

    def _stmt_While(self, s: ir.While, indent: int) -> List[str]:
        return self.braced(f"while ({self.expr(s.cond)})", s.body.stmts, indent)

    def _stmt_DoWhile(self, s: ir.DoWhile, indent: int) -> List[str]:
        return self.do_while(s.body.stmts, s.cond, indent)

    def _stmt_Loop(self, s: ir.Loop, indent: int) -> List[str]:
        d = s.domain
        if isinstance(d, ir.UpdateMembers) and d.only is not None:
            word = "OnAdd" if d.only == "add" else "OnDelete"
            return self.braced(f"{word} ({s.var.name} in {self.expr(d.updates, POSTFIX)}) :",
                               s.body.stmts, indent)
        word = "forall" if s.parallel else "for"
        return self.braced(f"{word} ({s.var.name} in {self.loop_source(s)})", s.body.stmts,
                           indent)

    def loop_source(self, s: ir.Loop) -> str:
        """What a loop iterates, as the DSL writes it (``g.neighbors(v).filter(...)``)."""
        source = self.domain(s)
        if s.filter is not None:
            source += self.filter_suffix(s.filter)
        return source

    def domain(self, s: ir.Loop) -> str:
        d = s.domain
        if isinstance(d, ir.AllNodes):
            return f"{d.graph.name}.nodes()"
        if isinstance(d, ir.AllEdges):
            return f"{d.graph.name}.edges()"
        if isinstance(d, ir.Neighbors):
            direction = "in" if d.role == "bfs_parents" else "out"
            self.edges[d.edge.uid] = (d.graph.name, d.of, s.var, direction)
            return f"{d.graph.name}.neighbors({self.expr(d.of)})"
        if isinstance(d, ir.InNeighbors):
            self.edges[d.edge.uid] = (d.graph.name, d.of, s.var, "in")
            return f"{d.graph.name}.nodes_to({self.expr(d.of)})"
        if isinstance(d, ir.SetMembers):
            return d.set.name
        if isinstance(d, ir.UpdateMembers):
            return self.expr(d.updates, POSTFIX)
        raise TypeError(f"cannot print domain {type(d).__name__}")

    def filter_suffix(self, cond: ir.Expr) -> str:
        return f".filter({self.expr(cond)})"

    def _stmt_FixedPoint(self, s: ir.FixedPoint, indent: int) -> List[str]:
        return self.braced(f"fixedPoint until ({s.flag.name} : {self.expr(s.cond)})",
                           s.body.stmts, indent)

    def _stmt_IterateBFS(self, s: ir.IterateBFS, indent: int) -> List[str]:
        head = (f"iterateInBFS ({s.var.name} in {s.graph.name}.nodes() from "
                f"{self.expr(s.root)})")
        if s.filter is not None:
            head += self.filter_suffix(s.filter)
        lines = self.braced(head, s.body.stmts, indent)
        if s.reverse is not None:
            cond = f" ({self.expr(s.reverse.cond)})" if s.reverse.cond is not None else ""
            lines.extend(self.braced(f"iterateInReverse{cond}", s.reverse.body.stmts, indent))
        return lines

    def _stmt_Batch(self, s: ir.Batch, indent: int) -> List[str]:
        return self.braced(f"Batch ({s.stream.name} : {self.expr(s.size)})", s.body.stmts,
                           indent)

    def _stmt_UpdateGraph(self, s: ir.UpdateGraph, indent: int) -> List[str]:
        method = "updateCSRDel" if s.kind == "delete" else "updateCSRAdd"
        return self.line(f"{s.graph.name}.{method}({s.stream.name});", indent)

    def _stmt_PropagateFlags(self, s: ir.PropagateFlags, indent: int) -> List[str]:
        return self.line(f"{s.graph.name}.propagateNodeFlags({s.prop.name});", indent)

    def _stmt_Return(self, s: ir.Return, indent: int) -> List[str]:
        return self.line(f"return {self.expr(s.value)};" if s.value is not None
                         else "return;", indent)

    def _stmt_Break(self, s: ir.Break, indent: int) -> List[str]:
        return self.line("break;", indent)

    def _stmt_Continue(self, s: ir.Continue, indent: int) -> List[str]:
        return self.line("continue;", indent)

    def _stmt_ExprStmt(self, s: ir.ExprStmt, indent: int) -> List[str]:
        return self.line(f"{self.expr(s.expr)};", indent)

    # --- expressions -----------------------------------------------------------------------

    def expr(self, e: ir.Expr, needed: int = 0) -> str:
        """``e`` in a position that binds at least as tightly as ``needed``."""
        text, prec = self.level(e)
        return f"({text})" if prec < needed else text

    @tracks_construct
    def level(self, e: ir.Expr) -> Tuple[str, int]:
        """The text of ``e`` and its precedence level."""
        method = getattr(self, "_expr_" + type(e).__name__, None)
        if method is None:
            return self.unknown_expr(e)
        return method(e)

    def unknown_expr(self, e: ir.Expr) -> Tuple[str, int]:
        raise TypeError(f"cannot print {type(e).__name__}")

    def _expr_Cast(self, e: ir.Cast) -> Tuple[str, int]:
        return self.level(e.expr)

    def _expr_Const(self, e: ir.Const) -> Tuple[str, int]:
        return _const(e.value)

    def _expr_Inf(self, e: ir.Inf) -> Tuple[str, int]:
        return ("-INF", UNARY) if e.negative else ("INF", POSTFIX)

    def _expr_VarRef(self, e: ir.VarRef) -> Tuple[str, int]:
        info = self.edges.get(e.sym.uid)
        if info is not None:
            graph, of, var, direction = info
            ends = (self.expr(of), var.name)
            u, w = ends if direction == "out" else ends[::-1]
            return f"{graph}.get_edge({u}, {w})", POSTFIX
        return e.sym.name, POSTFIX

    def _expr_PropRead(self, e: ir.PropRead) -> Tuple[str, int]:
        return f"{self.expr(e.index, POSTFIX)}.{e.prop.name}", POSTFIX

    def _expr_EdgeEndpoint(self, e: ir.EdgeEndpoint) -> Tuple[str, int]:
        return f"{self.expr(e.edge, POSTFIX)}.{e.end}", POSTFIX

    def _expr_Unary(self, e: ir.Unary) -> Tuple[str, int]:
        operand = self.expr(e.operand, UNARY)
        if operand.startswith("-") and e.op == "-":
            operand = f"({operand})"   # "--x" would lex as a decrement
        return f"{e.op}{operand}", UNARY

    def _expr_Binary(self, e: ir.Binary) -> Tuple[str, int]:
        # Lowering adds operators the DSL lacks (``|`` for a flag); the plan printer, the only
        # one that meets them, parenthesises by node kind, not by level.
        prec = PRECEDENCE.get(e.op, 0)
        # Left-associative: the right operand needs parentheses at the same level.
        return f"{self.expr(e.left, prec)} {e.op} {self.expr(e.right, prec + 1)}", prec

    def _expr_MinMax(self, e: ir.MinMax) -> Tuple[str, int]:
        return f"{e.func}({self.expr(e.left)}, {self.expr(e.right)})", POSTFIX

    def _expr_GraphQuery(self, e: ir.GraphQuery) -> Tuple[str, int]:
        return f"{e.graph.name}.{e.op}({self.args(e.args)})", POSTFIX

    def _expr_WeightBound(self, e: ir.WeightBound) -> Tuple[str, int]:
        return f"{e.func}({e.prop.name})", POSTFIX

    def _expr_Random(self, e: ir.Random) -> Tuple[str, int]:
        return f"starc_random({self.args((e.seed, e.draw, e.position, e.vertex))})", POSTFIX

    def _expr_CurrentBatch(self, e: ir.CurrentBatch) -> Tuple[str, int]:
        part = "" if e.part is None else str(e.part)
        return f"{e.stream.name}.currentBatch({part})", POSTFIX

    def _expr_UpdateField(self, e: ir.UpdateField) -> Tuple[str, int]:
        return f"{self.expr(e.update, POSTFIX)}.{e.field}", POSTFIX

    def _expr_CallExpr(self, e: ir.CallExpr) -> Tuple[str, int]:
        return f"{e.function}({self.args(e.args)})", POSTFIX

    def args(self, args: Sequence[ir.Expr]) -> str:
        return ", ".join(self.expr(a) for a in args)


def _const(value) -> Tuple[str, int]:
    if isinstance(value, bool):
        return ("True" if value else "False"), POSTFIX
    if isinstance(value, int):
        return (str(value), POSTFIX) if value >= 0 else (str(value), UNARY)
    if math.isnan(value):
        return "0.0 / 0.0", PRECEDENCE["/"]
    if math.isinf(value):
        return ("1e999", POSTFIX) if value > 0 else ("-1e999", UNARY)
    text = repr(float(value))
    if text.startswith("-"):
        return text, UNARY
    return text, POSTFIX
