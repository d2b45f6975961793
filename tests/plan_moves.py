"""The copies and copy-replacing swaps of a plan's host tree (``analysis/swap.py``), for tests."""

from __future__ import annotations

from typing import List, Tuple

from starc.analysis import plan as P
from starc.analysis.host_tree import walk_host


def moves(plan: P.Plan) -> List[Tuple[str, str, str]]:
    """(kind, dst, src) of every copy and every swap made for a copy, in host order."""
    found = []
    for stmt in walk_host(plan.host):
        if isinstance(stmt, P.CopyArray):
            found.append(("copy", stmt.dst.name, stmt.src.name))
        elif isinstance(stmt, P.SwapArrays) and stmt.instead_of_copy:
            found.append(("swap", stmt.a.name, stmt.b.name))
    return found
