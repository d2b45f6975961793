"""Source locations, diagnostics with codes, their rendering, and internal-error locations."""

from __future__ import annotations

import enum
import functools
import sys
from typing import Callable, Dict, Iterable, List, Optional, Sequence, TextIO, TypeVar

from starc.errors import StarcError
from starc.records import Record, record

__all__ = [
    "SourceLoc", "Severity", "Diagnostic", "DiagnosticSink", "CompileError",
    "ERROR_CODES", "WARNING_IDS", "render", "NO_LOC",
    "tracks_construct", "note_construct", "construct_of", "report_internal_error",
]


@record
class SourceLoc(Record):
    """A position in a source file; lines and columns count from 1."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


NO_LOC = SourceLoc("<unknown>", 0, 0)


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


# The catalogue of error codes: one place, so a code always means one thing.
# Ranges: E01xx lexical/syntax, E02xx names and scopes, E03xx types, E04xx language rules,
# E05xx backend limits, E06xx command line and inputs, E09xx internal.
ERROR_CODES: Dict[str, str] = {
    "E0101": "invalid character",
    "E0102": "unterminated comment",
    "E0103": "syntax error",
    "E0104": "unexpected end of input",
    "E0105": "not supported yet",
    "E0106": "malformed number",
    "E0201": "undeclared name",
    "E0202": "duplicate declaration",
    "E0203": "undeclared property",
    "E0204": "unknown function or built-in",
    "E0205": "wrong number of arguments",
    "E0206": "not a graph",
    "E0301": "type mismatch",
    "E0302": "wrong property kind",
    "E0303": "not assignable",
    "E0304": "invalid operand",
    "E0305": "edge property needs a propEdge",
    "E0401": "scalar read before assignment",
    "E0402": "invalid reduction",
    "E0403": "invalid Min/Max assignment",
    "E0404": "invalid fixedPoint",
    "E0405": "iterateInReverse without iterateInBFS",
    "E0406": "break/continue outside a loop",
    "E0407": "invalid return",
    "E0408": "invalid filter",
    "E0409": "invalid attach",
    "E0410": "data race (promoted warning)",
    "E0411": "recursive call",
    "E0412": "invalid loop source",
    "E0413": "invalid dynamic-graph construct",
    "E0414": "parameter named like a run option",
    "E0501": "construct not supported by backend",
    "E0502": "backend unavailable",
    "E0601": "bad command-line argument",
    "E0602": "bad input file",
    "E0901": "internal compiler error",
}

# Warnings have a stable name used by `-W no-<name>`; the value is the one-line meaning.
WARNING_IDS: Dict[str, str] = {
    "compat-alias": "a StarPlat compatibility alias was accepted",
    "node-int-conversion": "implicit conversion between node and int",
    "data-race": "a plain write to shared data inside a forall",
    "unused": "a declared name is never used",
    "no-result": "a Dynamic function returns nothing and writes no property",
    "signed-sum": "a loop's convergence test sums differences with their sign",
    "narrowing": "an implicit conversion may lose precision",
    "schedule": "--schedule does not apply to a forall, which keeps one work item per vertex",
    "starplat-compat": "a StarPlat spelling was read with its StarPlat meaning (a note)",
}


@record
class Diagnostic(Record):
    """One message about the program: severity, code or warning id, location, text."""

    severity: Severity
    message: str
    loc: SourceLoc = NO_LOC
    code: str = ""  # E.... for errors, a WARNING_IDS name for warnings
    hint: Optional[str] = None
    notes: Sequence["Diagnostic"] = ()

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def header(self) -> str:
        tag = self.severity.value
        if self.code:
            tag = f"{tag}[{self.code}]"
        where = f"{self.loc}: " if self.loc is not NO_LOC and self.loc.line > 0 else (
            f"{self.loc.file}: " if self.loc.file != NO_LOC.file else "")
        return f"{where}{tag}: {self.message}"


def _caret_lines(diag: Diagnostic, sources: Dict[str, str]) -> List[str]:
    text = sources.get(diag.loc.file)
    if text is None or diag.loc.line <= 0:
        return []
    lines = text.splitlines()
    if diag.loc.line > len(lines):
        return []
    line = lines[diag.loc.line - 1].expandtabs(1)
    col = max(1, min(diag.loc.col, len(line) + 1))
    gutter = f"{diag.loc.line:>5} | "
    return [gutter + line, " " * (len(gutter) - 2) + "| " + " " * (col - 1) + "^"]


def render(diag: Diagnostic, sources: Optional[Dict[str, str]] = None) -> str:
    """The text a user sees: header, source line with caret, hint and notes."""
    sources = sources or {}
    out = [diag.header()]
    out.extend(_caret_lines(diag, sources))
    if diag.hint:
        out.append(f"      = help: {diag.hint}")
    for note in diag.notes:
        out.append(render(note, sources))
    return "\n".join(out)


class DiagnosticSink:
    """Collects diagnostics for one compilation and applies the warning options.

    ``disabled`` holds warning names switched off with ``-W no-<name>``; with ``werror`` every
    enabled warning becomes an error (keeping its name in the message).
    """

    def __init__(self, disabled: Iterable[str] = (), werror: bool = False) -> None:
        self.diagnostics: List[Diagnostic] = []
        self.disabled = set(disabled)
        self.werror = werror
        self.sources: Dict[str, str] = {}
        self._printed: set = set()

    def add_source(self, filename: str, text: str) -> None:
        self.sources[filename] = text

    def error(self, code: str, message: str, loc: SourceLoc = NO_LOC,
              hint: Optional[str] = None) -> Diagnostic:
        assert code in ERROR_CODES, code
        diag = Diagnostic(Severity.ERROR, message, loc, code, hint)
        self.diagnostics.append(diag)
        return diag

    def warning(self, name: str, message: str, loc: SourceLoc = NO_LOC,
                hint: Optional[str] = None) -> Optional[Diagnostic]:
        assert name in WARNING_IDS, name
        if name in self.disabled:
            return None
        if self.werror:
            diag = Diagnostic(Severity.ERROR, f"{message} [-Werror={name}]", loc, name, hint)
        else:
            diag = Diagnostic(Severity.WARNING, message, loc, name, hint)
        self.diagnostics.append(diag)
        return diag

    def note(self, name: str, message: str, loc: SourceLoc = NO_LOC,
             hint: Optional[str] = None) -> Optional[Diagnostic]:
        """A note under a warning id: '-W no-<name>' silences it; -Werror leaves it a note
        (it names an accepted spelling, not a likely mistake)."""
        assert name in WARNING_IDS, name
        if name in self.disabled:
            return None
        diag = Diagnostic(Severity.NOTE, message, loc, name, hint)
        self.diagnostics.append(diag)
        return diag

    def extend(self, diags: Iterable[Diagnostic]) -> None:
        self.diagnostics.extend(diags)

    @property
    def errors(self) -> List[Diagnostic]:
        return [d for d in self.diagnostics if d.is_error]

    @property
    def has_errors(self) -> bool:
        return any(d.is_error for d in self.diagnostics)

    def sorted(self) -> List[Diagnostic]:
        return sorted(self.diagnostics, key=lambda d: (d.loc.file, d.loc.line, d.loc.col))

    def emit(self, stream: Optional[TextIO] = None) -> None:
        """Print, in source order, every diagnostic not printed by an earlier call."""
        stream = stream or sys.stderr     # looked up now: tests and callers redirect it
        for diag in self.sorted():
            if id(diag) not in self._printed:
                print(render(diag, self.sources), file=stream)
                self._printed.add(id(diag))

    def raise_if_errors(self) -> None:
        if self.has_errors:
            raise CompileError(self.errors)


class CompileError(StarcError):
    """Raised to stop a stage that found errors; carries the diagnostics."""

    def __init__(self, diagnostics: Sequence[Diagnostic]) -> None:
        self.diagnostics = list(diagnostics)
        super().__init__("\n".join(d.header() for d in self.diagnostics))


# --- where an internal error happened ------------------------------------------------------------
#
# A stage that fails unexpectedly is reported at the construct it was processing. The recursive
# visitors mark their entry with ``tracks_construct``: an exception leaving one is tagged, once,
# with the innermost node that has a source location, and ``report_internal_error`` reads the
# tag. The tag travels with the exception, so there is no shared state to reset between
# compilations or threads, and the normal path costs one call frame per visited node.

_CONSTRUCT = "_starc_construct"
F = TypeVar("F", bound=Callable)


def note_construct(exc: BaseException, node) -> None:
    """Tag ``exc`` with ``node`` unless an inner construct already did; an exception raised
    while handling another keeps the construct of the one it replaced."""
    if _CONSTRUCT in vars(exc):
        return
    inner = exc.__cause__ or exc.__context__
    found = construct_of(inner) if inner is not None else None
    if found is None:
        loc = getattr(node, "loc", None)
        if not isinstance(loc, SourceLoc) or loc.line <= 0:
            return      # an outer construct with a location will tag it
        found = node
    setattr(exc, _CONSTRUCT, found)


def construct_of(exc: BaseException):
    """The innermost located construct an exception left, or None."""
    return vars(exc).get(_CONSTRUCT)


def tracks_construct(visit: F) -> F:
    """Decorate a visitor method ``visit(self, node)`` or ``visit(self, node, context)``
    so an exception leaving it names ``node`` (see ``note_construct``). The wrapper takes
    exactly the method's positional arguments: a ``*args`` call would cost a C stack frame
    per tree level, which deep trees cannot afford."""
    arity = visit.__code__.co_argcount
    if arity == 2:
        def tracked(self, node):
            try:
                return visit(self, node)
            except Exception as exc:
                note_construct(exc, node)
                raise
    elif arity == 3:
        def tracked(self, node, context):   # type: ignore[misc]
            try:
                return visit(self, node, context)
            except Exception as exc:
                note_construct(exc, node)
                raise
    else:
        raise TypeError(f"{visit.__qualname__}: a tracked visitor takes (self, node) or "
                        "(self, node, context)")
    return functools.wraps(visit)(tracked)  # type: ignore[return-value]


def report_internal_error(sink: DiagnosticSink, stage: str, exc: BaseException) -> Diagnostic:
    """E0901 for an unexpected exception in ``stage``, at the construct it left."""
    node = construct_of(exc)
    what = f" while processing {type(node).__name__}" if node is not None else ""
    return sink.error("E0901", f"internal compiler error in {stage}{what}: "
                      f"{type(exc).__name__}: {exc}", node.loc if node is not None else NO_LOC,
                      hint="please report this; rerun with --traceback for the stack")
