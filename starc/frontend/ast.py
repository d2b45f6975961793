"""The syntax tree: the program as written, every node with its source location.

The parser builds these nodes and nothing else; semantic analysis (``starc.ir.sema``) turns
them into the typed IR. Names are plain strings here: nothing is resolved yet.
"""

from __future__ import annotations

import dataclasses
from dataclasses import field
from typing import Iterator, Optional, Tuple, Union

from starc.diagnostics import NO_LOC, SourceLoc
from starc.records import Record, record
from starc.tree import child_nodes

__all__ = [
    "Node", "Program", "Function", "Param", "TypeExpr",
    "Stmt", "Block", "VarDecl", "Declarator", "Assign", "CompoundAssign", "IncDec",
    "MinMaxAssign", "Attach", "If", "While", "DoWhile", "Loop", "IterSource", "FixedPoint",
    "IterateInBFS", "IterateInReverse", "Return", "Break", "Continue", "ExprStmt",
    "Batch", "OnUpdate",
    "Expr", "Name", "IntLit", "FloatLit", "BoolLit", "InfLit", "Unary", "Binary",
    "Member", "Call", "MethodCall", "Index", "children", "dump",
]


@record
class Node(Record):
    """Base of every syntax node; ``loc`` does not take part in equality."""

    loc: SourceLoc = field(default=NO_LOC, compare=False, repr=False, kw_only=True)


# --- types and functions ---------------------------------------------------------------

@record
class TypeExpr(Node):
    """A type as written: ``int``, ``propNode<int>``, ``SetN<g>`` (args hold ``TypeExpr``s
    for property element types and plain strings for graph names)."""

    name: str
    args: Tuple[Union["TypeExpr", str], ...] = ()


@record
class Param(Node):
    type: TypeExpr
    name: str


@record
class Function(Node):
    name: str
    params: Tuple[Param, ...]
    body: "Block"
    #: "function", "Static", "Dynamic", or "Incremental" / "Decremental" (then ``name`` is
    #: the keyword too: those functions are unnamed and called by it)
    keyword: str = "function"


@record
class Program(Node):
    functions: Tuple[Function, ...]
    filename: str = "<input>"


# --- statements --------------------------------------------------------------------------

class Stmt(Node):
    """Marker base for statements."""


class Expr(Node):
    """Marker base for expressions."""


@record
class Block(Stmt):
    stmts: Tuple[Stmt, ...]


@record
class Declarator(Node):
    name: str
    init: Optional[Expr] = None


@record
class VarDecl(Stmt):
    """``int a = 0, b;`` or ``propNode<bool> modified;``"""

    type: TypeExpr
    declarators: Tuple[Declarator, ...]


@record
class Assign(Stmt):
    """``target = value;`` where target is a name, ``v.p`` or a whole property name.
    ``x = Min(x, e)`` is parsed as an ``Assign`` whose value is a ``Call``; sema decides."""

    target: Expr
    value: Expr


@record
class CompoundAssign(Stmt):
    """``target op= value;`` with op one of ``+ - * / & |``."""

    target: Expr
    op: str
    value: Expr


@record
class IncDec(Stmt):
    """``target++;`` / ``target--;`` (op is ``++`` or ``--``)."""

    target: Expr
    op: str


@record
class MinMaxAssign(Stmt):
    """``<t1, t2, ...> = <Min(a, b), e2, ...>;`` — ``func`` is ``Min`` or ``Max``; ``args`` are
    the call's arguments as written; ``rest`` the expressions after the call."""

    targets: Tuple[Expr, ...]
    func: str
    args: Tuple[Expr, ...]
    rest: Tuple[Expr, ...]


@record
class Attach(Stmt):
    """``g.attachNodeProperty(p = e, ...)`` (kind ``node``) or ``attachEdgeProperty`` (``edge``)."""

    graph: Expr
    kind: str
    pairs: Tuple[Tuple[str, Expr], ...]


@record
class If(Stmt):
    cond: Expr
    then: Stmt
    orelse: Optional[Stmt] = None


@record
class While(Stmt):
    cond: Expr
    body: Stmt


@record
class DoWhile(Stmt):
    body: Stmt
    cond: Expr


@record
class IterSource(Node):
    """What a loop iterates: ``g.nodes()``, ``g.edges()``, ``g.neighbors(v)``,
    ``g.nodes_to(v)`` (method name kept as written, incl. the ``neighbours`` alias), or a set
    name (``method`` is ``None``, ``obj`` the set expression). ``filter`` is the condition of
    a trailing ``.filter(cond)``."""

    obj: Expr
    method: Optional[str]
    args: Tuple[Expr, ...] = ()
    filter: Optional[Expr] = None


@record
class Loop(Stmt):
    """``forall (v in SRC) body`` (``parallel=True``) or ``for (v in SRC) body``."""

    var: str
    source: IterSource
    body: Stmt
    parallel: bool


@record
class FixedPoint(Stmt):
    """``fixedPoint until (var : cond) body``"""

    var: str
    cond: Expr
    body: Stmt


@record
class IterateInReverse(Stmt):
    """``iterateInReverse (cond) body``; the parser attaches it to the ``IterateInBFS`` it
    follows. Standing alone (not right after an iterateInBFS) it is kept as a statement so
    that sema can report it at its location."""

    cond: Optional[Expr]
    body: Stmt


@record
class IterateInBFS(Stmt):
    """``iterateInBFS (v in g.nodes() from root) [.filter(c)] body [iterateInReverse(c) body]``"""

    var: str
    graph: Expr
    root: Expr
    filter: Optional[Expr]
    body: Stmt
    reverse: Optional[IterateInReverse] = None


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
    """An expression used as a statement (a function call)."""

    expr: Expr


@record
class Batch(Stmt):
    """``Batch (stream : size) body``: the body once per batch of ``size`` updates."""

    stream: "Name"
    size: Expr
    body: Stmt


@record
class OnUpdate(Stmt):
    """``OnAdd (var in source) : body`` (kind ``add``) or ``OnDelete`` (kind ``delete``): a
    forall over the additions / deletions of the updates ``source``."""

    kind: str
    var: str
    source: Expr
    body: Stmt


# --- expressions -------------------------------------------------------------------------

@record
class Name(Expr):
    id: str


@record
class IntLit(Expr):
    value: int


@record
class FloatLit(Expr):
    value: float
    text: str = ""


@record
class BoolLit(Expr):
    value: bool
    spelling: str = ""   # "True"/"False", or the alias "true"/"false" as written


@record
class InfLit(Expr):
    spelling: str = "INF"   # or the alias "INT_MAX"


@record
class Unary(Expr):
    op: str       # "-" or "!"
    operand: Expr


@record
class Binary(Expr):
    op: str       # || && == != < <= > >= + - * / %
    left: Expr
    right: Expr


@record
class Member(Expr):
    """``obj.name`` without a call: ``v.dist``, ``e.weight``, ``e.source``."""

    obj: Expr
    name: str


@record
class Call(Expr):
    """A free function call: ``Min(a, b)``, ``minWt(w)``, ``Compute_BC(g, ...)``."""

    func: str
    args: Tuple[Expr, ...]


@record
class MethodCall(Expr):
    """``obj.method(args)``: ``g.num_nodes()``, ``g.get_edge(u, v)``, ``g.neighbors(v)``."""

    obj: Expr
    method: str
    args: Tuple[Expr, ...]


@record
class Index(Expr):
    obj: Expr
    index: Expr


# --- generic helpers ---------------------------------------------------------------------

def children(node: Node) -> Iterator[Node]:
    """The direct child nodes of ``node`` in field order (tuples flattened)."""
    return child_nodes(node, Node, ("loc",))


def dump(node: Node, indent: int = 0) -> str:
    """A readable, indented tree dump (``starc --emit ast``)."""
    pad = "  " * indent
    scalars = []
    kids = []
    for f in dataclasses.fields(node):
        if f.name == "loc":
            continue
        value = getattr(node, f.name)
        if isinstance(value, Node) or (isinstance(value, tuple) and any(
                isinstance(v, (Node, tuple)) for v in value)):
            kids.append((f.name, value))
        elif value is not None and value != ():
            scalars.append(f"{f.name}={value!r}")
    where = f" @{node.loc.line}:{node.loc.col}" if node.loc.line else ""
    lines = [f"{pad}{type(node).__name__}({', '.join(scalars)}){where}"]
    for name, value in kids:
        lines.append(f"{pad}  .{name}:")
        lines.extend(_dump_value(value, indent + 2))
    return "\n".join(lines)


def _dump_value(value, indent: int):
    if isinstance(value, Node):
        return [dump(value, indent)]
    out = []
    for item in value:
        if isinstance(item, tuple):
            out.append("  " * indent + "(")
            out.extend(_dump_value(item, indent + 1))
            out.append("  " * indent + ")")
        elif isinstance(item, Node):
            out.append(dump(item, indent))
        else:
            out.append("  " * indent + repr(item))
    return out
