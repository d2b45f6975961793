"""Dead kernel locals: a local a kernel declares and never reads is not declared at all.

``forall (w in g.neighbors(v)) { edge e = g.get_edge(v, w); ... }`` with ``e`` unused is a
valid program, and the reference runs it; printed as is, ``int e = ...;`` is an unused
variable, which the strict builds (``-Wall -Werror``: CUDA, OpenACC, MPI) reject. A C compiler
drops such a store anyway, so removing it here changes no result on any backend.

A value can still matter when it holds a run-time check (a checked index or division,
``checks.py``): the reference stops there, so the kernel must too. Such a value is kept as an
expression statement, evaluated for its checks alone. Calls between functions are inlined
before kernels are outlined, so no other kernel expression has an effect.
"""

from __future__ import annotations

import dataclasses
from typing import Iterable, List, Set

from starc.analysis.checks import CheckedDivide, CheckedIndex
from starc.ir import nodes as ir

__all__ = ["drop_dead_locals"]


def drop_dead_locals(body: ir.Block, locals_: Iterable[int]) -> ir.Block:
    """``body`` without the declarations and plain stores of the locals (uids in
    ``locals_``) that nothing reads, to a fixed point: a value that only fed a dead local
    may leave another one unread."""
    candidates = set(locals_)
    while True:
        dead = candidates - _read(body)
        if not dead:
            return body
        rewritten = _without(body, dead)
        if rewritten == body:
            return body
        body = rewritten
        candidates -= dead


def _read(body: ir.Block) -> Set[int]:
    """Uids of the symbols ``body`` reads: every variable reference except the target of a
    plain store (``x = e``, ``x op= e``) to the variable itself."""
    out: Set[int] = set()

    def visit(node: ir.Node) -> None:
        if isinstance(node, (ir.Assign, ir.Reduce)) and isinstance(node.target, ir.VarRef):
            visit(node.value)
            return
        if isinstance(node, ir.VarRef):
            out.add(node.sym.uid)
        for child in ir.children(node):
            visit(child)

    visit(body)
    return out


def _stores_to(stmt: ir.Stmt, dead: Set[int]) -> bool:
    if isinstance(stmt, ir.Declare):
        return stmt.sym.uid in dead
    return isinstance(stmt, (ir.Assign, ir.Reduce)) and isinstance(stmt.target, ir.VarRef) \
        and stmt.target.sym.uid in dead


def _checked(expr: ir.Expr) -> bool:
    return any(isinstance(n, (CheckedIndex, CheckedDivide)) for n in ir.walk(expr))


def _without(body: ir.Block, dead: Set[int]) -> ir.Block:
    def rewrite(node: ir.Node):
        if not isinstance(node, ir.Block):
            return None
        stmts: List[ir.Stmt] = []
        for stmt in node.stmts:
            if not _stores_to(stmt, dead):
                stmts.append(stmt)
                continue
            value = stmt.init if isinstance(stmt, ir.Declare) else stmt.value
            if value is not None and _checked(value):
                stmts.append(ir.ExprStmt(value, loc=stmt.loc))
        return dataclasses.replace(node, stmts=tuple(stmts))
    return ir.transform(body, rewrite)
