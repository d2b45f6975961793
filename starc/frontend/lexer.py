"""The lexer: source text to tokens (PLY), reporting bad characters, comments and numbers."""

from __future__ import annotations

import re
from typing import Callable, Optional

import ply.lex

__all__ = ["Lexer", "tokenize", "rules_signature", "KEYWORDS", "RESERVED_WORDS",
           "DYNAMIC_FEATURES", "TOKEN_SPELLINGS"]

# Every keyword of the language (LANGUAGE.md §1) with its token type; the compatibility
# aliases map onto the token of the word they stand for and keep their spelling as value.
KEYWORDS = {
    "function": "FUNCTION", "Static": "STATIC",
    "forall": "FORALL", "for": "FOR", "in": "IN",
    "if": "IF", "else": "ELSE", "while": "WHILE", "do": "DO",
    "return": "RETURN", "break": "BREAK", "continue": "CONTINUE",
    "fixedPoint": "FIXEDPOINT", "until": "UNTIL",
    "iterateInBFS": "ITERATEINBFS", "iterateInReverse": "ITERATEINREVERSE",
    "from": "FROM", "filter": "FILTER",
    "Min": "MIN", "Max": "MAX", "Sum": "SUM", "Count": "COUNT", "Product": "PRODUCT",
    "True": "TRUE", "False": "FALSE", "INF": "INF",
    "true": "TRUE", "false": "FALSE", "INT_MAX": "INF",
    "int": "INT", "long": "LONG", "float": "FLOAT", "double": "DOUBLE", "bool": "BOOL",
    "node": "NODE", "edge": "EDGE", "Graph": "GRAPH", "dirGraph": "DIRGRAPH",
    "propNode": "PROPNODE", "propEdge": "PROPEDGE", "SetN": "SETN", "SetE": "SETE",
    # StarPlat's dynamic-graph extension (docs/language-notes.md, "Issue 31")
    "Dynamic": "DYNAMIC", "Incremental": "INCREMENTAL", "Decremental": "DECREMENTAL",
    "Batch": "BATCH", "OnAdd": "ONADD", "OnDelete": "ONDELETE", "updates": "UPDATES",
}

# The containers of StarPlat's dynamic-graph programs: lexed as one token that is rejected
# (E0105) with the feature it belongs to (the message names it, the help line points to the
# docs). The rest of the extension is supported (the keywords above).
DYNAMIC_FEATURES = dict.fromkeys(
    "container nodeMap Heap Map list".split(),
    "the dynamic-graph containers (container, nodeMap, Map, list, Heap)")
RESERVED_WORDS = frozenset(DYNAMIC_FEATURES)

# Multi-character operators: token type -> spelling.
_OPERATORS = {
    "OROR": "||", "ANDAND": "&&", "EQ": "==", "NE": "!=", "LE": "<=", "GE": ">=",
    "PLUSEQ": "+=", "MINUSEQ": "-=", "TIMESEQ": "*=", "DIVEQ": "/=", "ANDEQ": "&=",
    "OREQ": "|=", "PLUSPLUS": "++", "MINUSMINUS": "--",
}

# How a token type is named in "expected ..." messages.
TOKEN_SPELLINGS = dict(_OPERATORS)
TOKEN_SPELLINGS.update({v: k for k, v in KEYWORDS.items() if k not in ("true", "false", "INT_MAX")})
TOKEN_SPELLINGS.update({"ID": "an identifier", "INT_CONST": "a number",
                        "FLOAT_CONST": "a number", "RESERVED": "a reserved word"})

_NUMBER_TAIL = re.compile(r"[A-Za-z0-9_]+")

ErrorCallback = Callable[[str, str, int, int], None]


def _show_char(ch: str) -> str:
    if ch.isprintable() and ch not in "'\\":
        return ch
    return ch.encode("unicode_escape").decode("ascii") if ch != "'" else "\\'"


class Lexer:
    """A PLY lexer as a class (as in pycparser). ``on_error(code, message, line, col)`` is
    called for every lexical error; lexing always continues after one."""

    keywords = KEYWORDS
    reserved = RESERVED_WORDS

    tokens = tuple(sorted(set(KEYWORDS.values()))) + tuple(_OPERATORS) + (
        "ID", "INT_CONST", "FLOAT_CONST", "RESERVED")

    literals = "+-*/%!<>=.,;:(){}[]"

    t_ignore = " \t\r\f\v"

    t_OROR = r"\|\|"
    t_ANDAND = r"&&"
    t_EQ = r"=="
    t_NE = r"!="
    t_LE = r"<="
    t_GE = r">="
    t_PLUSEQ = r"\+="
    t_MINUSEQ = r"-="
    t_TIMESEQ = r"\*="
    t_DIVEQ = r"/="
    t_ANDEQ = r"&="
    t_OREQ = r"\|="
    t_PLUSPLUS = r"\+\+"
    t_MINUSMINUS = r"--"

    def __init__(self, on_error: ErrorCallback) -> None:
        self.on_error = on_error
        self.text = ""
        # With current shipped tables PLY skips checking the rules (optimize mode), two thirds
        # of building a lexer; a module object as lextab also keeps it from writing one.
        tables = _shipped_tables(self)
        self.lexer = ply.lex.lex(module=self, optimize=tables is not None, lextab=tables,
                                 errorlog=ply.lex.NullLogger())
        self.unterminated_comment = False

    # --- public interface -------------------------------------------------------------

    def input(self, text: str) -> None:
        self.text = text
        self.unterminated_comment = False
        self.lexer.lineno = 1
        self.lexer.input(text)

    def token(self):
        return self.lexer.token()

    def column(self, lexpos: int) -> int:
        """The 1-based column of ``lexpos``, counted from the last newline before it."""
        return lexpos - self.text.rfind("\n", 0, lexpos)

    # --- rules (functions first: PLY tries them in definition order) --------------------

    def t_newline(self, t):
        r"\n+"
        t.lexer.lineno += len(t.value)

    def t_comment_block(self, t):
        r"/\*[\s\S]*?\*/"
        t.lexer.lineno += t.value.count("\n")

    def t_comment_unterminated(self, t):
        r"/\*"
        self.unterminated_comment = True
        self.on_error("E0102", "unterminated comment", t.lineno, self.column(t.lexpos))
        # Nothing after an open comment is code: stop here (lineno still counts the rest).
        t.lexer.lineno += self.text.count("\n", t.lexpos)
        t.lexer.lexpos = len(self.text)

    def t_comment_line(self, t):
        r"//[^\n]*"

    def t_NUMBER(self, t):
        r"(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?"
        text = t.value
        t.type = "FLOAT_CONST" if any(c in text for c in ".eE") else "INT_CONST"
        tail = _NUMBER_TAIL.match(self.text, t.lexpos + len(text))
        if tail:
            bad = text + tail.group()
            self.on_error("E0106", f"malformed number '{bad}'", t.lineno, self.column(t.lexpos))
            t.lexer.lexpos = tail.end()
        return t

    def t_ID(self, t):
        r"[A-Za-z_][A-Za-z0-9_]*"
        if t.value in self.reserved:
            t.type = "RESERVED"
        else:
            t.type = self.keywords.get(t.value, "ID")
        return t

    def t_error(self, t):
        ch = t.value[0]
        self.on_error("E0101", f"invalid character '{_show_char(ch)}'", t.lineno,
                      self.column(t.lexpos))
        t.lexer.skip(1)


def rules_signature(lexer: Lexer) -> str:
    """The rules as PLY reads them from ``lexer`` (tokens, literals, ignored characters, each
    rule's name and regular expression in PLY's order, the error rule). It takes no regular
    expression compiling: the shipped tables are current when theirs is the same."""
    reflect = ply.lex.LexerReflect({name: getattr(lexer, name) for name in dir(lexer)},
                                   log=ply.lex.NullLogger())
    reflect.get_all()
    functions = {state: [(name, rule.__doc__) for name, rule in rules]
                 for state, rules in reflect.funcsym.items()}
    errors = {state: rule.__name__ for state, rule in reflect.errorf.items()}
    return repr((sorted(reflect.tokens), reflect.literals, reflect.stateinfo, reflect.ignore,
                 functions, reflect.strsym, errors))


def _shipped_tables(lexer: Lexer):
    """``starc.frontend.parse_tables`` when its lexer tables are this lexer's, else None."""
    from starc.frontend import parse_tables
    if getattr(parse_tables, "_lexsignature", None) != rules_signature(lexer):
        return None
    return parse_tables


def tokenize(text: str, on_error: Optional[ErrorCallback] = None):
    """``(type, value, line, col)`` for every token of ``text`` (for tests and tools)."""
    errors = []
    lexer = Lexer(on_error or (lambda *args: errors.append(args)))
    lexer.input(text)
    out = []
    while True:
        tok = lexer.token()
        if tok is None:
            return out
        out.append((tok.type, tok.value, tok.lineno, lexer.column(tok.lexpos)))
