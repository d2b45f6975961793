"""The IR printer: canonical DSL text from the typed IR (re-parses and re-analyses to equal IR).

Implicit conversions are not written (the DSL has no cast syntax; analysis re-inserts them),
sugar is printed in one canonical form (``x++`` as ``x += 1``, every Min/Max assignment in the
``<...> = <Min(...), ...>`` form), a filter names its loop variable (``v.modified``), and a
neighbour loop's edge variable is printed as the ``g.get_edge(...)`` call it came from.
"""

from __future__ import annotations

import math
from typing import Dict, List, Tuple

from starc.ir import nodes as ir
from starc.ir.scope import stack_room

__all__ = ["print_program", "print_function", "print_stmt", "format_expr", "PRECEDENCE"]

INDENT = "    "
PRECEDENCE = {
    "||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, "<=": 4, ">": 4, ">=": 4,
    "+": 5, "-": 5, "*": 6, "/": 6, "%": 6,
}
_UNARY = 7
_POSTFIX = 8
_ADDITIVE = PRECEDENCE["+"]

# edge symbol uid -> (graph name, the loop's ``of`` expression, loop variable, direction)
EdgeInfo = Dict[int, Tuple[str, ir.Expr, ir.Symbol, str]]


def print_program(program: ir.Program) -> str:
    """The whole program as DSL text, one function after another."""
    with stack_room():
        return "\n".join(print_function(fn) for fn in program.functions)


def print_function(fn: ir.Function) -> str:
    params = ", ".join(f"{p.type} {p.name}" for p in fn.params)
    printer = _Printer()
    lines = [f"function {fn.name}({params}) {{"]
    lines.extend(printer.stmts(fn.body.stmts, 1))
    lines.append("}")
    return "\n".join(lines) + "\n"


def print_stmt(stmt: ir.Stmt, indent: int = 0) -> str:
    return "\n".join(_Printer().stmt(stmt, indent))


def format_expr(expr: ir.Expr) -> str:
    return _Printer().expr(expr)


class _Printer:
    def __init__(self) -> None:
        self.edges: EdgeInfo = {}

    # --- statements -----------------------------------------------------------------------

    def stmts(self, stmts, indent: int) -> List[str]:
        out: List[str] = []
        for stmt in stmts:
            out.extend(self.stmt(stmt, indent))
        return out

    def body(self, head: str, block: ir.Block, indent: int, tail: str = "") -> List[str]:
        pad = INDENT * indent
        return [f"{pad}{head} {{", *self.stmts(block.stmts, indent + 1), f"{pad}}}{tail}"]

    def stmt(self, s: ir.Stmt, indent: int) -> List[str]:
        pad = INDENT * indent
        if isinstance(s, ir.Block):
            return [f"{pad}{{", *self.stmts(s.stmts, indent + 1), f"{pad}}}"]
        if isinstance(s, ir.Declare):
            init = f" = {self.expr(s.init)}" if s.init is not None else ""
            return [f"{pad}{s.sym.type} {s.sym.name}{init};"]
        if isinstance(s, ir.Assign):
            return [f"{pad}{self.expr(s.target, _POSTFIX)} = {self.expr(s.value)};"]
        if isinstance(s, ir.PropCopy):
            return [f"{pad}{s.dst.name} = {s.src.name};"]
        if isinstance(s, ir.Reduce):
            return [f"{pad}{self.expr(s.target, _POSTFIX)} {s.op}= {self.expr(s.value)};"]
        if isinstance(s, ir.MinMaxAssign):
            targets = [s.target] + [t for t, _ in s.others]
            values = [self.expr(v, _ADDITIVE) for _, v in s.others]
            call = f"{s.func}({self.expr(s.target)}, {self.expr(s.candidate)})"
            lhs = ", ".join(self.expr(t, _POSTFIX) for t in targets)
            return [f"{pad}<{lhs}> = <{', '.join([call] + values)}>;"]
        if isinstance(s, ir.Attach):
            kind = "Edge" if s.inits and s.inits[0][0].type.kind == "edge" else "Node"
            pairs = ", ".join(f"{p.name} = {self.expr(v)}" for p, v in s.inits)
            return [f"{pad}{s.graph.name}.attach{kind}Property({pairs});"]
        if isinstance(s, ir.If):
            lines = self.body(f"if ({self.expr(s.cond)})", s.then, indent)
            if s.orelse is not None:
                lines[-1] += " else {"
                lines.extend(self.stmts(s.orelse.stmts, indent + 1))
                lines.append(f"{pad}}}")
            return lines
        if isinstance(s, ir.While):
            return self.body(f"while ({self.expr(s.cond)})", s.body, indent)
        if isinstance(s, ir.DoWhile):
            return self.body("do", s.body, indent, f" while ({self.expr(s.cond)});")
        if isinstance(s, ir.Loop):
            return self.loop(s, indent)
        if isinstance(s, ir.FixedPoint):
            return self.body(f"fixedPoint until ({s.flag.name} : {self.expr(s.cond)})",
                             s.body, indent)
        if isinstance(s, ir.IterateBFS):
            head = (f"iterateInBFS ({s.var.name} in {s.graph.name}.nodes() from "
                    f"{self.expr(s.root)})")
            if s.filter is not None:
                head += f".filter({self.expr(s.filter)})"
            lines = self.body(head, s.body, indent)
            if s.reverse is not None:
                cond = f" ({self.expr(s.reverse.cond)})" if s.reverse.cond is not None else ""
                lines.extend(self.body(f"iterateInReverse{cond}", s.reverse.body, indent))
            return lines
        if isinstance(s, ir.Return):
            return [f"{pad}return {self.expr(s.value)};" if s.value is not None else f"{pad}return;"]
        if isinstance(s, ir.Break):
            return [f"{pad}break;"]
        if isinstance(s, ir.Continue):
            return [f"{pad}continue;"]
        if isinstance(s, ir.ExprStmt):
            return [f"{pad}{self.expr(s.expr)};"]
        raise TypeError(f"cannot print {type(s).__name__}")

    def loop(self, s: ir.Loop, indent: int) -> List[str]:
        d = s.domain
        if isinstance(d, ir.AllNodes):
            source = f"{d.graph.name}.nodes()"
        elif isinstance(d, ir.AllEdges):
            source = f"{d.graph.name}.edges()"
        elif isinstance(d, ir.Neighbors):
            source = f"{d.graph.name}.neighbors({self.expr(d.of)})"
            direction = "in" if d.role == "bfs_parents" else "out"
            self.edges[d.edge.uid] = (d.graph.name, d.of, s.var, direction)
        elif isinstance(d, ir.InNeighbors):
            source = f"{d.graph.name}.nodes_to({self.expr(d.of)})"
            self.edges[d.edge.uid] = (d.graph.name, d.of, s.var, "in")
        elif isinstance(d, ir.SetMembers):
            source = d.set.name
        else:
            raise TypeError(f"cannot print domain {type(d).__name__}")
        if s.filter is not None:
            source += f".filter({self.expr(s.filter)})"
        word = "forall" if s.parallel else "for"
        return self.body(f"{word} ({s.var.name} in {source})", s.body, indent)

    # --- expressions ----------------------------------------------------------------------

    def expr(self, e: ir.Expr, needed: int = 0) -> str:
        text, prec = self._expr(e)
        return f"({text})" if prec < needed else text

    def _expr(self, e: ir.Expr) -> Tuple[str, int]:
        if isinstance(e, ir.Cast):
            return self._expr(e.expr)
        if isinstance(e, ir.Const):
            return _const(e.value)
        if isinstance(e, ir.Inf):
            return ("-INF", _UNARY) if e.negative else ("INF", _POSTFIX)
        if isinstance(e, ir.VarRef):
            info = self.edges.get(e.sym.uid)
            if info is not None:
                graph, of, var, direction = info
                ends = (self.expr(of), var.name)
                u, w = ends if direction == "out" else ends[::-1]
                return f"{graph}.get_edge({u}, {w})", _POSTFIX
            return e.sym.name, _POSTFIX
        if isinstance(e, ir.PropRead):
            return f"{self.expr(e.index, _POSTFIX)}.{e.prop.name}", _POSTFIX
        if isinstance(e, ir.EdgeEndpoint):
            return f"{self.expr(e.edge, _POSTFIX)}.{e.end}", _POSTFIX
        if isinstance(e, ir.Unary):
            operand = self.expr(e.operand, _UNARY)
            if operand.startswith("-") and e.op == "-":
                operand = f"({operand})"
            return f"{e.op}{operand}", _UNARY
        if isinstance(e, ir.Binary):
            prec = PRECEDENCE[e.op]
            left = self.expr(e.left, prec)
            right = self.expr(e.right, prec + 1)
            return f"{left} {e.op} {right}", prec
        if isinstance(e, ir.MinMax):
            return f"{e.func}({self.expr(e.left)}, {self.expr(e.right)})", _POSTFIX
        if isinstance(e, ir.GraphQuery):
            args = ", ".join(self.expr(a) for a in e.args)
            return f"{e.graph.name}.{e.op}({args})", _POSTFIX
        if isinstance(e, ir.WeightBound):
            return f"{e.func}({e.prop.name})", _POSTFIX
        if isinstance(e, ir.CallExpr):
            return f"{e.function}({', '.join(self.expr(a) for a in e.args)})", _POSTFIX
        raise TypeError(f"cannot print {type(e).__name__}")


def _const(value) -> Tuple[str, int]:
    if isinstance(value, bool):
        return ("True" if value else "False"), _POSTFIX
    if isinstance(value, int):
        return (str(value), _POSTFIX) if value >= 0 else (str(value), _UNARY)
    if math.isnan(value):
        return "0.0 / 0.0", PRECEDENCE["/"]
    if math.isinf(value):
        return ("1e999", _POSTFIX) if value > 0 else ("-1e999", _UNARY)
    text = repr(float(value))
    if text.startswith("-"):
        return text, _UNARY
    return text, _POSTFIX

