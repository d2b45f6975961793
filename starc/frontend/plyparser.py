"""The machinery around the grammar: the token stream PLY reads, located syntax errors, limits.

As in pycparser's ``plyparser``: ``PLYParser`` holds what the grammar actions of
``starc.frontend.parser.Parser`` use besides the grammar itself (the lexer, the file name,
token locations, the diagnostics of the parse in progress) and drives one parse (``run``).
"""

from __future__ import annotations

from typing import List, Optional

from starc.diagnostics import CompileError, Diagnostic, Severity, SourceLoc
from starc.frontend import ast
from starc.frontend.lexer import DYNAMIC_FEATURES, TOKEN_SPELLINGS, Lexer

__all__ = ["PLYParser", "RecordingLogger", "MAX_ERRORS", "MAX_DEPTH", "MAX_CHAIN"]

MAX_ERRORS = 20     # stop after this many diagnostics: later ones are mostly follow-on noise
MAX_DEPTH = 200     # deepest syntax tree accepted; later stages recurse over the tree
MAX_CHAIN = 1000    # longest flat chain of binary operators (a + b + ... is not nesting)


class _TooManyErrors(Exception):
    """Raised inside the parse to stop after MAX_ERRORS diagnostics."""


class RecordingLogger:
    """A PLY logger that keeps warnings and errors (PLY would print them to stderr)."""

    def __init__(self) -> None:
        self.messages: List[str] = []

    def _record(self, msg, *args, **kwargs):
        self.messages.append(msg % args if args else str(msg))

    warning = error = critical = _record

    def debug(self, msg, *args, **kwargs):
        pass

    info = debug


class PLYParser:
    """One parse at a time: a subclass adds the grammar and builds ``self.yacc`` from it."""

    def __init__(self) -> None:
        self.lexer = Lexer(self._lex_error)
        self.filename = "<input>"
        self.diagnostics: List[Diagnostic] = []
        self._previous = self._current = None   # the last two tokens read
        self.yacc = None

    # --- driving the parse ---------------------------------------------------------------

    def run(self, text: str, filename: str) -> ast.Program:
        self.filename = filename
        self.diagnostics = []
        self._previous = self._current = None
        self.lexer.input(text)
        program = None
        try:
            program = self.yacc.parse(lexer=self, tracking=False)
            if program is None and not self.diagnostics:
                self._error_at_end("E0104", "unexpected end of input")
        except _TooManyErrors:
            pass
        if not self.diagnostics:
            deep = _too_deep(program)
            if deep is not None:
                self._error("E0103", f"syntax error: nesting too deep (more than {MAX_DEPTH} "
                                     f"levels, or a chain of more than {MAX_CHAIN} binary "
                                     "operators)", deep.loc)
        if self.diagnostics:
            raise CompileError(sorted(self.diagnostics, key=lambda d: (d.loc.line, d.loc.col)))
        return program

    def token(self):
        """The token stream PLY reads: the lexer's, with reserved words reported."""
        self._previous = self._current
        tok = self._current = self.lexer.token()
        if tok is not None and tok.type == "RESERVED":
            self._error("E0105", f"'{tok.value}': {DYNAMIC_FEATURES[tok.value]} are not "
                                 "supported yet", self._tok_loc(tok),
                        hint="keep per-vertex state in propNode properties: see \"Issue 31: "
                             "dynamic graphs\" in docs/language-notes.md")
        return tok

    # --- diagnostics -----------------------------------------------------------------------

    def _error(self, code: str, message: str, loc: SourceLoc, hint: Optional[str] = None) -> None:
        self.diagnostics.append(Diagnostic(Severity.ERROR, message, loc, code, hint))
        if len(self.diagnostics) >= MAX_ERRORS:
            raise _TooManyErrors()

    def _lex_error(self, code: str, message: str, line: int, col: int) -> None:
        self._error(code, message, SourceLoc(self.filename, line, col))

    def _error_at_end(self, code: str, message: str) -> None:
        text = self.lexer.text.rstrip()
        line = text.count("\n") + 1
        col = len(text) - text.rfind("\n")
        self._error(code, message, SourceLoc(self.filename, line, col))

    def _tok_loc(self, tok) -> SourceLoc:
        return SourceLoc(self.filename, tok.lineno, self.lexer.column(tok.lexpos))

    def _loc(self, p, i: int) -> SourceLoc:
        return SourceLoc(self.filename, p.lineno(i), self.lexer.column(p.lexpos(i)))

    def _expected(self, tok) -> str:
        """``, expected X`` when the parser state allows only a few tokens (or a ';' is
        missing at the end of a line), else ''."""
        try:
            state = self.yacc.statestack[-1]
            allowed = {t for t in self.yacc.action[state] if t not in ("error", "$end", "RESERVED")}
        except (AttributeError, IndexError, KeyError):
            return ""
        if ";" in allowed and self._previous is not None and self._previous.lineno < tok.lineno:
            allowed = {";"}
        if tok.type == "{" and ")" in allowed:     # a header's ')' forgotten before its body
            allowed = {")"}
        if "IN" in allowed:     # a loop's ':' (StarPlat's) is parsed only to refuse it: not offered
            allowed.discard(":")
        if "FUNCTION" in allowed:     # where a function starts: its five kinds
            return (", expected 'function', 'Static', 'Dynamic', 'Incremental' or "
                    "'Decremental'")
        names = sorted({TOKEN_SPELLINGS.get(t, t) for t in allowed})
        if not names or len(names) > 3:
            return ""
        return ", expected " + " or ".join(
            n if n.startswith("a") and " " in n else f"'{n}'" for n in names)


def _too_deep(program: Optional[ast.Program]) -> Optional[ast.Node]:
    """The first node deeper than MAX_DEPTH, found without recursion, or None.

    The left operand of a binary operator sits at its operator's depth: ``a + b + ... + z``
    is a flat chain to the reader however long (the tree leans left only because the
    operators are left-associative), while parentheses, unary operators, calls and blocks
    nest. A chain is instead limited to MAX_CHAIN operators, which later stages (recursing
    down the left spine) handle within their stack room."""
    if program is None:
        return None
    stack = [(program, 1, 0)]
    while stack:
        node, depth, chain = stack.pop()
        if depth > MAX_DEPTH or chain > MAX_CHAIN:
            return node
        for child in ast.children(node):
            if isinstance(node, ast.Binary) and child is node.left:
                stack.append((child, depth, chain + 1))
            else:
                stack.append((child, depth + 1, 0))
    return None
