"""MPI's ghost row slices: whether a kernel reads other vertices' rows only as searched slices."""

from __future__ import annotations

from typing import Dict

from starc.analysis import plan as P
from starc.analysis.degree_order import is_triangle_count
from starc.ir import nodes as ir

__all__ = ["ROW_QUERIES", "searched_from_below"]

#: graph queries that read a vertex's row (on the host, where a rank holds only its own rows,
#: they are refused; in a kernel, searched slices of a ghost's row may serve them)
ROW_QUERIES = ("is_an_edge", "get_edge")

#: a strict or non-strict comparison ``left op right`` -> whether it puts ``left`` below
_BELOW = {"<": True, "<=": True, ">": False, ">=": False}


def searched_from_below(kernel: P.Kernel) -> bool:
    """Whether every row of another vertex that ``kernel`` reads is searched by
    ``g.is_an_edge(a, b)`` where ``a`` and ``b`` are neighbours of the work item's vertex
    ``x`` with filters ``a < x`` and ``b > x`` (``<=``/``>=`` too). A ghost ``a`` then lies
    below the rank's first vertex, and ``b`` is one of the rank's vertices or ghosts above
    its first vertex: only that part of ``a``'s row can hold it. Or walked: a loop over the
    row of such an ``a`` filtered to ``b > x`` in a triangle count (its swapped rows,
    ``row_swap``): a ``b`` missing from that part of ``a``'s row (no neighbour of the rank's
    vertices) is no neighbour of ``x`` either, which the count asks of ``x``'s own row."""
    if kernel.extent != "nodes" or kernel.guard is not None:
        return False
    x = kernel.index.uid
    counts = is_triangle_count(kernel)  # whose walked b only ever meets a search of x's row
    side: Dict[int, bool] = {}          # neighbour loop variable -> below x
    for node in ir.walk(kernel.body):
        if isinstance(node, ir.Loop) and isinstance(node.domain, (ir.Neighbors,
                                                                  ir.InNeighbors)):
            of = node.domain.of
            below = _filter_side(node.filter, node.var.uid, x)
            own = isinstance(of, ir.VarRef) and of.sym.uid == x
            slice_above = (counts and isinstance(node.domain, ir.Neighbors)
                           and isinstance(of, ir.VarRef) and side.get(of.sym.uid) is True
                           and below is False)
            if not (own or slice_above):
                return False            # a loop over another vertex's row, not its slice
            if below is not None:
                side[node.var.uid] = below
        elif isinstance(node, ir.GraphQuery) and node.op in ROW_QUERIES:
            a, b = node.args
            if isinstance(a, ir.VarRef) and a.sym.uid == x:
                continue                # the work item's own row
            if node.op != "is_an_edge" or not all(isinstance(v, ir.VarRef) for v in (a, b)) \
                    or side.get(a.sym.uid) is not True or side.get(b.sym.uid) is not False:
                return False
    return True


def _filter_side(e, var: int, x: int):
    """True when filter ``e`` says ``var`` is below vertex ``x``, False when above, else
    None."""
    if not isinstance(e, ir.Binary) or e.op not in _BELOW:
        return None
    names = tuple(v.sym.uid if isinstance(v, ir.VarRef) else None for v in (e.left, e.right))
    if names == (var, x):
        return _BELOW[e.op]
    if names == (x, var):
        return not _BELOW[e.op]
    return None
