"""Swap instead of copy: ``a = b`` becomes a buffer swap when nothing can see ``b`` afterwards.

After ``copy dst <- src`` the program sees ``dst`` with ``src``'s values; a swap gives it the
same, and leaves ``src`` holding ``dst``'s old values instead of a second copy of the new
ones. That difference is invisible, and the swap (two pointers) replaces a pass over the
array, when every path from the copy overwrites all of ``src`` before anything reads it
(``_Scan``): a kernel over all nodes, unfiltered, that stores at its own vertex on every path
and never reads ``src``; a fill; or a copy into it. Ends of the function count as safe only
because ``src`` must be a declared property (role ``"local"``: neither copied out nor an
input). Both arrays must take part in no other copy or swap, so no other name can alias
either buffer. Anything the scan does not understand (``break``, ``continue``, a loop that
may run zero times) keeps the copy.
"""

from __future__ import annotations

import dataclasses
from typing import List, Optional, Sequence, Tuple

from starc.analysis import plan as P
from starc.analysis.host_tree import (LOOPS, arrays_of, host_exprs, kernels_launched_by,
                                      map_blocks, walk_host)
from starc.ir import nodes as ir

__all__ = ["swap_copies", "rewrites_fully"]

SAFE, UNSAFE = "safe", "unsafe"      # None: this statement decides nothing, read on


def _is(array: Optional[P.DeviceArray], other: P.DeviceArray) -> bool:
    return array is not None and array.name == other.name


def _reads_of(node, sym: ir.Symbol) -> List[ir.PropRead]:
    return [n for n in ir.walk(node) if isinstance(n, ir.PropRead) and n.prop.uid == sym.uid]


def _may_leave(stmt: ir.Stmt) -> bool:
    """Whether ``stmt`` may skip the statements after it in the forall body."""
    return any(isinstance(n, (ir.Break, ir.Continue, ir.Return)) for n in ir.walk(stmt))


def rewrites_fully(kernel: P.Kernel, array: P.DeviceArray) -> bool:
    """Whether one launch of ``kernel`` writes every element of node property ``array`` and
    reads none: a kernel over all nodes, without filter, whose body stores ``array[v]`` at
    its top level (so on every path: nothing before it may leave the body), and whose only
    use of the array is that store."""
    if kernel.extent != "nodes" or kernel.guard is not None or array.extent != "nodes":
        return False
    sym = array.sym
    uses = _reads_of(kernel.body, sym)
    for stmt in kernel.body.stmts:
        if (isinstance(stmt, ir.Assign) and isinstance(stmt.target, ir.PropRead)
                and stmt.target.prop.uid == sym.uid
                and isinstance(stmt.target.index, ir.VarRef)
                and stmt.target.index.sym.uid == kernel.index.uid):
            return len(uses) == 1
        if _may_leave(stmt):
            return False
    return False


def _kernel_effect(kernel: P.Kernel, array: P.DeviceArray) -> Optional[str]:
    if not any(_is(p.array, array) for p in kernel.params):
        return None
    if rewrites_fully(kernel, array):
        return SAFE
    stored = [n.target for n in ir.walk(kernel.body)
              if isinstance(n, ir.Assign) and isinstance(n.target, ir.PropRead)
              and n.target.prop.uid == array.sym.uid]
    # Stores elsewhere only (a filtered or conditional writer) rewrite part of it: read on.
    reads = _reads_of(kernel.body, array.sym)
    if kernel.guard is not None:
        reads += _reads_of(kernel.guard, array.sym)
    return None if len(reads) == len(stored) else UNSAFE


class _Scan:
    """Whether ``array`` is overwritten (SAFE) or may be read (UNSAFE) first along a path."""

    def __init__(self, array: P.DeviceArray) -> None:
        self.array = array

    def reads_in_exprs(self, stmt: P.HostStmt) -> bool:
        return any(isinstance(n, P.DeviceRead) and _is(n.array, self.array)
                   for n in host_exprs(stmt))

    def block(self, stmts: Sequence[P.HostStmt]) -> Optional[str]:
        for stmt in stmts:
            found = self.stmt(stmt)
            if found is not None:
                return found
        return None

    def stmt(self, s: P.HostStmt) -> Optional[str]:
        a = self.array
        if isinstance(s, (P.HostBreak, P.HostContinue)):
            return UNSAFE
        if self.reads_in_exprs(s):
            return UNSAFE
        if isinstance(s, P.HostBlock):
            return self.block(s.stmts)
        if isinstance(s, P.HostReturn):
            return SAFE                      # ``array`` is a local: nothing reads it after
        if isinstance(s, P.HostIf):
            then = self.block(s.then.stmts)
            orelse = self.block(s.orelse.stmts) if s.orelse is not None else None
            if UNSAFE in (then, orelse):
                return UNSAFE
            return SAFE if then == orelse == SAFE else None
        if isinstance(s, P.HostDoWhile):
            return self.block(s.body.stmts)
        if isinstance(s, (P.HostWhile, P.HostForSet, P.HostForRange)):
            # may run zero times: only a read inside decides
            return UNSAFE if self.block(s.body.stmts) == UNSAFE else None
        if isinstance(s, P.Launch):
            return _kernel_effect(s.kernel, a)
        if isinstance(s, P.Fill) and _is(s.array, a):
            return SAFE
        if isinstance(s, P.CopyArray) and _is(s.dst, a) and not _is(s.src, a):
            return SAFE
        if isinstance(s, P.WriteElement) and _is(s.array, a):
            return None
        if any(_is(x, a) for x in arrays_of(s)) or kernels_launched_by(s):
            return UNSAFE                    # a structured loop, a swap, a copy from it
        return None


def _chains(block: P.HostBlock, owner: Optional[P.HostStmt] = None, outer: Tuple = ()):
    """(chain, copy) for every CopyArray: the chain lists, from the root to the copy, each
    enclosing (statement owning the block or None, block, index in it)."""
    for i, stmt in enumerate(block.stmts):
        here = outer + ((owner, block, i),)
        if isinstance(stmt, P.CopyArray):
            yield here, stmt
        for name in ("then", "orelse", "body"):
            child = getattr(stmt, name, None)
            if isinstance(child, P.HostBlock):
                yield from _chains(child, stmt, here)


def _unseen_after(chain: Tuple, src: P.DeviceArray) -> bool:
    """Whether every path from the copy at the end of ``chain`` overwrites ``src`` before
    any read of it (the copy itself, reached again, is such a read)."""
    scan = _Scan(src)
    # Walk outwards: the rest of each block, then, where the block is a loop's body, another
    # round of that loop (its condition, then the body from its start) before the exit path.
    for owner, block, index in reversed(chain):
        found = scan.block(block.stmts[index + 1:])
        if found is not None:
            return found == SAFE
        if isinstance(owner, LOOPS):
            if scan.reads_in_exprs(owner) or scan.block(owner.body.stmts) != SAFE:
                return False
    return True


def _aliased(host: P.HostBlock, array: P.DeviceArray, copy: P.CopyArray) -> bool:
    count = 0
    for stmt in walk_host(host):
        if isinstance(stmt, (P.CopyArray, P.SwapArrays)) and any(
                _is(x, array) for x in arrays_of(stmt)):
            count += 1 if stmt is copy else 2
    return count != 1


def swap_copies(host: P.HostBlock) -> P.HostBlock:
    """``host`` with each provably safe ``CopyArray`` replaced by a ``SwapArrays``."""
    chosen = set()
    for chain, copy in _chains(host):
        dst, src = copy.dst, copy.src
        if (src.role == "local" and dst.role in ("local", "result") and dst.name != src.name
                and (dst.extent, dst.elem) == (src.extent, src.elem)
                and not _aliased(host, dst, copy) and not _aliased(host, src, copy)
                and _unseen_after(chain, src)):
            chosen.add(id(copy))
    if not chosen:
        return host

    def rewrite(block: P.HostBlock) -> P.HostBlock:
        stmts = []
        for stmt in block.stmts:
            if id(stmt) in chosen:
                stmt = P.SwapArrays(stmt.dst, stmt.src, instead_of_copy=True, loc=stmt.loc)
            else:
                stmt = map_blocks(stmt, rewrite)
            stmts.append(stmt)
        return dataclasses.replace(block, stmts=tuple(stmts))
    return rewrite(host)

