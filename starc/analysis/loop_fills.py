"""Redundant fills in a batch loop: a fill at the top of a ``BatchLoop``'s body whose array
already holds the value on entry and at the back edge runs once, before the loop.

A Dynamic program re-attaches its flags every batch (``g.attachNodeProperty(modified =
False)``), but a flag that only a fixedPoint on it uses is all False where that fixedPoint
exits (``until (fin : !modified)``), and its declaration before the loop filled it False. The
fill then changes nothing in any batch: ``drop_redundant_fills`` removes it and records it with
its reason in ``BatchLoop.dropped_fills`` (dyn_sssp: one n-long fill fewer per batch).
"""

from __future__ import annotations

import dataclasses
from typing import List, Optional, Sequence, Tuple

from starc.analysis import plan as P
from starc.analysis.host_tree import kernels_launched_by, map_blocks, walk_host
from starc.ir import nodes as ir

__all__ = ["drop_redundant_fills", "touches", "leaves"]


def _constant(fill: P.HostStmt) -> Optional[object]:
    """The value of a fill by a constant (None for anything else)."""
    if isinstance(fill, P.Fill) and isinstance(fill.value, ir.Const):
        return fill.value.value
    return None


def _launches(stmt: P.HostStmt) -> List[P.Kernel]:
    kernels = kernels_launched_by(stmt)
    worklist = getattr(stmt, "worklist", None)
    if isinstance(worklist, P.Worklist):     # the seed and round launches it holds
        kernels += [worklist.build] + ([worklist.clear] if worklist.clear else [])
        kernels += [k for pair in worklist.launches for k in pair]
        if worklist.seed is not None:
            kernels += [s.kernel for s in worklist.seed]
    return kernels


def touches(stmt: P.HostStmt, name: str) -> bool:
    """Whether anything in ``stmt`` may write the array ``name`` (or names it in a way this
    pass does not model: a swap, a copy, an upload)."""
    for node in walk_host(stmt):
        for kernel in _launches(node):
            if any(p.array is not None and p.array.name == name and p.written
                   for p in kernel.params):
                return True
        for field in dataclasses.fields(node):
            value = getattr(node, field.name)
            for item in value if isinstance(value, tuple) else (value,):
                if isinstance(item, P.DeviceArray) and item.name == name:
                    return True
    return False


def leaves(stmt: P.HostStmt, name: str) -> Optional[object]:
    """The value every element of ``name`` holds after ``stmt``, where ``stmt`` sets them all:
    a fill by a constant, or a fixedPoint on the flag ``name`` (it exits with the flags all
    False: ``until (fin : !name)``, in either form; no ``break`` leaves one, E0406)."""
    if isinstance(stmt, P.Fill) and stmt.array.name == name:
        return _constant(stmt)
    if isinstance(stmt, P.FixedPointLoop) and stmt.current.name == name:
        return False
    return None


def _last_value(stmts: Sequence[P.HostStmt], name: str) -> Optional[object]:
    """The value ``name`` holds after ``stmts`` where the last of them to touch it sets it
    whole (None where unknown)."""
    for stmt in reversed(stmts):
        if touches(stmt, name):
            return leaves(stmt, name)
    return None


def _redundant(before: Sequence[P.HostStmt], loop: P.BatchLoop, at: int) -> str:
    """Why the fill ``loop.body.stmts[at]`` changes nothing ("" where it may)."""
    body = loop.body.stmts
    fill = body[at]
    name, value = fill.array.name, _constant(fill)
    if value is None or any(touches(s, name) for s in body[:at]):
        return ""
    entry = _last_value(before, name)
    back = _last_value(body[at + 1:], name)
    if entry is None or back is None or entry != value or back != value:
        return ""
    how = ("the fixedPoint on it exits with it all False"
           if isinstance(next(s for s in reversed(body[at + 1:]) if touches(s, name)),
                         P.FixedPointLoop) else "a fill sets it last")
    return (f"'{name}' holds {value} on entry (filled before the loop) and at the back edge "
            f"({how})")


def drop_redundant_fills(host: P.HostBlock) -> P.HostBlock:
    """``host`` without the fills at the top of its ``BatchLoop`` bodies that change nothing
    (``_redundant``), each recorded in its loop's ``dropped_fills``."""
    def rewrite(block: P.HostBlock) -> P.HostBlock:
        stmts: List[P.HostStmt] = []
        for stmt in block.stmts:
            stmt = map_blocks(stmt, rewrite)
            if isinstance(stmt, P.BatchLoop):
                stmt = _drop(stmts, stmt)
            stmts.append(stmt)
        return dataclasses.replace(block, stmts=tuple(stmts))
    return rewrite(host)


def _drop(before: Sequence[P.HostStmt], loop: P.BatchLoop) -> P.BatchLoop:
    dropped: List[Tuple[P.Fill, str]] = []
    kept: List[P.HostStmt] = []
    body = loop.body.stmts
    for at, stmt in enumerate(body):
        why = _redundant(before, loop, at) if isinstance(stmt, P.Fill) else ""
        if why:
            dropped.append((stmt, why))
        else:
            kept.append(stmt)
    if not dropped:
        return loop
    return dataclasses.replace(loop, body=dataclasses.replace(loop.body, stmts=tuple(kept)),
                               dropped_fills=loop.dropped_fills + tuple(dropped))
