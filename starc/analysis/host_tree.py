"""Walks over a plan's host tree: its statements, the device arrays and expressions they use,
the kernels it launches; and ``map_blocks``, the rebuild every host-tree pass uses."""

from __future__ import annotations

import dataclasses
from typing import Callable, Dict, Iterable, List

from starc.analysis import plan as P
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["walk_host", "arrays_of", "host_exprs", "kernels_launched_by",
           "launched_kernels", "map_blocks", "off_lockstep", "asks_device_kind", "LOOPS"]


_CHILD_BLOCKS = ("then", "orelse", "body", "worklist", "topology", "ranks")

#: host statements that ``break``/``continue`` refer to
LOOPS = (P.HostWhile, P.HostDoWhile, P.HostForSet, P.HostForRange, P.FixedPointLoop)


def map_blocks(stmt: P.HostStmt, rewrite: Callable[[P.HostBlock], P.HostBlock]) -> P.HostStmt:
    """``stmt`` with ``rewrite`` applied to each of its child blocks (``then``, ``orelse``,
    ``body``, a ``DataDrivenLoop``'s forms); a ``HostBlock`` is rewritten itself. Passes recurse by calling it from
    ``rewrite``."""
    if isinstance(stmt, P.HostBlock):
        return rewrite(stmt)
    changes = {}
    for name in _CHILD_BLOCKS:
        child = getattr(stmt, name, None)
        if isinstance(child, P.HostBlock):
            changes[name] = rewrite(child)
    return dataclasses.replace(stmt, **changes) if changes else stmt


def walk_host(node) -> Iterable[P.HostStmt]:
    """Every host statement below ``node`` (itself included), depth first."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(getattr(current, "stmts", ())))
        for field in _CHILD_BLOCKS:
            child = getattr(current, field, None)
            if isinstance(child, P.HostStmt):
                stack.append(child)


def kernels_launched_by(stmt: P.HostStmt) -> List[P.Kernel]:
    """The kernels one host statement launches itself (a ``Launch``, a ``BFSLoop``'s)."""
    if isinstance(stmt, P.Launch):
        return [stmt.kernel]
    if isinstance(stmt, P.BFSLoop):
        queue = stmt.queue
        return [k for k in (stmt.forward, stmt.bottom_up, stmt.pending, stmt.expand,
                            stmt.values, stmt.reverse) if k is not None] + \
            ([k for k in (queue.build, queue.forward, queue.expand, queue.reverse,
                             queue.rounds, queue.reverse_rounds)
              if k is not None]
             if queue is not None else [])
    return []


def arrays_of(stmt: P.HostStmt) -> List[P.DeviceArray]:
    """The device arrays one host statement operates on (launched kernels included)."""
    fields = ("array", "dst", "src", "a", "b", "current", "next", "flag", "level", "labels")
    arrays = [getattr(stmt, f, None) for f in fields]
    if isinstance(stmt, P.UpdateLoop):
        arrays += [array for _, array in stmt.fields]
    for kernel in kernels_launched_by(stmt):
        arrays += [r.array for r in kernel.reductions] + list(kernel.stores)
    return [a for a in arrays if isinstance(a, P.DeviceArray)]


def host_exprs(stmt: P.HostStmt) -> Iterable[ir.Node]:
    """Every IR node in the expressions of one host statement."""
    for field in ("init", "value", "cond", "index", "root", "first", "last", "size"):
        value = getattr(stmt, field, None)
        if isinstance(value, ir.Node):
            yield from ir.walk(value)
    if isinstance(stmt, P.Launch):
        for _, value in stmt.scalar_args:
            yield from ir.walk(value)


def launched_kernels(plan: P.Plan) -> List[P.Kernel]:
    """Every kernel the host launches (BFS kernels included), plan order first, each once."""
    kernels: Dict[str, P.Kernel] = {k.name: k for k in plan.kernels}
    for stmt in walk_host(plan.host):
        for kernel in kernels_launched_by(stmt):
            kernels.setdefault(kernel.name, kernel)
    return list(kernels.values())


def off_lockstep(block: P.HostBlock, chosen: Callable[[P.HostIf], bool]) -> P.HostBlock:
    """``block`` with the test of each ``HostIf`` that ``chosen`` picks also requiring a device
    whose work items do not run in lockstep (``OnLockstepDevice``: a target that learns its
    device kind at run time)."""
    def rewrite(b: P.HostBlock) -> P.HostBlock:
        stmts = []
        for stmt in b.stmts:
            stmt = map_blocks(stmt, rewrite)
            if isinstance(stmt, P.HostIf) and chosen(stmt):
                loc = stmt.cond.loc
                cpu = ir.Unary("!", P.OnLockstepDevice(type=Scalar.BOOL, loc=loc),
                               type=Scalar.BOOL, loc=loc)
                stmt = dataclasses.replace(stmt, cond=ir.Binary("&&", stmt.cond, cpu,
                                                                type=Scalar.BOOL, loc=loc))
            stmts.append(stmt)
        return dataclasses.replace(b, stmts=tuple(stmts))
    return rewrite(block)


def asks_device_kind(plan: P.Plan) -> bool:
    """Does the program ask at start-up whether its device runs work items in lockstep? Where
    a kernel has a variant for such devices, or a host test reads it (``OnLockstepDevice``)."""
    return any(k.variant_of for k in plan.kernels) or any(
        isinstance(n, P.OnLockstepDevice) for stmt in walk_host(plan.host)
        for n in host_exprs(stmt))
