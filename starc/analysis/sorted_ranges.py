"""Neighbour-loop filters that bound the loop variable, as a sub-range of the sorted adjacency.

Each CSR row is sorted by neighbour id (out-rows by target, reverse rows by source: see
``starc/graphs/csr.py`` and ``starc_graph.hpp``), so the neighbours ``u`` of a row that pass
``u < c`` (``<=``, ``>``, ``>=``, or the same written ``c > u``) are one contiguous run of it,
found with a binary search. ``split_range_filter`` picks such comparisons out of a loop's
``&&``-filter; the loop iterates only the run and keeps the other conditions as the in-loop
filter (``row_scans`` records it, the printers print it). Repeated ids and self-loops need no
care: the run holds exactly the positions whose id passes the comparison, in their original
order.

The bound ``c`` is evaluated once, before the loop (or before an enclosing loop that changes
neither the row nor ``c``: ``row_scans``), so it
must have the same value at every iteration and be safe to evaluate when the loop runs zero
times: constants, per-work-item
values not assigned inside the loop (``private`` says which symbols those are), by-value
kernel scalars, casts, negation, ``+ - *`` and the vertex/edge counts. Anything else (a
property read, a shared reduction variable, a division) keeps the filter as it is.
"""

from __future__ import annotations

from typing import Callable, List, Optional, Set, Tuple

from starc.analysis import plan as P
from starc.ir import nodes as ir
from starc.ir.types import Scalar
from starc.records import Record, record

__all__ = ["Bound", "RangeFilter", "split_range_filter", "loop_invariant", "written_symbols",
           "is_loop_variable"]

#: ``var OP c`` -> (side of the range it bounds, whether c itself passes)
_COMPARISONS = {"<": ("stop", False), "<=": ("stop", True),
                ">": ("start", False), ">=": ("start", True)}
#: ``c OP var`` is ``var FLIPPED c``
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
#: the id types: they compare like the int ids stored in the CSR rows
_ID_TYPES = (Scalar.NODE, Scalar.INT)


@record
class Bound(Record):
    """One end of the run: ``side`` "start" (``var > value``, ``>=`` when ``inclusive``) or
    "stop" (``var < value``, ``<=`` when ``inclusive``)."""

    side: str
    value: ir.Expr
    inclusive: bool


@record
class RangeFilter(Record):
    """A loop filter split into bounds (at least one, in filter order; each narrows the run
    left by the ones before it) and the rest of the conjunction (None when nothing is left
    to test inside the loop)."""

    bounds: Tuple[Bound, ...]
    rest: Optional[ir.Expr]


def split_range_filter(loop: ir.Loop, private: Callable[[ir.Symbol], bool]
                       ) -> Optional[RangeFilter]:
    """The range part of ``loop``'s filter, or None when no conjunct bounds the loop variable
    by a loop-invariant id. ``private(sym)``: ``sym`` is a per-work-item value (a local or a
    by-value argument), not shared memory another work item may change."""
    if loop.filter is None or not isinstance(loop.domain, (ir.Neighbors, ir.InNeighbors)):
        return None
    written = written_symbols(loop)
    of = loop.domain.of
    if isinstance(of, ir.VarRef) and of.sym.uid in written:
        return None     # the row moves (any other row expression is evaluated once)
    bounds: List[Bound] = []
    rest: List[ir.Expr] = []
    for term in _conjuncts(loop.filter):
        bound = _bound_of(term, loop.var, written, private)
        if bound is not None:
            bounds.append(bound)
        else:
            rest.append(term)
    if not bounds:
        return None
    remaining = None
    for term in rest:
        remaining = term if remaining is None else ir.Binary(
            "&&", remaining, term, type=Scalar.BOOL, loc=term.loc)
    return RangeFilter(tuple(bounds), remaining)


def _conjuncts(e: ir.Expr) -> List[ir.Expr]:
    if isinstance(e, ir.Binary) and e.op == "&&":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _bound_of(term: ir.Expr, var: ir.Symbol, written: Set[int], private) -> Optional[Bound]:
    if not isinstance(term, ir.Binary) or term.op not in _COMPARISONS:
        return None
    if term.left.type not in _ID_TYPES:
        return None
    if is_loop_variable(term.left, var):
        op, value = term.op, term.right
    elif is_loop_variable(term.right, var):
        op, value = _FLIPPED[term.op], term.left
    else:
        return None
    if not loop_invariant(value, written, private):
        return None
    side, inclusive = _COMPARISONS[op]
    return Bound(side, value, inclusive)


def is_loop_variable(e: ir.Expr, var: ir.Symbol) -> bool:
    """``var`` itself, or ``var`` converted to int (a no-op on an id)."""
    if isinstance(e, ir.Cast) and e.type in _ID_TYPES:
        e = e.expr
    return isinstance(e, ir.VarRef) and e.sym == var


def loop_invariant(e: ir.Expr, written: Set[int], private) -> bool:
    """``e`` has the same value at every iteration of a loop that writes ``written`` (see
    ``written_symbols``) and is safe to evaluate before it (no memory read)."""
    if isinstance(e, (ir.Const, ir.Inf, P.KernelScalar)):
        return True
    if isinstance(e, ir.VarRef):
        return e.sym.uid not in written and private(e.sym)
    if isinstance(e, ir.Cast):
        return loop_invariant(e.expr, written, private)
    if isinstance(e, ir.Unary) and e.op == "-":
        return loop_invariant(e.operand, written, private)
    if isinstance(e, ir.Binary) and e.op in ("+", "-", "*"):
        return loop_invariant(e.left, written, private) and loop_invariant(e.right, written, private)
    if isinstance(e, ir.GraphQuery):
        return e.op in ("num_nodes", "num_edges")
    return False


def written_symbols(loop: ir.Loop) -> Set[int]:
    """Uids of every symbol the loop declares, assigns or iterates (its own variables too)."""
    written = {loop.var.uid}
    own_edge = getattr(loop.domain, "edge", None)     # a vertex loop has none
    if own_edge is not None:
        written.add(own_edge.uid)
    for node in ir.walk(loop.body):
        if isinstance(node, ir.Declare):
            written.add(node.sym.uid)
        elif isinstance(node, ir.Loop):
            written.add(node.var.uid)
            edge = getattr(node.domain, "edge", None)
            if edge is not None:
                written.add(edge.uid)
        targets = [getattr(node, "target", None)]
        targets += [t for t, _ in getattr(node, "others", ())]
        written.update(t.sym.uid for t in targets if isinstance(t, ir.VarRef))
    return written
