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
from starc.ir.unused import read_symbols, stored_variable

__all__ = ["drop_dead_locals"]


def drop_dead_locals(body: ir.Block, locals_: Iterable[int]) -> ir.Block:
    """``body`` without the declarations and plain stores of the locals (uids in
    ``locals_``) that nothing reads, to a fixed point: a value that only fed a dead local
    may leave another one unread."""
    candidates = set(locals_)
    while True:
        dead = candidates - read_symbols(body)
        if not dead:
            return body
        body = _without(body, dead)
        candidates -= dead


def _stores_to(stmt: ir.Stmt, dead: Set[int]) -> bool:
    sym = stmt.sym if isinstance(stmt, ir.Declare) else stored_variable(stmt)
    return sym is not None and sym.uid in dead


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
