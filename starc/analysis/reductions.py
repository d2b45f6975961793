"""The reduction and atomic plan: how each write inside a kernel body is performed.

Decided per statement from who owns the target (LANGUAGE.md §6):
- the work item's own element (``v.p`` with ``v`` the kernel index), a kernel-local scalar,
  or anything in a single-item kernel: a plain update;
- another element of a property: ``AtomicReduce`` / ``AtomicMinMax`` (``locked`` unless every
  secondary value is a constant);
- a host scalar: ``AtomicReduce`` on its one-value device copy plus a ``ScalarReduction``
  (a Min/Max likewise), or a ``ScalarStore`` for a plain assignment;
- a fixedPoint property: its next buffer plus a ``FlagSet`` (``fixedpoint.py``).
"""

from __future__ import annotations

import dataclasses
from typing import List, Tuple

from starc.analysis.fixedpoint import flag_set_for, is_constant
from starc.analysis.lowering import KernelLowering
from starc.analysis.plan import ATOMIC_OPS, AtomicMinMax, AtomicReduce, Kernel, ScalarStore
from starc.errors import BackendError
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["lower_assign", "lower_reduce", "lower_minmax", "plain_store", "privatise"]

Stmts = Tuple[ir.Stmt, ...]


def plain_store(target: ir.Expr, value: ir.Expr, ctx: KernelLowering, loc) -> Stmts:
    """``target = value`` inside a kernel."""
    if isinstance(target, ir.PropRead):
        scope = ctx.scope_of(target.prop)
        if scope is not None:
            flag = flag_set_for(scope, value, loc)
            assign = ir.Assign(scope.redirect(target), value, loc=loc)
            return (assign,) if flag is None else (assign, flag)
        return (ir.Assign(target, value, loc=loc),)
    if ctx.is_local(target.sym):
        return (ir.Assign(target, value, loc=loc),)
    return (ScalarStore(ctx.store(target.sym), value, loc=loc),)


def lower_assign(stmt: ir.Assign, ctx: KernelLowering) -> Stmts:
    return plain_store(stmt.target, stmt.value, ctx, stmt.loc)


def _no_fixedpoint_target(target: ir.Expr, ctx: KernelLowering, what: str, loc) -> None:
    if isinstance(target, ir.PropRead) and ctx.scope_of(target.prop) is not None:
        raise BackendError(
            f"{what} of fixedPoint property '{target.prop.name}' inside its fixedPoint is not "
            f"supported by the device backends yet; assign True/False to it instead", loc)


def lower_reduce(stmt: ir.Reduce, ctx: KernelLowering) -> Stmts:
    target, loc = stmt.target, stmt.loc
    _no_fixedpoint_target(target, ctx, f"'{stmt.written}' update", loc)
    if ctx.owns(target):
        combined = ir.Binary(stmt.op, target, stmt.value, type=target.type, loc=loc)
        return (ir.Assign(target, combined, loc=loc),)
    if isinstance(target, ir.VarRef):
        ctx.note_reduction(target.sym, stmt.op)
    return (AtomicReduce(stmt.op, target, stmt.value, loc=loc),)


def lower_minmax(stmt: ir.MinMaxAssign, ctx: KernelLowering) -> Stmts:
    target, loc = stmt.target, stmt.loc
    _no_fixedpoint_target(target, ctx, f"{stmt.func} assignment", loc)
    if ctx.owns(target):
        better = ir.Binary("<" if stmt.func == "Min" else ">", stmt.candidate, target,
                           type=Scalar.BOOL, loc=loc)
        then: List[ir.Stmt] = [ir.Assign(target, stmt.candidate, loc=loc)]
        for other, value in stmt.others:
            then.extend(plain_store(other, value, ctx, loc))
        return (ir.If(better, ir.Block(tuple(then), loc=loc), loc=loc),)
    others: List[Tuple[ir.Expr, ir.Expr]] = []
    effects: List[ir.Stmt] = []
    for other, value in stmt.others:
        if isinstance(other, ir.PropRead) and ctx.scope_of(other.prop) is not None:
            scope = ctx.scope_of(other.prop)
            others.append((scope.redirect(other), value))
            flag = flag_set_for(scope, value, loc)
            if flag is not None:
                effects.append(flag)
        elif isinstance(other, ir.VarRef) and not ctx.is_local(other.sym):
            effects.append(ScalarStore(ctx.store(other.sym), value, loc=loc))
        else:
            others.append((other, value))
    locked = not all(is_constant(value) for _, value in stmt.others)
    if isinstance(target, ir.VarRef):
        ctx.note_reduction(target.sym, stmt.func)
    lock = ctx.table.lock(target) if locked else None
    # An element of a property is read first (plan.AtomicMinMax.read_first); a scalar under
    # reduction is accumulated privately or is one address whose read is as contended.
    return (AtomicMinMax(stmt.func, target, stmt.candidate, tuple(others), locked, lock,
                         tuple(effects), read_first=isinstance(target, ir.PropRead), loc=loc),)


def privatise(kernel: Kernel) -> Kernel:
    """``kernel`` with ``private`` set on the scalar reductions a work item may accumulate
    privately and combine into the device scalar once: exclusive ones on a non-bool scalar
    that the guard and body only update (never read) and, for Min/Max, only through plain
    atomic min/max statements (no secondary targets, no lock). A single-item kernel has none
    (it uses no atomics)."""
    if kernel.extent == "single" or not kernel.reductions:
        return kernel
    nodes = list(ir.walk(kernel.body))
    if kernel.guard is not None:
        nodes += list(ir.walk(kernel.guard))
    reductions = []
    for red in kernel.reductions:
        private = red.exclusive and red.sym.type is not Scalar.BOOL and red.op in ATOMIC_OPS \
            and _only_updated(red, nodes)
        reductions.append(dataclasses.replace(red, private=private))
    return dataclasses.replace(kernel, reductions=tuple(reductions))


def _only_updated(red, nodes) -> bool:
    """Whether every mention of ``red``'s scalar in ``nodes`` is the target of a plain
    atomic update with the reduction's own operator (and there is at least one)."""
    refs = sum(1 for x in nodes if isinstance(x, ir.VarRef) and x.sym == red.sym)
    updates = 0
    for x in nodes:
        if isinstance(x, (AtomicReduce, AtomicMinMax)) and isinstance(x.target, ir.VarRef) \
                and x.target.sym == red.sym:
            updates += 1
            if isinstance(x, AtomicMinMax):
                if x.others or x.then or x.locked or x.func != red.op:
                    return False
            elif x.op != red.op:
                return False
    return updates > 0 and refs == updates
