"""Dead host scalars: statements that only set a scalar nothing reads are dropped.

Such a scalar cannot change any result (kernels read host scalars only as launch arguments,
which count as reads), and C compilers rightly warn about variables set but never used. The
uids of the scalars that are read are kept as ``Plan.read_scalars``: a backend binds an unread
parameter only to check its value.
"""

from __future__ import annotations

from typing import FrozenSet, List

from starc.analysis import plan as P
from starc.analysis.host_tree import host_exprs, kernels_launched_by, map_blocks, walk_host
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["read_scalars", "elide_dead_scalars"]


def read_scalars(host: P.HostBlock) -> FrozenSet[int]:
    """Uids of the host scalars some statement of ``host`` reads."""
    read = set()
    for stmt in walk_host(host):
        read.update(n.sym.uid for n in host_exprs(stmt) if isinstance(n, ir.VarRef))
        if isinstance(stmt, P.ToDevice):
            read.add(stmt.sym.uid)
        elif isinstance(stmt, P.HostForSet):
            read.add(stmt.set.uid)
        for kernel in kernels_launched_by(stmt):
            read.update(p.sym.uid for p in kernel.params if p.sym is not None)
            read.update(r.sym.uid for r in kernel.reductions)
            read.update(a.sym.uid for a in kernel.stores if a.sym is not None)
    return frozenset(read)


def elide_dead_scalars(host: P.HostBlock, read: FrozenSet[int]) -> P.HostBlock:
    """``host`` without the declarations, assignments, updates and reads back of scalars
    whose uid is not in ``read``."""
    def rewrite(block: P.HostBlock) -> P.HostBlock:
        stmts: List[P.HostStmt] = []
        for stmt in block.stmts:
            if isinstance(stmt, (P.HostDeclare, P.HostAssign, P.HostReduce, P.FromDevice)) \
                    and isinstance(stmt.sym.type, Scalar) and stmt.sym.uid not in read:
                continue
            stmts.append(map_blocks(stmt, rewrite))
        return P.HostBlock(tuple(stmts), loc=block.loc)
    return rewrite(host)
