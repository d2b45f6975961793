"""Whether a distributed Dynamic program's new ghosts take the next local ids or their places in global-id order."""

from __future__ import annotations

from typing import Tuple

from starc.analysis import plan as P
from starc.analysis.host_tree import walk_host
from starc.analysis.row_order import unsorted_rows
from starc.analysis.row_scans import scan_rows

__all__ = ["appended_ghosts", "APPENDED_GHOSTS_WHY"]

#: why a batch's new ghosts take the next local ids (``Distribution.appended_ghosts``)
APPENDED_GHOSTS_WHY = (
    "a batch's new ghosts take the next local ids (runtime Needs::appended_ghosts): no "
    "kernel reads a row as sorted by global id and no result is an edge property printed by "
    "edge id, so no old local id moves, where placing them in global-id order renumbered "
    "every local id the rank's slots and in-rows hold (Kronecker 18, 2 ranks: ~450 new "
    "ghosts a batch, ~1.1 M slots a rank); rows and in-rows stay sorted by local id")


def appended_ghosts(plan: P.Plan, ghost_rows: bool) -> Tuple[bool, str]:
    """Whether the new ghosts a batch's additions bring to a rank of ``plan``'s distributed
    run take the next local ids (so its local ids leave global-id order), and why or why not;
    ``(False, "")`` without graph updates."""
    if not any(isinstance(s, P.ApplyUpdates) for s in walk_host(plan.host)):
        return False, ""
    keep = "new ghosts at their places in global-id order (every local id renumbered): "
    if ghost_rows:
        return False, keep + ("the program holds ghost rows, so a batch lays the rank's part "
                              "out again, in global-id order")
    any_order, why = unsorted_rows(tuple(scan_rows(k) for k in plan.kernels), True)
    if not any_order:
        return False, keep + why
    if any(a.extent == "edges" and a.copy_out for a in plan.arrays):
        return False, keep + ("a result is an edge property, printed by edge id: the rows' "
                              "slots must follow global-id order")
    return True, APPENDED_GHOSTS_WHY
