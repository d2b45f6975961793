"""Fresh symbols and unique readable names for what the analyses invent (buffers, kernels)."""

from __future__ import annotations

import dataclasses
from typing import Iterable, Iterator, Set

from starc.diagnostics import NO_LOC, SourceLoc
from starc.ir import nodes as ir
from starc.ir.types import Type

__all__ = ["symbols_in", "SymbolFactory", "NameAllocator"]


def symbols_in(node) -> Iterator[ir.Symbol]:
    """Every ``Symbol`` referenced anywhere below ``node`` (fields of nodes, domains, pairs)."""
    stack = [node]
    while stack:
        value = stack.pop()
        if isinstance(value, ir.Symbol):
            yield value
        elif isinstance(value, tuple):
            stack.extend(value)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            for f in dataclasses.fields(value):
                if f.name not in ("loc", "type"):
                    stack.append(getattr(value, f.name))


class SymbolFactory:
    """Makes symbols whose uids never clash with those below ``root``: the program (sema's
    start at 0), or a plan, whose passes made more."""

    def __init__(self, root) -> None:
        self._next = max((s.uid for s in symbols_in(root)), default=0) + 1

    def make(self, name: str, type_: Type, kind: ir.SymbolKind = ir.SymbolKind.LOCAL,
             loc: SourceLoc = NO_LOC) -> ir.Symbol:
        sym = ir.Symbol(name, type_, kind, self._next, loc)
        self._next += 1
        return sym


class NameAllocator:
    """Hands out names unique within one namespace: ``name``, then ``name_2``, ``name_3``..."""

    def __init__(self, reserved: Iterable[str] = ()) -> None:
        self._taken: Set[str] = set(reserved)

    def reserve(self, name: str) -> None:
        self._taken.add(name)

    def unique(self, name: str) -> str:
        candidate, n = name, 2
        while candidate in self._taken:
            candidate = f"{name}_{n}"
            n += 1
        self._taken.add(candidate)
        return candidate
