"""The unparser: canonical DSL text from a syntax tree (``parse(unparse(t)) == t``)."""

from __future__ import annotations

from typing import List

from starc.frontend import ast
from starc.frontend.precedence import ATOM, BINARY_PRECEDENCE, POSTFIX, UNARY

__all__ = ["unparse", "unparse_expr"]

INDENT = "    "
_ADDITIVE = BINARY_PRECEDENCE["+"]


def unparse(node: ast.Node) -> str:
    """The canonical text of ``node``: a whole program (ending in a newline), a function, a
    statement (lines without a final newline), an expression, a type, a parameter."""
    if isinstance(node, ast.Program):
        return "\n".join(_function(f) for f in node.functions)
    if isinstance(node, ast.Function):
        return _function(node)
    if isinstance(node, ast.Stmt):
        return "\n".join(_stmt(node, 0))
    if isinstance(node, ast.Expr):
        return unparse_expr(node)
    if isinstance(node, ast.TypeExpr):
        return _type(node)
    if isinstance(node, ast.Param):
        return f"{_type(node.type)} {node.name}"
    if isinstance(node, ast.Declarator):
        return _declarator(node)
    if isinstance(node, ast.IterSource):
        return _source(node)
    raise TypeError(f"cannot unparse {type(node).__name__}")


# --- functions, types ------------------------------------------------------------------------

def _function(f: ast.Function) -> str:
    params = ", ".join(f"{_type(p.type)} {p.name}" for p in f.params)
    name = "" if f.keyword in ("Incremental", "Decremental") else f" {f.name}"
    lines = _with_body(f"{f.keyword}{name}({params})", f.body, 0)
    return "\n".join(lines) + "\n"


def _type(t: ast.TypeExpr) -> str:
    if not t.args:
        return t.name
    args = ", ".join(a if isinstance(a, str) else _type(a) for a in t.args)
    return f"{t.name}<{args}>"


def _declarator(d: ast.Declarator) -> str:
    return d.name if d.init is None else f"{d.name} = {unparse_expr(d.init)}"


def _source(s: ast.IterSource) -> str:
    if s.method is None:
        text = _operand(s.obj, POSTFIX)
    else:
        text = f"{_operand(s.obj, POSTFIX)}.{s.method}({_args(s.args)})"
    if s.filter is not None:
        text += f".filter({unparse_expr(s.filter)})"
    return text


# --- statements --------------------------------------------------------------------------------

def _with_body(header: str, body: ast.Stmt, depth: int) -> List[str]:
    """``header {`` ... ``}`` for a block body, else the header and the body indented."""
    pad = INDENT * depth
    if isinstance(body, ast.Block):
        lines = [f"{pad}{header} {{"]
        for stmt in body.stmts:
            lines.extend(_stmt(stmt, depth + 1))
        lines.append(f"{pad}}}")
        return lines
    return [pad + header] + _stmt(body, depth + 1)


def _ends_open(stmt: ast.Stmt) -> bool:
    """Whether an ``else`` written after ``stmt`` would attach to an ``if`` inside it."""
    if isinstance(stmt, ast.If):
        return stmt.orelse is None or _ends_open(stmt.orelse)
    if isinstance(stmt, (ast.While, ast.Loop, ast.FixedPoint, ast.IterateInReverse)):
        return _ends_open(stmt.body)
    if isinstance(stmt, ast.IterateInBFS):
        return _ends_open(stmt.reverse if stmt.reverse is not None else stmt.body)
    return False


def _stmt(s: ast.Stmt, depth: int) -> List[str]:
    pad = INDENT * depth
    if isinstance(s, ast.Block):
        return [pad + "{"] + [line for st in s.stmts for line in _stmt(st, depth + 1)] + [
            pad + "}"]
    if isinstance(s, ast.If):
        then = s.then
        if s.orelse is not None and _ends_open(then):
            then = ast.Block((then,))   # never built by the parser: keep the else where it was
        lines = _with_body(f"if ({unparse_expr(s.cond)})", then, depth)
        if s.orelse is None:
            return lines
        if isinstance(s.orelse, (ast.Block, ast.If)):
            rest = _stmt(s.orelse, depth)
            first = "else " + rest[0].lstrip()
            rest = rest[1:]
        else:
            first = "else"
            rest = _stmt(s.orelse, depth + 1)
        if isinstance(then, ast.Block):
            lines[-1] += " " + first
        else:
            lines.append(pad + first)
        return lines + rest
    if isinstance(s, ast.While):
        return _with_body(f"while ({unparse_expr(s.cond)})", s.body, depth)
    if isinstance(s, ast.DoWhile):
        lines = _with_body("do", s.body, depth)
        tail = f"while ({unparse_expr(s.cond)});"
        if isinstance(s.body, ast.Block):
            lines[-1] += " " + tail
        else:
            lines.append(pad + tail)
        return lines
    if isinstance(s, ast.Loop):
        keyword = "forall" if s.parallel else "for"
        return _with_body(f"{keyword} ({s.var} in {_source(s.source)})", s.body, depth)
    if isinstance(s, ast.Batch):
        return _with_body(f"Batch ({s.stream.id} : {unparse_expr(s.size)})", s.body, depth)
    if isinstance(s, ast.OnUpdate):
        keyword = "OnAdd" if s.kind == "add" else "OnDelete"
        return _with_body(f"{keyword} ({s.var} in {_operand(s.source, POSTFIX)}) :", s.body,
                          depth)
    if isinstance(s, ast.FixedPoint):
        return _with_body(f"fixedPoint until ({s.var} : {unparse_expr(s.cond)})", s.body, depth)
    if isinstance(s, ast.IterateInBFS):
        header = (f"iterateInBFS ({s.var} in {_operand(s.graph, POSTFIX)}.nodes() from "
                  f"{unparse_expr(s.root)})")
        if s.filter is not None:
            header += f".filter({unparse_expr(s.filter)})"
        lines = _with_body(header, s.body, depth)
        if s.reverse is not None:
            lines.extend(_stmt(s.reverse, depth))
        return lines
    if isinstance(s, ast.IterateInReverse):
        cond = "" if s.cond is None else unparse_expr(s.cond)
        return _with_body(f"iterateInReverse ({cond})", s.body, depth)
    return [pad + _simple(s)]


def _simple(s: ast.Stmt) -> str:
    if isinstance(s, ast.VarDecl):
        return f"{_type(s.type)} {', '.join(_declarator(d) for d in s.declarators)};"
    if isinstance(s, ast.Assign):
        return f"{_operand(s.target, POSTFIX)} = {unparse_expr(s.value)};"
    if isinstance(s, ast.CompoundAssign):
        return f"{_operand(s.target, POSTFIX)} {s.op}= {unparse_expr(s.value)};"
    if isinstance(s, ast.IncDec):
        return f"{_operand(s.target, POSTFIX)}{s.op};"
    if isinstance(s, ast.MinMaxAssign):
        targets = ", ".join(_operand(t, POSTFIX) for t in s.targets)
        values = [f"{s.func}({_args(s.args)})"] + [_operand(e, _ADDITIVE) for e in s.rest]
        return f"<{targets}> = <{', '.join(values)}>;"
    if isinstance(s, ast.Attach):
        method = "attachNodeProperty" if s.kind == "node" else "attachEdgeProperty"
        pairs = ", ".join(f"{name} = {unparse_expr(value)}" for name, value in s.pairs)
        return f"{_operand(s.graph, POSTFIX)}.{method}({pairs});"
    if isinstance(s, ast.Return):
        return "return;" if s.value is None else f"return {unparse_expr(s.value)};"
    if isinstance(s, ast.Break):
        return "break;"
    if isinstance(s, ast.Continue):
        return "continue;"
    if isinstance(s, ast.ExprStmt):
        return f"{_operand(s.expr, POSTFIX)};"
    raise TypeError(f"cannot unparse {type(s).__name__}")


# --- expressions -------------------------------------------------------------------------------

def _level(e: ast.Expr) -> int:
    if isinstance(e, ast.Binary):
        return BINARY_PRECEDENCE[e.op]
    if isinstance(e, ast.Unary):
        return UNARY
    if isinstance(e, (ast.Member, ast.MethodCall, ast.Index)):
        return POSTFIX
    if isinstance(e, ast.IntLit) and e.value < 0:
        return UNARY   # only built by hand: prints as a unary minus
    return ATOM


def _operand(e: ast.Expr, min_level: int) -> str:
    """``e`` in a position that needs at least ``min_level``, parenthesised otherwise."""
    text = unparse_expr(e)
    return text if _level(e) >= min_level else f"({text})"


def _args(args) -> str:
    return ", ".join(unparse_expr(a) for a in args)


def unparse_expr(e: ast.Expr) -> str:
    """The text of an expression with the fewest parentheses that keep its structure."""
    if isinstance(e, ast.Binary):
        level = BINARY_PRECEDENCE[e.op]
        # Left-associative: the right operand needs parentheses at the same level.
        return f"{_operand(e.left, level)} {e.op} {_operand(e.right, level + 1)}"
    if isinstance(e, ast.Unary):
        operand = _operand(e.operand, UNARY)
        if e.op == "-" and operand.startswith("-"):
            operand = f"({operand})"   # "--x" would lex as a decrement
        return f"{e.op}{operand}"
    if isinstance(e, ast.Member):
        return f"{_object(e.obj)}.{e.name}"
    if isinstance(e, ast.MethodCall):
        return f"{_object(e.obj)}.{e.method}({_args(e.args)})"
    if isinstance(e, ast.Index):
        return f"{_object(e.obj)}[{unparse_expr(e.index)}]"
    if isinstance(e, ast.Call):
        return f"{e.func}({_args(e.args)})"
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.IntLit):
        return str(e.value)
    if isinstance(e, ast.FloatLit):
        return e.text or repr(e.value)
    if isinstance(e, ast.BoolLit):
        return e.spelling or ("True" if e.value else "False")
    if isinstance(e, ast.InfLit):
        return e.spelling or "INF"
    raise TypeError(f"cannot unparse {type(e).__name__}")


def _object(e: ast.Expr) -> str:
    """The object of ``.name`` / ``[i]``: a number needs parentheses (``1.x`` is one token)."""
    if isinstance(e, (ast.IntLit, ast.FloatLit)):
        return f"({unparse_expr(e)})"
    return _operand(e, POSTFIX)
