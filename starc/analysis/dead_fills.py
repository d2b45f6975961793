"""Fills nothing reads: a fill whose every element the array's next use writes first.

The outline zero-fills every result property before the body (a result is defined even where
the program writes none of it) and ``g.attachNodeProperty`` fills what it attaches; dsl/cc.sp
then stores ``comp[v] = v`` at every vertex, and where its propagation runs as a union-find
(``union_find``) the flags the attach filled True are filled False at its end, as the loop
leaves them, with nothing between or after that reads them. Such a fill is an n-long write a
run pays for nothing. ``drop_dead_fills`` drops a fill where, in the same
host block, the next statement that names the array is another fill of it or the launch of a
kernel over the nodes that stores every vertex's element before anything reads it, and a fill
of a declared property that nothing names after it in the function (the union-find's fills are
known only once the specialize stage has chosen it, so that stage runs this last). A rank of
MPI writes only its own vertices' elements, not its ghosts': the stage does not run it there.
"""

from __future__ import annotations

import dataclasses
from typing import List, Sequence

from starc.analysis import plan as P
from starc.analysis.host_tree import host_exprs, kernels_launched_by, map_blocks, walk_host
from starc.ir import nodes as ir

__all__ = ["drop_dead_fills"]


def _names(stmt: P.HostStmt, array: P.DeviceArray) -> bool:
    """Whether anything in ``stmt`` may read or write ``array``: a kernel it launches takes
    it, a field names it, an expression reads an element."""
    for node in walk_host(stmt):
        if any(p.array is not None and p.array.name == array.name
               for kernel in kernels_launched_by(node) for p in kernel.params):
            return True
        for field in dataclasses.fields(node):
            value = getattr(node, field.name)
            for item in value if isinstance(value, tuple) else (value,):
                if isinstance(item, P.DeviceArray) and item.name == array.name:
                    return True
                if isinstance(item, P.Worklist):        # its launches and arrays
                    return True
        if any(isinstance(n, P.DeviceRead) and n.array.name == array.name
               for n in host_exprs(node)):
            return True
    return False


def _stores_every_element(kernel: P.Kernel, array: P.DeviceArray) -> bool:
    """Whether ``kernel`` stores ``array[v]`` at every vertex ``v`` before it reads the array:
    over the nodes, unguarded, an unconditional ``array[v] = value`` after statements that
    neither read it nor branch."""
    if kernel.extent != "nodes" or kernel.guard is not None or array.extent != "nodes":
        return False
    for stmt in kernel.body.stmts:
        if isinstance(stmt, ir.Assign) and isinstance(stmt.target, ir.PropRead) and \
                stmt.target.prop.uid == array.sym.uid:
            index = stmt.target.index
            return isinstance(index, ir.VarRef) and index.sym.uid == kernel.index.uid and \
                not ir.reads_prop(stmt.value, array.sym)
        if not isinstance(stmt, (ir.Declare, ir.Assign)) or ir.reads_prop(stmt, array.sym):
            return False
    return False


def _overwrites(stmt: P.HostStmt, array: P.DeviceArray) -> bool:
    if isinstance(stmt, P.Fill):
        return stmt.array.name == array.name
    return isinstance(stmt, P.Launch) and array.sym is not None and \
        _stores_every_element(stmt.kernel, array)


def _dead(stmts: Sequence[P.HostStmt], at: int, last: bool) -> bool:
    """Whether the fill ``stmts[at]`` is overwritten before anything names its array, or, in
    the function's outermost block (``last``), is of a declared property nothing names after
    it (nothing copies it out)."""
    fill = stmts[at]
    for later in stmts[at + 1:]:
        if _overwrites(later, fill.array):
            return True
        if _names(later, fill.array):
            return False
    return last and fill.array.role == "local"


def drop_dead_fills(block: P.HostBlock, outermost: bool = True) -> P.HostBlock:
    """``block`` (a function's host tree; ``outermost``: its top block) without the fills
    that the array's next use overwrites whole (the module docstring)."""
    kept: List[P.HostStmt] = []
    stmts = [map_blocks(s, lambda b: drop_dead_fills(b, False)) for s in block.stmts]
    for at, stmt in enumerate(stmts):
        if isinstance(stmt, P.Fill) and _dead(stmts, at, outermost):
            continue
        kept.append(stmt)
    return dataclasses.replace(block, stmts=tuple(kept))
