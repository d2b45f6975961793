"""Typed IR: frozen dataclass nodes named after the language, with resolved symbols and types.

Contract (produced by ``starc.ir.sema``, consumed by the reference executor, the analyses and
the backends):
- every name is a ``Symbol`` (identity = ``uid``; shadowed names get distinct symbols);
- every expression carries its ``type``; conversions are explicit ``Cast`` nodes, so the two
  operands of an arithmetic ``Binary`` have the node's type, the operands of a comparison
  share one type, ``&&``/``||``/``!`` work on ``bool``, and an assigned value already has the
  target's type;
- syntax sugar is gone: ``x++`` is ``Reduce('+', x, 1)``, ``x /= e`` is ``Assign(x, x / e)``,
  ``x = Min(x, e)`` is a ``MinMaxAssign``, a filter's bare property ``p`` is ``PropRead(p, v)``,
  ``g.get_edge(v, w)`` inside ``for (w in g.neighbors(v))`` is that loop's edge variable;
- ``loc`` never takes part in equality.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import field
from typing import Callable, Iterator, List, Optional, Tuple, Union

from starc.diagnostics import NO_LOC, SourceLoc
from starc.ir.types import Scalar, Type
from starc.records import Record, record
from starc.tree import child_nodes

__all__ = [
    "SymbolKind", "Symbol", "Node", "Expr", "Stmt",
    "Const", "Inf", "VarRef", "PropRead", "EdgeEndpoint", "Unary", "Binary", "Cast", "MinMax",
    "GraphQuery", "WeightBound", "Random", "CallExpr", "CurrentBatch", "UpdateField", "LValue",
    "Block", "Declare", "Assign", "PropCopy", "Reduce", "MinMaxAssign", "Attach", "If", "While",
    "DoWhile", "Loop", "Domain", "AllNodes", "AllEdges", "Neighbors", "InNeighbors",
    "SetMembers", "UpdateMembers", "FixedPoint", "IterateBFS", "ReverseSweep", "Return",
    "Break", "Continue", "ExprStmt", "Batch", "UpdateGraph", "PropagateFlags", "Function",
    "Program", "REDUCE_OPS", "DYNAMIC_KINDS",
    "children", "walk", "reads_prop", "called_names", "transform",
]


class SymbolKind(enum.Enum):
    PARAM = "param"       # a function parameter
    LOCAL = "local"       # a declared local (scalar or property)
    LOOP = "loop"         # a loop / BFS variable
    EDGE = "edge"         # the implicit edge variable of a neighbour loop


@record
class Symbol(Record):
    """A resolved name. Two symbols are the same iff their ``uid`` is."""

    name: str
    type: Type = field(compare=False)
    kind: SymbolKind = field(compare=False)
    uid: int
    loc: SourceLoc = field(default=NO_LOC, compare=False, repr=False)

    def __str__(self) -> str:
        return self.name


@record
class Node(Record):
    loc: SourceLoc = field(default=NO_LOC, compare=False, repr=False, kw_only=True)


# --- expressions ---------------------------------------------------------------------------

@record
class Expr(Node):
    type: Type = field(kw_only=True)


@record
class Const(Expr):
    """An int, float or bool literal; ``value`` is a Python int/float/bool."""

    value: Union[int, float, bool]


@record
class Inf(Expr):
    """``INF`` (largest value of ``type``) or ``-INF`` (``negative``: its lowest value)."""

    negative: bool = False


@record
class VarRef(Expr):
    sym: Symbol


@record
class PropRead(Expr):
    """``index.prop``: element ``index`` (a node or edge expression) of property ``prop``."""

    prop: Symbol
    index: Expr


@record
class EdgeEndpoint(Expr):
    """``e.source`` / ``e.destination`` (``end``)."""

    edge: Expr
    end: str


@record
class Unary(Expr):
    op: str          # "-" or "!"
    operand: Expr


@record
class Binary(Expr):
    op: str          # || && == != < <= > >= + - * / %
    left: Expr
    right: Expr


@record
class Cast(Expr):
    """Conversion of ``expr`` to ``type`` (C semantics)."""

    expr: Expr


@record
class MinMax(Expr):
    """``Min(a, b)`` / ``Max(a, b)`` used as a plain expression."""

    func: str        # "Min" or "Max"
    left: Expr
    right: Expr


@record
class GraphQuery(Expr):
    """A graph built-in: ``num_nodes``, ``num_edges``, ``count_outNbrs(v)``,
    ``count_inNbrs(v)``, ``is_an_edge(u, w)``, ``get_edge(u, w)`` (a search)."""

    op: str
    graph: Symbol
    args: Tuple[Expr, ...] = ()


@record
class WeightBound(Expr):
    """``minWt(w)`` / ``maxWt(w)``: the smallest / largest value of edge property ``prop``."""

    func: str        # "minWt" or "maxWt"
    prop: Symbol


@record
class Random(Expr):
    """``starc_random(seed, draw, position, vertex)``: the pseudo-random ``int`` in [0, 2^31)
    that ``g.randSP`` stores (LANGUAGE.md §5; sema lowers ``g.randSP(p1, ...)`` to a forall of
    these): a hash of the run's seed (``long``), the number of randSP statements executed
    before (``long``), the property's argument position (``int``) and the vertex (``node``)."""

    seed: Expr
    draw: Expr
    position: Expr
    vertex: Expr


@record
class CallExpr(Expr):
    """A call of another function of the program."""

    function: str
    args: Tuple[Expr, ...]


@record
class CurrentBatch(Expr):
    """``stream.currentBatch(part)`` inside ``Batch (stream : n)``: the updates of the
    current batch (``part`` None), its deletions (0) or its additions (1), in stream order."""

    stream: Symbol
    part: Optional[int] = None


@record
class UpdateField(Expr):
    """``u.source``, ``u.destination`` (nodes) or ``u.weight`` (the weight an addition gives
    its edge; zero for a deletion) of an update ``u``."""

    update: Expr
    field: str


LValue = Union[VarRef, PropRead]


# --- statements ----------------------------------------------------------------------------

@record
class Stmt(Node):
    pass


@record
class Block(Stmt):
    stmts: Tuple[Stmt, ...]


@record
class Declare(Stmt):
    """A local declaration; for a property it allocates it (uninitialised unless attached)."""

    sym: Symbol
    init: Optional[Expr] = None


@record
class Assign(Stmt):
    target: LValue
    value: Expr


@record
class PropCopy(Stmt):
    """``dst = src;`` for two properties: every element copied."""

    dst: Symbol
    src: Symbol


REDUCE_OPS = ("+", "-", "*", "&", "|")


@record
class Reduce(Stmt):
    """``target op= value`` for op in ``REDUCE_OPS`` (``x++`` is ``+= 1``, ``x--`` is ``-= 1``).
    Inside a forall on shared data this is a reduction/atomic; elsewhere a plain update.
    ``spelling`` is how the source wrote it (``x++``), for messages only: it takes no part
    in comparisons, so ``x++`` and ``x += 1`` stay the same IR."""

    op: str
    target: LValue
    value: Expr
    spelling: str = field(default="", compare=False, repr=False, kw_only=True)

    @property
    def written(self) -> str:
        """The operator as the source wrote it: ``'++'`` or ``'+='``."""
        return self.spelling or f"{self.op}="


@record
class MinMaxAssign(Stmt):
    """``<target, o1, ...> = <Min(target, candidate), e1, ...>``: if ``candidate`` is smaller
    (Min) / larger (Max) than ``target``, store it and perform the ``others`` assignments."""

    func: str                                   # "Min" or "Max"
    target: LValue
    candidate: Expr
    others: Tuple[Tuple[LValue, Expr], ...] = ()


@record
class Attach(Stmt):
    """``g.attachNodeProperty(p = e, ...)`` / ``attachEdgeProperty``: fill each property."""

    graph: Symbol
    inits: Tuple[Tuple[Symbol, Expr], ...]


@record
class If(Stmt):
    cond: Expr
    then: Block
    orelse: Optional[Block] = None


@record
class While(Stmt):
    cond: Expr
    body: Block


@record
class DoWhile(Stmt):
    body: Block
    cond: Expr


@record
class Domain(Node):
    """What a loop iterates."""


@record
class AllNodes(Domain):
    graph: Symbol


@record
class AllEdges(Domain):
    graph: Symbol


@record
class Neighbors(Domain):
    """Out-neighbours ``w`` of ``of`` (edge ``of -> w`` in ``edge``). Inside an iterateInBFS
    body a loop over the BFS variable's neighbours has ``role="bfs_parents"`` (reached
    in-neighbours one level up, none for the source; ``edge`` is the forward edge w -> of);
    inside the reverse sweep ``role="bfs_children"`` (out-neighbours one level down); else
    ``role="out"``."""

    graph: Symbol
    of: Expr
    edge: Symbol
    role: str = "out"


@record
class InNeighbors(Domain):
    """``g.nodes_to(of)``: in-neighbours ``u``; ``edge`` is the forward edge u -> of.
    ``descending``: from the row's last in-neighbour to its first (only a lowering makes
    such a loop: ``analysis/bfs.py``'s last-parent search)."""

    graph: Symbol
    of: Expr
    edge: Symbol
    descending: bool = False


@record
class SetMembers(Domain):
    """The members of a ``SetN`` parameter, in the order given."""

    set: Symbol


@record
class UpdateMembers(Domain):
    """The updates of ``updates`` (an ``updates<g>`` expression) in order; ``only`` keeps the
    additions (``"add"``: OnAdd) or the deletions (``"delete"``: OnDelete)."""

    updates: Expr
    only: Optional[str] = None


@record
class Loop(Stmt):
    """``forall`` (``parallel``) or ``for`` over ``domain``, skipping iterations where
    ``filter`` (already rewritten to use ``var``) is false."""

    var: Symbol
    domain: Domain
    body: Block
    parallel: bool
    filter: Optional[Expr] = None


@record
class FixedPoint(Stmt):
    """``fixedPoint until (flag : cond)``. With ``cond`` = ``!p`` for a ``propNode<bool>``
    ``p``, ``prop`` is ``p`` (double-buffered flags, LANGUAGE.md §6); else ``prop`` is None and
    the loop runs until ``cond`` holds after an iteration."""

    flag: Symbol
    cond: Expr
    body: Block
    prop: Optional[Symbol] = None


@record
class ReverseSweep(Node):
    """``iterateInReverse (cond)``: ``cond`` may be None (every reached vertex)."""

    cond: Optional[Expr]
    body: Block


@record
class IterateBFS(Stmt):
    var: Symbol
    graph: Symbol
    root: Expr
    body: Block
    filter: Optional[Expr] = None
    reverse: Optional[ReverseSweep] = None


@record
class Return(Stmt):
    value: Optional[Expr] = None


@record
class Break(Stmt):
    pass


@record
class Continue(Stmt):
    pass


@record
class ExprStmt(Stmt):
    expr: Expr


@record
class Batch(Stmt):
    """``Batch (stream : size) body``: the body once per batch, the stream's updates taken
    ``size`` at a time in order (the last batch may be shorter)."""

    stream: Symbol
    size: Expr
    body: Block


@record
class UpdateGraph(Stmt):
    """``g.updateCSRDel(stream)`` (``kind`` "delete") / ``g.updateCSRAdd(stream)`` ("add"):
    apply the current batch's deletions / additions to ``graph``."""

    graph: Symbol
    stream: Symbol
    kind: str


@record
class PropagateFlags(Stmt):
    """``g.propagateNodeFlags(p)``: every vertex reachable along out-edges from a vertex
    whose ``p`` is True gets ``p`` True."""

    graph: Symbol
    prop: Symbol


#: The function kinds of the dynamic-graph extension (``Function.kind``).
DYNAMIC_KINDS = ("Dynamic", "Incremental", "Decremental")


@record
class Function(Node):
    name: str
    params: Tuple[Symbol, ...]
    body: Block
    return_type: Optional[Scalar] = None
    #: (parameter name, value) of the optional parameters: the implicit ``seed`` of randSP
    defaults: Tuple[Tuple[str, Union[int, float, bool]], ...] = ()
    #: "function" (also for ``Static``), "Dynamic", "Incremental" or "Decremental"
    kind: str = "function"


@record
class Program(Node):
    functions: Tuple[Function, ...]
    filename: str = "<input>"

    def function(self, name: str) -> Function:
        for fn in self.functions:
            if fn.name == name:
                return fn
        raise KeyError(name)


# --- generic traversal -----------------------------------------------------------------------

def children(node: Node) -> Iterator[Node]:
    """Direct child nodes in field order (tuples, including pairs, flattened)."""
    return child_nodes(node, Node, ("loc", "type"))


def walk(node: Node) -> Iterator[Node]:
    """Pre-order traversal of ``node`` and everything below it."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(list(children(current))))


def reads_prop(node: Node, prop: "Symbol") -> bool:
    """Whether ``node`` or anything below it reads an element of property ``prop``."""
    return any(isinstance(n, PropRead) and n.prop.uid == prop.uid for n in walk(node))


def called_names(fn: "Function") -> List[str]:
    """The names of the functions ``fn``'s body calls, each once, in source order."""
    return list(dict.fromkeys(node.function for node in walk(fn.body)
                              if isinstance(node, CallExpr)))


def transform(node: Node, fn: Callable[[Node], Optional[Node]]) -> Node:
    """Bottom-up rebuild: children first, then ``fn(rebuilt)``; ``fn`` returns a replacement
    or None to keep the node. The input is never mutated."""
    changes = {}
    for f in dataclasses.fields(node):
        if f.name in ("loc", "type"):
            continue
        value = getattr(node, f.name)
        new = _transform_value(value, fn)
        if new is not value:
            changes[f.name] = new
    rebuilt = dataclasses.replace(node, **changes) if changes else node
    replacement = fn(rebuilt)
    return rebuilt if replacement is None else replacement


def _transform_value(value, fn):
    if isinstance(value, Node):
        return transform(value, fn)
    if isinstance(value, tuple):
        items = tuple(_transform_value(v, fn) for v in value)
        if all(a is b for a, b in zip(items, value)):
            return value
        return items
    return value
