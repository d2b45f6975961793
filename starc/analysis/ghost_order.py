"""Whether a distributed Dynamic program's new ghosts take the next local ids or their places in global-id order."""

from __future__ import annotations

from typing import Iterable, Optional, Tuple

from starc.analysis import plan as P
from starc.analysis.host_tree import walk_host
from starc.analysis.row_order import unsorted_rows
from starc.analysis.row_scans import scan_rows
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["appended_ghosts", "APPENDED_GHOSTS_WHY"]

#: why a batch's new ghosts take the next local ids (``Distribution.appended_ghosts``)
APPENDED_GHOSTS_WHY = (
    "a batch's new ghosts take the next local ids (runtime Needs::appended_ghosts): no "
    "kernel reads a row as sorted by global id or compares two vertices' local ids by order, "
    "and no result is an edge property printed by edge id, so no old local id moves, where "
    "placing them in global-id order renumbered every local id the rank's slots and in-rows "
    "hold (Kronecker 18, 2 ranks: ~450 new ghosts a batch, ~1.1 M slots a rank); rows and "
    "in-rows stay sorted by local id")


def appended_ghosts(plan: P.Plan, ghost_rows: bool,
                    local_kernels: Iterable[P.Kernel]) -> Tuple[bool, str]:
    """Whether the new ghosts a batch's additions bring to a rank of ``plan``'s distributed
    run (its kernels in the local index space: ``local_kernels``) take the next local ids (so
    its local ids leave global-id order), and why or why not; ``(False, "")`` without graph
    updates."""
    if not any(isinstance(s, P.ApplyUpdates) for s in walk_host(plan.host)):
        return False, ""
    keep = "new ghosts at their places in global-id order (every local id renumbered): "
    if ghost_rows:
        return False, keep + ("the program holds ghost rows, so a batch lays the rank's part "
                              "out again, in global-id order")
    any_order, why = unsorted_rows(tuple(scan_rows(k) for k in plan.kernels), True)
    if not any_order:
        return False, keep + why
    for kernel in local_kernels:
        compared = _compares_local_ids(kernel)
        if compared:
            return False, keep + (f"kernel {kernel.name} compares {compared} by their local "
                                  "ids, which order as the global ids only in global-id order")
    if any(a.extent == "edges" and a.copy_out for a in plan.arrays):
        return False, keep + ("a result is an edge property, printed by edge id: the rows' "
                              "slots must follow global-id order")
    return True, APPENDED_GHOSTS_WHY


def _compares_local_ids(kernel: P.Kernel) -> Optional[str]:
    """The two vertices ``kernel`` (in the local index space) orders by their local ids
    (``local_index`` keeps ``u < v`` between two local vertices as written), or None."""
    def vertex(e: ir.Expr) -> bool:
        return isinstance(e, ir.EdgeEndpoint) or (isinstance(e, ir.VarRef)
                                                  and e.sym.type == Scalar.NODE)
    for node in ir.walk(kernel.body):
        if isinstance(node, ir.Binary) and node.op in ("<", "<=", ">", ">=") \
                and vertex(node.left) and vertex(node.right):
            names = [getattr(getattr(side, "sym", None), "name", "an endpoint")
                     for side in (node.left, node.right)]
            return f"{names[0]} {node.op} {names[1]}"
    return None
