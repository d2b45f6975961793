"""Edge queries about the variable of a sorted neighbour loop, answered by a forward cursor.

Inside ``for (w in g.neighbors(v))`` (or ``g.nodes_to(v)``) the loop variable ``w`` takes
the ids of one sorted CSR row in ascending order (repeated ids consecutively), also when a
filter restricted the loop to a sub-range of the row (``sorted_ranges``). A query
``g.is_an_edge(u, w)`` or ``g.get_edge(u, w)`` with the same ``u`` at every iteration then
looks for ever larger ids in u's sorted out-row, so instead of an independent binary search
per iteration the loop keeps a cursor into u's row, declared just before the loop (so it
restarts with each new ``u`` of an enclosing loop): ``starc_gallop`` moves it forward to the
first id ``>= w`` (galloping, then a binary search in the last step) and reports the edge.

The cursor never passes the first position holding ``w`` (the lowest edge id, what
``get_edge`` returns): every position before it holds an id smaller than some earlier ``w``,
hence smaller than this one. So each query gets the answer of an independent search, also
for repeated ``w`` (the cursor stays put) and when a branch skips some queries (the cursor
only lags behind). ``u`` must be loop-invariant (``sorted_ranges.loop_invariant``) and,
since ``offsets[u]`` is read before the loop whether or not a query runs, certainly a vertex
id: a node variable of an enclosing vertex loop (the kernel's own index included). Other
rows (a local, an argument, arithmetic that might be out of range) keep the binary search.

A loop that does nothing but ``if (g.is_an_edge(u, w)) ...`` (``RowScan.exhausted``) is an
intersection of two sorted runs and is printed as a merge: each iteration advances the
cursor first (``starc_advance``), one id at a time when u's rest of row is at most 16 times
the loop's run (each step a compare the branch predictor learns, where a gallop's probes
mispredict: R-MAT 18 tc a third less time), else galloping; the test then compares one id.
"""

from __future__ import annotations

from typing import Callable, Dict, Optional, Tuple

from starc.analysis.sorted_ranges import (is_loop_variable, loop_invariant,
                                                 written_symbols)
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["EDGE_QUERIES", "cursor_rows", "query_row"]

#: the queries a cursor answers: the first edge u -> w (its CSR position) or whether there is one
EDGE_QUERIES = ("is_an_edge", "get_edge")


def query_row(e: ir.Expr, var: ir.Symbol) -> Optional[ir.Symbol]:
    """``u`` when ``e`` is an edge query ``(u, var)`` whose row is a plain vertex variable."""
    if not isinstance(e, ir.GraphQuery) or e.op not in EDGE_QUERIES or len(e.args) != 2:
        return None
    row, target = e.args
    if not is_loop_variable(target, var) or not isinstance(row, ir.VarRef):
        return None
    sym = row.sym
    if sym.kind is not ir.SymbolKind.LOOP or sym.type is not Scalar.NODE:
        return None
    return sym


def cursor_rows(loop: ir.Loop, private: Callable[[ir.Symbol], bool]
                ) -> Dict[ir.Symbol, ir.GraphQuery]:
    """The rows ``u`` whose edge queries ``(u, loop.var)`` in ``loop``'s filter or body can
    share one cursor, each with its first query, in order of first use. ``private(sym)``:
    ``sym`` is a per-work-item value, as in ``sorted_ranges.split_range_filter``."""
    domain = loop.domain
    if not isinstance(domain, (ir.Neighbors, ir.InNeighbors)):
        return {}
    if isinstance(domain, ir.Neighbors) and domain.role != "out":
        return {}
    if isinstance(domain, ir.InNeighbors) and domain.descending:
        return {}       # a cursor moves forward only
    written = written_symbols(loop)
    if isinstance(domain.of, ir.VarRef) and domain.of.sym.uid in written:
        return {}       # the loop's own row moves: its ids need not ascend
    parts: Tuple[ir.Node, ...] = (loop.body,) if loop.filter is None else (loop.filter,
                                                                           loop.body)
    rows: Dict[ir.Symbol, ir.GraphQuery] = {}
    for part in parts:
        for node in ir.walk(part):
            row = query_row(node, loop.var)
            if row is not None and row not in rows and \
                    loop_invariant(ir.VarRef(row, type=row.type), written, private):
                rows[row] = node
    return rows
