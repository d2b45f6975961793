"""Run-time checks in kernels: where a device must test what the reference executor tests.

The reference stops with a located ``ExecutionError`` on integer division or modulo by zero,
an out-of-range vertex, edge or property index (``get_edge`` of a missing edge gives -1, so
reading its weight is an index error). Device code has no exceptions, so ``insert_checks``
wraps each operation the analysis cannot prove safe in a lowered expression below; the
backend prints it as a call of a prelude helper that, on failure, records the check *site*
in the program's error word and returns a safe value (index 0, quotient 0) so the kernel
finishes without faulting. The host reads the error word at the synchronisation points it
already has and reports ``CheckSite.message`` exactly as the reference would, then exits
non-zero without printing results.

The error word is two one-value device arrays (``Plan.error``): ``site`` (int, 0 = no error,
else site number + 1; set by compare-exchange from 0, so the first failure wins) and
``value`` (long: the offending index, written only by the winner).

Proven safe, so unchecked: a property indexed by a loop variable (the kernel's own vertex or
edge, a neighbour, a neighbour loop's edge: ids the graph produced), a divisor that is a
non-zero constant other than -1 (``x / -1`` still goes through the helper, which wraps
``INT_MIN / -1`` to ``INT_MIN`` as the reference does instead of trapping).
"""

from __future__ import annotations

import dataclasses
from typing import FrozenSet, List, Optional, Tuple

from starc.diagnostics import NO_LOC, SourceLoc
from starc.ir import nodes as ir
from starc.ir.types import PropType, Scalar
from starc.records import Record, record

__all__ = ["trusted_locals", "CheckSite", "CheckedIndex", "CheckedDivide", "ErrorWord", "insert_checks",
           "is_safe_index", "is_safe_divisor"]

_INTEGRAL = (Scalar.INT, Scalar.LONG, Scalar.NODE, Scalar.EDGE)


@record
class CheckSite(Record):
    """One checked operation: ``kind`` is ``index`` (of property ``name``), ``vertex``,
    ``edge``, ``division`` or ``modulo``; ``extent`` (``nodes``/``edges``) gives the limit."""

    kind: str
    loc: SourceLoc = NO_LOC
    name: str = ""
    extent: str = "nodes"

    def message(self, value: int, num_nodes: int, num_edges: int) -> str:
        """The reference executor's text for this failure (``starc.reference``)."""
        if self.kind == "division":
            return "integer division by zero"
        if self.kind == "modulo":
            return "integer modulo by zero"
        limit = num_edges if self.extent == "edges" else num_nodes
        if self.kind == "index":
            return f"index {value} of {self.name!r} out of range 0..{limit - 1}"
        return f"{self.kind} {value} out of range 0..{limit - 1}"


@record
class CheckedIndex(ir.Expr):
    """``index`` if ``0 <= index < limit(extent)``, else raise ``site`` and yield 0."""

    index: ir.Expr
    extent: str
    site: int


@record
class CheckedDivide(ir.Expr):
    """Integer ``left / right`` or ``left % right`` (``op``): raise ``site`` and yield 0 when
    ``right`` is 0; ``INT_MIN / -1`` wraps (``% -1`` is 0)."""

    op: str
    left: ir.Expr
    right: ir.Expr
    site: int


@record
class ErrorWord(Record):
    """The program's device error word: its two arrays and every site, numbered from 0."""

    site: object          # plan.DeviceArray (int, "one")
    value: object         # plan.DeviceArray (long, "one")
    sites: Tuple[CheckSite, ...]


def is_safe_index(expr: ir.Expr, trusted: FrozenSet[int] = frozenset()) -> bool:
    """A vertex or edge id the graph itself produced: a loop or edge variable, a local that
    only ever holds one (``trusted``), or an endpoint of such an edge."""
    if isinstance(expr, ir.VarRef):
        return expr.sym.kind in (ir.SymbolKind.LOOP, ir.SymbolKind.EDGE) \
            or expr.sym.uid in trusted
    if isinstance(expr, ir.EdgeEndpoint):
        return is_safe_index(expr.edge, trusted)
    return False


def is_safe_divisor(expr: ir.Expr) -> bool:
    """A constant divisor other than 0 and -1: the division neither fails nor overflows."""
    constant = expr.expr if isinstance(expr, ir.Cast) else expr
    return isinstance(constant, ir.Const) and int(constant.value) not in (0, -1)


def trusted_locals(node: ir.Node) -> FrozenSet[int]:
    """Locals declared from a safe id and never assigned again (``edge e = g.get_edge(v,
    nbr)`` inside ``for (nbr in g.neighbors(v))`` is the loop's edge: sema resolved it)."""
    assigned = set()
    for n in ir.walk(node):
        if isinstance(n, (ir.Assign, ir.Reduce, ir.MinMaxAssign)):
            targets = [n.target] + [t for t, _ in getattr(n, "others", ())]
            assigned.update(t.sym.uid for t in targets if isinstance(t, ir.VarRef))
    trusted: set = set()
    changed = True
    while changed:        # a chain of copies: node a = nbr; node b = a;
        changed = False
        for n in ir.walk(node):
            if isinstance(n, ir.Declare) and n.init is not None \
                    and n.sym.uid not in assigned and n.sym.uid not in trusted \
                    and is_safe_index(n.init, frozenset(trusted)):
                trusted.add(n.sym.uid)
                changed = True
    return frozenset(trusted)


def _prop_extent(prop: ir.Symbol) -> str:
    return "edges" if isinstance(prop.type, PropType) and prop.type.kind == "edge" else "nodes"


def insert_checks(node: ir.Node, sites: List[CheckSite], names=None) -> ir.Node:
    """``node`` (a lowered kernel body or guard) with every unproven operation checked; new
    sites are appended to ``sites`` (their index is the site number). ``names`` maps a
    property symbol uid to the DSL name to report (e.g. a fixedPoint next buffer's
    property), defaulting to the symbol's own name."""
    names = names or {}
    trusted = trusted_locals(node)

    def safe(expr: ir.Expr) -> bool:
        return is_safe_index(expr, trusted)

    def site(kind: str, loc, name: str = "", extent: str = "nodes") -> int:
        sites.append(CheckSite(kind, loc, name, extent))
        return len(sites) - 1

    def vertex(expr: ir.Expr, loc) -> ir.Expr:
        if safe(expr):
            return expr
        return CheckedIndex(expr, "nodes", site("vertex", loc), type=expr.type, loc=expr.loc)

    def fix(n: ir.Node) -> Optional[ir.Node]:
        if isinstance(n, ir.PropRead) and not safe(n.index) \
                and not isinstance(n.index, CheckedIndex):
            extent = _prop_extent(n.prop)
            name = names.get(n.prop.uid, n.prop.name)
            checked = CheckedIndex(n.index, extent, site("index", n.loc, name, extent),
                                   type=n.index.type, loc=n.index.loc)
            return ir.PropRead(n.prop, checked, type=n.type, loc=n.loc)
        if isinstance(n, ir.EdgeEndpoint) and not safe(n.edge):
            checked = CheckedIndex(n.edge, "edges", site("edge", n.loc, extent="edges"),
                                   type=n.edge.type, loc=n.edge.loc)
            return ir.EdgeEndpoint(checked, n.end, type=n.type, loc=n.loc)
        if isinstance(n, ir.GraphQuery) and n.args:
            return ir.GraphQuery(n.op, n.graph, tuple(vertex(a, n.loc) for a in n.args),
                                 type=n.type, loc=n.loc)
        if isinstance(n, (ir.Neighbors, ir.InNeighbors)) and not safe(n.of):
            return dataclasses.replace(n, of=vertex(n.of, n.loc))
        if isinstance(n, ir.Binary) and n.op in ("/", "%") and n.type in _INTEGRAL:
            if is_safe_divisor(n.right):
                return None
            kind = "division" if n.op == "/" else "modulo"
            return CheckedDivide(n.op, n.left, n.right, site(kind, n.loc),
                                 type=n.type, loc=n.loc)
        return None

    return ir.transform(node, fix)
