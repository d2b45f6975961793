"""The types of the typed IR: scalars, the graph, properties and sets."""

from __future__ import annotations

import enum
from typing import Union

from starc.records import Record, record

__all__ = ["Scalar", "GraphType", "PropType", "SetType", "UpdatesType", "UpdateType",
           "VoidType", "Type", "GRAPH", "VOID", "UPDATE", "is_integer", "is_floating",
           "is_numeric", "common_type", "c_name"]


class Scalar(enum.Enum):
    """Scalar element types; ``NODE`` and ``EDGE`` are 32-bit integer ids in generated code."""

    BOOL = "bool"
    INT = "int"
    LONG = "long"
    FLOAT = "float"
    DOUBLE = "double"
    NODE = "node"
    EDGE = "edge"

    def __str__(self) -> str:
        return self.value


@record
class GraphType(Record):
    def __str__(self) -> str:
        return "Graph"


@record
class PropType(Record):
    """``propNode<T>`` (kind ``node``) or ``propEdge<T>`` (kind ``edge``)."""

    kind: str
    elem: Scalar

    def __str__(self) -> str:
        return f"prop{self.kind.capitalize()}<{self.elem}>"


@record
class SetType(Record):
    """``SetN<g>`` (kind ``node``) or ``SetE<g>`` (kind ``edge``)."""

    kind: str
    graph: str

    def __str__(self) -> str:
        return f"Set{'N' if self.kind == 'node' else 'E'}<{self.graph}>"


@record
class UpdatesType(Record):
    """``updates<g>``: a sequence of edge updates of graph ``g`` (an update stream, a batch,
    or a batch's additions / deletions)."""

    graph: str

    def __str__(self) -> str:
        return f"updates<{self.graph}>"


@record
class UpdateType(Record):
    """One edge update: the variable of a loop over an ``updates<g>`` value."""

    def __str__(self) -> str:
        return "update"


@record
class VoidType(Record):
    def __str__(self) -> str:
        return "void"


GRAPH = GraphType()
VOID = VoidType()
UPDATE = UpdateType()
Type = Union[Scalar, GraphType, PropType, SetType, UpdatesType, UpdateType, VoidType]

_RANK = {Scalar.BOOL: 0, Scalar.INT: 1, Scalar.NODE: 1, Scalar.EDGE: 1,
         Scalar.LONG: 2, Scalar.FLOAT: 3, Scalar.DOUBLE: 4}


def is_integer(t: Type) -> bool:
    return t in (Scalar.INT, Scalar.LONG, Scalar.NODE, Scalar.EDGE, Scalar.BOOL)


def is_floating(t: Type) -> bool:
    return t in (Scalar.FLOAT, Scalar.DOUBLE)


def is_numeric(t: Type) -> bool:
    return isinstance(t, Scalar)


def common_type(a: Scalar, b: Scalar) -> Scalar:
    """C's usual arithmetic conversions on our scalars (bool, node, edge promote to int)."""
    best = a if _RANK[a] >= _RANK[b] else b
    if best in (Scalar.BOOL, Scalar.NODE, Scalar.EDGE):
        return Scalar.INT
    return best


def c_name(t: Scalar) -> str:
    """The C/C++ spelling of a scalar in host code (kernels may map bool differently)."""
    return {Scalar.BOOL: "bool", Scalar.INT: "int", Scalar.LONG: "long long",
            Scalar.FLOAT: "float", Scalar.DOUBLE: "double", Scalar.NODE: "int",
            Scalar.EDGE: "int"}[t]
