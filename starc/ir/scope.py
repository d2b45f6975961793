"""Lexical scopes and the symbol factory of semantic analysis."""

from __future__ import annotations

import contextlib
import difflib
import sys
from typing import Dict, Iterator, Optional

from starc.diagnostics import NO_LOC, Diagnostic, DiagnosticSink, Severity, SourceLoc
from starc.ir.nodes import Symbol, SymbolKind
from starc.ir.types import Type

__all__ = ["Scope", "SymbolFactory", "ERROR", "ErrorType", "is_error", "stack_room"]


class ErrorType:
    """The type of an expression that already produced an error: it converts to anything
    silently, so one mistake gives one diagnostic. It never reaches a returned IR."""

    def __str__(self) -> str:
        return "<error>"

    def __repr__(self) -> str:
        return "ERROR"


ERROR = ErrorType()


def is_error(t) -> bool:
    return t is ERROR


@contextlib.contextmanager
def stack_room(frames: int = 20000):
    """Room for the recursive walks over the tree: the parser accepts nesting 200 deep and a
    caller may already be deep in its own stack (Python 3.11 frames cost no C stack)."""
    old = sys.getrecursionlimit()
    if old < frames:
        sys.setrecursionlimit(frames)
    try:
        yield
    finally:
        if sys.getrecursionlimit() == max(old, frames):
            sys.setrecursionlimit(old)


class SymbolFactory:
    """Hands out symbols with uids in creation order (deterministic per analysis run)."""

    def __init__(self) -> None:
        self._next = 1

    def make(self, name: str, type_: Type, kind: SymbolKind, loc: SourceLoc = NO_LOC) -> Symbol:
        sym = Symbol(name, type_, kind, self._next, loc)
        self._next += 1
        return sym


class Scope:
    """One block's names, chained to the enclosing scope."""

    def __init__(self, parent: Optional["Scope"] = None) -> None:
        self.parent = parent
        self.names: Dict[str, Symbol] = {}

    def lookup(self, name: str) -> Optional[Symbol]:
        scope: Optional[Scope] = self
        while scope is not None:
            sym = scope.names.get(name)
            if sym is not None:
                return sym
            scope = scope.parent
        return None

    def declare(self, sym: Symbol, sink: DiagnosticSink) -> bool:
        """Add ``sym``; on a duplicate in this same scope report E0202 (with a note at the
        first declaration) and keep the first. Shadowing an outer name is allowed."""
        first = self.names.get(sym.name)
        if first is not None:
            note = Diagnostic(Severity.NOTE, f"'{first.name}' is first declared here", first.loc)
            sink.extend([Diagnostic(
                Severity.ERROR, f"duplicate declaration of '{sym.name}'", sym.loc, "E0202",
                hint="rename one of them (an inner block may shadow an outer name)",
                notes=(note,) if first.loc.line > 0 else ())])
            return False
        self.names[sym.name] = sym
        return True

    def symbols(self) -> Iterator[Symbol]:
        return iter(self.names.values())

    def suggest(self, name: str, wanted=lambda sym: True) -> Optional[str]:
        """The visible name closest to a misspelt ``name`` (for a "did you mean" hint)."""
        visible, scope = set(), self
        while scope is not None:
            visible.update(n for n, sym in scope.names.items() if wanted(sym))
            scope = scope.parent
        close = difflib.get_close_matches(name, sorted(visible), n=1, cutoff=0.75)
        return close[0] if close else None
